"""Vocabularies and tokenizers, word level or character level.

Text is NFC-normalised first, so "möchte" typed with a combining diaeresis and with the
precomposed letter are the same word. Unknown tokens map to ``<unk>`` and are reported back
with their position, never dropped silently (the GUI highlights them). Nothing typed vanishes:
whitespace of any kind (tab, newline) separates words, and at character level reads as a space;
invisible characters (soft hyphen, zero-width space, private use) are tokens no vocabulary
holds, so they read as ``<unk>`` and are reported; other control characters are refused.

A vocabulary holds at most :data:`MAX_TOKENS` tokens besides the four special tokens: a bigger
one is refused when it is built from a corpus and when a checkpoint's vocabulary claims it. Real
word-level models stay well below it; a corpus with more distinct words than that is almost always
not a parallel corpus (or wants character level). A vocabulary read back from a file is checked
strictly (:meth:`Vocab.from_dict`): its tokens are distinct, non-empty text without control
characters, the special tokens first.
"""
from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from ..base.errors import ConfigError, InputError
from ..base.messages import translate_noop

Level = Literal["word", "char"]

PAD, BOS, EOS, UNK = "<pad>", "<s>", "</s>", "<unk>"
SPECIALS = (PAD, BOS, EOS, UNK)  # ids 0, 1, 2, 3 in every vocabulary
MAX_TOKENS = 250_000  # the most tokens a vocabulary holds besides SPECIALS (see the module docstring)

NOT_A_LEVEL = translate_noop("CoreMessages", "level must be 'word' or 'char', got {0}")
TOO_MANY_TOKENS = translate_noop("CoreMessages", "a vocabulary holds at most {0} tokens besides the special tokens, "
                                                 "this one {1}")

# A word is a run of letters/digits (apostrophes inside allowed); punctuation stands alone.
_WORD = re.compile(r"\w+(?:'\w+)*|[^\w\s]", re.UNICODE)


def control_characters(text: str) -> list[str]:
    """The control characters (category Cc) of ``text`` that are not whitespace, sorted: text
    holding one is refused (a stray NUL or BEL is a paste gone wrong, not a word)."""
    return sorted({c for c in text if unicodedata.category(c) == "Cc" and not c.isspace()})


def code_points(chars: Iterable[str], most: int = 3) -> str:
    """``U+0000, U+0007``: the first ``most`` characters by their code points, for a message."""
    return ", ".join(f"U+{ord(c):04X}" for c in list(chars)[:most])


def _unlearnable(token: str) -> bool:
    """A lone invisible character (Unicode category C: format, control, private use, unassigned)."""
    return len(token) == 1 and unicodedata.category(token)[0] == "C"


@dataclass(frozen=True)
class Encoding:
    """A tokenized sentence: tokens as written, their ids, and which of them are unknown."""

    tokens: list[str]
    ids: list[int]
    unknown: list[tuple[int, str]]  # (position, token) of every token mapped to <unk>
    # a prompt's last token and its id, when the model starts its output from it (ModelConfig.start_from_prompt):
    # then tokens and ids are the source, the prompt less that token (Model.encode_source)
    start: tuple[str, int] | None = None



def check_text(text: object) -> None:
    """InputError unless ``text`` is a string free of :func:`control_characters` (what every
    vocabulary checks before it splits a sentence)."""
    if not isinstance(text, str):
        raise InputError(translate_noop("CoreMessages", "expected text, got {0}"), type(text).__name__)
    control = control_characters(text)
    if control:
        raise InputError(
            translate_noop("CoreMessages", "the sentence holds control characters ({0}); remove them and try "
                                           "again"), code_points(control))

class Vocab:
    """Token <-> id table with the four special tokens first.

    ``add_start`` / ``add_end``: :meth:`encode` puts ``<s>`` before / ``</s>`` after every sentence,
    for a model trained on sources wrapped so (the Annotated Transformer's Multi30k code, PyTorch's
    translation tutorial); transviz's own models read their sources bare.
    """

    def __init__(self, tokens: Iterable[str], level: Level = "word", lowercase: bool = False,
                 add_start: bool = False, add_end: bool = False) -> None:
        """The special tokens, then ``tokens`` in order, each once; ConfigError for an unknown
        ``level`` or more than :data:`MAX_TOKENS` tokens."""
        if level not in ("word", "char"):
            raise ConfigError(NOT_A_LEVEL, repr(level))
        self.level: Level = level
        self.lowercase = lowercase
        self.add_start, self.add_end = add_start, add_end
        self.stoi: dict[str, int] = {}  # a dict keeps first-seen order and finds a token at once
        for token in (*SPECIALS, *tokens):
            self.stoi.setdefault(token, len(self.stoi))
        if len(self.stoi) > MAX_TOKENS + len(SPECIALS):
            raise ConfigError(TOO_MANY_TOKENS, f"{MAX_TOKENS:,}", f"{len(self.stoi) - len(SPECIALS):,}")
        self.itos: list[str] = list(self.stoi)

    pad_id, bos_id, eos_id, unk_id = range(4)

    @property
    def start_token(self) -> str:
        """The decoder's first input as the model's own vocabulary names it (shown, never looked
        up: its id is always :attr:`bos_id`)."""
        return BOS

    def __len__(self) -> int:
        return len(self.itos)

    def __contains__(self, token: str) -> bool:
        return token in self.stoi

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Vocab) and self.to_dict() == other.to_dict()

    def normalize(self, text: str) -> str:
        text = unicodedata.normalize("NFC", text)
        return text.lower() if self.lowercase else text

    def tokenize(self, text: str) -> list[str]:
        text = self.normalize(text)
        if self.level == "char":
            return [" " if c.isspace() else c for c in text.strip()]  # a tab reads as the space it stands for
        return _WORD.findall(text)

    def count_tokens(self, text: str) -> int:
        """``len(self.tokenize(text))`` without the list: a line too long to learn from is
        measured without holding its millions of tokens."""
        text = self.normalize(text)
        if self.level == "char":
            return len(text.strip())
        return sum(1 for _ in _WORD.finditer(text))

    def alignment_units(self, text: str) -> list[str]:
        """What word alignments (``0-0 1-2``) count in ``text``: this vocabulary's own tokens, words
        or characters."""
        return self.tokenize(text)

    def unit_of_tokens(self, text: str) -> list[int]:
        """For each token of ``tokenize(text)``, the index of the :meth:`alignment_units` unit it is
        part of (-1 for a special token): here each token is a unit of its own."""
        return list(range(len(self.tokenize(text))))

    def encode(self, text: str) -> Encoding:
        """Text -> tokens and ids (start/end tokens only with ``add_start`` / ``add_end``); raises
        InputError for empty text or text holding :func:`control_characters`."""
        check_text(text)
        tokens = self.tokenize(text)
        if not tokens:
            raise InputError(translate_noop("CoreMessages", "the sentence is empty: type at least one word"))
        tokens = [BOS] * self.add_start + tokens + [EOS] * self.add_end  # typed "<s>" would split into <, s, >
        ids = [self.stoi.get(token, self.unk_id) for token in tokens]
        unknown = [(i, t) for i, (t, id_) in enumerate(zip(tokens, ids, strict=True)) if id_ == self.unk_id]
        return Encoding(tokens, ids, unknown)

    def id_of(self, token: str) -> int:
        """The id of one token; InputError if the vocabulary lacks it."""
        token = self.normalize(token)
        if token not in self.stoi:
            raise InputError(translate_noop("CoreMessages", "{0} is not in this model's vocabulary"), repr(token))
        return self.stoi[token]

    def tokens_of(self, ids: Iterable[int]) -> list[str]:
        return [self.itos[i] for i in ids]

    def detokenize(self, tokens: Iterable[str]) -> str:
        """Tokens -> text, specials removed."""
        kept = [t for t in tokens if t not in SPECIALS]
        if self.level == "char":
            return "".join(kept)
        text = " ".join(kept)
        return re.sub(r" (?=[^\w\s])", "", text)  # no space before punctuation

    @classmethod
    def build(cls, texts: Iterable[str], level: Level = "word", lowercase: bool = False, min_freq: int = 1) -> Vocab:
        """Collect every token seen at least ``min_freq`` times, most frequent first (ties in first-seen
        order); invisible characters are never learnt, so they always read as ``<unk>``.

        Raises:
            InputError: more than :data:`MAX_TOKENS` tokens would be learnt (with ``min_freq`` 1 this
                is known, and said, as soon as the texts show that many).
        """
        probe = cls((), level, lowercase)
        counts: Counter[str] = Counter()
        for text in texts:
            counts.update(t for t in probe.tokenize(text) if not _unlearnable(t))
            if min_freq <= 1 and len(counts) > MAX_TOKENS:
                break  # a million distinct words fail here, not after counting them all
        learnt = [t for t, n in counts.most_common() if n >= min_freq and t not in SPECIALS]
        if len(learnt) > MAX_TOKENS:
            raise InputError(translate_noop("CoreMessages", "the training sentences hold more than {0} different "
                                                            "tokens, the most a vocabulary holds; train on fewer "
                                                            "sentences or at character level"),
                             f"{MAX_TOKENS:,}")
        return cls(learnt, level, lowercase)

    def to_dict(self) -> dict[str, Any]:
        """The vocabulary as JSON holds it; the markers only when set, so that a vocabulary without
        them is written as before they existed."""
        markers = {key: True for key in ("add_start", "add_end") if getattr(self, key)}
        return {"level": self.level, "lowercase": self.lowercase, **markers, "tokens": self.itos}

    @classmethod
    def from_dict(cls, data: object) -> Vocab:
        """The vocabulary :meth:`to_dict` wrote (read back from JSON); ConfigError naming the first
        thing that is not so: not an object, tokens not a list of distinct non-empty strings free of
        control characters, specials not first, more than :data:`MAX_TOKENS`, an unknown level,
        lowercase not a JSON bool."""
        if not isinstance(data, dict):
            raise ConfigError(translate_noop("CoreMessages", "a vocabulary must be a JSON object, got {0}"),
                              _json_kind(data))
        tokens = data.get("tokens")
        if not isinstance(tokens, list):
            raise ConfigError(translate_noop("CoreMessages", "a vocabulary's tokens must be a list, got {0}"),
                              _json_kind(tokens))
        if len(tokens) > MAX_TOKENS + len(SPECIALS):
            raise ConfigError(TOO_MANY_TOKENS, f"{MAX_TOKENS:,}", f"{len(tokens) - len(SPECIALS):,}")
        _check_tokens(tokens)
        level, lowercase = data.get("level"), data.get("lowercase", False)
        if level not in ("word", "char"):
            raise ConfigError(NOT_A_LEVEL, _json_kind(level))
        if not isinstance(lowercase, bool):  # "no" or 0 would otherwise decide how text is folded
            raise ConfigError(translate_noop("CoreMessages", "lowercase must be true or false, got {0}"),
                              _json_kind(lowercase))
        markers = {key: data.get(key, False) for key in ("add_start", "add_end")}
        for key, value in markers.items():
            if not isinstance(value, bool):
                raise ConfigError(translate_noop("CoreMessages", "{0} must be true or false, got {1}"), key,
                                  _json_kind(value))
        return cls(tokens, level, lowercase, **markers)


def _check_tokens(tokens: list[Any]) -> None:
    """Tokens as a vocabulary file must hold them (see :meth:`Vocab.from_dict`)."""
    if tokens[: len(SPECIALS)] != list(SPECIALS):
        raise ConfigError(translate_noop("CoreMessages", "a vocabulary must start with the special tokens {0}"),
                          ", ".join(SPECIALS))
    seen: set[str] = set()
    for number, token in enumerate(tokens):
        if not isinstance(token, str):
            raise ConfigError(translate_noop("CoreMessages", "token {0} of a vocabulary is {1}, not text"),
                              number, _json_kind(token))
        if not token:
            raise ConfigError(translate_noop("CoreMessages", "token {0} of a vocabulary is empty"), number)
        # tokens travel joined by newlines and as UTF-8 (snapshots, traces): neither may be inside one
        bad = [c for c in token if unicodedata.category(c) in ("Cc", "Cs")]
        if bad:
            raise ConfigError(translate_noop("CoreMessages", "token {0} of a vocabulary holds {1}, a control "
                                                             "character or half a surrogate pair"),
                              number, code_points(bad, 1))
        if token in seen:
            raise ConfigError(translate_noop("CoreMessages", "a vocabulary lists the token {0} twice"),
                              _json_kind(token))
        seen.add(token)


def _json_kind(value: object) -> str:
    """``value`` as JSON writes it, shortened: what a message shows of a wrong value."""
    try:
        text = json.dumps(value, ensure_ascii=True)
    except (TypeError, ValueError, RecursionError):
        text = type(value).__name__
    return text if len(text) <= 40 else text[:37] + "..."
