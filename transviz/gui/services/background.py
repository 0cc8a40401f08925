"""What the training and lab workers share: a :class:`~transviz.gui.services.workers.TaskRunner` of their
own (so a model loading in the window never cancels a run), and a shutdown that first asks the
running work to stop, then stops the thread (quit + wait)."""
from __future__ import annotations

from PySide6.QtCore import QObject, QThread

from .workers import TaskRunner


class OwnThreadWorker(QObject):
    """Runs one piece of long work at a time on a thread named ``name``.

    Subclasses start work with ``self._runner.start(...)`` and implement :meth:`stop_work`.
    """

    def __init__(self, name: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._runner = TaskRunner(self)
        self._runner.worker_thread.setObjectName(name)

    @property
    def worker_thread(self) -> QThread:
        """The thread the work runs on (``thread()``, QObject's, is the one this worker lives in)."""
        return self._runner.worker_thread

    def is_running(self) -> bool:
        return self._runner.is_busy()

    def stop_work(self) -> None:
        """Ask the running work to end soon (between batches)."""
        raise NotImplementedError

    def shutdown(self) -> None:
        """Stop the work, let it finish cleanly, stop the thread; before the window goes."""
        self.stop_work()
        if self.worker_thread.isRunning():
            self._runner.shutdown()
