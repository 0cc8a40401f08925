"""What the concept views that time work share."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import torch


@contextmanager
def one_thread() -> Iterator[None]:
    """torch on one thread for the duration: tensors this small are too small to share out, and
    more threads time the scheduling (and whatever else runs) rather than the work."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)
