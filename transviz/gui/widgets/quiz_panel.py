"""The explorer's quiz: what to ask, the question on the step just taken (hidden until Reveal), its
numbered choices, the reveal and the running score. The rules are :mod:`transviz.core.teaching.quiz`'s;
this widget only holds where the class is (the question, their choice, the answer).

A second panel can show the same quiz elsewhere (``mirror=True``, the masks tab's for a mask
question): it shows the :class:`~transviz.core.teaching.workspace.QuizState` the explorer publishes
and asks for the reveal instead of making it."""
from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QSignalBlocker, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from ...core.base.errors import InputError
from ...core.decoding.session import DecodingSession
from ...core.teaching.quiz import ASKS, MAX_CHOICES, SOURCE_SIDE, YES, Answer, Question, QuizSpec, Score, answer, ask
from ...core.teaching.workspace import QuizState
from ..services.core_messages import translated
from ..services.language import Retranslated, Translate, set_items
from .attention_view import kind_names
from .labels import bound_label, plain_label


class QuizPanel(Retranslated, QWidget):
    """What to ask, the question, its choices (1-9), Reveal (Enter), the truth and the score.

    Args:
        mirror: show another panel's quiz (:meth:`show_state`): Reveal only asks. The chooser of what
            to ask (:attr:`chooser`) is the owner's to lay out, or not (a mirror's).

    Signals:
        revealed_changed(bool): the step's answer is now shown (True) or hidden (False).
        ask_chosen(str): the class chose another kind of question in the chooser (one of ``ASKS``).
        changed(): what the panel shows changed (a question, a choice, the reveal, the score).
        reveal_requested(): a mirror's Reveal was clicked.
    """

    revealed_changed = Signal(bool)
    ask_chosen = Signal(str)
    changed = Signal()
    reveal_requested = Signal()

    def __init__(self, spec: QuizSpec | None = None, seed: int = 0, parent: QWidget | None = None,
                 mirror: bool = False) -> None:
        super().__init__(parent)
        self.spec, self.seed = spec or QuizSpec(), seed
        self.question: Question | None = None
        self.choice: int | None = None
        self.answer: Answer | None = None
        self.score = Score()
        self.reason: str | None = None  # why nothing is asked at this step
        self._revealed = False
        self.asks = QComboBox()
        # its longest name would widen the column of candidates it sits in: a narrow box shows it cut instead
        self.asks.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.asks.setMinimumContentsLength(12)
        self.bind_text(lambda names: set_items(self.asks, [names[a] for a in ASKS]), self.ask_names)
        self.bind_text(self.asks.setToolTip, lambda: self.tr(
            "What each step asks; another kind starts a fresh score and asks about the current step"))
        self.asks.setCurrentIndex(ASKS.index(self.spec.ask))
        self.asks.currentIndexChanged.connect(lambda index: self.ask_chosen.emit(ASKS[index]))
        # laid out by the panel's owner (the explorer: beside its Quiz mode button, where a line of the
        # question's own would be lost on a small screen)
        self.chooser = QWidget(self)
        row = QHBoxLayout(self.chooser)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(bound_label(self, lambda: self.tr("Ask")))
        row.addWidget(self.asks, 1)
        self.chooser.setVisible(False)  # until its owner lays it out and shows it
        self.prompt = plain_label(wrap=True)
        self.choices_label = plain_label(wrap=True)
        self.reveal_button = QPushButton()
        self.bind_text(self.reveal_button.setText, lambda: self.tr("Reveal (Enter)"))
        self.reveal_button.clicked.connect(self.reveal_requested.emit if mirror else self.reveal)
        self.result = plain_label(wrap=True)
        self.score_label = QLabel()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget in (self.prompt, self.choices_label, self.reveal_button, self.result, self.score_label):
            layout.addWidget(widget)
        self._show()

    def ask_names(self) -> dict[str, str]:
        """The chooser's name of each kind of question."""
        return {"token": self.tr("the next token"), "where": self.tr("where a head looks"),
                "layer": self.tr("which layer first writes the token"), "sums": self.tr("does a row sum to 1"),
                "aligns": self.tr("which head aligns best"), "queries": self.tr("which side supplies the queries"),
                "mask": self.tr("which mask cell is blocked")}

    def retranslate(self) -> None:
        super().retranslate()
        self._show()

    @property
    def revealed(self) -> bool:
        return self.question is None or self._revealed

    @property
    def chosen_ask(self) -> str:
        """The kind of question the chooser shows."""
        return ASKS[max(self.asks.currentIndex(), 0)]

    def set_chosen_ask(self, kind: str) -> None:
        """Show ``kind`` in the chooser (a lesson slide's question), without :attr:`ask_chosen`."""
        with QSignalBlocker(self.asks):
            self.asks.setCurrentIndex(ASKS.index(kind))

    def restart(self, spec: QuizSpec | None = None) -> None:
        """A fresh score (quiz mode turned on, or another question kind)."""
        self.spec = spec or self.spec
        self.score, self.question, self.reason = Score(), None, None
        self._show()

    def ask_about(self, session: DecodingSession | None, spec: QuizSpec | None = None) -> str | None:
        """Ask ``spec``'s question (default: the one asked before) about the session's newest step,
        hidden until :meth:`reveal`; the reason when it cannot."""
        self.spec = spec or self.spec
        self.choice, self.answer, self._revealed, self.reason = None, None, False, None
        try:
            self.question = ask(session, self.spec, self.seed) if session is not None else None
        except InputError as exc:
            self.question = None
            self.reason = translated(exc)
            return self.reason
        finally:
            self._show()
            self.revealed_changed.emit(self.revealed)
        return None

    def refuse(self, reason: str) -> None:
        """Ask nothing at this step, and say why in one line (the kind chosen does not fit)."""
        self.choice, self.answer, self._revealed, self.question, self.reason = None, None, False, None, reason
        self._show()
        self.revealed_changed.emit(True)

    def state(self) -> QuizState:
        """What the panel holds, for the views that show the question too."""
        return QuizState(self.question, self.choice, self.revealed and self.question is not None, self.score)

    def show_state(self, state: QuizState) -> None:
        """Show ``state`` (a mirror: another panel's quiz)."""
        self.question, self.choice, self.score = state.question, state.choice, state.score
        self._revealed = state.revealed
        self.answer = None
        if state.question is not None and state.revealed and state.choice is not None:
            self.answer = answer(state.question, state.choice)
        self._show()

    def choose(self, index: int) -> None:
        """The class's choice, numbered from 0 (before the reveal)."""
        if self.question is not None and not self.revealed and 0 <= index < len(self.question.choices):
            self.choice = index
            self._show()

    def reveal(self) -> None:
        if self.question is None or self.revealed:
            return
        self._revealed = True  # without a choice: the truth, nothing scored
        if self.choice is not None:
            self.answer = answer(self.question, self.choice)
            self.score = self.score.after(self.answer)
        self._show()
        self.revealed_changed.emit(True)

    # -- drawing -----------------------------------------------------------------------------------
    def _show(self) -> None:
        question = self.question
        self.score_label.setText(self.tr("score {0} / {1}").format(self.score.right, self.score.asked))
        self.reveal_button.setEnabled(question is not None and not self.revealed)
        if question is None:
            self.prompt.setText(self.reason or self.tr("Quiz: press Right (or Step) to be asked about the next step."))
            self.choices_label.setText("")
            self.result.setText("")
        else:
            self.prompt.setText(self.prompt_text(question))
            self.choices_label.setText(self.choices_text(question))
            self.result.setText(self.result_text(question))
        self.changed.emit()

    def prompt_text(self, question: Question, translate: Translate | None = None) -> str:
        """The question's prompt in the language in use, or in ``translate``'s (a live class asks in
        both)."""
        translate = translate or QCoreApplication.translate  # literal arguments below, so that lupdate finds them
        step, count, spec = question.step + 1, min(len(question.choices), MAX_CHOICES), self.spec
        if question.ask == "token":
            return translate("QuizPanel", "Step {0}: which token will the model write next? Press 1-{1}.").format(
                step, count)
        if question.ask == "layer":
            return translate("QuizPanel", "Step {0}: which decoder layer is the first to rank the next token first, "
                                          "every layer after it too? Press 1-{1} (layers from 0).").format(step, count)
        if question.ask == "sums":
            return translate("QuizPanel", "Step {0}: does this step's row of layer {1}, head {2} in the map shown sum "
                                          "to 1? Press 1 (yes) or 2 (no).").format(step, spec.layer, spec.head)
        if question.ask == "aligns":
            return translate("QuizPanel", "Which head of decoder layer {0} aligns best with the words being "
                                          "translated, over the test sentences? Press 1-{1} (heads from 0).").format(
                spec.layer, count)
        if question.ask == "queries":
            return translate("QuizPanel", "In {0}, whose tokens supply the queries (the rows of its maps)? Press 1 or "
                                          "2.").format(kind_names(translate)[spec.kind])
        if question.ask == "mask":
            return translate("QuizPanel", "Step {0}: which of these cells of the decoder's self-attention mask is "
                                          "blocked? Press 1-4 or click a numbered cell in the Masks tab.").format(step)
        return translate("QuizPanel", "Step {0}: where will layer {1}, head {2} look? Press 1-9 or click a key in the "
                                      "large map.").format(step, spec.layer, spec.head)

    def choice_name(self, question: Question, text: str, translate: Translate | None = None) -> str:
        """A choice as shown: a layer or head by its number, yes and no in the language in use (or
        in ``translate``'s)."""
        translate = translate or QCoreApplication.translate
        if question.ask == "sums":
            return translate("QuizPanel", "yes") if text == YES else translate("QuizPanel", "no")
        if question.ask == "queries":
            return translate("QuizPanel", "the source's tokens (what the encoder reads)") if text == SOURCE_SIDE \
                else translate("QuizPanel", "the decoder's inputs (the output so far)")
        if question.ask == "layer":
            return translate("QuizPanel", "layer {0}").format(text)
        if question.ask == "aligns":
            return translate("QuizPanel", "head {0}").format(text)
        if question.ask == "mask":
            row, column = question.cells[question.choices.index(text)]
            return translate("QuizPanel", "query {0} '{1}' -> key {2} '{3}'").format(row, question.tokens[row], column,
                                                                                     question.tokens[column])
        return text

    def choices_text(self, question: Question) -> str:
        lines = []
        for i, text in enumerate(self.choice_name(question, choice) for choice in question.choices):
            number = str(i + 1) if i < MAX_CHOICES else " "
            mark = "\u25b6 " if i == self.choice else "   "
            truth = "  \u2713" if self.revealed and i == question.truth else ""
            lines.append(f"{mark}{number}  {text}{truth}")
        return "\n".join(lines)

    def result_text(self, question: Question) -> str:
        if not self.revealed:
            return ""
        if question.ask == "mask":
            return self.mask_result(question)
        truth = self.choice_name(question, question.truth_text)
        if question.ask == "sums":  # the number behind the answer, whatever was chosen
            return self.tr("{0} The row sums to {1:.4f}.").format(self._verdict(truth), question.probabilities[0])
        if question.ask == "queries":
            return self.tr("{0} Its first layer projected {1:.0f} query rows here, one per decoder input.").format(
                self._verdict(truth), question.probabilities[0]) if question.truth else \
                self.tr("{0} Its first layer projected {1:.0f} query rows here, one per source token.").format(
                    self._verdict(truth), question.probabilities[0])
        if self.answer is None:
            return self.tr("The answer: '{0}' (p = {1:.3f}).").format(truth, question.probabilities[question.truth])
        chosen = self.choice_name(question, question.choices[self.answer.choice])
        given = {"token": self.tr("The model gave '{0}' p = {1:.3f}."),
                 "layer": self.tr("{0} gives the written token p = {1:.3f}."),
                 "aligns": self.tr("{0} chooses a gold-aligned word at {1:.1%} of the steps.")}.get(
            question.ask, self.tr("The head gave '{0}' weight {1:.3f}."))
        return f"{self._verdict(truth)} {given.format(chosen, self.answer.probability)}"

    def mask_result(self, question: Question) -> str:
        """The blocked cell, and the rule of the mask that blocks it."""
        number = question.truth + 1
        if self.answer is None:
            verdict = self.tr("The answer: cell {0}.").format(number)
        else:
            verdict = self.tr("Right!") if self.answer.correct else self.tr("Not quite: cell {0} is blocked.").format(
                number)
        row, column = question.cells[question.truth]
        why = {"future": self.tr("Blocked: key position {1} comes after query position {0}."),
               "window": self.tr("Blocked: key position {1} is {2} positions from query position {0}, outside the "
                                 "sliding window."),
               "source": self.tr("Blocked: query position {0} is the source's, and the source never sees the output "
                                 "(key position {1}).")}.get(question.blocked_by, self.tr("Blocked."))
        return f"{verdict} {why.format(row, column, abs(row - column))}"

    def _verdict(self, truth: str) -> str:
        if self.answer is None:
            return self.tr("The answer: '{0}'.").format(truth)
        return self.tr("Right!") if self.answer.correct else self.tr("Not quite: the answer is '{0}'.").format(truth)

    # -- what is shown (tests) ---------------------------------------------------------------------
    @property
    def score_text(self) -> str:
        return self.score_label.text()
