"""Heads that align, for a model that splits words into pieces (a Hugging Face MarianMT folder): its
heads are scored on the words an alignment file counts. The reference here reads transformers' own
cross-attention maps and finds each piece's word from SentencePiece's word-start marker, not from
transviz's tokenizer code: a source word weighs the sum of its pieces, a target word is written by
the row of its first piece, and a row whose heaviest column is </s> chooses no word."""
from __future__ import annotations

import random

import numpy as np
import pytest
import torch

pytest.importorskip("transformers")
pytest.importorskip("sentencepiece")

import transviz
from hf_folders import ENGLISH, WORDS, bart_folder, gpt2_folder, marian_folder
from transviz.core.analysis.alignment_heads import alignment_heads, gold_pairs
from transviz.core.base.errors import InputError

pytestmark = pytest.mark.hf
MARK = "\u2581"  # SentencePiece's word start


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    # a small vocabulary: most words split into several pieces
    return marian_folder(tmp_path_factory.mktemp("marian"), seed=5, vocab=36, english_target=True)


@pytest.fixture(scope="module")
def corpus(folder, tmp_path_factory):
    """Twelve pairs of made-up sentences (no final full stop: one word each way), with links of
    every source word to a random target word."""
    rng = random.Random(0)
    pairs, lines = [], []
    for _ in range(12):
        source, target = rng.choices(WORDS, k=rng.randint(2, 6)), rng.choices(ENGLISH, k=rng.randint(2, 6))
        pairs.append((" ".join(source), " ".join(target)))
        lines.append(" ".join(f"{i}-{rng.randrange(len(target))}" for i in range(len(source))))
    base = tmp_path_factory.mktemp("corpus")
    (base / "c.tsv").write_text("".join(f"{s}\t{t}\n" for s, t in pairs), encoding="utf-8")
    (base / "c.align").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return base / "c.tsv", base / "c.align", pairs, lines


def words_of(pieces: list[str], specials: set[str]) -> list[int]:
    """Each piece's word by the marker alone: a piece starting with it starts a word; -1: special."""
    word, found = -1, []
    for piece in pieces:
        if piece in specials:
            found.append(-1)
            continue
        if piece.startswith(MARK) or word < 0:
            word += 1
        found.append(word)
    return found


def reference_choices(reference, tokenizer, source: str, target: str) -> np.ndarray:
    """(layers, heads, target words): each head's chosen source word, from transformers' maps."""
    specials = set(tokenizer.all_special_tokens)
    source_ids = tokenizer(source)["input_ids"]
    target_ids = tokenizer(text_target=target)["input_ids"]  # its pieces, then </s>
    decoder_in = [reference.config.decoder_start_token_id, *target_ids[:-1]]
    with torch.no_grad():
        out = reference(input_ids=torch.tensor([source_ids]), decoder_input_ids=torch.tensor([decoder_in]),
                        output_attentions=True)
    maps = torch.stack([a[0] for a in out.cross_attentions]).double().numpy()  # (layers, heads, T, S)
    source_words = words_of(tokenizer.convert_ids_to_tokens(source_ids), specials)
    target_pieces = tokenizer.convert_ids_to_tokens(target_ids[:-1])
    target_words = words_of(target_pieces, specials)
    first_rows = [j for j, w in enumerate(target_words) if w >= 0 and w not in target_words[:j]]
    choices = np.full(maps.shape[:2] + (len(first_rows),), -1)
    for layer in range(maps.shape[0]):
        for head in range(maps.shape[1]):
            for k, row in enumerate(first_rows):
                weights = maps[layer, head, row]
                per_word = {}
                for column, word in enumerate(source_words):
                    if word >= 0:
                        per_word[word] = per_word.get(word, 0.0) + weights[column]
                best_word = max(per_word, key=per_word.get)
                specials_best = max((weights[c] for c, w in enumerate(source_words) if w < 0), default=-1.0)
                choices[layer, head, k] = best_word if per_word[best_word] > specials_best else -1
    return choices


def test_a_subword_models_heads_are_scored_on_words_as_transformers_maps_give_them(folder, corpus):
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    data, links, pairs, lines = corpus
    model = transviz.load_model(str(folder))
    reference = AutoModelForSeq2SeqLM.from_pretrained(folder, local_files_only=True, attn_implementation="eager").eval()
    tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    split = [len(tokenizer.tokenize(s)) > len(s.split()) for s, _ in pairs]
    assert sum(split) >= 6, "the test needs sentences whose words split into pieces"
    found = alignment_heads(model, gold_pairs(model, str(data), str(links)))
    layers, heads = found.accuracy.shape
    hits, steps = np.zeros((layers, heads)), 0
    for (source, target), line in zip(pairs, lines, strict=True):
        gold = {tuple(map(int, link.split("-"))) for link in line.split()}
        chosen = reference_choices(reference, tokenizer, source, target)
        linked = {j for _, j in gold}
        steps += len(linked)
        for j in linked:
            hits += np.isin(chosen[..., j], [i for i, jj in gold if jj == j]) & (chosen[..., j] >= 0)
    assert found.steps == steps
    np.testing.assert_allclose(found.accuracy, hits / steps, atol=1e-12)
    example = found.example
    assert example.source_tokens == tuple(pairs[0][0].split()) and example.target_tokens == tuple(pairs[0][1].split())


def test_links_past_a_sentences_words_are_refused_for_a_subword_model_too(folder, corpus, tmp_path):
    data, _, pairs, _ = corpus
    words = len(pairs[0][0].split())
    links = tmp_path / "bad.align"
    links.write_text(f"{words}-0\n" + "\n" * (len(pairs) - 1), encoding="utf-8")
    with pytest.raises(InputError, match="past its sentence"):
        gold_pairs(transviz.load_model(str(folder)), str(data), str(links))


@pytest.mark.parametrize(("build", "marker"), [(marian_folder, MARK), (bart_folder, "\u0120"), (gpt2_folder, "\u0120")])
def test_each_piece_belongs_to_the_word_its_word_start_marker_says(tmp_path, build, marker):
    """SentencePiece marks a word's first piece with U+2581, byte-level BPE with U+0120 (a lone marker
    piece, the space, opens the next word); the first word of a sentence has no marker."""
    vocab = transviz.load_model(str(build(tmp_path, seed=1, vocab=36) if build is marian_folder
                                     else build(tmp_path, seed=1))).src_vocab
    for sentence in ("der hund ist sehr klein und rot.", "katze schreibt heute", "gut"):
        pieces = vocab.tokenize(sentence)
        specials = {p for p in pieces if p.startswith("<") and p.endswith(">")}
        expected, word = [], -1
        for piece in pieces:
            if piece in specials:
                expected.append(-1)
                continue
            word += piece.startswith(marker) or word < 0
            expected.append(word)
        assert vocab.unit_of_tokens(sentence) == expected, pieces
        assert vocab.alignment_units(sentence) == sentence.split()
