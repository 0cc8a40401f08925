"""Nothing a user typed vanishes: whitespace controls act as whitespace, invisible characters read
as <unk> and are reported, other control characters are refused the same way everywhere."""
import pytest

import transviz
from decoding_models import one_thread, tiny_model  # noqa: F401 (autouse)
from transviz.core.decoding.session import DecodingSession
from transviz.core.model.vocab import UNK, Vocab

INVISIBLE = ["\u00ad", "\u200b", "\ue000"]  # soft hyphen (Cf), zero-width space (Cf), private use (Co)
CHARS = Vocab(list("0123456789 March"), level="char")
CHARS_WITHOUT_SPACE = Vocab(list("0123456789March"), level="char")
WORDS = Vocab(["3", "March", "2021"])


@pytest.mark.parametrize("whitespace", ["\t", "\n", "\r", "\x1f", "\u2028"])
def test_a_whitespace_control_is_a_space_at_character_level(whitespace):
    encoding = CHARS.encode(f"3 March{whitespace}2021")
    assert encoding.tokens == list("3 March 2021")
    assert encoding.unknown == []


def test_without_a_space_in_the_vocabulary_the_tab_is_a_reported_unknown():
    encoding = CHARS_WITHOUT_SPACE.encode("3\t2021")
    assert encoding.tokens == ["3", " ", "2", "0", "2", "1"]
    assert encoding.unknown == [(1, " ")]
    assert encoding.ids[1] == CHARS_WITHOUT_SPACE.unk_id


@pytest.mark.parametrize("vocab", [WORDS, CHARS], ids=["word", "char"])
@pytest.mark.parametrize("char", INVISIBLE)
def test_an_invisible_character_is_a_reported_unknown(vocab, char):
    text = f"3 March{char} 2021"
    encoding = vocab.encode(text)
    position = encoding.tokens.index(char)  # kept where it was typed, not dropped
    assert encoding.ids[position] == vocab.unk_id
    assert encoding.unknown == [(position, char)]
    assert len(encoding.tokens) == len(vocab.encode("3 March 2021").tokens) + 1


def test_word_level_whitespace_controls_separate_words():
    assert WORDS.encode("3\tMarch\n2021").tokens == ["3", "March", "2021"]


@pytest.mark.parametrize("level", ["word", "char"])
def test_invisible_characters_in_a_corpus_are_never_learnt(level):
    vocab = Vocab.build(["3 Ma\u00adrch\u200b 2021\ue000"], level=level)
    assert not set(INVISIBLE) & set(vocab.itos)
    assert vocab.encode("3 Ma\u00adrch 2021").unknown[0][1] == "\u00ad"


@pytest.mark.parametrize("level", ["word", "char"])
def test_control_characters_are_refused_by_the_vocabulary_as_by_the_session(level):
    vocab = Vocab(list("abc") if level == "char" else ["ich", "bier"], level=level)
    with pytest.raises(transviz.InputError, match=r"control characters \(U\+0007\)"):
        vocab.encode("ich\x07bier")


def test_the_session_and_the_reference_refuse_control_characters_alike():
    model = tiny_model()
    for kwargs in (dict(source="ich\x07 mochte"), dict(source="ich mochte", reference="i\x07 want")):
        with pytest.raises(transviz.InputError, match=r"control characters \(U\+0007\)"):
            DecodingSession(model, **kwargs)


def test_the_session_reports_an_invisible_character_as_unknown():
    session = DecodingSession(tiny_model(), "ich mochte\u200b bier")
    assert session.unknown_tokens == [(2, "\u200b")]
    assert session.source_tokens[2] == "\u200b" and UNK not in session.source_tokens
