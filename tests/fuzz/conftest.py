"""The fuzz tests share one worker process (fuzz_harness.Pool) and one good checkpoint."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fuzz_harness import Pool
from fuzz_inputs import good_checkpoint, good_hf, good_sidecar


@pytest.fixture(scope="session")
def pool() -> Iterator[Pool]:
    workers = Pool(1)
    yield workers
    workers.close()


@pytest.fixture(scope="session")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


class Checkpoint(bytes):
    """A checkpoint's bytes, shown by size (hypothesis prints the arguments of a failing example)."""

    def __repr__(self) -> str:
        return f"<checkpoint of {len(self):,} bytes>"


@pytest.fixture(scope="session")
def good(folder: Path) -> bytes:
    return Checkpoint(good_checkpoint(folder))


@pytest.fixture(scope="session")
def hf_model(folder: Path) -> Path:
    pytest.importorskip("transformers")
    pytest.importorskip("sentencepiece")
    return good_hf(folder)


@pytest.fixture(scope="session")
def sidecar(folder: Path) -> Path:
    return good_sidecar(folder)
