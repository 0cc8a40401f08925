"""The masks tab's batch without Qt: padding, causal and combined masks against masks recomputed
with numpy from the padded ids, their invariants, and the greedy translations against a greedy
loop of full forward passes (no key/value cache, no decoding session)."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import transviz
from transviz.core.analysis.mask_batch import (
    TRANSLATION_MAX_LEN,
    MaskBatch,
    decoder_batch,
    mask_batch,
    source_batch,
    split_sentences,
    translate,
    translated_inputs,
)
from transviz.core.base.errors import InputError
from transviz.core.model.transformer import Transformer
from transviz.core.model.vocab import BOS, EOS, PAD, Vocab

WORDS = "ich mochte ein bier bitte danke".split()
TARGET_WORDS = "i want a beer please thanks".split()
SENTENCES = ["ich mochte ein bier", "ein bier", "ich mochte ein bier bitte"]


@pytest.fixture(scope="module")
def model() -> transviz.Model:
    return transviz.load_model("default")


def padding_reference(ids: np.ndarray, pad_id: int) -> np.ndarray:
    """(B, L) ids -> (B, L): True where the key is not padding."""
    return ids != pad_id


def combined_reference(ids: np.ndarray, pad_id: int) -> np.ndarray:
    """(B, T) ids -> (B, T, T): query q sees key k when k <= q and k is not padding."""
    length = ids.shape[1]
    causal = np.arange(length)[None, :] <= np.arange(length)[:, None]  # (T, T): rows queries, columns keys
    return causal[None] & padding_reference(ids, pad_id)[:, None, :]


def check_invariants(batch: MaskBatch, pad_id: int) -> None:
    """Shapes, PAD where the ids are the pad id, masks equal to the numpy references."""
    source, decoder = batch.source, batch.decoder
    b, s = source.ids.shape
    assert b == len(source.sentences) == len(source.tokens) and all(len(row) == s for row in source.tokens)
    assert source.padding.shape == (b, 1, 1, s) and source.padding.dtype == torch.bool
    src_ids = source.ids.numpy()
    np.testing.assert_array_equal(source.padding[:, 0, 0].numpy(), padding_reference(src_ids, pad_id))
    assert [[t == PAD for t in row] for row in source.tokens] == (src_ids == pad_id).tolist()

    rows, t_max = decoder.ids.shape
    assert decoder.combined.shape == (rows, 1, t_max, t_max) and decoder.combined.dtype == torch.bool
    dec_ids = decoder.ids.numpy()
    combined = decoder.combined[:, 0].numpy()
    np.testing.assert_array_equal(combined, combined_reference(dec_ids, pad_id))
    for row in range(rows):
        padded_keys = dec_ids[row] == pad_id
        assert not combined[row][:, padded_keys].any()  # a padded key is blocked for every query
        causal = np.tril(np.ones((t_max, t_max), dtype=bool))
        np.testing.assert_array_equal(combined[row], causal & ~padded_keys[None, :])  # padding AND causal
        assert decoder.tokens[row][0] == BOS
        assert [t == PAD for t in decoder.tokens[row]] == padded_keys.tolist()
    t0 = int((dec_ids[0] != pad_id).sum())
    assert decoder.causal.shape == (1, 1, t0, t0)
    np.testing.assert_array_equal(decoder.causal[0, 0].numpy(), np.tril(np.ones((t0, t0), dtype=bool)))


def test_split_sentences():
    assert split_sentences(" ein bier; ich mochte ein bier bitte ;;\n bitte \n") == [
        "ein bier", "ich mochte ein bier bitte", "bitte"]
    assert split_sentences(" ; \n") == []


def test_source_batch_pads_to_the_longest_sentence():
    vocab = Vocab("ich mochte ein bier bitte".split())
    batch = source_batch(SENTENCES, vocab, vocab.pad_id)
    expected_ids = [[vocab.id_of(w) for w in s.split()] for s in SENTENCES]
    assert batch.ids.tolist() == [row + [0] * (5 - len(row)) for row in expected_ids]
    assert batch.tokens[1] == ["ein", "bier", PAD, PAD, PAD]
    assert batch.padding.shape == (3, 1, 1, 5)
    assert batch.padding[:, 0, 0].tolist() == [[k < n for k in range(5)] for n in (4, 2, 5)]


def test_source_batch_keeps_unknown_words_as_typed():
    vocab = Vocab("ich mochte".split())
    batch = source_batch(["ich trinke", "ich"], vocab, vocab.pad_id)
    assert batch.tokens == [["ich", "trinke"], ["ich", PAD]]
    assert batch.ids.tolist() == [[vocab.id_of("ich"), vocab.unk_id], [vocab.id_of("ich"), vocab.pad_id]]
    assert batch.padding[:, 0, 0].tolist() == [[True, True], [True, False]]  # an unknown word is not padding


def test_decoder_batch_masks_the_padding_and_the_future():
    inputs = [([BOS, "a"], [1, 7]), ([BOS, "a", "b", "c"], [1, 7, 8, 9]), ([BOS], [1])]
    batch = decoder_batch(inputs, pad_id=0)
    assert batch.ids.tolist() == [[1, 7, 0, 0], [1, 7, 8, 9], [1, 0, 0, 0]]
    assert batch.tokens[0] == [BOS, "a", PAD, PAD]
    np.testing.assert_array_equal(batch.combined[:, 0].numpy(), combined_reference(batch.ids.numpy(), 0))
    assert batch.causal.shape == (1, 1, 2, 2)  # row 0's inputs, unpadded
    assert batch.combined[2, 0].tolist() == [[True, False, False, False]] * 4  # only <s> is visible


def test_without_a_model_the_decoder_batch_is_the_target_alone():
    batch = mask_batch(SENTENCES, "i want a beer")
    assert batch.untranslated == SENTENCES[1:] and not batch.complete
    assert batch.decoder.tokens == [[BOS, "i", "want", "a", "beer"]]
    assert batch.decoder.combined.shape == (1, 1, 5, 5) and batch.decoder.causal.shape == (1, 1, 5, 5)
    assert batch.source.padding.shape == (3, 1, 1, 5)
    check_invariants(batch, Vocab.pad_id)


def test_an_empty_target_is_the_start_token_alone():
    batch = mask_batch(["ein bier"], "  ")
    assert batch.decoder.tokens == [[BOS]] and batch.decoder.causal.tolist() == [[[[True]]]]
    assert batch.complete  # one sentence: nothing to translate


def inputs(vocab: Vocab, *tokens: str) -> tuple[list[str], list[int]]:
    return [BOS, *tokens], [vocab.id_of(t) for t in (BOS, *tokens)]


def test_with_translations_every_sentence_has_its_row(model):
    vocab = model.tgt_vocab
    translations = {"ein bier": inputs(vocab, "a", "beer"),
                    "ich mochte ein bier bitte": inputs(vocab, "i", "want", "a", "beautiful", "beer")}
    batch = mask_batch(SENTENCES, "i want", model, translations)
    assert batch.complete and batch.untranslated == []
    assert batch.decoder.tokens == [[BOS, "i", "want", PAD, PAD, PAD], [BOS, "a", "beer", PAD, PAD, PAD],
                                    [BOS, "i", "want", "a", "beautiful", "beer"]]
    assert batch.decoder.combined.shape == (3, 1, 6, 6)
    assert batch.decoder.causal.shape == (1, 1, 3, 3)  # the target so far's, not the batch's
    check_invariants(batch, model.config.pad_id)


def test_missing_translations_leave_row_0_alone_and_are_listed(model):
    known = {"ein bier": inputs(model.tgt_vocab, "a", "beer")}
    batch = mask_batch([*SENTENCES, "bitte", "bitte"], "i", model, known)
    assert batch.untranslated == ["ich mochte ein bier bitte", "bitte"]  # once each, in order
    assert batch.decoder.tokens == [[BOS, "i"]]
    assert batch.source.padding.shape == (5, 1, 1, 5)  # the source half does not wait
    check_invariants(batch, model.config.pad_id)


def greedy_reference(model: transviz.Model, sentence: str, max_len: int = TRANSLATION_MAX_LEN) -> list[str]:
    """Greedy decoding by full forward passes over the whole prefix, stopping at the end token."""
    vocab = model.tgt_vocab
    src = torch.tensor([model.src_vocab.encode(sentence).ids])
    inputs = [vocab.bos_id]
    with torch.no_grad():
        for _ in range(max_len):
            logits = model.net(src, torch.tensor([inputs])).logits  # (1, T, V)
            token = int(logits[0, -1].argmax())
            if token == vocab.eos_id:
                break
            inputs.append(token)
    return vocab.tokens_of(inputs)


def test_translations_are_the_greedy_decoding_of_each_sentence(model):
    found = translate(model, SENTENCES[1:])
    assert list(found) == SENTENCES[1:]
    for sentence, (tokens, ids) in found.items():
        assert tokens == greedy_reference(model, sentence)
        assert ids == [model.tgt_vocab.id_of(t) for t in tokens] and EOS not in tokens
    assert found["ein bier"] == translated_inputs(model, "ein bier")
    batch = mask_batch(SENTENCES, "i want a beer", model, found)
    assert batch.complete and len(batch.decoder.tokens) == 3
    check_invariants(batch, model.config.pad_id)


def test_translate_stops_when_cancelled(model):
    asked = []

    def cancelled() -> bool:
        asked.append(True)
        return len(asked) > 1  # cancelled once the first sentence is done

    found = translate(model, SENTENCES[1:], cancelled)
    assert list(found) == ["ein bier"] and len(asked) == 2


def test_input_errors(model):
    with pytest.raises(InputError, match="empty"):
        mask_batch(["ein bier", "   "], "i")
    with pytest.raises(InputError, match="at most 128"):
        mask_batch(["ein bier"], "a " * 200, model)
    with pytest.raises(InputError):
        translate(model, ["zzz qqq"])  # no word the model knows
    with pytest.raises(ValueError):
        mask_batch([], "i")


@pytest.fixture(scope="module")
def tiny() -> transviz.Model:
    """An untrained model with small vocabularies (mask_batch reads only its vocabularies and config)."""
    torch.manual_seed(0)
    config = transviz.ModelConfig(10, 10, d_model=8, n_heads=2, n_encoder_layers=1, n_decoder_layers=1, d_ff=8,
                                  dropout=0.0, max_len=16)
    return transviz.Model(Transformer(config).eval(), Vocab(WORDS), Vocab(TARGET_WORDS))


@settings(max_examples=40, deadline=None)
@given(source_lengths=st.lists(st.integers(1, 6), min_size=1, max_size=4),
       target_length=st.integers(0, 5), translation_lengths=st.lists(st.integers(0, 6), min_size=3, max_size=3))
def test_masks_of_random_batches(tiny, source_lengths, target_length, translation_lengths):
    sentences = [" ".join(WORDS[:n]) for n in source_lengths]
    vocab = tiny.tgt_vocab
    translations = {s: ([BOS, *TARGET_WORDS[:n]], [vocab.bos_id, *(vocab.id_of(w) for w in TARGET_WORDS[:n])])
                    for s, n in zip(sentences[1:], translation_lengths, strict=False)}
    batch = mask_batch(sentences, " ".join(TARGET_WORDS[:target_length]), tiny, translations)
    assert batch.complete and batch.untranslated == []
    assert len(batch.decoder.tokens) == len(sentences)
    check_invariants(batch, tiny.config.pad_id)


def test_a_windowed_models_combined_mask_has_its_window(model):
    """A model with attention_window = 2: query q sees keys q-1 and q, unless they are padding (a
    padded query with nothing left keeps its own key, as the model does)."""
    config = dataclasses.replace(model.config, attention_window=2)
    net = Transformer(config)
    net.load_state_dict(model.net.state_dict())
    windowed_model = dataclasses.replace(model, net=net)
    batch = mask_batch(SENTENCES, "i want", windowed_model, translate(windowed_model, SENTENCES[1:]))
    ids = batch.decoder.ids.numpy()
    length = ids.shape[1]
    near = np.abs(np.arange(length)[:, None] - np.arange(length)[None, :]) < 2
    expected = combined_reference(ids, model.config.pad_id) & near[None]
    for row in expected:
        for query in range(length):
            if not row[query].any():
                row[query, query] = True
    np.testing.assert_array_equal(batch.decoder.combined[:, 0].numpy(), expected)
    assert not (batch.decoder.combined[:, 0].numpy() == combined_reference(ids, model.config.pad_id)).all()
