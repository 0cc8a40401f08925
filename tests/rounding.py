"""One tolerance for float32 numbers that two different computations give for the same quantity.

Different paths round differently: another number of torch threads splits a matrix product's sums
another way, another torch build brings other kernels, and a window steps on its own thread where a
test recomputes on the main one. Between torch 2.13 (CPU build) and 2.14 (CUDA build), and between
1 and 2 threads, such numbers differ by a few units in the last place of float32 at the magnitudes
these small models compute (under 10). Where two computations are the same arithmetic on the same
path, tests keep exact equality instead.
"""
from __future__ import annotations

from typing import Any

import numpy as np

RTOL = 1e-6  # 8 units in the last place of float32 (2**-23 = 1.2e-7)
ATOL = 1e-6  # values near 0 computed from terms near 1 (small softmax weights, FFN units, logits)


def assert_close(actual: Any, expected: Any, err_msg: str = "") -> None:
    np.testing.assert_allclose(actual, expected, rtol=RTOL, atol=ATOL, err_msg=err_msg)
