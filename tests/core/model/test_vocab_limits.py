"""Vocabularies build in linear time, stop at a stated size, and a vocabulary read back from a
checkpoint is checked strictly: tokens distinct non-empty text, specials first, JSON bools."""
import json
import time

import pytest
import torch
from safetensors import safe_open
from safetensors.torch import save_file

import transviz
from transviz.core.base.errors import ConfigError, InputError
from transviz.core.model.transformer import Transformer
from transviz.core.model.vocab import MAX_TOKENS, SPECIALS, Vocab


def words(first, count, per_line=10):
    """Lines of distinct words, ``per_line`` to a line, made as they are read."""
    for start in range(first, first + count, per_line):
        yield " ".join(f"w{i}" for i in range(start, min(start + per_line, first + count)))


@pytest.mark.timing
def test_two_hundred_thousand_tokens_make_a_vocabulary_at_once():
    start = time.perf_counter()
    vocab = Vocab(f"w{i}" for i in range(200_000))
    assert time.perf_counter() - start < 10  # quadratic, this took minutes
    assert len(vocab) == 200_004 and vocab.itos[4] == "w0" and vocab.stoi["w199999"] == 200_003


@pytest.mark.timing
def test_a_corpus_of_a_hundred_thousand_distinct_words_builds_at_once():
    start = time.perf_counter()
    vocab = Vocab.build(words(0, 100_000))
    assert time.perf_counter() - start < 10
    assert len(vocab) == 100_004


def test_order_and_duplicates_are_kept_as_before():
    vocab = Vocab(["b", "a", "b", "<unk>", "c", "a"])
    assert vocab.itos == [*SPECIALS, "b", "a", "c"]
    assert [vocab.stoi[t] for t in vocab.itos] == list(range(7))


@pytest.mark.timing
def test_a_million_word_corpus_fails_fast_and_says_why():
    lines = words(0, 1_000_000)
    start = time.perf_counter()
    with pytest.raises(InputError, match=f"more than {MAX_TOKENS:,} different tokens.*character level"):
        Vocab.build(lines)
    assert time.perf_counter() - start < 10
    assert next(lines)  # stopped as soon as the limit was passed, with words still unread


def test_the_limit_is_exact():
    assert len(Vocab.build(words(0, MAX_TOKENS))) == MAX_TOKENS + len(SPECIALS)
    with pytest.raises(InputError, match="more than 250,000 different tokens"):
        Vocab.build(words(0, MAX_TOKENS + 1))
    with pytest.raises(ConfigError, match="at most 250,000 tokens besides the special tokens, this one 250,001"):
        Vocab(f"w{i}" for i in range(MAX_TOKENS + 1))


def test_min_freq_counts_only_the_tokens_kept():
    often = ["a b c"] * 2
    assert Vocab.build([*often, *words(0, 1000)], min_freq=2).itos == [*SPECIALS, "a", "b", "c"]


GOOD = {"level": "word", "lowercase": False, "tokens": [*SPECIALS, "hallo", "welt"]}


def edited(**changes):
    data = json.loads(json.dumps(GOOD))
    data.update(changes)
    return data


@pytest.mark.parametrize("data, message", [
    (["<pad>"], r"a vocabulary must be a JSON object, got \[\"<pad>\"\]"),
    (None, "a vocabulary must be a JSON object, got null"),
    (edited(tokens="<pad> <s>"), "tokens must be a list, got \"<pad> <s>\""),
    ({"level": "word"}, "tokens must be a list, got null"),
    (edited(tokens=[*SPECIALS, "hallo", None]), "token 5 of a vocabulary is null, not text"),
    (edited(tokens=[*SPECIALS, 7]), "token 4 of a vocabulary is 7, not text"),
    (edited(tokens=[*SPECIALS, ["a"]]), r"token 4 of a vocabulary is \[\"a\"\], not text"),
    (edited(tokens=[*SPECIALS, ""]), "token 4 of a vocabulary is empty"),
    (edited(tokens=[*SPECIALS, "a\nb"]), r"token 4 of a vocabulary holds U\+000A, a control character"),
    (edited(tokens=[*SPECIALS, "a\x00"]), r"token 4 of a vocabulary holds U\+0000"),
    (edited(tokens=[*SPECIALS, "\ud800"]), r"token 4 of a vocabulary holds U\+D800, .*half a surrogate pair"),
    (edited(tokens=[*SPECIALS, "hallo", "hallo"]), "a vocabulary lists the token \"hallo\" twice"),
    (edited(tokens=[*SPECIALS, "<s>"]), "a vocabulary lists the token \"<s>\" twice"),
    (edited(tokens=["hallo", *SPECIALS]), "must start with the special tokens <pad>, <s>, </s>, <unk>"),
    (edited(tokens=list(SPECIALS[:3])), "must start with the special tokens"),
    (edited(level="words"), "level must be 'word' or 'char', got \"words\""),
    (edited(level=None), "level must be 'word' or 'char', got null"),
    (edited(lowercase="no"), "lowercase must be true or false, got \"no\""),
    (edited(lowercase=1), "lowercase must be true or false, got 1"),
    (edited(lowercase=None), "lowercase must be true or false, got null"),
    (edited(tokens=[*SPECIALS, *(f"w{i}" for i in range(MAX_TOKENS + 1))]),
     "at most 250,000 tokens besides the special tokens, this one 250,001"),
])
def test_a_vocabulary_that_is_not_one_says_what_is_wrong(data, message):
    with pytest.raises(ConfigError, match=message):
        Vocab.from_dict(data)


def test_a_good_vocabulary_reads_back_as_written():
    for data in (GOOD, edited(level="char", lowercase=True, tokens=[*SPECIALS, " ", "a", "\u00e4"])):
        vocab = Vocab.from_dict(json.loads(json.dumps(data)))
        assert vocab.to_dict() == data
    assert Vocab.from_dict({"level": "word", "tokens": list(SPECIALS)}).lowercase is False  # an old file's default


def small_model():
    torch.manual_seed(0)
    src, tgt = Vocab("a b c d".split()), Vocab("x y z".split())
    cfg = transviz.ModelConfig(len(src), len(tgt), d_model=16, n_heads=2, n_encoder_layers=1,
                               n_decoder_layers=1, d_ff=32)
    return transviz.Model(Transformer(cfg).eval(), src, tgt, {"task": "unit"})


def with_target_vocab(tmp_path, edit):
    """A real checkpoint whose target vocabulary was edited (keeping its length, so only the
    vocabulary's own check can tell)."""
    path = transviz.save_model(small_model(), tmp_path / "good.safetensors")
    with safe_open(str(path), framework="pt") as f:
        tensors = {k: f.get_tensor(k) for k in f.keys()}
        metadata = f.metadata()
    vocab = json.loads(metadata["tgt_vocab"])
    edit(vocab)
    metadata["tgt_vocab"] = json.dumps(vocab)
    bad = tmp_path / "bad.safetensors"
    save_file(tensors, str(bad), metadata=metadata)
    return bad


@pytest.mark.parametrize("edit, message", [
    (lambda v: v["tokens"].__setitem__(5, None), "token 5 of a vocabulary is null, not text"),
    (lambda v: v["tokens"].__setitem__(5, "x"), "a vocabulary lists the token \"x\" twice"),
    (lambda v: v.update(lowercase="no"), "lowercase must be true or false"),
])
def test_a_checkpoint_with_a_lying_vocabulary_is_refused_by_name(tmp_path, edit, message):
    bad = with_target_vocab(tmp_path, edit)
    with pytest.raises(transviz.CheckpointError, match=f"bad.safetensors has broken metadata: {message}"):
        transviz.load_model(str(bad))


def test_markers_wrap_every_sentence_and_unknown_words_keep_their_places():
    vocab = Vocab(["ein", "hund"], add_start=True, add_end=True)
    encoding = vocab.encode("ein xq hund")
    assert encoding.tokens == ["<s>", "ein", "xq", "hund", "</s>"]
    assert encoding.ids == [vocab.bos_id, vocab.stoi["ein"], vocab.unk_id, vocab.stoi["hund"], vocab.eos_id]
    assert encoding.unknown == [(2, "xq")]
    assert Vocab.from_dict(vocab.to_dict()).encode("ein").ids == [1, 4, 2]
    assert "add_end" not in Vocab(["ein"]).to_dict()  # a vocabulary without markers is written as before
    with pytest.raises(ConfigError, match="add_end must be true or false, got \"yes\""):
        Vocab.from_dict(vocab.to_dict() | {"add_end": "yes"})
