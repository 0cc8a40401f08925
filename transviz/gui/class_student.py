"""File > Join a class: this window as a student in a teacher's live class (:mod:`transviz.live`).

The Class panel (a dock) shows what the teacher shows and the open question; the student answers
there (keys 1-9). When the student's model is the teacher's (the same name: a shipped model), the
explorer follows the teacher's sentence and step too ("Follow in the explorer", on by default). A
student may explore on their own meanwhile, in the explorer or any tab: following pauses at their
first move of the explorer, and F6 ("Back to the class") brings the panel and the teacher's state
back.
"""
from __future__ import annotations

from typing import Any, Protocol
from urllib.parse import urlsplit

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QMainWindow, QTabWidget

from ..core.base.errors import TransvizError
from ..core.decoding.session import DecodingSession
from ..core.teaching.lesson import SUMMARY_HEAD, View
from ..core.teaching.workspace import Workspace
from ..live.client import QuestionView, ResultView, Status
from .panels.explorer import ExplorerPanel, explorer_in
from .panels.lazy_tabs import LazyPanels
from .services.class_view import APP_KINDS
from .services.files import model_name
from .services.live_class import StudentService
from .services.observe import subscribe
from .widgets.class_panel import PanelDock
from .widgets.join_dialog import JoinDialog
from .widgets.student_panel import ENDED, StudentPanel

DOCK_CHARACTERS = 60  # the panel's width: the teacher's head drawn large enough to read its tokens
DOCK_SHARE = 0.3  # ... or this share of the window's width, when wider


class StudentHost(Protocol):
    """The main window as a student's class sees it."""

    workspace: Workspace
    panels: LazyPanels
    tabs: QTabWidget


def follow_session(workspace: Workspace, sentence: str, output: list[str]) -> None:
    """Bring the workspace's session to ``sentence`` decoded to ``output``: a new sentence is
    decoded at once (one redraw); the same one goes back to where the outputs part and steps on,
    forcing the teacher's token where this model would write another. TransvizError when the
    model cannot read the sentence or write a token."""
    session = workspace.session
    if session is None or workspace.sentence != sentence:
        workspace.restore(sentence, None, False, workspace.strategy, workspace.interventions,
                          lambda new: _continue(new, output))
        return
    common = 0
    for mine, theirs in zip(session.output_tokens, output, strict=False):
        if mine != theirs:
            break
        common += 1
    if common < session.position:
        session.rewind(common)
    _continue(session, output)


def _continue(session: DecodingSession, output: list[str]) -> None:
    for token in output[session.position:]:
        if session.cant_step() is not None:
            return
        if session.step().token != token:  # the teacher forced it, sampled it, or runs interventions
            session.back()
            session.force(token)


class StudentClass(QObject):
    """The window as a student: the join dialog, the Class panel (a dock on the right), the
    explorer following the teacher.

    Signals:
        active_changed(bool): this window joined a class (True) or is no longer in one (False).
    """

    active_changed = Signal(bool)

    def __init__(self, window: StudentHost, parent: QMainWindow) -> None:
        super().__init__(parent)
        self.window, self.main_window = window, parent
        self.workspace = window.workspace
        self.service = StudentService(self)
        self.panel = StudentPanel()
        # beside the panel the explorer is narrower: its strategy takes a row of its own
        self.dock = PanelDock.on_right(parent, self.panel, lambda: self.tr("Class"), "student_class_dock",
                                       lambda shown: self.explorer.controls.set_two_rows(shown))
        self.dialog: JoinDialog | None = None
        self.address, self.nickname = "", ""  # the last typed: the dialog offers them again
        self.state: dict[str, Any] | None = None  # the teacher's latest view
        self.exploring = False  # the student moved the explorer: it stops following until F6
        self._applying = False  # the explorer moves because it follows (not the student)
        self._wire()

    @property
    def explorer(self) -> ExplorerPanel:
        return explorer_in(self.window.panels)

    @property
    def active(self) -> bool:
        return self.service.connected

    def _wire(self) -> None:
        service, panel = self.service, self.panel
        service.state.connect(self._on_state)
        service.question.connect(self._on_question)
        service.result.connect(self._on_result)
        service.status.connect(self._on_status)
        service.join_finished.connect(self._join_finished)
        panel.answer_chosen.connect(self.answer)
        panel.leave_requested.connect(self._leave_or_close)
        panel.follow_changed.connect(lambda _: self._follow())
        subscribe(self, self.workspace.session_changed, self._moved)
        subscribe(self, self.workspace.session_moved, self._moved)

    # -- joining -----------------------------------------------------------------------------------------
    def join_with_dialog(self) -> JoinDialog:
        """File > Join a class: the dialog stays open until the class is joined or it is cancelled."""
        if self.dialog is None:
            parent = self.parent()
            self.dialog = JoinDialog(parent if isinstance(parent, QMainWindow) else None, self.address, self.nickname)
            self.dialog.join_asked.connect(self.join)
            self.dialog.rejected.connect(self._dialog_cancelled)
        self.dialog.open()
        return self.dialog

    def join(self, address: str, code: str, nickname: str) -> None:
        """Join the class at ``address`` (its code after '#', or ``code``) as ``nickname``."""
        self.address, self.nickname = address, nickname
        try:
            self.service.join(address, nickname, code or None)
        except TransvizError:
            self._failed(self._address_problem(address, code))
            return
        self.panel.show_status(Status("connecting"), nickname)

    def _address_problem(self, address: str, code: str) -> str:
        if not code and not urlsplit(address if "://" in address else "http://" + address).fragment:
            return self.tr("The address has no join code: type it after '#', as the teacher's screen shows it, or in "
                           "the Code box.")
        return self.tr("{0} is not a class's address: type it as the teacher's screen shows it, for example "
                       "http://192.168.1.20:8338/#K7Q2MX").format(address)

    def _failed(self, message: str) -> None:
        if self.dialog is not None:
            self.dialog.show_failure(message)

    def _dialog_cancelled(self) -> None:
        if not self.active or self.service.client is None or self.service.client.status.kind != "joined":
            self.service.leave()  # a join still trying stops with the dialog

    def _join_finished(self, status: Status) -> None:
        if status.kind != "joined":
            if status.kind == "refused":
                self._failed(self.panel.status_text(status))
            else:
                self._failed(self.tr("Cannot reach the class at {0}: check the address, and that this computer is on "
                                     "the teacher's network.").format(self.address))
            return
        if self.dialog is not None:  # done with: the next join asks again, with what was typed
            self.dialog.accept()
            self.dialog.deleteLater()
            self.dialog = None
        self.exploring = False
        self.panel.set_follow_note("")
        self.panel.show_status(status, self.service.client.nickname if self.service.client else self.nickname)
        self.dock.open_beside(self.main_window, DOCK_CHARACTERS, DOCK_SHARE)
        self.back_to_class()
        self.active_changed.emit(True)

    def leave(self) -> None:
        """Leave the class (its thread stops); the panel says so."""
        was = self.active
        self.service.leave()
        if was:
            self.active_changed.emit(False)

    def _leave_or_close(self) -> None:
        if self.panel.status.kind in ENDED:
            self.dock.setVisible(False)
        else:
            self.leave()

    # -- what the teacher sends ------------------------------------------------------------------------------
    def _on_state(self, state: dict[str, Any]) -> None:
        self.state = state
        self.panel.show_state(state)
        self._follow()

    def _on_question(self, question: QuestionView) -> None:
        self.panel.show_question(question)

    def _on_result(self, result: ResultView) -> None:
        self.panel.show_result(result)

    def _on_status(self, status: Status) -> None:
        if status.kind == "error":  # one message refused: the connection stands
            self.panel.show_notice(status)
            return
        self.panel.show_notice(None)
        self.panel.show_status(status)
        if status.kind in ENDED:
            self.panel.set_follow_note("")
            self.active_changed.emit(False)

    def answer(self, choice: int) -> None:
        try:
            self.service.answer(choice)
        except TransvizError:
            pass  # the question closed meanwhile: its message follows

    # -- following in the explorer ------------------------------------------------------------------------
    def same_model(self) -> bool:
        """Whether this window's model is the teacher's, by name (a shipped model's, or a file's):
        an unsaved model has no name to compare."""
        model, state = self.workspace.model, self.state
        return model is not None and model.path is not None and state is not None \
            and model_name(model) == state["model"]

    def _follow(self) -> None:
        state = self.state
        if state is None or not self.active:
            return
        if not self.panel.follow.isChecked():
            self.panel.set_follow_note("")
            return
        if not self.same_model():
            self.panel.set_follow_note(self.tr(
                "The teacher's model is {0}; this window's is another: the explorer does not follow (the panel "
                "does).").format(state["model"]))
            return
        if self.exploring:
            return
        self._applying = True
        try:
            follow_session(self.workspace, state["sentence"], list(state["output"]))
            self._show_head(state.get("head"))
            self.panel.set_follow_note("")
        except TransvizError as exc:
            self.panel.set_follow_note(self.tr("The explorer cannot follow: {0}").format(str(exc)))
        finally:
            self._applying = False

    def _show_head(self, head: dict[str, Any] | None) -> None:
        """The teacher's head large in the explorer (the mean of heads for a summary)."""
        if head is None:
            return
        attention = self.explorer.attention
        shown = attention.view_state()
        wanted = View(APP_KINDS[head["kind"]], head["layer"], SUMMARY_HEAD if head["head"] is None else head["head"],
                      "mean" if head["head"] is None else shown.summary, shown.scale)
        if wanted != shown:
            attention.apply_view(wanted)

    def _moved(self, *_: object) -> None:
        """The student moved the explorer: it stops following, until F6."""
        if self._applying or not self.active or self.exploring or not self.same_model() \
                or not self.panel.follow.isChecked():
            return
        self.exploring = True
        self.panel.set_follow_note(self.tr("You are exploring on your own: F6 brings you back to the class."))

    def back_to_class(self) -> None:
        """F6: the Class panel in front with the focus (keys 1-9 answer), and the explorer back on
        the teacher's state when it follows."""
        if self.dock.isHidden() and self.state is None and not self.active:
            return
        self.dock.setVisible(True)
        self.dock.raise_()
        self.panel.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.exploring = False
        self.panel.set_follow_note("")
        if self.panel.follow.isChecked() and self.same_model():
            self.window.tabs.setCurrentWidget(self.explorer)
            self._follow()
