"""The one way transviz writes a file: into a fresh temporary file beside the target, then renamed
onto it, so that a reader never sees half a file and a failure leaves the old file as it was."""
from __future__ import annotations

import contextlib
import json
import os
import re
import stat
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from .messages import Message, translate_noop

Writer = Callable[[BinaryIO], object]

_umask_lock = threading.Lock()
# A temporary file this old is a leftover of a writer that was killed (kill -9, a power cut):
# a live writer's file is younger, as every write it makes renews the file's time.
STALE_AFTER_S = 10 * 60
_MKSTEMP_NAME = "[a-z0-9_]{8}"  # the random part of tempfile.mkstemp's names
_SAFETENSORS_TEMPORARY = re.compile(r"\.tmp[A-Za-z0-9]{6}")  # what safetensors' save_file once left
_MAX_HEADER_BYTES = 100 * 1024**2


def write_atomically(path: str | os.PathLike[str], data: bytes | Writer) -> Path:
    """Write ``data`` (bytes, or a function that writes to the binary file it is given) to ``path``.

    The temporary file is created exclusively under an unpredictable name in ``path``'s folder, so
    nothing planted there (a symlink, say) is ever followed; it is flushed to disk, given the
    permissions the target should have, renamed onto ``path``, and removed on any failure, an
    interrupt included. The folder must exist. Raises OSError; callers word it for the user."""
    target = Path(path)
    mode = _mode_for(target)
    remove_stale_temporaries(target)
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as exc:  # named after the file asked for, not the temporary one
        raise OSError(exc.errno, exc.strerror, str(target)) from None
    try:
        with os.fdopen(fd, "wb") as f:
            if callable(data):
                data(f)
            else:
                f.write(data)
            f.flush()
            os.fsync(f.fileno())
            # mkstemp makes the file private (0600): the target gets an ordinary file's mode
            if hasattr(os, "fchmod"):
                os.fchmod(f.fileno(), mode)
        if not hasattr(os, "fchmod"):
            os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        raise
    _sync_folder(target.parent)
    return target


def check_writable(path: str | os.PathLike[str]) -> None:
    """OSError now if :func:`write_atomically` could not write ``path`` (a long task checks before it starts)."""
    target = Path(path)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    os.close(fd)
    os.remove(tmp)


class NotARegularFile(OSError):
    """A path that is a FIFO, a device, a folder or a socket: nothing to read a file's bytes from.
    ``mode`` is its ``st_mode``, so that a caller can say what it is."""

    def __init__(self, path: str | os.PathLike[str], mode: int) -> None:
        super().__init__(f"{os.fspath(path)} is not a regular file")
        self.mode = mode


def kind_of(mode: int) -> Message:
    """What a path that is not a regular file is (its ``st_mode``), for a message."""
    if stat.S_ISDIR(mode):
        return Message(translate_noop("CoreMessages", "a folder"))
    if stat.S_ISFIFO(mode):
        return Message(translate_noop("CoreMessages", "a named pipe (FIFO)"))
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return Message(translate_noop("CoreMessages", "a device"))
    return Message(translate_noop("CoreMessages", "neither a file nor a folder"))


def open_regular(path: str | os.PathLike[str], follow_symlinks: bool = True) -> BinaryIO:
    """``path`` opened for reading bytes, if it is a regular file: anything else raises
    :class:`NotARegularFile` unopened (opening a FIFO for reading waits for a writer), and so does
    a path that changed into one between the look and the opening. Other problems raise OSError;
    with ``follow_symlinks`` False, a symbolic link does too."""
    mode = os.stat(path, follow_symlinks=follow_symlinks).st_mode
    if not stat.S_ISREG(mode):
        raise NotARegularFile(path, mode)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags | (0 if follow_symlinks else getattr(os, "O_NOFOLLOW", 0)))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotARegularFile(path, mode)
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


def remove_stale_temporaries(path: str | os.PathLike[str], now: float | None = None) -> list[Path]:
    """Remove what killed writers left beside ``path``, and return it: temporary files of
    :func:`write_atomically` for this very name (``.NAME.xxxxxxxx.tmp``) and, beside a checkpoint,
    safetensors' own ``.tmpXXXXXX`` files that start with a transviz checkpoint's header. Only
    regular files (never a symlink) older than :data:`STALE_AFTER_S` are removed; a failure to
    remove one is no reason to fail the write."""
    target = Path(path)
    ours = re.compile(rf"\.{re.escape(target.name)}\.{_MKSTEMP_NAME}\.tmp")
    now = time.time() if now is None else now
    removed = []
    with contextlib.suppress(OSError), os.scandir(target.parent) as entries:
        for entry in entries:
            theirs = target.suffix == ".safetensors" and _SAFETENSORS_TEMPORARY.fullmatch(entry.name)
            if not (ours.fullmatch(entry.name) or theirs):
                continue
            with contextlib.suppress(OSError):
                info = entry.stat(follow_symlinks=False)
                if not stat.S_ISREG(info.st_mode) or now - info.st_mtime < STALE_AFTER_S:
                    continue
                if theirs and not starts_like_a_transviz_checkpoint(entry.path, follow_symlinks=False):
                    continue  # another program's temporary file: not ours to remove
                os.remove(entry.path)
                removed.append(Path(entry.path))
    return removed


def starts_like_a_transviz_checkpoint(path: str | os.PathLike[str], follow_symlinks: bool = True) -> bool:
    """Whether ``path`` starts with a safetensors header whose metadata names transviz's format
    (the data after it is not read: a killed writer's leftover may end anywhere after the header).
    OSError if it cannot be opened, is not a regular file, or is a symlink and ``follow_symlinks``
    is False."""
    with open_regular(path, follow_symlinks) as f:
        length = int.from_bytes(f.read(8), "little")
        if not 0 < length <= _MAX_HEADER_BYTES:
            return False
        header = f.read(length)
    try:
        metadata = json.loads(header).get("__metadata__")
    except (ValueError, RecursionError, AttributeError):
        return False
    return isinstance(metadata, dict) and metadata.get("format") == "transviz"


def _mode_for(target: Path) -> int:
    """A rewritten file keeps its permissions; a new one gets what ``open()`` would give it."""
    try:
        return target.stat().st_mode & 0o777
    except OSError:
        return 0o666 & ~_umask()


def _umask() -> int:
    # Linux reports the umask without changing it; elsewhere it can only be read by setting it,
    # which a lock keeps from racing with another writer thread
    with contextlib.suppress(OSError, ValueError), open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    with _umask_lock:
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable (POSIX); a folder cannot be opened for this on Windows."""
    if os.name != "posix":
        return
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
