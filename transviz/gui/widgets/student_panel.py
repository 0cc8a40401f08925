"""A student's Class panel: what the teacher shows (the caption, the sentence, the output so far,
the candidate bars, the teacher's head drawn from its numbers), the open question with numbered
choices (keys 1-9 while the panel has the focus), whether the answer was right, and the
connection's state in plain words.

A view only: it shows what it is given and signals what the student does
(:mod:`transviz.gui.class_student` does it).
"""
from __future__ import annotations

from typing import Any

import numpy as np
from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QCheckBox, QGroupBox, QPushButton, QVBoxLayout, QWidget

from ...core.teaching.quiz import MAX_CHOICES
from ...live.client import QuestionView, ResultView, Status
from ...live.protocol import in_language
from ..services.class_view import APP_KINDS
from ..services.language import Retranslated
from .attention_view import kind_axes, kind_names
from .candidates import CandidatesChart
from .class_panel import scrolled, wire_language
from .heatmap import HeatmapWidget
from .labels import plain_label, token_line

CANDIDATES_HEIGHT = 240  # pixels the bars take at most
ENDED = ("refused", "removed", "replaced", "ended", "closed", "gave_up")  # the client has stopped


class StudentPanel(Retranslated, QWidget):
    """The class as one student sees it.

    Signals:
        answer_chosen(int): the student chose this choice (from 0) of the open question.
        leave_requested(): leave the class (or, once it has ended, close the panel).
        follow_changed(bool): "Follow in the explorer" was turned on or off.
    """

    answer_chosen = Signal(int)
    leave_requested = Signal()
    follow_changed = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.status: Status = Status("connecting")
        self.nickname = ""
        self.state: dict[str, Any] | None = None
        self.question: QuestionView | None = None
        self.result: ResultView | None = None
        self.follow_note_text = ""
        body = QWidget()
        column = QVBoxLayout(body)
        self.status_label = plain_label(wrap=True)
        self.notice = plain_label(wrap=True)  # a message the class refused, said once
        self.notice.setVisible(False)
        self.follow = QCheckBox()
        self.follow.setChecked(True)
        self.bind_text(self.follow.setText, lambda: self.tr("Follow in the explorer"))
        self.bind_text(self.follow.setToolTip, lambda: self.tr(
            "The explorer shows the teacher's sentence and step (when your model is the teacher's). Explore on your "
            "own at any time: F6 brings you back to the class"))
        self.follow.toggled.connect(self.follow_changed)
        self.follow_note = plain_label(wrap=True)
        self.caption = plain_label(wrap=True)
        font = self.caption.font()
        font.setBold(True)
        self.caption.setFont(font)
        column.addWidget(self.status_label)
        column.addWidget(self.notice)
        column.addWidget(self.follow)
        column.addWidget(self.follow_note)
        column.addWidget(self.caption)
        column.addWidget(self._build_question())
        column.addWidget(self._build_view())
        self.leave_button = QPushButton()
        self.leave_button.clicked.connect(lambda *_: self.leave_requested.emit())
        column.addWidget(self.leave_button, 0, Qt.AlignmentFlag.AlignLeft)
        column.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(scrolled(body))
        self.keys = [QShortcut(QKeySequence(str(n + 1)), self, lambda n=n: self.choose(n)) for n in range(MAX_CHOICES)]
        for key in self.keys:  # only while the panel has the focus: the explorer's quiz has these keys too
            key.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.retranslate()

    def _build_view(self) -> QWidget:
        """What the teacher shows: the sentence, the output, the candidates, the head."""
        self.view = QWidget()
        self.sentence = plain_label(wrap=True)
        self.output = plain_label(wrap=True)
        self.candidates = CandidatesChart()
        self.candidates.setMinimumHeight(160)
        self.candidates.setMaximumHeight(CANDIDATES_HEIGHT)  # the teacher's head stays within reach below
        self.no_candidates = plain_label(wrap=True)
        self.head = HeatmapWidget(colorbar=False)
        self.head.setMinimumHeight(240)
        layout = QVBoxLayout(self.view)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget in (self.sentence, self.output, self.no_candidates, self.candidates, self.head):
            layout.addWidget(widget)
        return self.view

    def _build_question(self) -> QWidget:
        self.question_box = QGroupBox()
        self.prompt = plain_label(wrap=True)
        self.choice_buttons: list[QPushButton] = []
        self.choices_layout = QVBoxLayout()
        self.verdict = plain_label(wrap=True)
        layout = QVBoxLayout(self.question_box)
        layout.addWidget(self.prompt)
        layout.addLayout(self.choices_layout)
        layout.addWidget(self.verdict)
        self.question_box.setVisible(False)
        return self.question_box

    def retranslate(self) -> None:
        super().retranslate()
        self.show_status(self.status, self.nickname)
        self.show_state(self.state)
        self.show_question(self.question)
        self.follow_note.setText(self.follow_note_text)

    # -- the student's actions -------------------------------------------------------------------------
    def choose(self, index: int) -> None:
        """Choose choice ``index`` (from 0) of the open question, as a click or key 1-9 does."""
        question = self.question
        if question is not None and question.open and 0 <= index < len(question.choices) \
                and self.status.kind == "joined":
            self.answer_chosen.emit(index)

    # -- what is shown ---------------------------------------------------------------------------------
    def show_status(self, status: Status, nickname: str = "") -> None:
        self.status, self.nickname = status, nickname or self.nickname
        self.status_label.setText(self.status_text(status))
        ended = status.kind in ENDED
        self.leave_button.setText(self.tr("Close") if ended else self.tr("Leave the class"))
        self.follow.setVisible(not ended)
        self.view.setVisible(status.kind not in ("removed", "refused"))  # a removed student keeps only the message
        if ended:
            self.show_question(self.question)  # its buttons go off

    def status_text(self, status: Status) -> str:
        kind = status.kind
        if kind == "joined":
            return self.tr("In the class as {0}.").format(self.nickname)
        if kind == "reconnecting":
            return self.tr("The connection was lost: reconnecting (try {0})...").format(status.attempt)
        if kind == "refused":
            return self.tr("The class refused to let you in: {0}").format(self.refusal_text(status.reason))
        texts = {
            "connecting": self.tr("Joining the class..."),
            "removed": self.tr("The teacher removed you from the class."),
            "replaced": self.tr("You joined this class again from another window or device: this one has left."),
            "ended": self.tr("The teacher ended the class."),
            "closed": self.tr("You left the class."),
            "gave_up": self.tr("The class cannot be reached any more: check the network, then join again."),
        }
        return texts.get(kind, kind)

    def show_notice(self, status: Status | None) -> None:
        """Why the class refused a message (``status``: an "error" Status), or nothing (None)."""
        texts = {"question_closed": self.tr("Too late: the question was closed before your answer arrived."),
                 "too_fast": self.tr("Too many messages at once: wait a moment, then answer again.")}
        text = "" if status is None else texts.get(status.reason or "", self.tr(
            "The class did not take your last answer ({0}).").format(status.reason or "?"))
        self.notice.setText(text)
        self.notice.setVisible(bool(text))

    def refusal_text(self, reason: str | None) -> str:
        texts = {
            "wrong_code": self.tr("the join code is wrong."),
            "nickname_taken": self.tr("that nickname is taken: choose another."),
            "bad_nickname": self.tr("a nickname is 1 to 24 characters, without line breaks or control characters."),
            "full": self.tr("the class is full."),
            "removed": self.tr("the teacher removed this nickname from the class."),
            "too_many_attempts": self.tr("too many wrong codes from this computer: wait a few minutes."),
        }
        return texts.get(reason or "", reason or "?")

    def set_follow_note(self, text: str) -> None:
        """Why the explorer does not follow (another model, or the student is exploring), or ""."""
        self.follow_note_text = text
        self.follow_note.setText(text)
        self.follow_note.setVisible(bool(text))

    def show_state(self, state: dict[str, Any] | None) -> None:
        """The teacher's view (the schema in :mod:`transviz.live.protocol`)."""
        self.state = state
        if state is None:
            self.caption.setVisible(False)
            self.sentence.setText(self.tr("Waiting for the teacher's first step..."))
            self.output.setText("")
            self.candidates.show_pairs("", [])
            self.candidates.setVisible(False)
            self.no_candidates.setVisible(False)
            self.head.setVisible(False)
            return
        caption = state.get("caption")
        self.caption.setVisible(bool(caption))
        self.caption.setText(in_language(caption, wire_language()) if caption else "")
        self.sentence.setText(self.tr("Sentence: {0}").format(state["sentence"]))
        output = state["output"]
        self.output.setText(self.tr("Output after step {0}: {1}").format(state["step"], token_line(output))
                            if output else self.tr("Output: nothing yet (step {0})").format(state["step"]))
        pairs = [(str(token), float(probability)) for token, probability in state["candidates"]]
        title = self.tr("The model's most probable next tokens at step {0}").format(state["step"]) if pairs else \
            self.tr("No candidates shown now (a question may be open).")
        self.candidates.show_pairs(title, pairs, chosen=output[-1] if output and pairs else None)
        self.candidates.setVisible(bool(pairs))  # hidden by a question, or before the first step: no room kept
        self.no_candidates.setText("" if pairs else title)
        self.no_candidates.setVisible(not pairs)
        self._show_head(state.get("head"))

    def _show_head(self, head: dict[str, Any] | None) -> None:
        self.head.setVisible(head is not None)
        if head is None:
            return
        kind = APP_KINDS[head["kind"]]
        weights = np.asarray(head["weights"], dtype=np.float32).reshape(len(head["rows"]), len(head["cols"]))
        self.head.set_axes(kind_axes(kind))
        self.head.set_data(weights, head["rows"], head["cols"])
        translate = QCoreApplication.translate  # the explorer's words for them
        which = translate("AttentionView", "mean of heads") if head["head"] is None else \
            translate("AttentionView", "head {0}").format(head["head"])
        self.head.set_title(self.tr("The teacher's {0}, layer {1}: {2}").format(kind_names()[kind], head["layer"],
                                                                              which))

    def show_question(self, question: QuestionView | None) -> None:
        """The question (None: none yet): prompt and choices in the window's language, the
        student's choice checked; the buttons work while it is open and the class runs."""
        changed = question is None or self.question is None or question.id != self.question.id
        self.question = question
        if changed:
            self.result = None
        self.question_box.setVisible(question is not None and self.status.kind not in ("removed", "refused"))
        if question is None:
            return
        language = wire_language()
        labels = {"pre": self.tr("Pre-test"), "post": self.tr("Post-test")}
        self.question_box.setTitle(labels.get(question.label or "", self.tr("Question")))
        self.prompt.setText(in_language(question.prompt, language))
        texts = [in_language(choice, language) for choice in question.choices]
        while len(self.choice_buttons) < len(texts):
            button = QPushButton()
            button.setCheckable(True)
            index = len(self.choice_buttons)
            button.clicked.connect(lambda *_, i=index: self._clicked(i))
            self.choices_layout.addWidget(button)
            self.choice_buttons.append(button)
        can_answer = question.open and self.status.kind == "joined"
        for index, button in enumerate(self.choice_buttons):
            button.setVisible(index < len(texts))
            if index < len(texts):
                number = f"{index + 1}  " if index < MAX_CHOICES else ""
                button.setText(number + texts[index] + self._mark(index))
                button.setChecked(index == question.choice)
                button.setEnabled(can_answer)
        self.verdict.setText(self.verdict_text())

    def _clicked(self, index: int) -> None:
        self.choose(index)
        if self.question is not None:  # checked when the class counts it, not on the click
            for i, button in enumerate(self.choice_buttons):
                button.setChecked(i == self.question.choice)

    def _mark(self, index: int) -> str:
        result = self.result
        if result is None:
            return ""
        return "  \u2713" if index == result.answer else ""

    def show_result(self, result: ResultView) -> None:
        """Whether this student was right; the right choice marked."""
        if self.question is not None and result.question == self.question.id:
            self.result = result
            self.show_question(self.question)

    def verdict_text(self) -> str:
        question, result = self.question, self.result
        if question is None:
            return ""
        if result is not None:
            truth = in_language(question.choices[result.answer], wire_language())
            if result.choice is None:
                return self.tr("You did not answer. The answer: {0}").format(truth)
            translate = QCoreApplication.translate  # the explorer's quiz's words
            return translate("QuizPanel", "Right!") if result.right else \
                translate("QuizPanel", "Not quite: the answer is '{0}'.").format(truth)
        if question.open:
            return self.tr("Your answer is counted; you may change it until the teacher closes the question.") \
                if question.choice is not None else self.tr("Press 1-{0} or click a choice.").format(
                min(len(question.choices), MAX_CHOICES))
        return self.tr("The question is closed: wait for the answer.")

    # -- what is shown (tests) ---------------------------------------------------------------------------
    def choice_texts(self) -> list[str]:
        return [button.text() for button in self.choice_buttons if not button.isHidden()]
