"""Built-in tasks and user corpora: sentence pairs split into train / valid / test.

Every task is deterministic from its seed, and no test (or validation) pair ever occurs in
training. Test pairs carry a ``group`` so that accuracy on, say, novel combinations of known
words can be reported apart from the rest.
"""
from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from .errors import InputError
from .vocab import Level, Vocab


@dataclass(frozen=True)
class Pair:
    source: str
    target: str
    group: str = "seen-patterns"  # reported separately in evaluation (test split)


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

    @property
    def probe(self) -> str:
        return self.examples[0]

    def build_vocabs(self, joint: bool = False) -> tuple[Vocab, Vocab]:
        """Vocabularies of the training split; ``joint`` gives one table for both sides."""
        sources = [p.source for p in self.train]
        targets = [p.target for p in self.train]
        if joint:
            if self.source_level != self.target_level:
                raise InputError("a joint vocabulary needs the same token level on both sides")
            vocab = Vocab.build(sources + targets, self.source_level, self.lowercase)
            return vocab, vocab
        return (Vocab.build(sources, self.source_level, self.lowercase),
                Vocab.build(targets, self.target_level, self.lowercase))

    def summary(self) -> str:
        return f"{self.name}: {len(self.train)} train, {len(self.valid)} valid, {len(self.test)} test pairs"


def split(pairs: Iterable[Pair], seed: int, valid: int, test: int) -> tuple[tuple[Pair, ...], ...]:
    """Shuffle distinct pairs (by source) and cut off ``valid`` and ``test`` of them."""
    unique = list({p.source: p for p in pairs}.values())
    if len(unique) < valid + test + 1:
        raise InputError(f"only {len(unique)} distinct pairs: too few to split into train, valid and test")
    random.Random(seed).shuffle(unique)
    return tuple(unique[valid + test :]), tuple(unique[:valid]), tuple(unique[valid : valid + test])


# -- algorithmic tasks: diagonal, anti-diagonal and content-based attention ----------------------

SYMBOLS = "0123456789abcdefghij"


def _sequences(seed: int, count: int, shortest: int = 3, longest: int = 12) -> list[str]:
    rng, seen = random.Random(seed), set()
    while len(seen) < count:
        seen.add("".join(rng.choice(SYMBOLS) for _ in range(rng.randint(shortest, longest))))
    return sorted(seen)  # set order is not deterministic across runs


def _algorithmic(name: str, transform: Callable[[str], str]) -> Callable[[int], Dataset]:
    def make(seed: int = 0) -> Dataset:
        pairs = [Pair(s, transform(s)) for s in _sequences(seed, 9000)]
        train, valid, test = split(pairs, seed, 500, 500)
        examples = ("3a7f19c", "0123456789", "jihgf", "b4b4b4")
        return Dataset(name, "char", "char", train, valid, test, examples)

    return make


TASKS: dict[str, Callable[[int], Dataset]] = {
    "copy": _algorithmic("copy", lambda s: s),
    "reverse": _algorithmic("reverse", lambda s: s[::-1]),
    "sort": _algorithmic("sort", lambda s: "".join(sorted(s))),
}


def load_task(name: str, seed: int = 0) -> Dataset:
    """A built-in task by name (see :data:`TASKS`)."""
    if name not in TASKS:
        raise InputError(f"no task called {name!r}; built-in tasks: {', '.join(TASKS)}")
    return TASKS[name](seed)
