"""How many torch threads a computation gets: its share of the cores other programs leave free.

torch's OpenMP threads spin while they wait for each other. Beside another program that keeps the
cores busy (a notebook training a model, a test suite), a parallel region then waits for time
slices, and training or a batched decoding runs several times slower than on one thread. So every
forward pass and training step runs in :func:`computing`, which sets the calling thread's torch threads to

    round(ceiling * free share of the machine / computing threads of this process) - spare

and at least one; work smaller than :data:`SMALL_WORK` gets one thread, which is as fast quiet
and cannot collapse. The free share is measured, not guessed: the machine's busy CPU time minus this
process's own, over the last :data:`SAMPLE_S` or more (``psutil`` reads it on every platform).
``ceiling`` is the thread's torch threads as the caller set them; they are set back afterwards.
A waiting OpenMP policy (``OMP_WAIT_POLICY=PASSIVE``) would avoid the collapse too, but on a quiet
machine it made a decoding step about three times and training about twice as slow.
"""
from __future__ import annotations

import math
import os
import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import psutil
import torch

SMALL_WORK = 2**19  # multiply-adds below which a second thread costs more than it saves
SAMPLE_S = 0.25  # the shortest interval the free share is measured over
ACTIVE_S = 1.0  # a thread that computed this recently still shares the cores


@dataclass(frozen=True)
class _Sample:
    wall: float
    busy: float  # CPU seconds of the whole machine, all CPUs together
    own: float  # CPU seconds of this process


# CPU time that is not another program's competing for a core: idle, waiting for a disk, at a
# raised nice value (such a program yields its core to ours), and guests (counted in user already).
NOT_BUSY = ("idle", "iowait", "nice", "guest", "guest_nice")


def _sample() -> _Sample:
    times = psutil.cpu_times()._asdict()  # its fields differ by platform
    own = os.times()
    busy = sum(seconds for name, seconds in times.items() if name not in NOT_BUSY)
    return _Sample(time.monotonic(), busy, own.user + own.system)


def _cpus() -> int:
    return psutil.cpu_count() or os.cpu_count() or 1


class Load:
    """The share of the machine that other programs leave free, from 0 to 1."""

    def __init__(self) -> None:
        self._last = _sample()
        self._free = 1.0
        self._lock = threading.Lock()

    def free_share(self) -> float:
        with self._lock:
            now = _sample()
            wall = now.wall - self._last.wall
            if wall >= SAMPLE_S:
                others = (now.busy - self._last.busy) - (now.own - self._last.own)
                self._free = min(1.0, max(0.0, 1.0 - others / (wall * _cpus())))
                self._last = now
            return self._free


def share(ceiling: int, free: float, computing: int, spare: int) -> int:
    """Threads for one of ``computing`` threads of this process, out of ``ceiling`` on a machine
    whose share ``free`` other programs leave, keeping ``spare`` cores for the window."""
    fair = ceiling * free / max(1, computing)
    return max(1, min(ceiling, int(fair + 0.5) - spare))


@dataclass(eq=False)  # each thread's own, told apart by identity (in a WeakSet)
class _Thread:
    depth: int = 0  # computing() bodies this thread is in
    ceiling: int = 1
    spare: int = 0
    computed: float = -math.inf  # when it last entered or left a computing() body


class Cores:
    """Chooses each computing thread's torch threads; see the module's docstring."""

    def __init__(self, load: Load | None = None) -> None:
        self.load = load or Load()
        self.ceiling: int | None = None  # set by run_as_app; else each caller's own threads
        self._fixed: int | None = None
        self._local = threading.local()  # any thread's, Qt's too; it goes when the thread ends
        self._threads: weakref.WeakSet[_Thread] = weakref.WeakSet()
        self._lock = threading.Lock()

    @contextmanager
    def computing(self, work: float = math.inf, spare: int | None = None) -> Iterator[int]:
        """Compute the body on this thread's share of the free cores (one for ``work`` below
        :data:`SMALL_WORK` multiply-adds), keeping ``spare`` cores for the window (a worker
        thread); torch's threads are as they were afterwards. Yields the threads chosen."""
        me = self._this_thread()
        before = torch.get_num_threads()
        outer = me.ceiling, me.spare
        if me.depth == 0:  # the app's ceiling, or the threads the caller asked for
            me.ceiling = self.ceiling or before
        if spare is not None:
            me.spare = spare
        me.depth += 1
        chosen = self._choose(me, work)
        if chosen != before:
            torch.set_num_threads(chosen)
        try:
            yield chosen
        finally:
            me.depth -= 1
            me.ceiling, me.spare = outer
            me.computed = time.monotonic()
            if torch.get_num_threads() != before:
                torch.set_num_threads(before)

    def run_as_app(self) -> None:
        """For transviz's own processes: torch's operations outside :meth:`computing` bodies run on
        one thread, the bodies on up to the threads torch has now. Outside the bodies is glue,
        where a thread team would cost more than it saves; and on a machine with fewer cores than
        threads, idle teams make every other team's threads sleep between operations."""
        self.ceiling = self.ceiling or torch.get_num_threads()
        torch.set_num_threads(1)

    @contextmanager
    def fixed_threads(self, count: int) -> Iterator[None]:
        """Every thread computes on ``count`` torch threads in the body, whatever the machine's load
        and the work's size: for results that must not depend on either."""
        before, self._fixed = self._fixed, count
        try:
            yield
        finally:
            self._fixed = before

    def _choose(self, me: _Thread, work: float) -> int:
        if self._fixed is not None:
            return self._fixed
        if work < SMALL_WORK:
            return 1
        now = time.monotonic()
        with self._lock:
            me.computed = now
            computing = sum(now - t.computed < ACTIVE_S for t in self._threads)
        return share(me.ceiling, self.load.free_share(), computing, me.spare)

    def _this_thread(self) -> _Thread:
        me: _Thread | None = getattr(self._local, "thread", None)
        if me is None:
            me = self._local.thread = _Thread()
            with self._lock:
                self._threads.add(me)
        return me


CORES = Cores()
computing = CORES.computing
run_as_app = CORES.run_as_app
fixed_threads = CORES.fixed_threads
