"""Work several test modules' fixtures need once per test run, whatever the number of xdist
workers: a module-scoped fixture is built again on every worker that runs one of its tests, and a
window probe or a two-process training run costs many seconds. Imported by the tests that need it."""
from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from filelock import FileLock


def once_per_run(tmp_path_factory: pytest.TempPathFactory, name: str, make: Callable[[Path], None]) -> Path:
    """The folder ``name`` that ``make(folder)`` filled, made once per run: the first worker to ask
    makes it under a lock, the others wait and read it. A ``make`` that fails leaves nothing: the
    next worker to ask tries again (and fails the same way, in its own test)."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # this run's folder: each worker's own basetemp is one below it
    folder = base / f"once-{name}"
    with FileLock(f"{folder}.lock"):
        if not (folder / ".made").exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            make(folder)
            (folder / ".made").touch()
    return folder
