"""File > Start a class: the window serves a live class (:mod:`transviz.live`) on the local network.

The class follows the explorer: every move of its session (a step, back, a new sentence), of the
head shown large and of a lesson's slide sends the view (:func:`~.services.class_view.class_view`),
the latest at most every :data:`~.services.live_class.VIEW_GAP_MS`. Each question the explorer's quiz
asks (quiz mode, a slide's quiz) is asked to the class in English and Chinese, its answer kept here
until the reveal; the explorer's Reveal and the Class panel's reveal both. While a question is open
the view leaves out the step it asks about. The class stops with Stop, or when the window closes.
"""
from __future__ import annotations

import errno
import socket
from collections.abc import Callable
from typing import Any, Protocol

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QFileDialog, QMainWindow, QMessageBox, QTabWidget, QWidget

from ..core.base.errors import TransvizError
from ..core.teaching.quiz import Question as QuizQuestion
from ..core.teaching.workspace import Workspace
from ..live.events import Answered, Event
from ..live.protocol import DEFAULT_PORT, Question
from .lesson_mode import LessonMode
from .panels.explorer import ExplorerPanel, explorer_in
from .panels.lazy_tabs import LazyPanels
from .services.class_view import class_view
from .services.files import model_name
from .services.language import CHINESE, ENGLISH, Translate, translation_in
from .services.live_class import ClassService
from .services.observe import subscribe
from .widgets.class_panel import ClassPanel, PanelDock, wire_language
from .widgets.grid import SUMMARY_COLUMN
from .widgets.join_window import JoinWindow

ANY_PORT = 0  # the system chooses a free port
DOCK_CHARACTERS = 40  # the Class panel's width: a prompt wraps in a few lines, the chart's bars have room
DOCK_SHARE = 0.25  # ... or this share of the window's width, when wider


class ClassHost(Protocol):
    """The main window as the class sees it."""

    workspace: Workspace
    panels: LazyPanels
    tabs: QTabWidget
    lesson_mode: LessonMode

    def show_error(self, title: str, message: str) -> QMessageBox: ...


def port_taken(host: str, port: int) -> bool:
    """Whether another program listens on ``port`` (the server's error does not say which failure it was)."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        probe.bind(("" if host == "0.0.0.0" else host, port))
    except OSError as exc:
        return exc.errno in (errno.EADDRINUSE, getattr(errno, "WSAEADDRINUSE", -1))
    finally:
        probe.close()
    return False


def in_both(text: Callable[[Translate], str]) -> str | dict[str, str]:
    """``text`` in English and Chinese (the app's own wording in each), or one string when they agree."""
    english, chinese = text(translation_in(ENGLISH)), text(translation_in(CHINESE))
    return english if english == chinese else {"en": english, "zh": chinese}


class TeacherClass(QObject):
    """The window's live class, from Start to Stop: the server, the Class panel (a dock on the
    right) and the join window for the projector.

    Signals:
        running_changed(bool): a class started (True) or stopped (False).
    """

    running_changed = Signal(bool)

    def __init__(self, window: ClassHost, parent: QMainWindow) -> None:
        super().__init__(parent)
        self.window, self.main_window = window, parent
        self.workspace = window.workspace
        self.service = ClassService(self.view, self)
        self.panel = ClassPanel()
        # beside the panel the explorer is narrower: its strategy takes a row of its own
        self.dock = PanelDock.on_right(parent, self.panel, lambda: self.tr("Class"), "class_dock",
                                       lambda shown: self.explorer.controls.set_two_rows(shown))
        self.join_window: JoinWindow | None = None
        self.asked = 0  # questions asked in this class: each gets its own id
        self.quiz_question: QuizQuestion | None = None  # the explorer's question the class's open one came from
        self.open = False  # the class's question takes answers
        self.revealed: set[str] = set()  # ids of the questions revealed: the summary shows their right answers
        self._wire()

    @property
    def explorer(self) -> ExplorerPanel:
        return explorer_in(self.window.panels)

    @property
    def running(self) -> bool:
        return self.service.running

    def _wire(self) -> None:
        send = self.service.send_view
        workspace = self.workspace
        subscribe(self, workspace.session_changed, lambda _: send())
        subscribe(self, workspace.session_moved, lambda _: send())
        subscribe(self, workspace.model_changed, lambda _: send())
        subscribe(self, workspace.hidden_changed, lambda _: send())  # a revealed step goes out, a hidden one not
        subscribe(self, workspace.hidden_changed, self._follow_quiz)
        attention = self.explorer.attention
        for changed in (attention.selected_changed, attention.kind.currentIndexChanged,
                        attention.summary.currentIndexChanged, self.window.lesson_mode.slide_shown,
                        self.window.lesson_mode.exploring_changed, self.window.lesson_mode.active_changed):
            changed.connect(lambda *_: send())
        self.explorer.quiz.revealed_changed.connect(self._follow_quiz)
        self.service.student_event.connect(self._on_event)
        self.service.running_changed.connect(self.running_changed)
        panel = self.panel
        panel.join_requested.connect(self.show_join_window)
        panel.stop_requested.connect(self.stop)
        panel.remove_requested.connect(self.remove)
        panel.reveal_requested.connect(self.reveal)
        panel.export_requested.connect(self.export_with_dialog)

    # -- start and stop ----------------------------------------------------------------------------------
    def start(self, host: str = "0.0.0.0", port: int = DEFAULT_PORT) -> bool:
        """Start a class on ``host``:``port``; when the port is taken, offer any free one. Whether it started."""
        if self.running:
            return True
        try:
            server = self.service.start(host, port)
        except TransvizError as exc:
            taken = port != ANY_PORT and port_taken(host, port)
            if taken and self._other_port_wanted(port):
                return self.start(host, ANY_PORT)
            if not taken:
                self.window.show_error(self.tr("Could not start the class"), str(exc))
            return False
        self.asked, self.quiz_question, self.open, self.revealed = 0, None, False, set()
        self.panel.show_address(server.url, server.code)
        self.panel.show_students([])
        self.panel.show_no_question()
        self.panel.show_summary([])
        self.panel.stop_button.setEnabled(True)
        self.panel.join_button.setEnabled(True)
        self.dock.open_beside(self.main_window, DOCK_CHARACTERS, DOCK_SHARE)
        self.show_join_window()
        self._follow_quiz()  # a question open in the explorer now is the class's first
        return True

    def _other_port_wanted(self, port: int) -> bool:
        parent = self.parent()
        answer = QMessageBox.question(
            parent if isinstance(parent, QWidget) else None, self.tr("The port is in use"), self.tr(
                "Port {0} is in use on this computer (another class, or another program). Start the class on another "
                "port? Students then type the address the join window shows; a firewall may have to let that port "
                "in too.").format(port))
        return answer == QMessageBox.StandardButton.Yes

    def stop(self) -> None:
        """Stop the class: every student's connection closes, the port is closed. The panel keeps the
        summary and the export until the next class."""
        if self.join_window is not None:
            self.join_window.close()
        if not self.running:
            return
        self.service.stop()
        self.open = False
        self.panel.show_address("", "")
        self.panel.address.setText(self.tr("The class has ended. Export the answers now if you want them: they "
                                           "are not kept once another class starts."))
        self.panel.stop_button.setEnabled(False)
        self.panel.join_button.setEnabled(False)
        self.panel.reveal_button.setEnabled(False)

    def show_panel(self) -> None:
        """The Class panel in front again (F6), when a class runs or its answers wait for the export."""
        if self.running or self.service.server is not None:
            self.dock.setVisible(True)
            self.dock.raise_()

    def show_join_window(self) -> JoinWindow | None:
        server = self.service.server
        if not self.running or server is None:
            return None
        if self.join_window is None:  # a window of its own (for the projector), closed with the main window
            self.join_window = JoinWindow(self.main_window)
            self.join_window.setAttribute(Qt.WidgetAttribute.WA_QuitOnClose, False)
        self.join_window.show_class(server.url, server.join_url, server.code)
        self.join_window.show()
        self.join_window.raise_()
        return self.join_window

    # -- what students see -------------------------------------------------------------------------------
    def view(self) -> dict[str, Any] | None:
        """The class's view of the explorer now (None: no session to show)."""
        session, model = self.workspace.session, self.workspace.model
        if session is None or model is None:
            return None
        attention = self.explorer.attention
        kind, layer, head = attention.current_kind(), -1, 0
        if attention.shown is not None:
            kind = attention.shown.kind
            layer, head = attention.selected()
        # a summary of heads goes as the mean (the protocol names one head or the mean)
        return class_view(session, kind, layer, None if head == SUMMARY_COLUMN else head, model_name(model),
                          self._caption(), self.workspace.hidden)

    def _caption(self) -> dict[str, str] | None:
        lesson = self.window.lesson_mode
        if lesson.lesson is None or lesson.exploring:
            return None
        slide = lesson.lesson.slides[lesson.index]
        return {"en": slide.caption(ENGLISH), "zh": slide.caption(CHINESE)}

    # -- questions -----------------------------------------------------------------------------------------
    def _follow_quiz(self, *_: object) -> None:
        """The explorer's quiz moved: a new question is asked to the class; its reveal reveals the
        class's; a question left unanswered (back, quiz off) closes the class's, whose step is no
        longer hidden."""
        if not self.running:
            return
        quiz = self.explorer.quiz
        question = quiz.question if self.explorer.quiz_on else None
        if question is not None and not quiz.revealed and question is not self.quiz_question:
            self.ask(question)
        elif self.open and question is self.quiz_question and quiz.revealed:
            self._reveal_class()
        elif self.open and (question is not self.quiz_question or not self.workspace.hidden):
            self._close_class()

    def ask(self, question: QuizQuestion) -> None:
        """Ask the explorer's ``question`` to the class, in both languages."""
        quiz = self.explorer.quiz
        self.asked += 1

        def choice(text: str) -> str | dict[str, str]:
            return in_both(lambda translate: quiz.choice_name(question, text, translate))

        prompt = in_both(lambda translate: quiz.prompt_text(question, translate))
        asked = Question(f"q{self.asked}", question.ask, prompt, tuple(choice(text) for text in question.choices),
                         question.truth, self.panel.test_label())
        self.quiz_question, self.open = question, True
        self.service.ask(asked)
        self.panel.show_question(lambda: (quiz.prompt_text(question), [quiz.choice_name(question, c)
                                                                        for c in question.choices]))
        self._show_tally()
        self._show_summary()

    def reveal(self) -> None:
        """The panel's Reveal: the explorer's question too, when it is the class's."""
        quiz = self.explorer.quiz
        if self.quiz_question is not None and quiz.question is self.quiz_question and not quiz.revealed:
            quiz.reveal()  # the class's follows (_follow_quiz)
        if self.running and not self._current_revealed():
            self._reveal_class()

    def _current_revealed(self) -> bool:
        current = self.service.current()
        return current is None or current[2]

    def _reveal_class(self) -> None:
        current = self.service.current()
        self.service.reveal()
        self.open = False
        if current is not None:
            self.revealed.add(current[0].id)
            self.panel.show_closed(current[0].answer)
        self._show_summary()

    def _close_class(self) -> None:
        self.service.close_question()
        self.open = False
        self.panel.show_closed(None)

    # -- students ----------------------------------------------------------------------------------------
    def _on_event(self, event: Event) -> None:
        if isinstance(event, Answered):
            tally = event.tally
            current = self.service.current()
            if current is not None and tally.question == current[0].id:
                self.panel.show_tally(tally.answered, tally.students, tally.counts)
            self._show_summary()
            return
        self.panel.show_students(self.service.students())
        self._show_tally()

    def _show_tally(self) -> None:
        tally = self.service.tally()
        if tally is not None:
            self.panel.show_tally(tally.answered, tally.students, tally.counts)

    def _show_summary(self) -> None:
        """Each question: how many answered, and how many were right once it was revealed (never
        before: the panel may be on the projector)."""
        self.panel.show_summary(self.service.summary(), self.revealed)

    def remove(self, nickname: str) -> None:
        try:
            self.service.remove(nickname)
        except TransvizError:
            pass  # gone already (removed from another click): the list catches up with the event

    # -- answers -----------------------------------------------------------------------------------------
    def export_with_dialog(self) -> None:
        parent = self.parent()
        path, _ = QFileDialog.getSaveFileName(parent if isinstance(parent, QWidget) else None,
                                              self.tr("Export the class's answers"), "answers.csv",
                                              self.tr("CSV files (*.csv)"))
        if path:
            self.export_to(path)

    def export_to(self, path: str) -> bool:
        """Write every answer to ``path`` as CSV (prompts in the window's language); whether it was written."""
        try:
            self.service.export_csv(path, wire_language())
        except (OSError, TransvizError) as exc:
            self.window.show_error(self.tr("Could not export the answers"), str(exc))
            return False
        return True
