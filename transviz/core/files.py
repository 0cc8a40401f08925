"""The one way transviz writes a file: into a fresh temporary file beside the target, then renamed
onto it, so that a reader never sees half a file and a failure leaves the old file as it was."""
from __future__ import annotations

import contextlib
import os
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

Writer = Callable[[BinaryIO], object]

_umask_lock = threading.Lock()


def write_atomically(path: str | os.PathLike[str], data: bytes | Writer) -> Path:
    """Write ``data`` (bytes, or a function that writes to the binary file it is given) to ``path``.

    The temporary file is created exclusively under an unpredictable name in ``path``'s folder, so
    nothing planted there (a symlink, say) is ever followed; it is flushed to disk, given the
    permissions the target should have, renamed onto ``path``, and removed on any failure, an
    interrupt included. The folder must exist. Raises OSError; callers word it for the user."""
    target = Path(path)
    mode = _mode_for(target)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
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
