"""A user's own corpus: a UTF-8 text file with one ``source<TAB>target`` pair per line.

A byte-order mark and Windows line ends are fine; blank lines are skipped. Anything else that is
not exactly one tab between two non-empty sides is refused with the line number and what is
wrong, and so is a source given two different targets (the model learns a function). Files over
:data:`MAX_BYTES` or :data:`MAX_LINES` are refused before they are read, so nothing freezes.
"""
from __future__ import annotations

import os
from pathlib import Path

from .config import ONE_OF_TWO
from .dataset import Dataset, Pair, split
from .errors import InputError
from .messages import translate_noop
from .vocab import Level, Vocab

MAX_BYTES = 100 * 1024 * 1024
MAX_LINES = 1_000_000
MIN_PAIRS = 10  # fewer cannot give train, valid and test a pair each and still teach anything
MAX_HELD_OUT = 500  # valid and test each take a tenth of the pairs, at most this many
_BOM = "\ufeff"


def load_tsv(path: str | os.PathLike[str], seed: int = 0, level: Level = "word", lowercase: bool = False,
             examples: int = 5) -> Dataset:
    """Read a ``source<TAB>target`` file and split it into train / valid / test.

    Args:
        path: the file, UTF-8 (a byte-order mark is fine), one pair per line.
        seed: shuffles the pairs before the split; the same seed gives the same split.
        level: ``"word"`` or ``"char"`` tokens, on both sides.
        lowercase: fold case (then "Hello" and "hello" are the same source).
        examples: how many training sources the GUI offers in its menu (the first is the probe).

    Raises:
        InputError: the file is missing, too big, not UTF-8, malformed on some line, has a source
            with two targets, or has fewer than :data:`MIN_PAIRS` distinct pairs.
    """
    if level not in ("word", "char"):
        raise InputError(ONE_OF_TWO, "level", "word", "char", repr(level))
    file = Path(path)
    _check_size(file)
    pairs = _read_pairs(file, Vocab((), level, lowercase))
    if not pairs:
        raise InputError(translate_noop("CoreMessages", "{0} holds no sentence pairs: it is empty or only blank lines"),
                         file.name)
    if len(pairs) < MIN_PAIRS:
        raise InputError(
            translate_noop("CoreMessages", "{0} holds only {1} distinct pairs; a corpus needs at least {2} to split "
                                           "into train, valid and test"), file.name, len(pairs), MIN_PAIRS)
    held_out = max(1, min(MAX_HELD_OUT, len(pairs) // 10))
    train, valid, test = split(pairs, seed, held_out, held_out)
    description = f"Your corpus {file.name}: {len(pairs)} sentence pairs, {level} level."
    return Dataset(file.name, level, level, train, valid, test,
                   tuple(p.source for p in train[:examples]), lowercase, description)


def _check_size(file: Path) -> None:
    try:
        size = file.stat().st_size
    except OSError as exc:
        raise InputError(translate_noop("CoreMessages", "cannot read {0}: {1}"), str(file),
                         exc.strerror or str(exc)) from None
    if not file.is_file():
        raise InputError(translate_noop("CoreMessages", "{0} is not a file"), str(file))
    if size > MAX_BYTES:
        raise InputError(translate_noop("CoreMessages", "{0} is {1} MB; transviz reads corpora up to {2} MB (split it "
                                                        "or keep a sample)"),
                         file.name, f"{size / 2**20:.0f}", MAX_BYTES // 2**20)


def _read_pairs(file: Path, tokenizer: Vocab) -> list[Pair]:
    """Distinct pairs in file order; a source is the same source when it gives the same tokens."""
    first_line: dict[tuple[str, ...], tuple[int, Pair]] = {}
    with file.open("rb") as stream:
        for number, raw in enumerate(stream, start=1):
            if number > MAX_LINES:
                raise InputError(translate_noop("CoreMessages", "{0} has more than {1} lines; transviz reads corpora "
                                                                "up to that many (split it or keep a sample)"),
                                 file.name, f"{MAX_LINES:,}")
            pair = _parse(raw, number, tokenizer)
            if pair is None:
                continue
            key = tuple(tokenizer.tokenize(pair.source))
            if key not in first_line:
                first_line[key] = (number, pair)
                continue
            earlier, known = first_line[key]
            if tokenizer.tokenize(known.target) != tokenizer.tokenize(pair.target):
                raise InputError(translate_noop("CoreMessages", "lines {0} and {1} give the same source {2} two "
                                                                "different targets ({3} and {4}); each source needs "
                                                                "exactly one"),
                                 earlier, number, repr(known.source), repr(known.target), repr(pair.target))
    return [pair for _, pair in first_line.values()]


def _parse(raw: bytes, number: int, tokenizer: Vocab) -> Pair | None:
    """One line -> a pair, ``None`` for a blank line; InputError naming the line otherwise."""
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(translate_noop("CoreMessages", "line {0}: byte {1} is not UTF-8 text ({2}); save the file as "
                                                        "UTF-8"),
                         number, exc.start + 1, f"0x{raw[exc.start]:02x}") from None
    if number == 1:
        line = line.removeprefix(_BOM)
    line = line.rstrip("\r\n")
    if not line.strip():
        return None
    tabs = line.count("\t")
    if tabs != 1:
        if tabs == 0:
            raise InputError(translate_noop("CoreMessages", "line {0}: no tab; expected one tab between source and "
                                                            "target"), number)
        raise InputError(
            translate_noop("CoreMessages", "line {0}: {1} tabs; expected one tab between source and target"),
            number, tabs)
    source, target = (side.strip() for side in line.split("\t"))
    if not tokenizer.tokenize(source):
        raise InputError(translate_noop("CoreMessages", "line {0}: the source is empty"), number)
    if not tokenizer.tokenize(target):
        raise InputError(translate_noop("CoreMessages", "line {0}: the target is empty"), number)
    return Pair(source, target)
