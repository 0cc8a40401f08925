"""Long work off the GUI thread, in the spirit of Orange3's ``concurrent.py``.

A task is a plain function ``task(state) -> result`` that knows nothing about Qt: it may report
progress and status through ``state`` and should return early when ``state.is_cancelled()``.
:class:`TaskRunner` runs one task at a time on its own ``QThread`` and delivers the result (or
the exception) on the GUI thread. Starting a task cancels the one before: its result, when it
comes, is dropped. Call :meth:`TaskRunner.shutdown` before the application quits (a QThread
destroyed while running aborts the process).
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QThread, Signal, Slot

from ...core.base.cores import computing

log = logging.getLogger(__name__)

Task = Callable[["TaskState"], Any]

_computing = 0  # tasks running in any runner's thread now (a cancelled one until it returns)
_computing_lock = threading.Lock()


def background_work_running() -> bool:
    """Whether some task is computing on a worker thread (training, a lab sweep, a model loading)."""
    return _computing > 0


def _count_computing(change: int) -> None:
    global _computing
    with _computing_lock:
        _computing += change


OnDone = Callable[[Any], None]
OnFailed = Callable[[Exception], None]


class TaskState(QObject):
    """What a running task sees: report progress and status, check whether it was cancelled.

    Safe to call from the worker thread; the reports reach the GUI thread as queued signals.
    """

    progress_changed = Signal(int, float)  # task id, percent
    status_changed = Signal(int, str)  # task id, text

    def __init__(self, task_id: int, on_done: OnDone | None = None, on_failed: OnFailed | None = None) -> None:
        super().__init__()
        self.task_id = task_id
        self.on_done, self.on_failed = on_done, on_failed  # called on the GUI thread
        self._cancelled = threading.Event()

    def set_progress(self, percent: float) -> None:
        self.progress_changed.emit(self.task_id, float(percent))

    def set_status(self, text: str) -> None:
        self.status_changed.emit(self.task_id, text)

    def cancel(self) -> None:
        self._cancelled.set()

    def is_cancelled(self) -> bool:
        return self._cancelled.is_set()


class _Worker(QObject):
    """Lives in the runner's thread and runs what it is sent, one task after another."""

    finished = Signal(int, object)  # task id, result
    failed = Signal(int, object)  # task id, exception

    @Slot(int, object, object)
    def run(self, task_id: int, task: Task, state: TaskState) -> None:
        _count_computing(+1)
        try:
            with computing(spare=1):  # the window needs a core to stay live
                result = task(state)
        except Exception as exc:  # delivered to the GUI thread, which decides what to show
            self.failed.emit(task_id, exc)
        else:
            self.finished.emit(task_id, result)
        finally:
            _count_computing(-1)


class TaskRunner(QObject):
    """Runs one task at a time on a worker thread; results arrive on the GUI thread.

    Signals (for observers such as a status bar; the starter gets callbacks):
        progress(float): percent done of the current task.
        status(str): what the current task is doing.
        done(object): the current task's result (after its ``on_done``).
        failed(object): the exception the current task raised (after its ``on_failed``).
        busy_changed(bool): a task started, or the current one ended or was cancelled.
    """

    progress = Signal(float)
    status = Signal(str)
    done = Signal(object)
    failed = Signal(object)
    busy_changed = Signal(bool)
    _submit = Signal(int, object, object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._thread = QThread()
        self._thread.setObjectName("transviz-worker")
        self._worker = _Worker()
        self._worker.moveToThread(self._thread)
        self._submit.connect(self._worker.run)  # queued: runs in the worker thread
        self._worker.finished.connect(self._on_finished)
        self._worker.failed.connect(self._on_failed)
        self._thread.start()
        self._next_id = 0
        self._current: TaskState | None = None

    @property
    def worker_thread(self) -> QThread:
        """The thread tasks run on (``thread()``, QObject's, is the one this runner lives in)."""
        return self._thread

    def is_busy(self) -> bool:
        return self._current is not None

    def start(self, task: Task, on_done: OnDone | None = None, on_failed: OnFailed | None = None) -> int:
        """Run ``task(state)`` after any running task, cancelling that one; ``on_done(result)`` or
        ``on_failed(exception)`` is called on the GUI thread. Returns the task's id."""
        if not self._thread.isRunning():
            raise RuntimeError("the task runner was shut down")
        self.cancel()
        self._next_id += 1
        state = TaskState(self._next_id, on_done, on_failed)
        state.progress_changed.connect(self._on_progress)
        state.status_changed.connect(self._on_status)
        self._current = state
        self.busy_changed.emit(True)
        self._submit.emit(state.task_id, task, state)
        return state.task_id

    def cancel(self) -> None:
        """Ask the current task to stop; whatever it returns will be dropped."""
        if self._current is not None:
            self._current.cancel()
            self._current = None
            self.busy_changed.emit(False)

    def stop(self) -> None:
        """Cancel, and let the thread end once the task it runs returns, without waiting for that
        (a window closing at once); :meth:`shutdown` still has to wait before the runner goes."""
        self.cancel()
        self._thread.quit()

    def shutdown(self) -> None:
        """Cancel, let the worker finish what it is doing, stop the thread (quit + wait)."""
        self.stop()
        self._thread.wait()

    def _is_current(self, task_id: int) -> bool:
        return self._current is not None and self._current.task_id == task_id

    @Slot(int, float)
    def _on_progress(self, task_id: int, percent: float) -> None:
        if self._is_current(task_id):
            self.progress.emit(percent)

    @Slot(int, str)
    def _on_status(self, task_id: int, text: str) -> None:
        if self._is_current(task_id):
            self.status.emit(text)

    def _finish(self, task_id: int) -> TaskState | None:
        """The state of the task that just ended, if it is still the current one."""
        state = self._current
        if state is None or state.task_id != task_id:
            return None
        self._current = None
        self.busy_changed.emit(False)
        return state

    @Slot(int, object)
    def _on_finished(self, task_id: int, result: object) -> None:
        state = self._finish(task_id)
        if state is None:
            return  # cancelled: nobody waits for it any more
        if state.on_done is not None:
            state.on_done(result)
        self.done.emit(result)

    @Slot(int, object)
    def _on_failed(self, task_id: int, exc: Exception) -> None:
        state = self._finish(task_id)
        if state is None:
            log.info("a cancelled task failed: %s", exc)
            return
        if state.on_failed is not None:
            state.on_failed(exc)
        self.failed.emit(exc)
