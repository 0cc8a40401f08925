"""The sentence to translate: a text box with a live tokenization preview (words the model does
not know are highlighted and say they will be read as <unk>), the examples of the model's task,
a random sentence of its test split, the words the model knows, and an optional reference for
teacher forcing. Every change opens the workspace's new session at
once (one encoder pass); what cannot be read is said inline, under the box."""
from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from PySide6.QtCore import QEvent, QObject, QSignalBlocker, Signal
from PySide6.QtGui import QKeyEvent, QKeySequence
from PySide6.QtWidgets import QCheckBox, QComboBox, QGridLayout, QHBoxLayout, QLineEdit, QToolButton, QWidget

from ...core.base.errors import InputError, TransvizError
from ...core.data.dataset import Pair
from ...core.data.tasks import TASKS
from ...core.decoding.session import TeacherForcingSummary
from ...core.model.vocab import UNK
from ...core.teaching.workspace import test_pairs
from ..services.core_messages import translated
from ..services.language import Retranslated
from ..services.observe import subscribe
from ..services.session import SessionController
from .known_words import KnownWords
from .labels import FittingLabel, bound_label, error_label, show_error
from .token_strip import Chip, TokenStrip


class SourceBox(Retranslated, QWidget):
    """Sentence, examples, tokenization preview, teacher forcing.

    Signals:
        submitted(): Enter was pressed in a text box (the explorer then takes the keyboard, so
            Space steps).
    """

    submitted = Signal()

    def __init__(self, controller: SessionController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self._examples: tuple[Pair, ...] = ()
        self.sentence = QLineEdit()
        self.bind_text(self.sentence.setPlaceholderText,
                       lambda: self.tr("Type a sentence to translate, then press Enter and Space to step"))
        self.sentence.setClearButtonEnabled(True)
        self.examples = QComboBox()
        self.examples.setMinimumContentsLength(24)
        self.bind_text(self.examples.setPlaceholderText, lambda: self.tr("choose an example"))
        self.random_button, self.words_button = QToolButton(), QToolButton()
        self.bind_text(self.random_button.setText, lambda: self.tr("Random"))
        self.bind_text(self.random_button.setToolTip, lambda: self.tr(
            "A sentence of the task's test split, which the model never saw in training, with its translation"))
        self.bind_text(self.words_button.setText, lambda: self.tr("Words..."))
        self.bind_text(self.words_button.setToolTip, lambda: self.tr(
            "The words this model knows: a word it does not know is read as <unk>"))
        self.preview = TokenStrip()
        self.bind_text(self.preview.set_placeholder, lambda: self.tr("(the tokens the model reads appear here)"))
        self.teacher = QCheckBox()
        self.bind_text(self.teacher.setText, lambda: self.tr("Teacher forcing with the reference"))
        self.bind_text(self.teacher.setToolTip, lambda: self.tr(
            "Feed the reference's tokens instead of the model's own choices and compare them with what the model "
            "predicts at each step"))
        self.reference = QLineEdit()
        self.bind_text(self.reference.setPlaceholderText, lambda: self.tr("the correct translation"))
        self.reference.setEnabled(False)
        self._prefilled = False  # the reference box holds the sentence's own example translation
        self.reference_preview = TokenStrip()  # teacher forcing: the reference's tokens, unknown words flagged
        self.reference_preview.setVisible(False)
        # teacher forcing: how well the model predicts the reference. The panel places it away from
        # these rows, and it keeps one line (elided, whole in its tooltip): growing a line per step
        # pushed the decoding buttons down under the pointer, or squeezed the candidates' bars
        self.summary = FittingLabel()
        self.summary.setVisible(False)
        self.error = error_label()
        names = [bound_label(self, lambda: self.tr("Sentence")), bound_label(self, lambda: self.tr("Examples")),
                 bound_label(self, lambda: self.tr("Tokens"))]
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.addWidget(names[0], 0, 0)
        grid.addWidget(self.sentence, 0, 1)
        grid.addWidget(names[1], 0, 2)
        choices = QHBoxLayout()
        choices.addWidget(self.examples, 1)
        choices.addWidget(self.random_button)
        choices.addWidget(self.words_button)
        grid.addLayout(choices, 0, 3)
        grid.addWidget(names[2], 1, 0)
        grid.addWidget(self.preview, 1, 1)
        grid.addWidget(self.teacher, 1, 2)
        grid.addWidget(self.reference, 1, 3)
        grid.addWidget(self.reference_preview, 2, 3)
        grid.addWidget(self.error, 3, 1, 1, 3)
        grid.setColumnStretch(1, 3)
        grid.setColumnStretch(3, 2)
        self.sentence.textChanged.connect(self._on_sentence_changed)
        self.reference.textChanged.connect(self.open_session)
        self.reference.textEdited.connect(lambda _text: setattr(self, "_prefilled", False))  # typed: the user's
        self.teacher.toggled.connect(self._on_teacher_toggled)
        self.examples.activated.connect(self._on_example)
        self.random_button.clicked.connect(lambda: self.use_test_pair())  # clicked's argument is no pick
        self.words_button.clicked.connect(self.show_known_words)
        for box in (self.sentence, self.reference):
            box.installEventFilter(self)  # the window's Ctrl+Shift+A
        self.sentence.returnPressed.connect(self.submitted)
        self.reference.returnPressed.connect(self.submitted)
        subscribe(self, controller.workspace.model_changed, self._show_model)
        subscribe(self, controller.workspace.session_changed, self._show_sentence)
        controller.changed.connect(self._show_summary)
        self._show_model()
        self._show_sentence()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt's signature
        # A text box claims its platform's Deselect keys (Ctrl+Shift+A on Linux), which File > Export
        # animation uses; the focus is here after every model, example and slide, so the window gets them.
        if event.type() == QEvent.Type.ShortcutOverride and isinstance(event, QKeyEvent) \
                and event.matches(QKeySequence.StandardKey.Deselect):
            return True  # not accepted: the window's shortcut runs
        return super().eventFilter(watched, event)

    def retranslate(self) -> None:
        super().retranslate()
        self._describe_examples()
        self._describe_limit()
        self._preview(self.sentence.text())  # the unknown words' tooltips
        self._show_reference()
        self._show_summary()

    # -- model and examples ------------------------------------------------------------------------
    def _show_model(self, *_: object) -> None:
        """List the model's examples (its session follows: ``session_changed``)."""
        self._examples = self.controller.workspace.examples
        self.examples.clear()
        self.examples.addItems([p.source for p in self._examples])
        self.examples.setEnabled(bool(self._examples))
        model = self.controller.model
        self.random_button.setEnabled(model is not None and model.facts.get("task") in TASKS)
        self.words_button.setEnabled(model is not None)
        self._describe_examples()
        self._describe_limit()

    def _describe_limit(self) -> None:
        """Say where the sentence is typed how long a sentence the model reads."""
        model = self.controller.workspace.model
        self.sentence.setToolTip("" if model is None else self.tr(
            "This model reads at most {0} tokens per sentence").format(model.config.max_len))

    def _show_sentence(self, *_: object) -> None:
        """Show the sentence, reference and teacher forcing of the workspace's session (which the
        workspace has opened already: nothing is opened again) and why it has none."""
        workspace = self.controller.workspace
        with QSignalBlocker(self.sentence), QSignalBlocker(self.reference), QSignalBlocker(self.teacher):
            for box, text in ((self.sentence, workspace.sentence), (self.reference, workspace.reference or "")):
                if box.text() != text:
                    box.setText(text)
                    box.selectAll()  # a text the user did not type: typing replaces it
            self.teacher.setChecked(workspace.teacher_forcing)
        self._prefilled = workspace.reference is not None and workspace.reference == workspace.reference_of(
            workspace.sentence)
        self.reference.setEnabled(workspace.teacher_forcing)
        self.examples.setCurrentIndex(next((i for i, p in enumerate(self._examples)
                                            if p.source == workspace.sentence), -1))
        self._preview(workspace.sentence)
        error = workspace.error
        show_error(self.error, translated(error) if error is not None and self.controller.model else None)
        self._show_reference()
        self._show_summary()

    def _describe_examples(self) -> None:
        self.examples.setToolTip("" if self._examples else self.tr("This model's task has no built-in examples"))

    def use_example(self, index: int) -> None:
        """Put example ``index`` in the sentence box and its translation in the reference box."""
        pair = self._examples[index]
        self.reference.blockSignals(True)
        self.reference.setText(pair.target)
        self.reference.blockSignals(False)
        self._prefilled = True
        self.examples.setCurrentIndex(index)
        if self.sentence.text() == pair.source:
            self.open_session()  # the reference may have changed
        else:
            self.sentence.setText(pair.source)

    def use_test_pair(self, pick: Callable[[Sequence[Pair]], Pair] = random.choice) -> Pair | None:
        """Put a sentence of the task's test split in the sentence box and its translation in the
        reference box (``pick`` chooses it); None when the model's task has no test split."""
        pairs = test_pairs(self.controller.model)
        if not pairs:
            return None
        pair = pick(pairs)
        self.sentence.setText(pair.source)  # a reference filled in for the last sentence goes
        with QSignalBlocker(self.reference):
            self.reference.setText(pair.target)
        self._prefilled = True  # the pair's own translation: another sentence takes it out
        self.open_session()
        self.submitted.emit()
        return pair

    def show_known_words(self) -> KnownWords | None:
        """The model's source words in a dialog; a word chosen there goes into the sentence."""
        model = self.controller.model
        if model is None:
            return None
        dialog = KnownWords(model.src_vocab, self)
        dialog.chosen.connect(lambda word: self.insert_word(word, model.src_vocab.level == "word"))
        dialog.show()
        return dialog

    def insert_word(self, word: str, spaced: bool) -> None:
        """``word`` at the cursor of the sentence box, set apart by spaces in a sentence of words."""
        text, at = self.sentence.text(), self.sentence.cursorPosition()
        before = " " if spaced and at > 0 and not text[at - 1].isspace() else ""
        after = " " if spaced and at < len(text) and not text[at].isspace() else ""
        self.sentence.insert(f"{before}{word}{after}")

    def _on_example(self, index: int) -> None:
        self.use_example(index)
        self.submitted.emit()

    def _on_teacher_toggled(self, on: bool) -> None:
        self.reference.setEnabled(on)
        self.open_session()

    # -- the session -------------------------------------------------------------------------------
    def _on_sentence_changed(self, text: str) -> None:
        """A reference belongs to its sentence: an example's own translation is filled in, and one
        filled in for another sentence is taken out (a reference the user typed stays)."""
        own = self.controller.workspace.reference_of(text)
        if own is not None or self._prefilled:
            with QSignalBlocker(self.reference):
                self.reference.setText(own or "")
            self._prefilled = own is not None
        self.open_session()

    def open_session(self) -> None:
        """A new session for the text as it is now; problems are shown under the box."""
        text = self.sentence.text()
        if self.controller.model is None:  # the explorer says so
            self._preview(text)
            return
        try:
            self.controller.workspace.open(text, self.reference.text(), self.teacher.isChecked())
        except TransvizError:
            pass  # said by _show_sentence, which shows every session the workspace opens

    def _preview(self, text: str) -> None:
        model = self.controller.model
        if model is None or not text.strip():
            self.preview.set_chips([])
            return
        try:
            encoding = model.src_vocab.encode(text)
        except InputError:
            self.preview.set_chips([])
            return
        unknown = {i for i, _ in encoding.unknown}
        tip = self.tr("'{0}' is not in this model's vocabulary: the model reads it as {1}")
        self.preview.set_chips([Chip(token, tip.format(token, UNK) if i in unknown else "", unknown=i in unknown)
                                for i, token in enumerate(encoding.tokens)])

    # -- teacher forcing -------------------------------------------------------------------------
    def _show_reference(self) -> None:
        """The reference's tokens as the model reads them, unknown words flagged (teacher forcing)."""
        session = self.controller.session
        tokens = session.reference_tokens if session is not None and session.teacher_forcing else None
        self.reference_preview.setVisible(tokens is not None)
        if tokens is None or session is None:
            return
        unknown = {i: word for i, word in session.reference_unknown_tokens}
        tip = self.tr("'{0}' is not in this model's target vocabulary: teacher forcing feeds it as {1}")
        self.reference_preview.set_chips([
            Chip(token, tip.format(unknown[i], UNK) if i in unknown else "", unknown=i in unknown)
            for i, token in enumerate(tokens)])

    def _show_summary(self, *_: object) -> None:
        """Teacher forcing: tokens matched, mean loss and the probability of each gold token so far."""
        session = self.controller.session
        self.summary.setVisible(session is not None and session.teacher_forcing)  # from the start: no jump
        if session is None or not session.teacher_forcing:
            return
        summary = TeacherForcingSummary.of(session.history)
        if summary is None:  # a line already, so that the first step moves nothing
            self.summary.setText(self.tr("Teacher forcing: each step feeds the reference's next token and shows "
                                         "what the model predicted instead."))
            return
        gold = ", ".join(f"{token} {p:.3f}" for token, p in summary.gold)
        self.summary.setText(self.tr(
            "Teacher forcing, {0} steps: the model's most probable token was the gold one {1} times; mean loss "
            "{2:.3f} nats (-log p of the gold tokens); p(gold): {3}").format(
            summary.steps, summary.matched, summary.mean_loss, gold))
