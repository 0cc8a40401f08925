"""The explorer's steps take every core only when that has been faster lately, and never while
background work computes; torch's threads are always restored."""
from __future__ import annotations

import threading

import torch

from transviz.gui.services.step_threads import PROBE_EVERY, RECENT, StepThreads
from transviz.gui.services.workers import TaskRunner


def choices_after(timings: dict[int, float], steps: int) -> list[int]:
    """The thread counts chosen for ``steps`` steps when each count always takes ``timings[n]``."""
    threads = StepThreads(cores=4)
    chosen = []
    for _ in range(steps):
        n = threads.choose(current=1)
        threads.record(n, timings[n])
        chosen.append(n)
    return chosen


def test_each_count_is_tried_then_the_faster_kept_and_the_slower_probed_now_and_then():
    chosen = choices_after({1: 0.010, 4: 0.006}, 3 * PROBE_EVERY)
    assert chosen[:2] == [1, 4]
    probes = [i for i, n in enumerate(chosen) if n == 1][1:]
    assert probes == [PROBE_EVERY * k - 1 for k in range(1, 4)]  # step numbers 16, 32, 48


def test_busy_cores_make_it_keep_torchs_threads():
    chosen = choices_after({1: 0.013, 4: 0.020}, 2 * PROBE_EVERY)
    assert chosen.count(4) == 1 + 2  # the first try, then steps 16 and 32
    assert [step for step, n in enumerate(chosen, start=1) if n == 4] == [2, PROBE_EVERY, 2 * PROBE_EVERY]


def test_a_change_shows_within_a_few_steps():
    threads = StepThreads(cores=2)
    for _ in range(RECENT):
        threads.record(1, 0.010)
        threads.record(2, 0.006)
    for _ in range(RECENT // 2 + 1):  # another program now keeps a core busy
        threads.record(2, 0.020)
    threads._steps = 1
    assert threads.choose(current=1) == 1


def test_step_sets_the_chosen_threads_and_restores_them():
    before, seen = torch.get_num_threads(), []
    threads = StepThreads(cores=before + 1)
    for _ in range(3):
        with threads.step():
            seen.append(torch.get_num_threads())
        assert torch.get_num_threads() == before
    assert seen[:2] == [before, before + 1]


def test_background_work_keeps_its_core(qtbot):
    before = torch.get_num_threads()
    threads, release, started = StepThreads(cores=before + 1), threading.Event(), threading.Event()
    runner = TaskRunner()
    try:
        runner.start(lambda state: (started.set(), release.wait(5)))
        assert started.wait(5)
        for _ in range(3):
            with threads.step():
                assert torch.get_num_threads() == before
    finally:
        release.set()
        runner.shutdown()


def test_many_steps_at_once_take_the_faster_count_untimed():
    before = torch.get_num_threads()
    threads = StepThreads(cores=before + 1)
    for _ in range(RECENT):
        threads.record(before, 0.010)
        threads.record(before + 1, 0.004)
    with threads.steps():
        assert torch.get_num_threads() == before + 1
    assert torch.get_num_threads() == before
    assert list(threads._recent[before + 1]) == [0.004] * RECENT  # a run to the end is not one step


def test_a_refused_step_is_not_timed():
    threads = StepThreads(cores=torch.get_num_threads() + 1)
    try:
        with threads.step():
            raise ValueError("refused")
    except ValueError:
        pass
    assert not any(threads._recent.values())
