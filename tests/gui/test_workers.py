"""The task runner: work runs on its own thread, results come back on the GUI thread, a new
task cancels the old one, and shutdown stops the thread."""
from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import QThread

from transviz import CheckpointError
from transviz.gui.services.workers import TaskRunner, background_work_running


@pytest.fixture
def runner(qtbot):
    runner = TaskRunner()
    yield runner
    runner.shutdown()
    assert runner.worker_thread.isFinished()


def test_task_runs_off_the_gui_thread_and_result_arrives_on_it(runner, qtbot):
    gui_thread = threading.get_ident()
    seen = {}

    def task(state):
        seen["task_thread"] = threading.get_ident()
        return 42

    def on_done(result):
        seen["result"] = result
        seen["callback_thread"] = QThread.currentThread()

    with qtbot.waitSignal(runner.done, timeout=5000) as signal:
        runner.start(task, on_done)
    assert signal.args == [42] and seen["result"] == 42
    assert seen["task_thread"] != gui_thread
    assert seen["callback_thread"] is QThread.currentThread()  # the test runs on the GUI thread
    assert not runner.is_busy()


def test_progress_and_status_are_forwarded(runner, qtbot):
    percents, texts = [], []
    runner.progress.connect(percents.append)
    runner.status.connect(texts.append)

    def task(state):
        state.set_status("reading")
        for p in (25, 50, 100):
            state.set_progress(p)
        return None

    with qtbot.waitSignal(runner.done, timeout=5000):
        runner.start(task)
    assert percents == [25.0, 50.0, 100.0] and texts == ["reading"]


def test_an_exception_reaches_on_failed(runner, qtbot):
    failures = []

    def task(state):
        raise CheckpointError("broken.safetensors is not a transviz checkpoint")

    with qtbot.waitSignal(runner.failed, timeout=5000) as signal:
        runner.start(task, on_failed=failures.append)
    assert isinstance(signal.args[0], CheckpointError) and failures == [signal.args[0]]
    assert not runner.is_busy()


def test_a_new_task_cancels_the_old_one(runner, qtbot):
    started, release = threading.Event(), threading.Event()
    results, cancelled_seen = [], []

    def slow(state):
        started.set()
        release.wait(5)
        cancelled_seen.append(state.is_cancelled())
        return "old"

    runner.start(slow, results.append)
    assert started.wait(5)
    with qtbot.waitSignal(runner.done, timeout=5000) as signal:
        runner.start(lambda state: "new", results.append)
        release.set()
    assert signal.args == ["new"] and results == ["new"]  # the old result was dropped
    assert cancelled_seen == [True]


def test_busy_while_running(runner, qtbot):
    release = threading.Event()
    states = []
    runner.busy_changed.connect(states.append)
    runner.start(lambda state: release.wait(5))
    assert runner.is_busy()
    with qtbot.waitSignal(runner.done, timeout=5000):
        release.set()
    assert states == [True, False] and not runner.is_busy()


def test_background_work_is_counted_until_the_task_returns_even_when_cancelled(runner, qtbot):
    release, started = threading.Event(), threading.Event()
    assert not background_work_running()
    runner.start(lambda state: (started.set(), release.wait(5)))
    assert started.wait(5)
    runner.cancel()  # the window no longer waits for it, but it still computes
    assert not runner.is_busy() and background_work_running()
    release.set()
    qtbot.waitUntil(lambda: not background_work_running(), timeout=5000)


def test_no_tasks_after_shutdown(qtbot):
    runner = TaskRunner()
    runner.shutdown()
    assert runner.worker_thread.isFinished()
    with pytest.raises(RuntimeError, match="shut down"):
        runner.start(lambda state: None)
