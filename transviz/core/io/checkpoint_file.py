"""Opening a checkpoint file without trusting it: what kind of file it is (a FIFO is never opened
for reading, it would wait forever), how big its header claims to be (read from its first 8 bytes
before safetensors reads the header), how deep and wide its metadata's JSON is (before Python's
decoder recurses or builds millions of objects), and why a file cut short cannot be read.

The safetensors layout: 8 bytes little-endian header length, the JSON header (tensor names,
dtypes, shapes, ``data_offsets``, and ``__metadata__``: strings, ours JSON), then the tensors."""
from __future__ import annotations

import errno
import itertools
import json
import os
import re
import stat
from pathlib import Path
from typing import Any

from ..base.errors import CheckpointError
from ..base.files import NotARegularFile, open_regular
from ..base.messages import Message, translate_noop

SUFFIX = ".safetensors"  # what a checkpoint's file name ends with
# A transviz header is tens of KB; two vocabularies of a million words each fit in 32 MB (safetensors
# itself allows 100 MB). Decoding it costs a small multiple of its size.
MAX_HEADER_BYTES = 32 * 1024**2
MAX_DEPTH = 32  # JSON nesting in metadata: transviz writes at most a few levels (facts, messages)
MAX_CONTAINERS = 100_000  # JSON arrays and objects in one metadata entry: transviz writes a handful

KINDS = {stat.S_IFIFO: Message(translate_noop("CoreMessages", "a FIFO")),
         stat.S_IFCHR: Message(translate_noop("CoreMessages", "a character device")),
         stat.S_IFBLK: Message(translate_noop("CoreMessages", "a block device")),
         stat.S_IFSOCK: Message(translate_noop("CoreMessages", "a socket"))}
NOT_REGULAR = translate_noop("CoreMessages", "{0} is not a regular file ({1}); a checkpoint is a {2} file")


def check_file(path: Path) -> int:
    """The size of ``path``, a regular file (after symbolic links); a CheckpointError naming what
    it is otherwise (missing, a folder, a FIFO or a device, a symbolic link loop, unreadable)."""
    try:
        info = os.stat(path)
    except OSError as exc:
        raise _unreachable(path, exc) from None
    if stat.S_ISDIR(info.st_mode):
        raise CheckpointError(translate_noop("CoreMessages", "{0} is a folder, not a checkpoint file: name a {1} file "
                                                             "in it"), str(path), SUFFIX)
    if not stat.S_ISREG(info.st_mode):
        raise CheckpointError(NOT_REGULAR, str(path), _kind(info.st_mode), SUFFIX)
    return info.st_size


def _kind(mode: int) -> Message:
    return KINDS.get(stat.S_IFMT(mode), Message(translate_noop("CoreMessages", "a special file")))


def _unreachable(path: Path, exc: OSError) -> CheckpointError:
    if exc.errno == errno.ELOOP:
        return CheckpointError(translate_noop("CoreMessages", "{0} is a symbolic link loop: following it never reaches "
                                                              "a file"), str(path))
    if exc.errno == errno.ENOENT and path.is_symlink():
        return CheckpointError(translate_noop("CoreMessages", "{0} is a symbolic link to {1}, which does not exist"),
                               str(path), os.readlink(path))
    if exc.errno in (errno.ENOENT, errno.ENOTDIR):
        return CheckpointError(translate_noop("CoreMessages", "{0}: no such file"), str(path))
    return CheckpointError(translate_noop("CoreMessages", "cannot read {0}: {1}"), str(path),
                           exc.strerror or str(exc))


def header_length(path: Path) -> int | None:
    """The header length the first 8 bytes of ``path`` claim (None if the file is shorter);
    CheckpointError if it is more than :data:`MAX_HEADER_BYTES`, or if ``path`` is no longer a
    regular file (never opened then: see :func:`~transviz.core.base.files.open_regular`)."""
    try:
        f = open_regular(path)
    except NotARegularFile as exc:  # it changed since check_file looked
        raise CheckpointError(NOT_REGULAR, str(path), _kind(exc.mode), SUFFIX) from None
    except OSError as exc:
        raise _unreachable(path, exc) from None
    try:
        with f:
            prefix = f.read(8)
            size = os.fstat(f.fileno()).st_size
    except OSError as exc:  # a file of the system that refuses reading, such as a process's memory
        raise _unreachable(path, exc) from None
    if len(prefix) < 8:
        return None
    length = int.from_bytes(prefix, "little")
    if length > MAX_HEADER_BYTES and length > size:  # text, or anything else that never was a checkpoint
        # The length is not shown: it would be the file's first 8 bytes (of a password file, a user name).
        raise CheckpointError(translate_noop("CoreMessages", "{0} is not a safetensors file: such a file begins with "
                                                             "the length of its header, and this one's first bytes "
                                                             "are not a length that fits in its {1} bytes"),
                              path.name, f"{size:,}")
    if length > MAX_HEADER_BYTES:
        raise CheckpointError(translate_noop("CoreMessages", "{0} is not a transviz checkpoint: its first 8 bytes give "
                                                             "a header of {1} bytes; a checkpoint's header is at most "
                                                             "{2}"), path.name, f"{length:,}", f"{MAX_HEADER_BYTES:,}")
    return length


def truncation(path: Path, size: int) -> CheckpointError | None:
    """Why a file of ``size`` bytes with a sound start of a safetensors header cannot be read: it
    ends inside that header, or before the end of the data the header describes (a copy or
    download cut short); None if it is broken some other way."""
    with path.open("rb") as f:
        prefix = f.read(8)
        header_len = int.from_bytes(prefix, "little") if len(prefix) == 8 else 0
        if not 0 < header_len <= MAX_HEADER_BYTES:
            return None
        header = f.read(header_len)
    if not header.startswith(b"{"):
        return None
    header_end = 8 + header_len  # the length field counts: a user compares it with the file's size
    if len(header) < header_len:
        inside = translate_noop("CoreMessages", "{0}: the file is truncated or damaged: it ends after {1} bytes, "
                                                "inside its {2}-byte header")
        return CheckpointError(inside, path.name, f"{size:,}", f"{header_end:,}")
    try:
        entries = json.loads(header)
        complete = header_end + max((e["data_offsets"][1] for k, e in entries.items() if k != "__metadata__"),
                                    default=0)
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError):
        return None
    if complete <= size:
        return None
    return CheckpointError(translate_noop("CoreMessages", "{0}: the file is truncated or damaged: it ends after {1} "
                                                          "bytes; a complete file holds {2} bytes"),
                           path.name, f"{size:,}", f"{complete:,}")


# A JSON string (to skip its brackets): it runs to its closing quote or to the end of the text, so
# that every character is read once even in text that is not JSON.
_STRING = re.compile(r'"(?:[^"\\]|\\.|\\\Z)*+(?:"|\Z)', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def bounded_json(text: str, what: Message) -> Any:
    """``json.loads(text)``, refused with a CheckpointError when it nests deeper than
    :data:`MAX_DEPTH` or holds more than :data:`MAX_CONTAINERS` arrays and objects: counted on the
    brackets outside strings first, in time linear in the text."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    if len(brackets) > 2 * MAX_CONTAINERS:
        raise CheckpointError(translate_noop("CoreMessages", "the {0} holds more than {1} JSON arrays and objects"),
                              what, f"{MAX_CONTAINERS:,}")
    depth = max(itertools.accumulate(1 if c in "[{" else -1 for c in brackets), default=0)
    if depth > MAX_DEPTH:
        raise CheckpointError(translate_noop("CoreMessages", "the {0} nests {1} levels deep; transviz writes at most "
                                                             "{2}"), what, depth, MAX_DEPTH)
    try:
        return json.loads(text)
    except RecursionError:  # only if the count above was fooled; never a traceback
        raise CheckpointError(translate_noop("CoreMessages", "the {0} nests too deep"), what) from None


def json_object(path: Path, what: Message) -> dict[str, Any]:
    """The JSON object in the regular file ``path`` (``what`` it is, for the message); a
    CheckpointError for a file that is not one, or not a bounded JSON object."""
    check_file(path)
    try:
        data = bounded_json(path.read_text(encoding="utf-8"), what)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise CheckpointError(translate_noop("CoreMessages", "{0} is not readable JSON ({1})"), str(path),
                              str(exc)) from None
    if not isinstance(data, dict):
        raise CheckpointError(translate_noop("CoreMessages", "{0} is not readable JSON ({1})"), str(path),
                              "not an object")
    return data
