"""core.base.cores: each computing thread's torch threads, from the cores other programs leave free."""
from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest
import torch

from transviz.core.base.cores import SAMPLE_S, SMALL_WORK, Cores, Load, share

LARGE = SMALL_WORK * 4


class Steady(Load):
    """A machine whose free share stays what the test says (the machine is not ours to set)."""

    def __init__(self, free: float) -> None:
        super().__init__()
        self.free = free

    def free_share(self) -> float:
        return self.free


@pytest.fixture(autouse=True)
def four_threads():
    """Each test starts from four torch threads; the next test gets back the setting."""
    before = torch.get_num_threads()
    torch.set_num_threads(4)
    yield
    torch.set_num_threads(before)


def chosen(cores: Cores, work: float = LARGE, spare: int | None = None) -> int:
    """The threads a body computes on, checked against torch's own count inside it."""
    with cores.computing(work, spare) as threads:
        assert torch.get_num_threads() == threads
        return threads


def test_share_is_the_free_cores_divided_among_the_computing_threads():
    assert share(4, 1.0, 1, 0) == 4
    assert share(4, 0.5, 1, 0) == 2  # half the machine busy elsewhere
    assert share(4, 1.0, 2, 0) == 2  # two threads of this process computing
    assert share(4, 1.0, 1, 1) == 3  # a core kept for the window
    assert share(2, 0.8, 1, 0) == 2  # 1.6 cores: rounded
    assert share(8, 0.3, 1, 0) == 2  # 2.4 cores
    assert share(2, 0.0, 1, 0) == 1  # never none
    assert share(2, 1.0, 3, 1) == 1
    assert share(1, 1.0, 1, 0) == 1


def test_a_quiet_machine_gives_the_callers_threads_and_small_work_one():
    cores = Cores(Steady(1.0))
    assert chosen(cores) == 4
    assert chosen(cores, SMALL_WORK - 1) == 1
    assert torch.get_num_threads() == 4  # as they were


def test_a_busy_machine_gives_fewer_threads():
    assert chosen(Cores(Steady(0.25))) == 1
    assert chosen(Cores(Steady(0.6))) == 2  # 2.4 of the 4 cores free
    assert torch.get_num_threads() == 4


def test_the_callers_threads_are_a_ceiling_and_come_back():
    cores = Cores(Steady(1.0))
    torch.set_num_threads(2)  # a notebook asks for fewer
    assert chosen(cores) == 2
    with cores.computing(SMALL_WORK - 1):
        assert torch.get_num_threads() == 1
        assert chosen(cores) == 2  # nested: still the caller's ceiling, not the one chosen outside
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == 2


def test_fixed_threads_hold_whatever_the_load_and_the_size():
    cores = Cores(Steady(0.0))
    with cores.fixed_threads(3):
        assert chosen(cores) == 3 and chosen(cores, 1) == 3
    assert chosen(cores) == 1


def test_threads_computing_together_share_and_a_worker_keeps_a_core_for_the_window():
    cores = Cores(Steady(1.0))
    seen: dict[str, int] = {}
    main_computed, worker_done = threading.Event(), threading.Event()

    def worker() -> None:
        torch.set_num_threads(4)
        with cores.computing(spare=1) as alone:
            seen["worker alone"] = alone
            main_computed.wait()
            seen["worker beside main"] = chosen(cores)
        worker_done.set()

    thread = threading.Thread(target=worker)
    thread.start()
    time.sleep(0.1)
    seen["main beside worker"] = chosen(cores)
    main_computed.set()
    worker_done.wait()
    thread.join()
    # alone: 4 cores less the window's; together: 2 each, the worker's less the window's
    assert seen == {"worker alone": 3, "main beside worker": 2, "worker beside main": 1}


@pytest.mark.process
def test_the_load_of_other_programs_is_measured():
    """Real programs keep every CPU busy: the share left is small, and large work gets one thread."""
    import psutil

    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(psutil.cpu_count() or 1)]
    try:
        load = Load()
        time.sleep(4 * SAMPLE_S)
        assert load.free_share() < 0.5
        assert chosen(Cores(load)) == 1
    finally:
        for process in busy:
            process.kill()
            process.wait()


def test_as_the_app_glue_runs_on_one_thread_and_computations_up_to_every_thread():
    cores = Cores(Steady(1.0))
    cores.run_as_app()
    assert torch.get_num_threads() == 1
    assert chosen(cores) == 4 and torch.get_num_threads() == 1


def test_the_api_leaves_torch_threads_as_they_were():
    """A notebook's own torch code after transviz.decode runs on the threads it set."""
    import transviz
    from decoding_models import SOURCE, tiny_model

    model = tiny_model()
    torch.set_num_threads(3)
    transviz.decode(model, SOURCE, max_len=5)
    transviz.teacher_force(model, SOURCE, "i want a beer")
    assert torch.get_num_threads() == 3
