"""A live class in the window: :mod:`transviz.live`'s server and student client, whose callbacks
run on threads of their own, adapted to Qt signals delivered on the window's thread.

:class:`ClassService` is the teacher's side (a :class:`~transviz.live.server.ClassServer`, and the
view sent at most every :data:`VIEW_GAP_MS`); :class:`StudentService` a student's (a
:class:`~transviz.live.client.ClassClient`, joined off the window's thread).
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Qt, QTimer, Signal

from ...core.base.errors import TransvizError
from ...live.client import ClassClient, QuestionView, ResultView, Status
from ...live.events import Event
from ...live.protocol import DEFAULT_PORT, Question
from ...live.room import QuestionSummary, Result, StudentInfo, Tally
from ...live.server import ClassServer

log = logging.getLogger(__name__)

VIEW_GAP_MS = 50  # the most views sent a second is 1000 / this: playing at 10 steps/s sends each step once
JOIN_TIMEOUT_S = 10.0  # how long joining may take before the student is told it failed


class ClassService(QObject):
    """The teacher's class: a server on ``host``:``port`` once :meth:`start` ran, until :meth:`stop`.

    Args:
        view: builds the view students see now (the schema in :mod:`transviz.live.protocol`), or
            None when there is nothing to show; called on the window's thread, at most every
            :data:`VIEW_GAP_MS` however often :meth:`send_view` is asked.

    Signals:
        student_event(object): a student joined, rejoined, left, answered or was removed (a record of
            :mod:`transviz.live.events`), on the window's thread.
        running_changed(bool): the class started (True) or stopped (False).
    """

    student_event = Signal(object)
    running_changed = Signal(bool)
    _arrived = Signal(object)  # emitted on the server's thread, delivered queued

    def __init__(self, view: Callable[[], dict[str, Any] | None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.server: ClassServer | None = None
        self._view = view
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(VIEW_GAP_MS)
        self._timer.timeout.connect(self._send_view)
        self._arrived.connect(self._deliver, Qt.ConnectionType.QueuedConnection)

    @property
    def running(self) -> bool:
        return self.server is not None and self.server.running

    def start(self, host: str = "0.0.0.0", port: int = DEFAULT_PORT) -> ClassServer:
        """Listen (TransvizError when the port is taken or cannot be used) and show the view now."""
        if self.running:
            raise RuntimeError("a class runs already: stop it first")
        server = ClassServer(host, port, on_event=self._arrived.emit)
        server.start()
        self.server = server
        self._send_view()
        self.running_changed.emit(True)
        return server

    def stop(self) -> None:
        """Close every student's connection and stop listening; the room's answers stay readable
        (:attr:`server`.room) until the next :meth:`start`. Idempotent."""
        self._timer.stop()
        if self.running:
            assert self.server is not None
            self.server.stop()
            self.running_changed.emit(False)

    def send_view(self) -> None:
        """Send the view soon: a burst of requests sends the latest view once."""
        if self.running and not self._timer.isActive():
            self._timer.start()

    def _send_view(self) -> None:
        if not self.running:
            return
        assert self.server is not None
        view = self._view()
        if view is not None:
            try:
                self.server.show(view)
            except TransvizError as exc:  # a view out of the protocol's bounds: the class keeps the last one
                log.warning("the class's view was not sent: %s", exc)

    def _deliver(self, event: Event) -> None:
        self.student_event.emit(event)

    # -- what the teacher does ---------------------------------------------------------------------
    def ask(self, question: Question) -> None:
        if self.running:
            assert self.server is not None
            self.server.ask(question)

    def close_question(self) -> Tally | None:
        return self.server.close_question() if self.running and self.server is not None else None

    def reveal(self) -> list[Result]:
        return self.server.reveal() if self.running and self.server is not None else []

    def remove(self, nickname: str) -> None:
        if self.running and self.server is not None:
            self.server.remove(nickname)

    def tally(self) -> Tally | None:
        return None if self.server is None else self.server.tally()

    def current(self) -> tuple[Question, bool, bool] | None:
        """The last question asked, whether it is open, whether it was revealed."""
        return None if self.server is None else self.server.room.current()

    def students(self) -> list[StudentInfo]:
        return [] if self.server is None else self.server.room.students()

    def summary(self) -> list[QuestionSummary]:
        return [] if self.server is None else self.server.summary()

    def export_csv(self, path: str, language: str) -> None:
        if self.server is not None:
            self.server.export_csv(path, language)


class StudentService(QObject):
    """A student's place in a class: :meth:`join` connects off the window's thread; what the
    teacher sends arrives as signals on the window's thread.

    Signals:
        state(dict): the teacher's view.
        question(object): the question (a :class:`~transviz.live.client.QuestionView`), when asked,
            answered or closed.
        result(object): at the reveal, whether this student was right (a ResultView).
        status(object): the connection's state changed (a :class:`~transviz.live.client.Status`).
        join_finished(object): the first join's outcome: the Status ("joined", or why not).
    """

    state = Signal(object)
    question = Signal(object)
    result = Signal(object)
    status = Signal(object)
    join_finished = Signal(object)
    _arrived = Signal(int, str, object)  # (client's serial, which, value), from the client's threads, queued

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.client: ClassClient | None = None
        self._joining: threading.Thread | None = None
        self._serial = 0  # the client's: what an earlier client still had on its way is dropped
        self._arrived.connect(self._deliver, Qt.ConnectionType.QueuedConnection)

    @property
    def connected(self) -> bool:
        """Joined or trying to be (reconnecting): not yet left, ended or refused."""
        return self.client is not None and self.client.status.kind in ("connecting", "joined", "reconnecting")

    def join(self, url: str, nickname: str, code: str | None = None) -> None:
        """Join the class at ``url`` (with ``#CODE``, or give ``code``) as ``nickname``;
        ``join_finished`` tells how it went. InputError at once when the address cannot be one."""
        self.leave()
        self._serial += 1

        def emit(which: str, value: object, serial: int = self._serial) -> None:
            self._arrived.emit(serial, which, value)

        self.client = client = ClassClient(url, nickname, on_state=lambda view: emit("state", view),
                                           on_question=lambda question: emit("question", question),
                                           on_result=lambda result: emit("result", result),
                                           on_status=lambda status: emit("status", status), code=code)
        self._joining = threading.Thread(target=self._connect, args=(client, emit), name="transviz-class-join",
                                         daemon=True)
        self._joining.start()

    @staticmethod
    def _connect(client: ClassClient, emit: Callable[[str, object], None]) -> None:
        try:
            client.connect(JOIN_TIMEOUT_S)
        except TransvizError:
            pass  # its status says why: the window words it
        emit("joined", client.status)

    def answer(self, choice: int) -> None:
        if self.client is not None:
            self.client.answer(choice)

    def leave(self) -> None:
        """Leave the class (its thread stops); idempotent."""
        client, joining = self.client, self._joining
        if client is not None:
            client.close()
        if joining is not None:
            joining.join(JOIN_TIMEOUT_S + 1)
        self._joining = None

    def _deliver(self, serial: int, which: str, value: object) -> None:
        if serial != self._serial:
            return
        if which == "joined":
            self.join_finished.emit(value)
        else:
            {"state": self.state, "question": self.question, "result": self.result, "status": self.status}[
                which].emit(value)


__all__ = ["ClassService", "QuestionView", "ResultView", "Status", "StudentService"]
