"""Word alignments: the gold links a model's attention is scored against, from a built-in task or
from a file beside a user's corpus.

A file of alignments holds one line per line of the corpus (a ``source<TAB>target`` file, see
:mod:`transviz.core.data.corpus`), in the format fast_align, awesome-align and GIZA++ tools write:
whitespace-separated links ``i-j`` from source token ``i`` to target token ``j``, both counted from
0, e.g. ``0-0 1-2 2-1``. ``i-j`` is a sure link; ``ipj`` and ``i?j`` are possible ones (the
alignment error rate takes both sets; a link written both ways is sure). An empty line is a
sentence with no links. Tokens are the model's: words and punctuation marks at word level,
characters at character level.

The file is read as carefully as a corpus: at most :data:`MAX_BYTES` and :data:`MAX_LINES`, each
line at most :data:`MAX_LINE_BYTES` and read no further, UTF-8 without control characters. Anything
that is not a link, a number beyond any sentence, a link past its own sentence, or a line count
other than the corpus's is refused naming the file and the line.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from ..base.errors import InputError
from ..base.messages import translate_noop
from ..model.vocab import Vocab, code_points, control_characters
from .corpus import MAX_BYTES, MAX_LINES, MAX_SENTENCE_TOKENS, numbered_lines, open_corpus, pairs_in_order
from .dataset import Link, Pair

__all__ = ["Alignment", "MAX_BYTES", "MAX_LINES", "MAX_LINE_BYTES", "aligned_corpus", "parse_line",
           "read_alignments"]

MAX_LINE_BYTES = 2**20  # a line of every possible link of two sentences of MAX_SENTENCE_TOKENS is longer; none is
_LINK = re.compile(r"(\d{1,9})([-p?])(\d{1,9})")
_BOM = "\ufeff"


@dataclass(frozen=True)
class Alignment:
    """The gold links of one sentence pair: ``sure`` ones, and ``possible`` ones (sure ones included)."""

    sure: frozenset[Link] = frozenset()
    possible: frozenset[Link] = frozenset()

    @classmethod
    def of(cls, pair: Pair) -> Alignment:
        """A task's pair: its links are all sure."""
        links = frozenset(pair.alignment)
        return cls(links, links)


def parse_line(line: str, number: int, name: str) -> Alignment:
    """One line of links -> an :class:`Alignment`; InputError naming ``name`` and line ``number``
    for anything else, or a token number no sentence reaches (at most
    :data:`~transviz.core.data.corpus.MAX_SENTENCE_TOKENS` tokens)."""
    sure: set[Link] = set()
    possible: set[Link] = set()
    for item in line.split():
        link = _LINK.fullmatch(item)
        if link is None:
            raise InputError(translate_noop("CoreMessages", "line {0} of {1}: {2} is not a link; write pairs of token "
                                                            "numbers counted from 0, source-target, like 0-0 1-2 (0p1 "
                                                            "or 0?1 for a possible link)"),
                             number, name, repr(item[:40]))
        i, j = int(link[1]), int(link[3])
        if max(i, j) >= MAX_SENTENCE_TOKENS:
            raise InputError(translate_noop("CoreMessages", "line {0} of {1}: the link {2} names token {3}; a "
                                                            "sentence holds at most {4} tokens"),
                             number, name, item, max(i, j), MAX_SENTENCE_TOKENS)
        (sure if link[2] == "-" else possible).add((i, j))
    return Alignment(frozenset(sure), frozenset(possible | sure))


def read_alignments(path: str | os.PathLike[str]) -> list[Alignment]:
    """Every line of the file ``path`` in order (see the module's docstring); InputError if any is bad."""
    file = Path(path)
    found: list[Alignment] = []
    too_many = translate_noop("CoreMessages", "{0} has more than {1} lines; transviz reads alignments of up to that "
                                              "many sentences")
    with open_corpus(file) as stream:
        for number, raw in numbered_lines(stream, file.name, too_many, MAX_LINES, MAX_LINE_BYTES):
            found.append(parse_line(_text(raw, number, file.name), number, file.name))
    return found


def _text(raw: bytes, number: int, name: str) -> str:
    if len(raw.rstrip(b"\r\n")) > MAX_LINE_BYTES:
        raise InputError(translate_noop("CoreMessages", "line {0} of {1} is longer than {2} MB: no sentence pair has "
                                                        "that many links"), number, name, MAX_LINE_BYTES // 2**20)
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(translate_noop("CoreMessages", "line {0} of {1}: byte {2} is not text ({3}); a file of "
                                                        "alignments holds links like 0-0 1-2"),
                         number, name, exc.start + 1, f"0x{raw[exc.start]:02x}") from None
    line = (line.removeprefix(_BOM) if number == 1 else line).rstrip("\r\n")
    control = control_characters(line.replace("\t", " "))
    if control:
        raise InputError(translate_noop("CoreMessages", "line {0} of {1} holds control characters ({2}); a file of "
                                                        "alignments holds links like 0-0 1-2"),
                         number, name, code_points(control))
    return line


def aligned_corpus(corpus: str | os.PathLike[str], alignments: str | os.PathLike[str], source: Vocab,
                   target: Vocab) -> list[tuple[Pair, Alignment]]:
    """The pairs of ``corpus`` in file order, each with its line of ``alignments``, checked
    against the words (or a character-level vocabulary's characters) of its sides. Blank lines of the corpus are
    skipped with their lines of alignments; the two files must have as many lines."""
    pairs, corpus_lines = pairs_in_order(corpus, source.level, source.lowercase)
    lines = read_alignments(alignments)
    corpus_name, name = Path(corpus).name, Path(alignments).name
    if len(lines) != corpus_lines:
        raise InputError(translate_noop("CoreMessages", "{0} has {1} lines but {2} has {3}: each line of the corpus "
                                                        "needs its line of alignments (an empty one for none)"),
                         name, len(lines), corpus_name, corpus_lines)
    found = []
    for number, pair in pairs:
        alignment = lines[number - 1]
        _check_range(alignment, len(source.alignment_units(pair.source)), len(target.alignment_units(pair.target)),
                     number, name)
        found.append((pair, alignment))
    return found


def _check_range(alignment: Alignment, sources: int, targets: int, number: int, name: str) -> None:
    for i, j in sorted(alignment.possible):
        if i >= sources or j >= targets:
            raise InputError(translate_noop("CoreMessages", "line {0} of {1}: the link {2}-{3} is past its sentence, "
                                                            "whose source has {4} tokens and target {5} (counted from "
                                                            "0: the last are {6}-{7})"),
                             number, name, i, j, sources, targets, sources - 1, targets - 1)
