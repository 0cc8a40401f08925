"""A user's own corpus: a UTF-8 text file with one ``source<TAB>target`` pair per line.

A byte-order mark and Windows line ends are fine; blank lines are skipped. Anything else that is
not exactly one tab between two non-empty sides is refused with the line number and what is
wrong, and so is a source given two different targets (the model learns a function). Files over
:data:`MAX_BYTES` or :data:`MAX_LINES` are refused before they are read, so nothing freezes.

A side of a pair holds at most :data:`MAX_SENTENCE_TOKENS` tokens: the model built for a corpus
reads its longest sentence whole (its ``max_len`` grows to fit it, the target's start token
included), and attention's memory grows with the square of that length. A longer line is refused,
naming the file, the line and both numbers; a line over :data:`MAX_LINE_BYTES` is refused before
it is decoded or tokenized, so one huge line costs no more than that much memory. Control
characters are refused with the line's number, and so is anything but a regular file (a folder, a
named pipe, a device), which is never opened for reading.
"""
from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from ..base.errors import InputError
from ..base.files import NotARegularFile, kind_of, open_regular
from ..base.messages import Message, translate_noop
from ..model.config import ONE_OF_TWO
from ..model.vocab import Level, Vocab, code_points, control_characters
from .dataset import Dataset, Pair, split

MAX_BYTES = 100 * 1024 * 1024
MAX_LINES = 1_000_000
MAX_SENTENCE_TOKENS = 500  # per side; see the module docstring
MAX_LINE_BYTES = 2**20  # far more than two sides of MAX_SENTENCE_TOKENS words each
MIN_PAIRS = 10  # fewer cannot give train, valid and test a pair each and still teach anything
MAX_HELD_OUT = 500  # valid and test each take a tenth of the pairs, at most this many
_BOM = "\ufeff"
TOO_MANY_LINES = translate_noop("CoreMessages", "{0} has more than {1} lines; transviz reads corpora up to that many "
                                                "(split it or keep a sample)")


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
        InputError: the file is missing, not a regular file, too big, not UTF-8, malformed on some
            line (control characters, sides not one tab apart, a side over
            :data:`MAX_SENTENCE_TOKENS` tokens), has a source with two targets, or has fewer than
            :data:`MIN_PAIRS` distinct pairs.
    """
    if level not in ("word", "char"):
        raise InputError(ONE_OF_TWO, "level", "word", "char", repr(level))
    file = Path(path)
    with _open(file) as stream:
        pairs = _read_pairs(stream, file.name, Vocab((), level, lowercase))
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


def pairs_in_order(path: str | os.PathLike[str], level: Level = "word",
                   lowercase: bool = False) -> tuple[list[tuple[int, Pair]], int]:
    """Every pair of a ``source<TAB>target`` file with its line number, in file order, repeats
    kept (a file of alignments goes with it line by line), and how many lines the file has;
    checked as :func:`load_tsv` checks a corpus, except that repeats and few pairs are fine."""
    file = Path(path)
    tokenizer = Vocab((), level, lowercase)
    found: list[tuple[int, Pair]] = []
    number = 0
    with _open(file) as stream:
        for number, raw in numbered_lines(stream, file.name):
            parsed = _parse(raw, number, file.name, tokenizer)
            if parsed is not None:
                found.append((number, parsed[0]))
    return found, number


def numbered_lines(stream: BinaryIO, name: str, too_many: str = TOO_MANY_LINES, limit: int | None = None,
                   line_bytes: int | None = None) -> Iterator[tuple[int, bytes]]:
    """Each line of ``stream`` with its number from 1, read at most ``line_bytes`` (default
    :data:`MAX_LINE_BYTES`) and its line end at a time, so that a huge line is never read whole;
    InputError ``too_many`` (the file's ``name``, the limit) past ``limit`` lines (default
    :data:`MAX_LINES`). The defaults are read at each call."""
    limit = MAX_LINES if limit is None else limit
    line_bytes = MAX_LINE_BYTES if line_bytes is None else line_bytes
    number = 0
    while raw := stream.readline(line_bytes + 2):  # room for "\r\n"
        number += 1
        if number > limit:
            raise InputError(too_many, name, f"{limit:,}")
        yield number, raw


def open_corpus(file: Path) -> BinaryIO:
    """``file`` opened for reading, refused (InputError) as a corpus is: not a regular file, or too big."""
    return _open(file)


def _open(file: Path) -> BinaryIO:
    """``file`` opened for reading once it is known to be a regular file of at most :data:`MAX_BYTES`
    (a named pipe is never opened: reading one would wait for a writer)."""
    try:
        stream = open_regular(file)
    except NotARegularFile as exc:
        raise InputError(translate_noop("CoreMessages", "{0} is not a file: it is {1}"), str(file),
                         kind_of(exc.mode)) from None
    except OSError as exc:
        raise InputError(translate_noop("CoreMessages", "cannot read {0}: {1}"), str(file),
                         exc.strerror or str(exc)) from None
    size = os.fstat(stream.fileno()).st_size
    if size > MAX_BYTES:
        stream.close()
        raise InputError(translate_noop("CoreMessages", "{0} is {1} MB; transviz reads corpora up to {2} MB (split it "
                                                        "or keep a sample)"),
                         file.name, f"{size / 2**20:.0f}", MAX_BYTES // 2**20)
    return stream


def _read_pairs(stream: BinaryIO, name: str, tokenizer: Vocab) -> list[Pair]:
    """Distinct pairs in file order; a source is the same source when it gives the same tokens."""
    first_line: dict[str, tuple[int, Pair]] = {}
    for number, raw in numbered_lines(stream, name):
        parsed = _parse(raw, number, name, tokenizer)
        if parsed is None:
            continue
        pair, key = parsed
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


def _parse(raw: bytes, number: int, name: str, tokenizer: Vocab) -> tuple[Pair, str] | None:
    """One line -> a pair and its source's tokens joined by newlines (a token never holds one),
    ``None`` for a blank line; InputError naming the line otherwise."""
    if len(raw.rstrip(b"\r\n")) > MAX_LINE_BYTES:
        raise InputError(translate_noop("CoreMessages", "line {0} of {1} is longer than {2} MB, far longer than a "
                                                        "sentence pair: a sentence holds at most {3} tokens"),
                         number, name, MAX_LINE_BYTES // 2**20, MAX_SENTENCE_TOKENS)
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
    control = control_characters(line)
    if control:
        raise InputError(translate_noop("CoreMessages", "line {0} of {1} holds control characters ({2}); remove them "
                                                        "and try again"), number, name, code_points(control))
    tabs = line.count("\t")
    if tabs != 1:
        if tabs == 0:
            raise InputError(translate_noop("CoreMessages", "line {0}: no tab; expected one tab between source and "
                                                            "target"), number)
        raise InputError(
            translate_noop("CoreMessages", "line {0}: {1} tabs; expected one tab between source and target"),
            number, tabs)
    source, target = (side.strip() for side in line.split("\t"))
    source_tokens = _tokens(source, number, name, tokenizer, Message(translate_noop("CoreMessages", "source")))
    if not source_tokens:
        raise InputError(translate_noop("CoreMessages", "line {0}: the source is empty"), number)
    if not _tokens(target, number, name, tokenizer, Message(translate_noop("CoreMessages", "target"))):
        raise InputError(translate_noop("CoreMessages", "line {0}: the target is empty"), number)
    return Pair(source, target), "\n".join(source_tokens)


def _tokens(side: str, number: int, name: str, tokenizer: Vocab, which: Message) -> list[str]:
    """The tokens of one side; InputError if there are more than :data:`MAX_SENTENCE_TOKENS`."""
    # a side longer than the limit is counted without making its list (it may hold a million tokens)
    count = tokenizer.count_tokens(side) if len(side) > MAX_SENTENCE_TOKENS else 0
    tokens = tokenizer.tokenize(side) if count <= MAX_SENTENCE_TOKENS else []
    count = max(count, len(tokens))  # normalising may lengthen a short side
    if count > MAX_SENTENCE_TOKENS:
        raise InputError(translate_noop("CoreMessages", "line {0} of {1}: the {2} has {3} tokens; transviz learns "
                                                        "from sentences of at most {4} (split the line or remove it)"),
                         number, name, which, f"{count:,}", MAX_SENTENCE_TOKENS)
    return tokens
