"""What a command checks before it writes a file, so that nothing is overwritten by surprise: the
output is none of the command's own inputs, its name ends the way its kind of file does, and a file
already there is replaced only when it is of that same kind (a checkpoint over a checkpoint, an
``.npz`` over an ``.npz``), told by its contents, not by its name, unless the user says ``--force``.

Every command that writes a file calls :func:`check_output` before it starts the work.
"""
from __future__ import annotations

import codecs
import os
import re
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from ..base.errors import InputError
from ..base.files import starts_like_a_transviz_checkpoint
from ..base.messages import Arg, Message, translate_noop

SNIFF_BYTES = 64 * 1024  # how much of a text file is read to tell what it is


@dataclass(frozen=True)
class Kind:
    """A kind of file a command writes: what it is called, how its name ends, how its contents start."""

    name: Message
    suffixes: tuple[str, ...]  # empty: any name
    holds: Callable[[Path], bool]  # whether an existing regular file is of this kind


def _head(path: Path, size: int) -> bytes:
    with open(path, "rb") as f:
        return f.read(size)


def _text_head(path: Path) -> str | None:
    """The start of ``path`` as UTF-8 text, or None if it is binary (a NUL, or not UTF-8)."""
    head = _head(path, SNIFF_BYTES)
    if b"\0" in head:
        return None
    try:  # not final: a character cut at the end of the sample is no reason to call the file binary
        return codecs.getincrementaldecoder("utf-8-sig")().decode(head, final=False)
    except UnicodeDecodeError:
        return None


def _is_zip(path: Path) -> bool:
    return _head(path, 4) in (b"PK\x03\x04", b"PK\x05\x06")  # numpy's .npz is a zip archive


def _is_png(path: Path) -> bool:
    return _head(path, 8) == b"\x89PNG\r\n\x1a\n"


def _is_json(path: Path) -> bool:
    text = _text_head(path)
    return text is not None and text.lstrip().startswith(("{", "["))


# What may stand before an SVG document's root element: an XML declaration, comments, a doctype.
_PROLOG = re.compile(r"\s*(<\?xml.*?\?>|<!--.*?-->|<!DOCTYPE[^>]*>)", re.S | re.I)


def _is_svg(path: Path) -> bool:
    """Whether the root element is ``<svg``: an HTML page with a drawing inside is no SVG picture."""
    text = _text_head(path)
    if text is None:
        return False
    start = 0
    while prolog := _PROLOG.match(text, start):
        start = prolog.end()
    return text[start:].lstrip().startswith("<svg")


def _is_text(path: Path) -> bool:
    return _text_head(path) is not None


CHECKPOINT = Kind(Message(translate_noop("CoreMessages", "a transviz checkpoint")), (".safetensors",),
                  starts_like_a_transviz_checkpoint)
NPZ = Kind(Message(translate_noop("CoreMessages", "a NumPy .npz archive")), (".npz",), _is_zip)
JSON = Kind(Message(translate_noop("CoreMessages", "a JSON file")), (".json",), _is_json)
PNG = Kind(Message(translate_noop("CoreMessages", "a PNG picture")), (".png",), _is_png)
SVG = Kind(Message(translate_noop("CoreMessages", "an SVG picture")), (".svg",), _is_svg)
TEXT = Kind(Message(translate_noop("CoreMessages", "a text file")), (), _is_text)
PICTURE = Kind(Message(translate_noop("CoreMessages", "a PNG or SVG picture")), (".png", ".svg"),
               lambda path: _is_png(path) or _is_svg(path))


def _is_animation(path: Path) -> bool:
    head = _head(path, 12)
    return head[:6] in (b"GIF87a", b"GIF89a") or head[4:8] == b"ftyp"  # an MP4 opens with its ftyp box


ANIMATION = Kind(Message(translate_noop("CoreMessages", "a GIF or MP4 animation")), (".gif", ".mp4"), _is_animation)


def picture(path: str | os.PathLike[str]) -> Kind:
    """The kind of picture a name asks for: PNG or SVG by its suffix, else :data:`PICTURE` (which
    :func:`check_output` refuses for the name's sake)."""
    return {".png": PNG, ".svg": SVG}.get(Path(path).suffix.lower(), PICTURE)


def check_output(path: str | os.PathLike[str], kind: Kind, inputs: Iterable[str | os.PathLike[str] | None] = (),
                 force: bool = False) -> Path:
    """``path`` as a Path if ``kind`` may be written there; else InputError, saying why.

    Never one of ``inputs`` (the files the command reads; None entries are skipped), ``--force`` or
    not: the command would destroy what it reads. Never a folder, never a name without one of
    ``kind``'s suffixes. An existing file that does not hold ``kind`` (or is not a regular file) is
    replaced only with ``force``; an empty one holds nothing to lose."""
    target = Path(path)
    for source in inputs:
        if source is not None and _same_file(target, Path(source)):
            raise InputError(translate_noop("CoreMessages", "cannot write {0}: that file is this command's input "
                                                            "({1}); choose another name for the output"),
                             str(path), str(source))
    blocking = next((folder for folder in target.parents if folder.exists() and not folder.is_dir()), None)
    if blocking is not None:
        raise InputError(translate_noop("CoreMessages", "cannot write {0}: {1} is a file, not a folder"),
                         str(path), str(blocking))
    if target.is_dir():
        example = target / ("output" + (kind.suffixes[0] if kind.suffixes else ".txt"))
        raise InputError(translate_noop("CoreMessages", "cannot write {0}: it is a folder; give a file name such as "
                                                        "{1}"), str(path), str(example))
    if kind.suffixes and not target.name.lower().endswith(kind.suffixes):
        raise InputError(translate_noop("CoreMessages", "cannot write {0} to {1}: the file name must end in {2}"),
                         kind.name, str(path), _either(kind.suffixes))
    if not force and not _replaceable(target, kind):
        raise InputError(translate_noop("CoreMessages", "{0} already exists and is not {1}: it was left as it is; "
                                                        "choose another name, or give --force to replace it"),
                         str(path), kind.name)
    return target


def _either(suffixes: tuple[str, ...]) -> Arg:
    either: Arg = suffixes[-1]
    for suffix in reversed(suffixes[:-1]):
        either = Message(translate_noop("CoreMessages", "{0} or {1}"), suffix, either)
    return either


def _replaceable(target: Path, kind: Kind) -> bool:
    """Whether writing ``kind`` to ``target`` loses nothing of another kind: nothing is there (a
    dangling symlink included), an empty regular file, or a regular file of ``kind``."""
    try:
        info = target.stat()
    except OSError:
        return True
    if not stat.S_ISREG(info.st_mode):  # a FIFO or a device: never opened here, it could block
        return False
    if info.st_size == 0:
        return True
    try:
        return kind.holds(target)
    except OSError:  # unreadable: what it holds is unknown, so it is not replaced unasked
        return False


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet): compare where the names lead
        pass
    try:
        return a.resolve() == b.resolve()
    except (OSError, RuntimeError):  # a symlink loop: it cannot be the input that was read
        return False
