"""How many torch threads a decoding step gets.

The window waits for a step (the event loop is blocked), so Qt needs no core of its own meanwhile,
and a one-token step runs faster on more cores (``core.model.linear``): 7.1 -> 4.7 ms for a
6-layer x 512 decoder on two. But only on idle cores: when another program keeps one busy,
torch's threads wait for each other and the step takes longer than on one core. Which is the case
is measured rather than guessed, since no portable call says how busy the other cores are.
"""
from __future__ import annotations

import os
import statistics
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager

import torch

from .workers import background_work_running

RECENT = 5  # step times remembered per thread count
PROBE_EVERY = 16  # every n-th step tries the thread count that has been slower


class StepThreads:
    """Runs each step with torch's threads as they are or with every core: whichever recent steps
    were faster with, each tried at first and again every :data:`PROBE_EVERY` steps. Background
    work in this process (training, a sweep) keeps torch's threads as they are: it needs its core."""

    def __init__(self, cores: int | None = None) -> None:
        self.cores = cores or os.cpu_count() or 1
        self._recent: dict[int, deque[float]] = {}
        self._steps = 0

    def choose(self, current: int) -> int:
        """``current`` or :attr:`cores` threads for the next step."""
        choices = (current, self.cores)
        self._steps += 1
        untried = [n for n in choices if not self._recent.get(n)]
        if untried:
            return untried[0]
        ranked = sorted(choices, key=lambda n: statistics.median(self._recent[n]))
        return ranked[-1] if self._steps % PROBE_EVERY == 0 else ranked[0]

    def record(self, threads: int, seconds: float) -> None:
        self._recent.setdefault(threads, deque(maxlen=RECENT)).append(seconds)

    @contextmanager
    def step(self) -> Iterator[None]:
        """Run the body (one step) with the chosen threads, timed; torch's threads are restored after."""
        before = torch.get_num_threads()
        if before >= self.cores or background_work_running():
            yield
            return
        threads = self.choose(before)
        torch.set_num_threads(threads)
        start = time.perf_counter()
        try:
            yield
        finally:
            self.record(threads, time.perf_counter() - start)
            torch.set_num_threads(before)
