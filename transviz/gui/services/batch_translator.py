"""Greedy translations of a batch's sentences on a worker thread of their own, for the masks tab:
:func:`transviz.core.analysis.mask_batch.translate` run through a :class:`~transviz.gui.services.workers.TaskRunner`."""
from __future__ import annotations

import logging
from collections.abc import Sequence

from PySide6.QtCore import QObject, Signal, SignalInstance

from ...core.analysis.mask_batch import TokensAndIds, translate
from ...core.base.errors import InputError
from ...core.model.bundle import Model
from .workers import TaskRunner, TaskState

log = logging.getLogger(__name__)


class BatchTranslator(QObject):
    """Translates sentences with a model off the GUI thread, one request at a time.

    A request supersedes the one under way (its result is dropped) unless that one already covers
    its sentences, so that redrawing and asking again does not restart it. The thread starts with
    the first request and stops (quit + wait) at :meth:`shutdown`; a later request starts a new one.

    Signals:
        translated(object, object): the model and its translations, ``{sentence: TokensAndIds}``.
        failed(object): the exception the translation raised (an InputError: the user's sentence;
            anything else is a bug, logged too).
        busy_changed(bool): a translation started, or ended: after ``translated`` or ``failed``
            was handled (unless its handler asked for more), or when cancelled.
    """

    translated = Signal(object, object)
    failed = Signal(object)
    busy_changed = Signal(bool)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._runner: TaskRunner | None = None
        self._sentences: list[str] | None = None  # under way
        self._model: Model | None = None  # translating them
        self._busy = False  # what busy_changed said last

    def is_busy(self) -> bool:
        return self._sentences is not None

    def request(self, model: Model, sentences: Sequence[str]) -> None:
        """Translate ``sentences`` with ``model``; ``translated`` or ``failed`` follows on the GUI thread."""
        if self._sentences is not None and model is self._model and set(sentences) <= set(self._sentences):
            return
        if self._runner is None:
            self._runner = TaskRunner(self)
            self._runner.worker_thread.setObjectName("transviz-translations")
        wanted = list(sentences)

        def task(state: TaskState) -> dict[str, TokensAndIds]:
            return translate(model, wanted, state.is_cancelled)

        self._runner.start(task, lambda found: self._end(self.translated, model, found), self._failed)
        self._model = model
        self._set_under_way(wanted)

    def cancel(self) -> None:
        """Drop the translation under way (the thread finishes the sentence it is on)."""
        if self._runner is not None:
            self._runner.cancel()
        self._set_under_way(None)

    def shutdown(self) -> None:
        """Cancel and stop the thread (quit + wait). Safe to call twice."""
        self.cancel()
        if self._runner is not None:
            self._runner.shutdown()
            self._runner.deleteLater()
            self._runner = None

    def _failed(self, exc: Exception) -> None:
        if not isinstance(exc, InputError):
            log.error("translating %s failed", self._sentences, exc_info=exc)
        self._end(self.failed, exc)

    def _end(self, signal: SignalInstance, *args: object) -> None:
        self._sentences = None  # the handler may ask for more
        signal.emit(*args)
        self._set_under_way(self._sentences)

    def _set_under_way(self, sentences: list[str] | None) -> None:
        self._sentences = sentences
        if self._busy != (sentences is not None):
            self._busy = sentences is not None
            self.busy_changed.emit(self._busy)
