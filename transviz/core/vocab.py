"""Vocabularies and tokenizers, word level or character level.

Text is NFC-normalised first, so "möchte" typed with a combining diaeresis and with the
precomposed letter are the same word. Unknown tokens map to ``<unk>`` and are reported back
with their position, never dropped silently (the GUI highlights them). Nothing typed vanishes:
whitespace of any kind (tab, newline) separates words, and at character level reads as a space;
invisible characters (soft hyphen, zero-width space, private use) are tokens no vocabulary
holds, so they read as ``<unk>`` and are reported; other control characters are refused.
"""
from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from .errors import InputError
from .messages import translate_noop

Level = Literal["word", "char"]

PAD, BOS, EOS, UNK = "<pad>", "<s>", "</s>", "<unk>"
SPECIALS = (PAD, BOS, EOS, UNK)  # ids 0, 1, 2, 3 in every vocabulary

# A word is a run of letters/digits (apostrophes inside allowed); punctuation stands alone.
_WORD = re.compile(r"\w+(?:'\w+)*|[^\w\s]", re.UNICODE)


def control_characters(text: str) -> list[str]:
    """The control characters (category Cc) of ``text`` that are not whitespace, sorted: text
    holding one is refused (a stray NUL or BEL is a paste gone wrong, not a word)."""
    return sorted({c for c in text if unicodedata.category(c) == "Cc" and not c.isspace()})


def _unlearnable(token: str) -> bool:
    """A lone invisible character (Unicode category C: format, control, private use, unassigned)."""
    return len(token) == 1 and unicodedata.category(token)[0] == "C"


@dataclass(frozen=True)
class Encoding:
    """A tokenized sentence: tokens as written, their ids, and which of them are unknown."""

    tokens: list[str]
    ids: list[int]
    unknown: list[tuple[int, str]]  # (position, token) of every token mapped to <unk>


class Vocab:
    """Token <-> id table with the four special tokens first."""

    def __init__(self, tokens: Iterable[str], level: Level = "word", lowercase: bool = False) -> None:
        if level not in ("word", "char"):
            raise ValueError(f"level must be 'word' or 'char', got {level!r}")
        self.level: Level = level
        self.lowercase = lowercase
        self.itos: list[str] = list(SPECIALS)
        for token in tokens:
            if token not in SPECIALS and token not in self.itos:
                self.itos.append(token)
        self.stoi = {token: i for i, token in enumerate(self.itos)}

    pad_id, bos_id, eos_id, unk_id = range(4)

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

    def encode(self, text: str) -> Encoding:
        """Text -> tokens and ids (no start/end tokens); raises InputError for empty text or text
        holding :func:`control_characters`."""
        if not isinstance(text, str):
            raise InputError(translate_noop("CoreMessages", "expected text, got {0}"), type(text).__name__)
        control = control_characters(text)
        if control:
            codes = ", ".join(f"U+{ord(c):04X}" for c in control[:3])
            raise InputError(
                translate_noop("CoreMessages", "the sentence holds control characters ({0}); remove them and try "
                                               "again"), codes)
        tokens = self.tokenize(text)
        if not tokens:
            raise InputError(translate_noop("CoreMessages", "the sentence is empty: type at least one word"))
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
        order); invisible characters are never learnt, so they always read as ``<unk>``."""
        probe = cls((), level, lowercase)
        counts: Counter[str] = Counter()
        for text in texts:
            counts.update(t for t in probe.tokenize(text) if not _unlearnable(t))
        return cls((t for t, n in counts.most_common() if n >= min_freq), level, lowercase)

    def to_dict(self) -> dict[str, Any]:
        return {"level": self.level, "lowercase": self.lowercase, "tokens": self.itos}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Vocab:
        tokens = data["tokens"]
        if list(tokens[: len(SPECIALS)]) != list(SPECIALS):
            raise ValueError("a vocabulary must start with the special tokens " + ", ".join(SPECIALS))
        if len(set(tokens)) != len(tokens):
            raise ValueError("a vocabulary lists a token twice")
        return cls(tokens, data["level"], bool(data.get("lowercase", False)))
