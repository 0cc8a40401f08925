"""Built-in tasks by name, and user corpora (:func:`load_tsv`).

Every task is deterministic from its seed, and no test (or validation) pair ever occurs in
training. The records (:class:`Pair`, :class:`Dataset`) and :func:`split` live in
:mod:`transviz.core.data.dataset`, the user corpus in :mod:`transviz.core.data.corpus`; both are
re-exported here.
"""
from __future__ import annotations

import functools
import random
from collections.abc import Callable

from ..base.errors import InputError
from ..base.messages import translate_noop
from . import dates, toy_de_en, toy_zh_en
from .corpus import load_tsv
from .dataset import Dataset, Pair, split

__all__ = ["Dataset", "Pair", "split", "TASKS", "load_task", "describe_task", "task_examples", "load_tsv"]

# -- algorithmic tasks: diagonal, anti-diagonal and content-based attention ----------------------

SYMBOLS = "0123456789abcdefghij"


def _sequences(seed: int, count: int, shortest: int = 3, longest: int = 12) -> list[str]:
    rng, seen = random.Random(seed), set[str]()
    while len(seen) < count:
        seen.add("".join(rng.choice(SYMBOLS) for _ in range(rng.randint(shortest, longest))))
    return sorted(seen)  # set order is not deterministic across runs


ALGORITHMIC_EXAMPLES = ("3a7f19c", "0123456789", "jihgf", "b4b4b4")


def _algorithmic(name: str, transform: Callable[[str], str], description: str) -> Callable[[int], Dataset]:
    def make(seed: int = 0) -> Dataset:
        pairs = [_algorithmic_pair(name, s, transform) for s in _sequences(seed, 9000)]
        train, valid, test = split(pairs, seed, 500, 500)
        return Dataset(name, "char", "char", train, valid, test, ALGORITHMIC_EXAMPLES, description=description)

    return make


def _algorithmic_pair(name: str, source: str, transform: Callable[[str], str]) -> Pair:
    """A pair with its alignment where it is plain: copy's diagonal, reverse's anti-diagonal (sort's
    is left out: which of two equal characters a sorted one came from is anyone's guess)."""
    n = len(source)
    alignment = {"copy": tuple((i, i) for i in range(n)), "reverse": tuple((n - 1 - j, j) for j in range(n))}
    return Pair(source, transform(source), alignment=alignment.get(name, ()))


DESCRIPTIONS: dict[str, str] = {
    toy_de_en.NAME: toy_de_en.DESCRIPTION,
    dates.NAME: dates.DESCRIPTION,
    toy_zh_en.NAME: toy_zh_en.DESCRIPTION,
    "copy": "Copy a string of digits and letters: attention runs down the diagonal.",
    "reverse": "Write a string of digits and letters backwards: attention runs along the anti-diagonal.",
    "sort": "Sort the characters of a string: each output attends to where its character is, wherever that is.",
}

# What a task turns into what, for a menu of models (the algorithmic tasks are their titles)
TASK_PAIRS: dict[str, str] = {
    toy_de_en.NAME: translate_noop("CoreMessages", "German → English"),
    dates.NAME: translate_noop("CoreMessages", "dates → YYYY-MM-DD"),
    toy_zh_en.NAME: translate_noop("CoreMessages", "Chinese → English"),
}

# What a task is called in the interface (a template of the core's messages, translated by the GUI)
TASK_TITLES: dict[str, str] = {
    toy_de_en.NAME: translate_noop("CoreMessages", "toy-de-en"),
    dates.NAME: translate_noop("CoreMessages", "dates"),
    toy_zh_en.NAME: translate_noop("CoreMessages", "toy-zh-en"),
    "copy": translate_noop("CoreMessages", "copy"),
    "reverse": translate_noop("CoreMessages", "reverse"),
    "sort": translate_noop("CoreMessages", "sort"),
}

TRANSFORMS: dict[str, Callable[[str], str]] = {
    "copy": lambda s: s,
    "reverse": lambda s: s[::-1],
    "sort": lambda s: "".join(sorted(s)),
}

TASKS: dict[str, Callable[[int], Dataset]] = {
    toy_de_en.NAME: toy_de_en.make,
    dates.NAME: dates.make,
    toy_zh_en.NAME: toy_zh_en.make,
    **{name: _algorithmic(name, transform, DESCRIPTIONS[name]) for name, transform in TRANSFORMS.items()},
}


def _algorithmic_examples(name: str, transform: Callable[[str], str]) -> tuple[Pair, ...]:
    return tuple(_algorithmic_pair(name, s, transform) for s in ALGORITHMIC_EXAMPLES)


# The examples of each task as pairs, without generating the task (menus list them at once)
_EXAMPLES: dict[str, Callable[[], tuple[Pair, ...]]] = {
    toy_de_en.NAME: toy_de_en.example_pairs,
    dates.NAME: lambda: tuple(Pair(s, dates.EXAMPLE_DATE.isoformat()) for s in dates.examples()),
    toy_zh_en.NAME: toy_zh_en.example_pairs,
    **{name: functools.partial(_algorithmic_examples, name, transform) for name, transform in TRANSFORMS.items()},
}


def _check_name(name: str) -> None:
    if name not in TASKS:
        raise InputError(translate_noop("CoreMessages", "no task called {0}; built-in tasks: {1}"), repr(name),
                         ", ".join(TASKS))


def load_task(name: str, seed: int = 0) -> Dataset:
    """A built-in task by name (see :data:`TASKS`)."""
    _check_name(name)
    return TASKS[name](seed)


def describe_task(name: str) -> str:
    """A short plain-language description of a built-in task, without generating its data."""
    _check_name(name)
    return DESCRIPTIONS[name]


def task_examples(name: str) -> tuple[Pair, ...]:
    """The example sentences of a built-in task with their targets (``load_task(name).examples``,
    in order, the first the default probe), without generating the task's data."""
    _check_name(name)
    return _EXAMPLES[name]()
