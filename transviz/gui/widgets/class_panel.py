"""The teacher's Class panel: where the class joins, who is in it (each nickname shown as typed,
never as markup) with Remove, the open question with how many answered and a live chart of the
answers (the right one unmarked until Reveal), the test label of the questions to come, the
summary per question and the export of the answers.

A view only: it shows what it is given and signals what the teacher asks for
(:mod:`transviz.gui.class_teacher` does it).
"""
from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDockWidget,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QPushButton,
    QScrollArea,
    QTableWidget,
    QTableWidgetItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ...live.protocol import in_language
from ...live.room import QuestionSummary, StudentInfo
from ..services.help_texts import class_help
from ..services.language import CHINESE, Retranslated, current_language
from .answer_chart import AnswerChart
from .dialogs import text_dialog
from .labels import bound_label, plain_label

DOCK_SLACK = 16  # pixels of the window's width the dock's separator and frames take
TEST_LABELS = (None, "pre", "post")  # the chooser's entries: practice, pre-test, post-test
NICKNAME = Qt.ItemDataRole.UserRole


def wire_language() -> str:
    """The protocol's name of the language in use: "zh" or "en"."""
    return "zh" if current_language() == CHINESE else "en"


def scrolled(content: QWidget) -> QScrollArea:
    """``content`` in a vertical scroll area: a panel beside the tabs takes the window's height,
    never more (a long list scrolls instead of making the window taller than the screen)."""
    area = QScrollArea()
    area.setWidget(content)
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    return area


class PanelDock(Retranslated, QDockWidget):
    """A dock beside the tabs titled ``title()`` in the language in use (``name``: its object name,
    under which the window's layout is remembered)."""

    def __init__(self, title: Callable[[], str], name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(name)
        self.setAllowedAreas(Qt.DockWidgetArea.LeftDockWidgetArea | Qt.DockWidgetArea.RightDockWidgetArea)
        self.bind_text(self.setWindowTitle, title)

    @classmethod
    def on_right(cls, window: QMainWindow, content: QWidget, title: Callable[[], str], name: str,
                 shown: Callable[[bool], None]) -> PanelDock:
        """A hidden dock of ``content`` on ``window``'s right; ``shown(visible)`` follows it (the
        tabs beside it make room)."""
        dock = cls(title, name)
        dock.setWidget(content)
        dock.setVisible(False)
        window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
        dock.visibilityChanged.connect(shown)
        return dock

    def open_beside(self, window: QMainWindow, characters: int, share: float) -> None:
        """Show the dock ``characters`` average characters wide or, wider, ``share`` of the window's
        width; at most as wide as the window's tabs leave room for (they keep their minimum width)."""
        self.setVisible(True)
        # sized once the window has laid out what showing the dock changed in the tabs (the explorer's rows)
        QTimer.singleShot(0, self, lambda: self._widen(window, characters, share))

    def _widen(self, window: QMainWindow, characters: int, share: float) -> None:
        central = window.centralWidget()
        room = window.width() - (central.minimumSizeHint().width() if central is not None else 0) - DOCK_SLACK
        wanted = max(self.fontMetrics().averageCharWidth() * characters, int(window.width() * share))
        width = max(self.minimumSizeHint().width(), min(wanted, room))
        window.resizeDocks([self], [width], Qt.Orientation.Horizontal)


class ClassPanel(Retranslated, QWidget):
    """The class as the teacher runs it.

    Signals:
        join_requested(): show the join window (address, code, QR code) again.
        stop_requested(): stop the class.
        remove_requested(str): remove the student with this nickname.
        reveal_requested(): reveal the open question's answer.
        export_requested(): export the answers as CSV.
        label_changed(object): the questions to come are "pre", "post" or None (practice).
    """

    join_requested = Signal()
    stop_requested = Signal()
    remove_requested = Signal(str)
    reveal_requested = Signal()
    export_requested = Signal()
    label_changed = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._address = ("", "")
        self._students: list[StudentInfo] = []
        self._tally = (0, 0)
        self._summary: list[QuestionSummary] = []
        self._revealed: set[str] = set()
        self._asked = False
        self._question_texts: Callable[[], tuple[str, list[str]]] | None = None
        self.body = body = QWidget()
        column = QVBoxLayout(body)
        column.addWidget(self._build_join())
        column.addWidget(self._build_students())
        column.addWidget(self._build_question(), 1)
        column.addWidget(self._build_summary())
        column.addStretch(0)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(scrolled(body))
        self.show_students([])
        self.show_no_question()

    # -- construction --------------------------------------------------------------------------------
    def _button(self, text: Callable[[], str], slot: Callable[[], object]) -> QPushButton:
        button = QPushButton()
        self.bind_text(button.setText, text)
        button.clicked.connect(lambda *_: slot())
        return button

    def _build_join(self) -> QWidget:
        self.address = plain_label(wrap=True)
        self.address.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.join_button = self._button(lambda: self.tr("Show join code"), self.join_requested.emit)
        self.stop_button = self._button(lambda: self.tr("Stop the class"), self.stop_requested.emit)
        self.help_button = QToolButton()
        self.help_button.setText("?")
        self.bind_text(self.help_button.setToolTip, lambda: self.tr("How a live class works"))
        self.help_button.clicked.connect(lambda *_: self.show_help())
        top = QHBoxLayout()
        top.addWidget(self.address, 1)
        top.addWidget(self.help_button, 0, Qt.AlignmentFlag.AlignTop)
        buttons = QHBoxLayout()  # two buttons a row: the panel may be narrow beside the explorer
        buttons.addWidget(self.join_button)
        buttons.addWidget(self.stop_button)
        buttons.addStretch(1)
        box = QWidget()
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addLayout(buttons)
        return box

    def _build_students(self) -> QWidget:
        self.students_box = QGroupBox()
        self.students = QListWidget()
        self.students.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.students.setMinimumHeight(60)
        self.students.setMaximumHeight(160)
        self.remove_button = self._button(lambda: self.tr("Remove"), self._remove_selected)
        self.bind_text(self.remove_button.setToolTip, lambda: self.tr(
            "Remove the selected student: their connection closes, their answers leave the chart and the export, "
            "and the nickname cannot join again"))
        self.students.itemSelectionChanged.connect(
            lambda: self.remove_button.setEnabled(bool(self.students.selectedItems())))
        layout = QVBoxLayout(self.students_box)
        layout.addWidget(self.students)
        layout.addWidget(self.remove_button, 0, Qt.AlignmentFlag.AlignLeft)
        return self.students_box

    def _build_question(self) -> QWidget:
        box = QGroupBox()
        self.bind_text(box.setTitle, lambda: self.tr("Question"))
        self.label_box = self.choice_box(lambda: {None: self.tr("practice"), "pre": self.tr("pre-test"),
                                                  "post": self.tr("post-test")})
        self.bind_text(self.label_box.setToolTip, lambda: self.tr(
            "How the questions asked from now on are marked in the export: practice, or a pre-test and a post-test "
            "of the same lesson"))
        self.label_box.currentIndexChanged.connect(lambda _: self.label_changed.emit(self.test_label()))
        chooser = QHBoxLayout()
        chooser.addWidget(bound_label(self, lambda: self.tr("Questions count as")))
        chooser.addWidget(self.label_box, 1)
        self.prompt = plain_label(wrap=True)
        self.answered = plain_label(wrap=True)
        self.chart = AnswerChart()
        self.reveal_button = self._button(lambda: self.tr("Reveal"), self.reveal_requested.emit)
        self.bind_text(self.reveal_button.setToolTip, lambda: self.tr(
            "Show the right answer here and in the explorer, and tell each student whether they were right"))
        layout = QVBoxLayout(box)
        layout.addLayout(chooser)
        layout.addWidget(self.prompt)
        layout.addWidget(self.answered)
        layout.addWidget(self.chart, 1)
        layout.addWidget(self.reveal_button, 0, Qt.AlignmentFlag.AlignLeft)
        return box

    def _build_summary(self) -> QWidget:
        box = QGroupBox()
        self.bind_text(box.setTitle, lambda: self.tr("Each question"))
        self.summary = QTableWidget(0, 4)
        self.summary.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.summary.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.summary.verticalHeader().setVisible(False)
        self.summary.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.summary.horizontalHeader().setStretchLastSection(True)
        self.summary.setMinimumHeight(80)
        self.summary.setMaximumHeight(180)
        self.bind_text(self.summary.setHorizontalHeaderLabels, lambda: [
            self.tr("question"), self.tr("test"), self.tr("answered"), self.tr("right")])
        self.export_button = self._button(lambda: self.tr("Export answers (CSV)..."), self.export_requested.emit)
        self.bind_text(self.export_button.setToolTip, lambda: self.tr(
            "Write every answer to a CSV file (nickname, question, answer, right, time): nothing about the students "
            "is written anywhere else"))
        layout = QVBoxLayout(box)
        layout.addWidget(self.summary)
        layout.addWidget(self.export_button, 0, Qt.AlignmentFlag.AlignLeft)
        return box

    def retranslate(self) -> None:
        super().retranslate()
        if self._asked and self._question_texts is not None:
            prompt, choices = self._question_texts()
            self.prompt.setText(prompt)
            self.chart.choices = list(choices)
            self.chart.update()
        elif not self._asked:
            self.show_no_question()
        self.show_address(*self._address)
        self.show_students(self._students)
        self.show_tally(*self._tally)
        self.show_summary(self._summary, self._revealed)

    # -- what the teacher chose --------------------------------------------------------------------------
    def test_label(self) -> str | None:
        return TEST_LABELS[max(self.label_box.currentIndex(), 0)]

    def _remove_selected(self) -> None:
        items = self.students.selectedItems()
        if items:
            self.remove_requested.emit(items[0].data(NICKNAME))

    def show_help(self) -> QWidget:
        return text_dialog(self, self.tr("Help: a live class"), class_help(), "class_help")

    # -- what is shown ---------------------------------------------------------------------------------
    def show_address(self, url: str, code: str) -> None:
        self._address = (url, code)
        self.address.setText(self.tr("Students open {0} and type the code {1}").format(url, code) if url else "")

    def show_students(self, students: Sequence[StudentInfo]) -> None:
        """The students in the class (removed ones left out), in joining order; the selection stays."""
        self._students = list(students)
        present = [s for s in students if not s.removed]
        selected = {item.data(NICKNAME) for item in self.students.selectedItems()}
        self.students.clear()
        for student in present:
            text = student.nickname if student.connected else self.tr("{0} (away)").format(student.nickname)
            item = QListWidgetItem(text)  # plain text: a nickname is never read as markup
            item.setData(NICKNAME, student.nickname)
            self.students.addItem(item)
            item.setSelected(student.nickname in selected)
        self.students_box.setTitle(self.tr("Students: {0}").format(len(present)))
        self.remove_button.setEnabled(bool(self.students.selectedItems()))

    def show_no_question(self) -> None:
        self._asked = False
        self.prompt.setText(self.tr("No question yet: turn on quiz mode (Q) in the explorer, or run a lesson with "
                                    "quiz slides; each question is asked to the class too."))
        self.answered.setText("")
        self.chart.clear()
        self.reveal_button.setEnabled(False)

    def show_question(self, texts: Callable[[], tuple[str, list[str]]]) -> None:
        """A new question: ``texts()`` gives its prompt and choices in the window's language (again
        after a change of language); nobody has answered, nothing is marked."""
        self._asked, self._question_texts = True, texts
        prompt, choices = texts()
        self.prompt.setText(prompt)
        self.chart.set_question(choices)
        self.reveal_button.setEnabled(True)

    def show_tally(self, answered: int, students: int, counts: Sequence[int] = ()) -> None:
        self._tally = (answered, students)
        if self._asked:
            self.answered.setText(self.tr("{0} of {1} answered").format(answered, students))
        if counts:
            self.chart.set_counts(counts)

    def show_closed(self, truth: int | None) -> None:
        """No more answers; ``truth`` (None: not revealed yet, Reveal still can) marked in the chart."""
        self.chart.set_truth(truth)
        self.reveal_button.setEnabled(truth is None and self._asked)

    def show_summary(self, summaries: Sequence[QuestionSummary], revealed: Collection[str] = ()) -> None:
        """A row per question asked: its id (its prompt in the tooltip), the test, how many
        answered and, once it is among ``revealed``, how many of them were right."""
        self._summary, self._revealed = list(summaries), set(revealed)
        tests = {None: self.tr("practice"), "pre": self.tr("pre-test"), "post": self.tr("post-test")}
        self.summary.setRowCount(len(summaries))
        for row, summary in enumerate(summaries):
            share = "-" if summary.right_share is None else f"{summary.right_share:.0%}"
            right = self.tr("{0} ({1})").format(summary.right, share) if summary.question in revealed else \
                self.tr("after Reveal")
            cells = (summary.question, tests.get(summary.label, summary.label or ""),
                     self.tr("{0} of {1}").format(summary.answered, summary.students), right)
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(in_language(summary.prompt, wire_language()))
                self.summary.setItem(row, column, item)

    # -- what is shown (tests) ---------------------------------------------------------------------------
    def nicknames(self) -> list[str]:
        return [self.students.item(i).text() for i in range(self.students.count())]

    def summary_rows(self) -> list[list[str]]:
        return [[item.text() if (item := self.summary.item(r, c)) is not None else ""
                 for c in range(self.summary.columnCount())] for r in range(self.summary.rowCount())]
