"""Tests on a CUDA GPU, marked ``gpu``: skipped where torch sees no CUDA device (CI, classroom
laptops, the development machines). They import no Qt, so a GPU machine with only torch installed
runs them: ``PYTHONPATH=. python -m pytest tests/gpu``.

``TRANSVIZ_GPU_TESTS_DEVICE=cpu`` runs them on the CPU instead (against the CPU, so every
comparison holds trivially): a dry run of their code where there is no GPU.
"""
from __future__ import annotations

import os

import pytest
import torch

DEVICE = os.environ.get("TRANSVIZ_GPU_TESTS_DEVICE", "cuda")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not DEVICE.startswith("cuda") or torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU (torch.cuda.is_available() is false here)")
    for item in items:
        if item.get_closest_marker("gpu"):
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def full_float32_matmuls():
    """CPU and GPU results are compared to 1e-4: no TF32 shortcuts in matrix products."""
    before = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision("highest")
    yield
    torch.set_float32_matmul_precision(before)


@pytest.fixture(scope="session")
def device() -> torch.device:
    from transviz.core.training.devices import resolve_device

    return resolve_device(DEVICE)
