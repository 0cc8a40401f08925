"""How many torch threads a decoding step gets.

The window waits for a step (the event loop is blocked), so Qt needs no core of its own meanwhile,
and a one-token step runs faster on more cores (``core.model.row_blocks``; the README's performance
section has the figures). But only on idle cores: when another program keeps one busy,
torch's threads wait for each other and the step takes longer than on one core. Which is the case
is measured rather than guessed, since no portable call says how busy the other cores are.
"""
from __future__ import annotations

import os
import statistics
import time
from collections import deque
from collections.abc import Callable, Iterator
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
        self._steps += 1
        ranked = self._ranked(current)
        return ranked[-1] if self._steps % PROBE_EVERY == 0 else ranked[0]

    def _ranked(self, current: int) -> list[int]:
        """``current`` and :attr:`cores`, untried first, then the faster lately."""
        choices = (current, self.cores)
        untried = [n for n in choices if not self._recent.get(n)]
        if untried:
            return untried + [n for n in choices if n not in untried]
        return sorted(choices, key=lambda n: statistics.median(self._recent[n]))

    def record(self, threads: int, seconds: float) -> None:
        self._recent.setdefault(threads, deque(maxlen=RECENT)).append(seconds)

    @contextmanager
    def step(self) -> Iterator[None]:
        """Run the body (one step) with the chosen threads, timed."""
        with self._threads(self.choose) as threads:
            start = time.perf_counter()
            yield
            if threads is not None:
                self.record(threads, time.perf_counter() - start)

    @contextmanager
    def steps(self) -> Iterator[None]:
        """Run the body (many steps, such as running to the end) with the threads faster so far."""
        with self._threads(lambda current: self._ranked(current)[0]):
            yield

    @contextmanager
    def _threads(self, choose: Callable[[int], int]) -> Iterator[int | None]:
        """Torch's threads set to ``choose(current)`` for the body and restored after; None (and
        unchanged) when there is no choice or background work needs its core."""
        before = torch.get_num_threads()
        if before >= self.cores or background_work_running():
            yield None
            return
        threads = choose(before)
        torch.set_num_threads(threads)
        try:
            yield threads
        finally:
            torch.set_num_threads(before)
