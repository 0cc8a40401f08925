"""The explorer's quiz: the question on the step just taken (hidden until Reveal), its numbered
choices, the reveal and the running score. The rules are :mod:`transviz.core.teaching.quiz`'s; this
widget only holds where the class is (the question, their choice, the answer)."""
from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Signal
from PySide6.QtWidgets import QLabel, QPushButton, QVBoxLayout, QWidget

from ...core.base.errors import InputError
from ...core.decoding.session import DecodingSession
from ...core.teaching.quiz import MAX_CHOICES, SOURCE_SIDE, YES, Answer, Question, QuizSpec, Score, answer, ask
from ..services.core_messages import translated
from ..services.language import Retranslated, Translate
from .attention_view import kind_names
from .labels import plain_label


class QuizPanel(Retranslated, QWidget):
    """The question, its choices (1-9), Reveal (Enter), the truth and the score.

    Signals:
        revealed_changed(bool): the step's answer is now shown (True) or hidden (False).
    """

    revealed_changed = Signal(bool)

    def __init__(self, spec: QuizSpec | None = None, seed: int = 0, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.spec, self.seed = spec or QuizSpec(), seed
        self.question: Question | None = None
        self.choice: int | None = None
        self.answer: Answer | None = None
        self.score = Score()
        self._revealed = False
        self.prompt = plain_label(wrap=True)
        self.choices_label = plain_label(wrap=True)
        self.reveal_button = QPushButton()
        self.bind_text(self.reveal_button.setText, lambda: self.tr("Reveal (Enter)"))
        self.reveal_button.clicked.connect(self.reveal)
        self.result = plain_label(wrap=True)
        self.score_label = QLabel()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget in (self.prompt, self.choices_label, self.reveal_button, self.result, self.score_label):
            layout.addWidget(widget)
        self._show()

    def retranslate(self) -> None:
        super().retranslate()
        self._show()

    @property
    def revealed(self) -> bool:
        return self.question is None or self._revealed

    def restart(self, spec: QuizSpec | None = None) -> None:
        """A fresh score (quiz mode turned on, or another question kind)."""
        self.spec = spec or self.spec
        self.score, self.question = Score(), None
        self._show()

    def ask_about(self, session: DecodingSession | None) -> str | None:
        """Ask about the session's newest step (hidden until :meth:`reveal`); the reason when it cannot."""
        self.choice, self.answer, self._revealed = None, None, False
        try:
            self.question = ask(session, self.spec, self.seed) if session is not None else None
        except InputError as exc:
            self.question = None
            return translated(exc)
        finally:
            self._show()
            self.revealed_changed.emit(self.revealed)
        return None

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
            self.prompt.setText(self.tr("Quiz: press Right (or Step) to be asked about the next step."))
            self.choices_label.setText("")
            self.result.setText("")
            return
        self.prompt.setText(self.prompt_text(question))
        self.choices_label.setText(self.choices_text(question))
        self.result.setText(self.result_text(question))

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

    def _verdict(self, truth: str) -> str:
        if self.answer is None:
            return self.tr("The answer: '{0}'.").format(truth)
        return self.tr("Right!") if self.answer.correct else self.tr("Not quite: the answer is '{0}'.").format(truth)

    # -- what is shown (tests) ---------------------------------------------------------------------
    @property
    def score_text(self) -> str:
        return self.score_label.text()
