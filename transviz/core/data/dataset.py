"""Sentence pairs split into train / valid / test: the records every task produces.

No test (or validation) source ever occurs in training. Pairs carry a ``group`` so that
accuracy on, say, novel combinations of known words can be reported apart from the rest.
"""
from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass

from ..base.errors import InputError
from ..base.messages import Message, translate_noop
from ..model.vocab import Level, Vocab

SEEN_PATTERNS = "seen-patterns"
Link = tuple[int, int]  # (source token, target token), both counted from 0


@dataclass(frozen=True)
class Pair:
    source: str
    target: str
    group: str = SEEN_PATTERNS  # reported separately in evaluation (test split)
    # gold alignment, where the task knows it: which source token each target token translates
    # (a target token in no link translates nothing, like English "do" in "do you drink")
    alignment: tuple[Link, ...] = ()


@dataclass(frozen=True)
class Dataset:
    """A task's sentence pairs and how to tokenize them."""

    name: str
    source_level: Level
    target_level: Level
    train: tuple[Pair, ...]
    valid: tuple[Pair, ...]
    test: tuple[Pair, ...]
    examples: tuple[str, ...]  # source sentences for menus; the first is the default probe
    lowercase: bool = False
    description: str = ""  # one or two plain sentences for the GUI

    @property
    def probe(self) -> str:
        return self.examples[0]

    @property
    def groups(self) -> tuple[str, ...]:
        """The test groups, in order of first appearance."""
        return tuple(dict.fromkeys(p.group for p in self.test))

    def build_vocabs(self, joint: bool = False) -> tuple[Vocab, Vocab]:
        """Vocabularies of the training split; ``joint`` gives one table for both sides."""
        sources = [p.source for p in self.train]
        targets = [p.target for p in self.train]
        if joint:
            if self.source_level != self.target_level:
                raise InputError(
                    translate_noop("CoreMessages", "a joint vocabulary needs the same token level on both sides"))
            vocab = Vocab.build(sources + targets, self.source_level, self.lowercase)
            return vocab, vocab
        return (Vocab.build(sources, self.source_level, self.lowercase),
                Vocab.build(targets, self.target_level, self.lowercase))

    def summary(self) -> Message:
        """The dataset's name and split sizes (str() in English; the window translates it)."""
        return Message(translate_noop("CoreMessages", "{0}: {1} train, {2} valid, {3} test pairs"), self.name,
                       len(self.train), len(self.valid), len(self.test))


def split(pairs: Iterable[Pair], seed: int, valid: int, test: int) -> tuple[tuple[Pair, ...], ...]:
    """Shuffle distinct pairs (by source) and cut off ``valid`` and ``test`` of them."""
    unique = list({p.source: p for p in pairs}.values())
    if len(unique) < valid + test + 1:
        raise InputError(
            translate_noop("CoreMessages", "only {0} distinct pairs: too few to split into train, valid and test"),
            len(unique))
    random.Random(seed).shuffle(unique)
    return tuple(unique[valid + test :]), tuple(unique[:valid]), tuple(unique[valid : valid + test])


def links(pharaoh: str) -> tuple[Link, ...]:
    """``"0-0 2-1"`` -> ``((0, 0), (2, 1))``: an alignment written in the code in the common format
    (sure links only; files of alignments are read by :mod:`transviz.core.data.alignments`)."""
    return tuple((int(i), int(j)) for i, j in (link.split("-") for link in pharaoh.split()))
