"""A concept view's slow computation, off the GUI thread: a :class:`TaskRunner` of the view's own
(started at the first task), a progress bar with a line of status, and a copy of the model for the
worker (the explorer's model runs on the GUI thread only). Results are kept per key; a result
that arrives after its view has asked for another key is dropped.

A view computes at once instead while its ``synchronous`` is set: a view alone (a test) and
``transviz render`` (headless, it must draw the finished picture).
"""
from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Generic, Protocol, TypeVar

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QHBoxLayout, QProgressBar, QWidget

from ....core.model.bundle import Model, decoding_copy
from ...services.core_messages import translated
from ...services.workers import TaskRunner
from ...widgets.labels import plain_label

R = TypeVar("R")
Key = tuple[Hashable, ...]  # the model (:func:`model_key`) first, then what else the result depends on


class Reporter(Protocol):
    """What a task sees: :class:`~transviz.gui.services.workers.TaskState`, or nothing at all when synchronous."""

    def set_progress(self, percent: float) -> None: ...
    def set_status(self, text: str) -> None: ...
    def is_cancelled(self) -> bool: ...


class _AtOnce:
    """The reporter of a task run synchronously: nobody watches, nothing cancels."""

    def set_progress(self, percent: float) -> None:
        pass

    def set_status(self, text: str) -> None:
        pass

    def is_cancelled(self) -> bool:
        return False


def counting(state: Reporter, template: str) -> Callable[[int, int], None]:
    """A ``progress(done, total)`` for a measurement: ``state``'s bar at done/total, its status
    ``template`` formatted with both."""

    def progress(done: int, total: int) -> None:
        state.set_progress(100 * done / total)
        state.set_status(template.format(done, total))
    return progress


def model_key(model: Model) -> tuple[int, ...]:
    """Which model, with which weights: a copy or a result is reused while this stays the same."""
    return (id(model.net), *model.weights_version())


class Background(Generic[R]):
    """Runs ``task(reporter) -> R | None`` for a key and hands the result to ``show`` on the GUI
    thread; :attr:`bar` shows the progress while it runs (the view lays it out)."""

    def __init__(self, show: Callable[[Key, R], None], delay_ms: int = 0) -> None:
        self._show = show
        # a task starts once the view has asked for the same key this long: stepping through a
        # sentence does not start (and compete with) a measurement per step
        self._delay = QTimer()
        self._delay.setSingleShot(True)
        self._delay.setInterval(delay_ms)
        self._delay.timeout.connect(self._start)
        self._pending: tuple[Key, Callable[[Reporter], R | None]] | None = None
        self.synchronous = True  # the tab sets False: then tasks run on the worker thread
        self.runner: TaskRunner | None = None
        self.results: dict[Key, R] = {}
        self.wanted: Key | None = None  # the key of the task running, if one is
        self._copy: tuple[tuple[int | bool, ...], Model] | None = None
        self.progress = QProgressBar()
        self.progress.setRange(0, 100)
        self.status = plain_label()
        self.bar = QWidget()
        row = QHBoxLayout(self.bar)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.progress, 1)
        row.addWidget(self.status, 2)
        policy = self.bar.sizePolicy()
        policy.setRetainSizeWhenHidden(True)  # the plots below stay put as measurements come and go
        self.bar.setSizePolicy(policy)
        self.bar.setVisible(False)

    def model_copy(self, model: Model) -> Model:
        """A copy of ``model`` for the worker, made once per model and weights."""
        # synchronous tasks run on the GUI thread with the model itself: the worker never gets it
        key = (*model_key(model), self.synchronous)
        if self._copy is None or self._copy[0] != key:
            self._copy = (key, model if self.synchronous else decoding_copy(model))
        return self._copy[1]

    def request(self, key: Key, task: Callable[[Reporter], R | None]) -> bool:
        """Show the result for ``key``: at once if kept (True), else once ``task`` returns it (False).
        A task already running for ``key`` is left to finish; one for another key is cancelled.
        ``key[0]`` names the model (:func:`model_key`): results kept for another model are dropped."""
        self.results = {kept: result for kept, result in self.results.items() if kept[0] == key[0]}
        if key in self.results:
            self.cancel()
            return True
        if self.synchronous:
            self.cancel()  # a task the worker still runs would only bring this result again
            result = task(_AtOnce())
            assert result is not None, "nothing cancels a synchronous task"
            self.results[key] = result
            return True
        if self.wanted == key and self.runner is not None and self.runner.is_busy():
            return False
        if self.runner is not None:
            self.runner.cancel()  # its result would be dropped anyway: let the worker stop early
        self.wanted = key
        self.progress.setValue(0)
        self.progress.setVisible(True)
        self.status.setText("")
        self.bar.setVisible(True)
        self._pending = (key, task)
        if self._delay.interval() == 0:
            self._start()
        else:
            self._delay.start()
        return False

    def _start(self) -> None:
        if self._pending is None:
            return
        key, task = self._pending
        self._pending = None
        self._runner().start(task, lambda result: self._on_done(key, result), self._on_failed)

    def _runner(self) -> TaskRunner:
        if self.runner is None:
            self.runner = TaskRunner()
            self.runner.progress.connect(lambda percent: self.progress.setValue(round(percent)))
            self.runner.status.connect(self.status.setText)
        return self.runner

    def _on_done(self, key: Key, result: R | None) -> None:
        if result is None or key != self.wanted:
            return  # cancelled, or asked for before the view wanted something else
        self.wanted = None
        self.bar.setVisible(False)
        self.results[key] = result
        self._show(key, result)

    def _on_failed(self, exc: Exception) -> None:
        self.wanted = None
        self.progress.setVisible(False)  # the bar stays, to say why
        self.status.setText(translated(exc))

    def cancel(self) -> None:
        """Stop waiting for the running task; its result, when it comes, is dropped."""
        self.wanted, self._pending = None, None
        self._delay.stop()
        self.bar.setVisible(False)
        if self.runner is not None:
            self.runner.cancel()

    def shutdown(self) -> None:
        """Cancel and stop the worker thread (quit + wait); safe to call twice."""
        self.cancel()
        if self.runner is not None:
            self.runner.shutdown()
