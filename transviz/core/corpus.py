"""A user's own corpus: a UTF-8 text file with one ``source<TAB>target`` pair per line.

A byte-order mark and Windows line ends are fine; blank lines are skipped. Anything else that is
not exactly one tab between two non-empty sides is refused with the line number and what is
wrong, and so is a source given two different targets (the model learns a function). Files over
:data:`MAX_BYTES` or :data:`MAX_LINES` are refused before they are read, so nothing freezes.
"""
from __future__ import annotations

import os
from pathlib import Path

from .dataset import Dataset, Pair, split
from .errors import InputError
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
        raise InputError(f"level must be 'word' or 'char', got {level!r}")
    file = Path(path)
    _check_size(file)
    pairs = _read_pairs(file, Vocab((), level, lowercase))
    if not pairs:
        raise InputError(f"{file.name} holds no sentence pairs: it is empty or only blank lines")
    if len(pairs) < MIN_PAIRS:
        raise InputError(f"{file.name} holds only {len(pairs)} distinct pairs; "
                         f"a corpus needs at least {MIN_PAIRS} to split into train, valid and test")
    held_out = max(1, min(MAX_HELD_OUT, len(pairs) // 10))
    train, valid, test = split(pairs, seed, held_out, held_out)
    description = f"Your corpus {file.name}: {len(pairs)} sentence pairs, {level} level."
    return Dataset(file.name, level, level, train, valid, test,
                   tuple(p.source for p in train[:examples]), lowercase, description)


def _check_size(file: Path) -> None:
    try:
        size = file.stat().st_size
    except OSError as exc:
        raise InputError(f"cannot read {file}: {exc.strerror or exc}") from None
    if not file.is_file():
        raise InputError(f"{file} is not a file")
    if size > MAX_BYTES:
        raise InputError(f"{file.name} is {size / 2**20:.0f} MB; transviz reads corpora up to "
                         f"{MAX_BYTES // 2**20} MB (split it or keep a sample)")


def _read_pairs(file: Path, tokenizer: Vocab) -> list[Pair]:
    """Distinct pairs in file order; a source is the same source when it gives the same tokens."""
    first_line: dict[tuple[str, ...], tuple[int, Pair]] = {}
    with file.open("rb") as stream:
        for number, raw in enumerate(stream, start=1):
            if number > MAX_LINES:
                raise InputError(f"{file.name} has more than {MAX_LINES:,} lines; "
                                 "transviz reads corpora up to that many (split it or keep a sample)")
            pair = _parse(raw, number, tokenizer)
            if pair is None:
                continue
            key = tuple(tokenizer.tokenize(pair.source))
            if key not in first_line:
                first_line[key] = (number, pair)
                continue
            earlier, known = first_line[key]
            if tokenizer.tokenize(known.target) != tokenizer.tokenize(pair.target):
                raise InputError(
                    f"lines {earlier} and {number} give the same source {known.source!r} two different "
                    f"targets ({known.target!r} and {pair.target!r}); each source needs exactly one"
                )
    return [pair for _, pair in first_line.values()]


def _parse(raw: bytes, number: int, tokenizer: Vocab) -> Pair | None:
    """One line -> a pair, ``None`` for a blank line; InputError naming the line otherwise."""
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"line {number}: byte {exc.start + 1} is not UTF-8 text "
                         f"(0x{raw[exc.start]:02x}); save the file as UTF-8") from None
    if number == 1:
        line = line.removeprefix(_BOM)
    line = line.rstrip("\r\n")
    if not line.strip():
        return None
    tabs = line.count("\t")
    if tabs != 1:
        what = "no tab" if tabs == 0 else f"{tabs} tabs"
        raise InputError(f"line {number}: {what}; expected one tab between source and target")
    source, target = (side.strip() for side in line.split("\t"))
    for side, text in (("source", source), ("target", target)):
        if not tokenizer.tokenize(text):
            raise InputError(f"line {number}: the {side} is empty")
    return Pair(source, target)
