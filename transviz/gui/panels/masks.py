"""The masks tab: the padding mask on a small batch of source sentences of different lengths
(what encoder self-attention and cross-attention use), the sequence (causal) mask over the decoder
inputs so far, and the combined mask decoder self-attention really uses on a batch of decoder
inputs, each with its true tensor shape; and a walkthrough of one head's attention for one query,
step by step, from the model's weights.

The sentence and the target so far follow the explorer's session (:meth:`MasksPanel.follow`)
unless "follow the explorer" is unticked; the other sentences of the batch stay editable. While a
quiz's question is open in the explorer, the other sentences' translations are left out (they could
name the hidden token). A mask question (which of four numbered cells is blocked?) is answered here:
its cells are numbered on the combined mask, whose values, the sequence mask's and the walkthrough
stay hidden until the answer is revealed; 1-4 or a click on a numbered cell choose, Enter reveals,
Right moves on (through the workspace, to the explorer's quiz). The
core builds the batch (:mod:`transviz.core.analysis.mask_batch`); the other sentences' decoder inputs are
the start token and the loaded model's greedy translation, computed on a worker thread and drawn
when they arrive.
"""
from __future__ import annotations

import math

import numpy as np
import torch
from PySide6.QtCore import QSize, Qt, QTimer
from PySide6.QtGui import QFont, QFontDatabase, QFontMetricsF, QHideEvent, QKeySequence, QShortcut, QShowEvent
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QCheckBox,
    QComboBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from ...core.analysis.mask_batch import DecoderBatch, SourceBatch, TokensAndIds, mask_batch, split_sentences
from ...core.analysis.walkthrough import KINDS, Kind, Walkthrough, attention_module, walkthrough
from ...core.base.errors import InputError
from ...core.model.bundle import Model
from ...core.model.transformer import ALiBi
from ...core.model.vocab import UNK
from ...core.teaching.quiz import MAX_CHOICES, Question
from ...core.teaching.workspace import Explanation, QuizMove, QuizState, Workspace
from ..services.batch_translator import BatchTranslator
from ..services.core_messages import translated
from ..services.language import Retranslated, set_items
from ..services.observe import subscribe
from ..style import plot_font
from ..widgets.attention_view import flag_unknown
from ..widgets.heatmap import AxisNames, HeatmapWidget, symmetric_levels
from ..widgets.labels import bound_label, error_label, plain_label, show_error
from ..widgets.quiz_panel import QuizPanel
from .base import PlotPanel, VerticalScroll

DEFAULT_SENTENCE = "ich mochte ein bier"
DEFAULT_OTHERS = "ein bier; ich mochte ein bier bitte"  # shorter and longer: padding on both sides
DEFAULT_TARGET = "i want a beer"


def numbered_rows(heading: str, rows: list[list[str]]) -> str:
    """The heading, then one line per padded row of tokens, numbered from 1 like the chooser."""
    return "\n".join([heading, *(f"{i + 1}: " + " ".join(tokens) for i, tokens in enumerate(rows))])


def shape_text(tensor: torch.Tensor) -> str:
    """``(3, 1, 1, 5)`` with no-break spaces: a wrapped title never splits a shape over two lines."""
    return "(" + ",\u00a0".join(str(n) for n in tensor.shape) + ")"


def drawn_mask(mask: torch.Tensor) -> np.ndarray:
    """A mask as a mask plot draws it: 1 where it allows, NaN where it blocks, so that blocked
    cells are hatched like the masked cells of every attention plot (never a colour of the map)."""
    return np.where(mask.numpy(), 1.0, np.nan).astype(np.float32)


def labelled_height(view: HeatmapWidget, rows: int, numbered: bool = False) -> int:
    """The least height of a mask plot at which every row keeps its label and the rows' axis
    title is whole: a mask is read row by row. ``numbered`` cells (a quiz's) need rows as high as
    their numbers' boxes, which must not run into each other's, and the title says more."""
    metrics = QFontMetricsF(plot_font())
    line = metrics.height()
    cells = max(rows * (1.7 if numbered else 1.3) * line, metrics.horizontalAdvance(view.axes.row_title) + 2 * line)
    # title (2 lines, 4 numbered), column labels and title (3), read-out, margins
    return math.ceil(cells + (10 if numbered else 8) * line)


class MaskView(HeatmapWidget):
    """A mask plot whose preferred height is the least that labels its rows (:func:`labelled_height`):
    in the scrolled column of masks, a larger wish would push the others out of sight."""

    def sizeHint(self) -> QSize:
        return QSize(super().sizeHint().width(), self.minimumHeight())

    def hasHeightForWidth(self) -> bool:
        return False  # its wrapped title would make the plot's own wish its height: the minimum has room for it


class MasksPanel(Retranslated, PlotPanel):
    """Masks, with their shapes, and the attention walkthrough of one head and one query. The other
    sentences' translations come from :attr:`translator` (its ``busy_changed(False)`` follows their drawing)."""

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(workspace, parent)
        self.batch: SourceBatch | None = None
        self.decoder: DecoderBatch | None = None  # row 0 alone while the others are translated
        self.stream: torch.Tensor | None = None  # a decoder-only model's one mask per row (MaskBatch.stream)
        self._untranslated: list[str] = []  # the other sentences not in self.decoder yet
        self._translations: dict[str, TokensAndIds] = {}  # of the loaded model, by sentence
        self.translator = BatchTranslator(self)
        self._chosen_row = 0  # the combined mask's sentence, kept while translations are computed
        self.steps: Walkthrough | None = None
        self._followed: tuple[str, str] | None = None  # the explorer's (sentence, target) not yet shown
        self._stale = False  # what the tab shows waits until it is shown (the model's work included)
        self._wanted_query: int | None = None  # the query asked for, chosen once the walkthrough has it
        self.quiz = QuizState()  # the explorer's quiz: a mask question is answered here
        self._brought: Question | None = None  # the mask question the combined mask was scrolled to
        self._combined_tokens: list[str] = []  # the combined mask's positions, as drawn
        self._build()
        self._add_quiz_keys()
        self.translator.translated.connect(self._on_translated)
        self.translator.failed.connect(self._on_translation_failed)
        self.translator.busy_changed.connect(self._show_translation_note)
        self.watch_model()
        subscribe(self, workspace.session_changed, self._follow_session)
        subscribe(self, workspace.session_moved, self._follow_session)
        subscribe(self, workspace.explain_requested, self.explain)
        subscribe(self, workspace.hidden_changed, lambda _: self.refresh_masks())  # the others' translations
        subscribe(self, workspace.quiz_changed, self.show_quiz)
        self._follow_session()  # a tab built after the explorer opened its sentence shows it too
        self.show_quiz(workspace.quiz)  # built when a mask question opened: it shows it

    def retranslate(self) -> None:
        super().retranslate()
        self.refresh()  # titles with shapes, the shapes' explanation, the query's summary

    # -- construction --------------------------------------------------------------------------
    def _build(self) -> None:
        self.sentence = QLineEdit(DEFAULT_SENTENCE)
        self.others = QLineEdit(DEFAULT_OTHERS)
        self.bind_text(self.others.setToolTip, lambda: self.tr("Sentences separated by ';'"))
        self.following = QCheckBox()
        self.bind_text(self.following.setText, lambda: self.tr("Follow the explorer"))
        self.bind_text(self.following.setToolTip,
                       lambda: self.tr("Show the explorer's sentence and the target it has written so far"))
        self.following.setChecked(True)
        self.mask_error = error_label()
        inputs = QGridLayout()
        inputs.addWidget(bound_label(self, lambda: self.tr("Sentence")), 0, 0)
        inputs.addWidget(self.sentence, 0, 1)
        inputs.addWidget(self.following, 0, 2)
        inputs.addWidget(bound_label(self, lambda: self.tr("Other sentences in the batch (separated by ;)")), 0, 3)
        inputs.addWidget(self.others, 0, 4)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.setObjectName("masks_and_walkthrough")  # its sizes are restored at the next start
        self.masks_column = VerticalScroll(self._build_masks())  # four texts and three plots, one above the other
        splitter.addWidget(self.masks_column)
        splitter.addWidget(self._build_walkthrough())
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 2)
        splitter.setSizes([450, 900])  # wrapped titles no longer widen the masks: give them a third
        self.arrange(inputs, self.mask_error, splitter)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # a mask question's keys, away from the text boxes
        self.sentence.textChanged.connect(self.refresh)
        self.others.textChanged.connect(self.refresh_masks)  # the walkthrough reads one sentence
        self.following.toggled.connect(self._on_following_toggled)
        self._on_following_toggled(True)

    def _mask_value(self, value: float) -> str:
        return self.tr("1: may attend") if value > 0.5 else self.tr("0: blocked")  # NaN: blocked

    def _build_masks(self) -> QWidget:
        self.padding_view, self.causal_view, self.combined_view = (
            MaskView(value_format=self._mask_value, colorbar=False) for _ in range(3))
        self.bind_text(self.padding_view.set_axes, lambda: AxisNames(
            self.tr("sentence"), self.tr("key"), self.tr("sentences"), self.tr("key positions")))
        self.track(self.padding_view, self.causal_view, self.combined_view)
        self.padded_tokens, self.decoder_tokens = self._token_rows(), self._token_rows()
        self.translation_note = bound_label(self, self._translation_note, wrap=True)
        self.combined_sentence = QComboBox()
        self.combined_sentence.currentIndexChanged.connect(self._on_combined_chosen)
        self.combined_view.clicked.connect(self._on_combined_clicked)
        self.shapes = plain_label()
        self.shapes.setWordWrap(True)
        chooser = QHBoxLayout()
        chooser.addWidget(bound_label(self, lambda: self.tr("Combined mask of sentence")))
        chooser.addWidget(self.combined_sentence, 1)
        box = QGroupBox()
        self.bind_text(box.setTitle, lambda: self.tr("Masks on a batch (True = may attend)"))
        layout = QVBoxLayout(box)
        layout.addWidget(self.padded_tokens)
        layout.addWidget(self.padding_view, 3)
        layout.addWidget(self.causal_view, 4)
        layout.addWidget(self.decoder_tokens)
        layout.addWidget(self.translation_note)
        layout.addLayout(chooser)
        layout.addWidget(self.combined_view, 4)
        layout.addWidget(self.shapes)
        return box  # each mask keeps the height its rows need; a small screen scrolls

    def _translation_note(self) -> str:
        """Why the combined mask shows sentence 1 alone: no model, the translations are under way, or a
        quiz's question is open."""
        if self._withheld():
            return self.tr("A quiz's question is open: the other sentences' translations are hidden until you "
                           "answer (they could name its token), so the combined mask shows sentence 1 only.")
        if self.model is None:
            return self.tr("No model: the other sentences cannot be translated, so the combined mask shows "
                           "sentence 1 only.")
        return self.tr("Translating the other sentences with the model (greedy decoding): until they arrive, "
                       "the combined mask shows sentence 1 only.")

    def _show_translation_note(self) -> None:
        self.translation_note.setText(self._translation_note())
        self.translation_note.setVisible(self.model is None or self.translator.is_busy() or self._withheld())

    @staticmethod
    def _token_rows() -> QLabel:
        """A label for padded token rows, in a fixed-width font so that the rows line up."""
        label = plain_label()
        # only the family: the size follows the window's font (presentation mode enlarges it)
        fixed = QFont()
        fixed.setFamilies(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont).families())
        label.setFont(fixed)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        return label

    def _build_walkthrough(self) -> QWidget:
        self.kind = QComboBox()
        self.bind_text(lambda texts: set_items(self.kind, texts), lambda: [
            self.tr("encoder self-attention"), self.tr("decoder masked self-attention"), self.tr("cross-attention")])
        self.kind.setCurrentIndex(KINDS.index("decoder_self"))
        self.layer, self.head = QSpinBox(), QSpinBox()
        self.target = QLineEdit(DEFAULT_TARGET)
        self.query = QComboBox()
        self.walk_error = error_label()
        self.walk_controls = QWidget()
        controls = QHBoxLayout(self.walk_controls)
        controls.setContentsMargins(0, 0, 0, 0)
        for text, widget in ((lambda: self.tr("Attention"), self.kind), (lambda: self.tr("layer"), self.layer),
                             (lambda: self.tr("head"), self.head), (lambda: self.tr("target so far"), self.target),
                             (lambda: self.tr("query"), self.query)):
            controls.addWidget(bound_label(self, text))
            controls.addWidget(widget, 2 if widget is self.target else 0)
        (self.score_view, self.scaled_view, self.masked_view, self.softmax_view, self.value_view,
         self.output_view) = (HeatmapWidget(value_format="{:.3f}") for _ in range(6))
        for view, title in ((self.softmax_view, lambda: self.tr("4. softmax over keys: each row sums to 1")),
                            (self.value_view, lambda: self.tr("V: one value vector per key")),
                            (self.output_view, lambda: self.tr("5. output = weights x V"))):
            self.bind_text(view.set_title, title)
        self.bind_text(self.value_view.set_axes, lambda: AxisNames(
            self.tr("key"), self.tr("dimension"), self.tr("keys (rows)"), self.tr("dimensions of d_k")))
        self.bind_text(self.output_view.set_axes, lambda: AxisNames(
            self.tr("query"), self.tr("dimension"), self.tr("queries (rows)"), self.tr("dimensions of d_k")))
        self.step_views = (self.score_view, self.scaled_view, self.masked_view, self.softmax_view, self.output_view)
        self.track(*self.step_views, self.value_view)
        for view in self.step_views:
            view.clicked.connect(lambda row, _column: self.query.setCurrentIndex(row))
        self.summary = plain_label()
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        plots = QGridLayout()
        for i, view in enumerate((self.score_view, self.scaled_view, self.masked_view,
                                  self.softmax_view, self.value_view, self.output_view)):
            plots.addWidget(view, i // 3, i % 3)
        page = QWidget()
        page_layout = QVBoxLayout(page)
        page_layout.setContentsMargins(0, 0, 0, 0)
        page_layout.addLayout(plots, 1)
        page_layout.addWidget(self.summary)
        self.no_model = bound_label(self,
            lambda: self.tr("No model loaded: Model > Open a checkpoint to walk through its attention."))
        self.no_model.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.walk_hidden = bound_label(self, lambda: self.tr(
            "Hidden until you answer: the walkthrough's masked scores and weights show the mask the question asks "
            "about."), wrap=True)
        self.walk_hidden.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.walk_pages = QStackedWidget()
        self.walk_pages.addWidget(self.no_model)
        self.walk_pages.addWidget(page)
        self.walk_pages.addWidget(self.walk_hidden)
        box = QGroupBox()
        self.bind_text(box.setTitle, lambda: self.tr("Walkthrough: one head, one query, step by step"))
        layout = QVBoxLayout(box)
        layout.addWidget(self.walk_controls)
        layout.addWidget(self.walk_error)
        layout.addWidget(self.walk_pages, 1)
        self.kind.currentIndexChanged.connect(self._on_kind_changed)
        for spin in (self.layer, self.head):
            spin.valueChanged.connect(self.refresh_walkthrough)
        self.target.textChanged.connect(self.refresh)  # the decoder inputs' masks too
        self.query.currentIndexChanged.connect(self._show_query)
        self.walk_controls.setEnabled(False)  # until a model is loaded
        self.quiz_view = QuizPanel(mirror=True)  # the explorer's mask question, answered here
        self.quiz_view.reveal_requested.connect(lambda: self.workspace.move_quiz(QuizMove("reveal")))
        self.quiz_box = QGroupBox()
        self.bind_text(self.quiz_box.setTitle, lambda: self.tr("Quiz"))
        QVBoxLayout(self.quiz_box).addWidget(self.quiz_view)
        self.quiz_box.setVisible(False)
        column = QWidget()
        column_layout = QVBoxLayout(column)
        column_layout.setContentsMargins(0, 0, 0, 0)
        column_layout.addWidget(self.quiz_box)
        column_layout.addWidget(box, 1)
        return column

    # -- following the explorer ----------------------------------------------------------------------
    def _follow_session(self, *_: object) -> None:
        session = self.workspace.session
        if session is not None:
            self.follow(session.source, session.model.tgt_vocab.detokenize(session.target_tokens[1:]))

    def follow(self, sentence: str, target: str) -> None:
        """Show the explorer's sentence and target prefix (at once if visible, else when shown:
        the walkthrough runs the model, which a step of decoding should not wait for)."""
        self._followed = (sentence, target)
        if self.isVisible():
            self._apply_followed()

    def explain(self, request: Explanation) -> None:
        """Walk through one query of one head of the explorer's session (its "Why here?"): follow
        the explorer again, and choose that kind, layer, head and query."""
        self.following.setChecked(True)
        session = self.workspace.session
        if session is not None:
            self._followed = None
            target = session.model.tgt_vocab.detokenize(session.target_tokens[1:])
            for box, text in ((self.sentence, session.source), (self.target, target)):
                box.blockSignals(True)
                box.setText(text)
                box.blockSignals(False)
        for widget in (self.kind, self.layer, self.head):
            widget.blockSignals(True)
        self.kind.setCurrentIndex(KINDS.index(request.kind))
        self._fit_layer_range()
        self.layer.setValue(request.layer)
        self.head.setValue(request.head)
        for widget in (self.kind, self.layer, self.head):
            widget.blockSignals(False)
        self._wanted_query = request.query
        self.refresh()

    def _apply_followed(self) -> None:
        if self._followed is None or not self.following.isChecked():
            return
        sentence, target = self._followed
        self._followed = None
        if (sentence, target) == (self.sentence.text(), self.target.text()):
            return
        for box, text in ((self.sentence, sentence), (self.target, target)):
            box.blockSignals(True)
            box.setText(text)
            box.blockSignals(False)
        self.refresh()

    def _on_following_toggled(self, on: bool) -> None:
        self.sentence.setReadOnly(on)
        self.target.setReadOnly(on)
        self._apply_followed()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._apply_followed()
        if self._stale:
            self.refresh()

    def hideEvent(self, event: QHideEvent) -> None:
        """Hidden, the tab computes nothing: its translations are dropped, and asked again when shown.
        A panel on its own (a headless slide) stops their thread; in the window, the window does."""
        super().hideEvent(event)
        if self.isWindow():
            self.shutdown()
        else:
            self.translator.cancel()
        if self.model is not None and self._untranslated:
            self._stale = True

    def shutdown(self) -> None:
        """Stop the translations' thread (quit + wait); before the window goes. Safe to call twice."""
        self.translator.shutdown()

    # -- a mask question (the explorer's quiz) --------------------------------------------------------
    def _add_quiz_keys(self) -> None:
        """While a mask question shows here, 1-9 choose a numbered cell, Enter reveals, Right or Space
        go on: window shortcuts, which act only while this tab shows (as the explorer's do there)."""
        self.quiz_keys = [QShortcut(QKeySequence(str(n + 1)), self, lambda n=n: self._move("choose", n))
                          for n in range(MAX_CHOICES)]
        self.quiz_keys += [QShortcut(QKeySequence(key), self, lambda: self._move("reveal"))
                           for key in (Qt.Key.Key_Return, Qt.Key.Key_Enter)]
        self.next_keys = [QShortcut(QKeySequence(key), self, lambda: self._move("next"))
                          for key in (Qt.Key.Key_Right, Qt.Key.Key_Space)]
        self._enable_quiz_keys()

    def _move(self, action: str, choice: int = -1) -> None:
        self.workspace.move_quiz(QuizMove(action, choice))

    def _enable_quiz_keys(self) -> None:
        for shortcut in self.quiz_keys:
            shortcut.setEnabled(self._asking())
        for shortcut in self.next_keys:
            shortcut.setEnabled(self._mask_question() is not None)

    def _mask_question(self) -> Question | None:
        """The explorer's question when it is a mask question (open or revealed), else None."""
        question = self.quiz.question
        return question if question is not None and question.ask == "mask" else None

    def _asking(self) -> bool:
        """Whether a mask question is open: the masks and the walkthrough keep its answer to themselves."""
        return self._mask_question() is not None and not self.quiz.revealed

    def _withheld(self) -> bool:
        """Whether the other sentences' translations are left out: a quiz's question is open on the
        sentence followed, and its hidden token could be among them."""
        return self.workspace.hidden and self.following.isChecked()

    def show_quiz(self, state: QuizState) -> None:
        """Show the explorer's quiz: a mask question's cells numbered on the combined mask, its text
        above the walkthrough; any other question leaves the tab as it is."""
        previous = self._mask_question()
        self.quiz = state
        question = self._mask_question()
        self.quiz_box.setVisible(question is not None)
        if question is not None:
            self.quiz_view.show_state(state)
        self._enable_quiz_keys()
        if question is None and previous is None:
            return
        if question is not None and question is not previous:  # a new question: on the explorer's sentence
            self.following.setChecked(True)
            self._chosen_row = 0
            self.combined_sentence.setCurrentIndex(0 if self.combined_sentence.count() else -1)
            if isinstance(self.focusWidget(), (QLineEdit, QAbstractSpinBox)):
                self.setFocus(Qt.FocusReason.OtherFocusReason)  # the class's digits and Enter are answers
        self._show_walk_page()
        self.refresh_masks()  # hidden or shown again, numbered or not

    def _view_cells(self, question: Question) -> list[tuple[int, int]] | None:
        """The question's cells, or None when the combined mask draws another sentence or target than
        the question's (its positions, the inputs' padding after them aside)."""
        if self.combined_sentence.currentIndex() != 0 or self._combined_tokens[:len(question.tokens)] != list(
                question.tokens):
            return None
        return list(question.cells)

    def _show_marks(self) -> None:
        """Number the mask question's cells on the combined mask: the class's choice with a pointer,
        the blocked one with a check mark once revealed."""
        question = self._mask_question()
        cells = self._view_cells(question) if question is not None else None
        if question is None or cells is None:
            self.combined_view.set_cell_marks({})
            return
        marks = {}
        for index, cell in enumerate(cells):
            chosen = "\u25b6" if index == self.quiz.choice else ""
            truth = " \u2713" if self.quiz.revealed and index == question.truth else ""
            marks[cell] = f"{chosen}{index + 1}{truth}"
        self.combined_view.set_cell_marks(marks)
        if question is not self._brought and self.isVisible():
            self._brought = question  # once: the class may scroll away
            QTimer.singleShot(0, lambda: self.masks_column.ensureWidgetVisible(self.combined_view, 0, 0))

    def _on_combined_clicked(self, row: int, column: int) -> None:
        question = self._mask_question()
        cells = self._view_cells(question) if question is not None and self._asking() else None
        if cells is not None and (row, column) in cells:
            self._move("choose", cells.index((row, column)))

    def _show_walk_page(self) -> None:
        self.walk_pages.setCurrentIndex(0 if self.model is None else 2 if self._asking() else 1)

    # -- model -----------------------------------------------------------------------------------
    def set_model(self, model: Model | None) -> None:
        self.translator.cancel()
        self._translations.clear()
        self._show_translation_note()
        self._show_walk_page()
        self.walk_controls.setEnabled(model is not None)
        if model is not None:
            self.head.setMaximum(model.config.n_heads - 1)
        self._on_kind_changed()

    def _on_kind_changed(self) -> None:
        self._fit_layer_range()
        self.refresh()

    def _fit_layer_range(self) -> None:
        if self.model is not None:
            self.layer.setMaximum(self.model.config.layer_count(self.current_kind()) - 1)

    def current_kind(self) -> Kind:
        return KINDS[self.kind.currentIndex()]

    # -- masks -----------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Draw the masks and run the walkthrough now if the tab shows, else when it is shown: both
        run the model (the other sentences' translations, a forward pass), which neither the
        window's start-up nor a step in another tab should wait for."""
        if not self.isVisible():
            self._stale = True
            return
        self._stale = False
        self.refresh_masks()
        self.refresh_walkthrough()

    def refresh_masks(self) -> None:
        """Draw the batch the core builds from the sentences and the target; the other sentences'
        translations it lacks are computed on a worker thread and drawn when they arrive."""
        if not self.isVisible():
            self._stale = True
            return
        sentences = [self.sentence.text(), *split_sentences(self.others.text())]
        withheld = self._withheld()
        try:
            batch = mask_batch(sentences, self.target.text(), self.model, {} if withheld else self._translations)
        except InputError as exc:
            self.translator.cancel()
            show_error(self.mask_error, self.tr("Masks: {0}").format(translated(exc)))
            return
        show_error(self.mask_error, None)
        self.batch, self.decoder, self._untranslated = batch.source, batch.decoder, batch.untranslated
        self.stream = batch.stream
        self._draw_padding(batch.source)
        self._draw_causal(batch.decoder)
        self.shapes.setText(self.tr(
            "Shapes are (batch, heads, queries, keys). The padding mask marks the padding of the source batch: "
            "encoder self-attention and cross-attention use it, the same for every head and query. Decoder "
            "self-attention uses the combined mask on the decoder inputs (sentence 1: <s> and the target so far; "
            "the others: <s> and the model's greedy translation): their padding AND the causal mask, which lets "
            "input t see inputs 0..t, never the future. Coloured cells: may attend (True); grey hatched cells: "
            "blocked (False), whose scores become -inf before the softmax, hatched as in every attention plot.")
            + ("" if batch.stream is None else " " + self.tr(
                "This model is decoder-only: one stack reads each sentence's source, then its decoder inputs, as one "
                "stream, so its last picture is one mask over both, built from the same padding and causal masks.")))
        rows = len(batch.decoder.tokens)
        self.combined_sentence.blockSignals(True)
        self.combined_sentence.clear()
        self.combined_sentence.addItems(self._short(sentences[:rows]))
        self.combined_sentence.setCurrentIndex(min(self._chosen_row, rows - 1))
        self.combined_sentence.blockSignals(False)
        self._draw_combined()
        self._show_translation_note()
        if self.model is not None and batch.untranslated and not withheld:
            self.translator.request(self.model, batch.untranslated)
        else:
            self.translator.cancel()

    def _on_translated(self, model: Model, found: dict[str, TokensAndIds]) -> None:
        if model is self.model:
            self._translations.update(found)
            self.refresh_masks()

    def _on_translation_failed(self, exc: Exception) -> None:
        show_error(self.mask_error, self.tr("Masks: {0}").format(translated(exc)))

    def _unknown_note(self, batch: SourceBatch) -> str:
        """A line per sentence with words the model does not know: it reads them as <unk>, so what
        it writes for them is a guess."""
        if self.model is None:
            return ""
        note = self.tr("sentence {0}: '{1}' is not in the vocabulary (read as {2}): its translation is a guess")
        lines = [note.format(row + 1, "', '".join(word for _, word in unknown), UNK)
                 for row, unknown in enumerate(batch.unknown) if unknown]
        return "".join("\n" + line for line in lines)

    def _draw_padding(self, batch: SourceBatch) -> None:
        positions = [str(i) for i in range(batch.padding.shape[-1])]
        self.padding_view.set_data(drawn_mask(batch.padding[:, 0, 0]), self._short(batch.sentences), positions)
        self.padding_view.setMinimumHeight(labelled_height(self.padding_view, len(batch.sentences)))
        self.padding_view.set_title(self.tr("Padding mask of the source batch (encoder self- and "
                                            "cross-attention): shape {0}").format(shape_text(batch.padding)))
        rows = numbered_rows(self.tr("Source sentences:"), batch.tokens)
        self.padded_tokens.setText(rows + self._unknown_note(batch))

    def _draw_causal(self, decoder: DecoderBatch) -> None:
        inputs = decoder.tokens[0][: decoder.causal.shape[-1]]
        self.causal_view.set_data(drawn_mask(decoder.causal[0, 0]), inputs, inputs,
                                  hidden_rows=range(len(inputs)) if self._asking() else ())
        self.causal_view.setMinimumHeight(labelled_height(self.causal_view, len(inputs)))
        self.causal_view.set_title(self.tr("Sequence (causal) mask over sentence 1's decoder inputs: shape {0}")
                                   .format(shape_text(decoder.causal)))
        self.decoder_tokens.setText(numbered_rows(self.tr("Decoder inputs:"), decoder.tokens))

    def _on_combined_chosen(self, row: int) -> None:
        self._chosen_row = max(row, 0)
        self._draw_combined()

    def _draw_combined(self) -> None:
        decoder, row = self.decoder, self.combined_sentence.currentIndex()
        if decoder is None or row < 0:
            return
        if self.stream is not None and self.batch is not None:
            self._draw_stream(self.stream, self.batch, decoder.tokens[row], row)
            return
        tokens = self._combined_tokens = decoder.tokens[row]
        self.combined_view.set_data(drawn_mask(decoder.combined[row, 0]), tokens, tokens,
                                    hidden_rows=range(len(tokens)) if self._asking() else ())
        self._show_marks()
        self.combined_view.setMinimumHeight(labelled_height(self.combined_view, len(tokens),
                                                            self._mask_question() is not None))
        model = self.workspace.model
        window = model.config.attention_window if model is not None else 0
        if window:
            title = self.tr("Decoder self-attention's mask, padding AND causal AND a window of {2} keys: shape "
                            "{0}; sentence {1}").format(shape_text(decoder.combined), row + 1, window)
        else:
            title = self.tr("Decoder self-attention's mask, padding AND causal: shape {0}; sentence {1}").format(
                shape_text(decoder.combined), row + 1)
        self.combined_view.set_title(title)

    def _draw_stream(self, stream: torch.Tensor, batch: SourceBatch, inputs: list[str], row: int) -> None:
        """A decoder-only model's one mask: its source rows, then its decoder inputs' rows. With a mask
        question shown, sentence 1's source is drawn without the batch's padding: the question's positions."""
        tokens, mask, shape = batch.tokens[row] + inputs, stream[row, 0], shape_text(stream)
        alone = self._mask_question() is not None and row == 0
        if alone:
            source = batch.padding.shape[-1]
            keep = [i for i in range(len(tokens)) if i >= source or bool(batch.padding[row, 0, 0, i])]
            tokens, mask = [tokens[i] for i in keep], mask[keep][:, keep]
            shape = shape_text(mask[None, None])
        self._combined_tokens = tokens
        self.combined_view.set_data(drawn_mask(mask), tokens, tokens,
                                    hidden_rows=range(len(tokens)) if self._asking() else ())
        self._show_marks()
        self.combined_view.setMinimumHeight(labelled_height(self.combined_view, len(tokens), alone))
        model = self.workspace.model
        prefix = model is not None and model.config.architecture == "prefix-lm"
        window = model.config.attention_window if model is not None else 0
        if prefix:
            title = self.tr("A prefix LM's one mask (decoder-only): the source's words see each other both ways, the "
                            "decoder inputs see the source and the inputs up to their own; shape {0}; sentence {1}")
        else:
            title = self.tr("A decoder-only model's one mask: every position sees those up to its own, the source's "
                            "first; shape {0}; sentence {1}")
        if window:
            title = self.tr("{0}; within a window of {1} keys").format(title, window)
        title = title.format(shape, row + 1)
        if alone:
            title = self.tr("{0}, alone: the quiz's positions, without the batch's padding").format(title)
        self.combined_view.set_title(title)

    @staticmethod
    def _short(sentences: list[str], width: int = 18) -> list[str]:
        return [s if len(s) <= width else s[: width - 1] + "…" for s in sentences]

    # -- walkthrough -----------------------------------------------------------------------------
    def _flagged(self, kind: Kind, queries: list[str], keys: list[str]) -> tuple[list[str], list[str]]:
        """The walkthrough's axis labels, source words the model reads as <unk> marked."""
        assert self.model is not None
        unknown = self.model.encode_source(self.sentence.text()).unknown
        source_keys = kind != "decoder_self" or self.model.config.decoder_only  # a decoder-only row: source first
        return (flag_unknown(queries, unknown) if kind == "encoder_self" else queries,
                flag_unknown(keys, unknown) if source_keys else keys)

    def refresh_walkthrough(self) -> None:
        """Run the walkthrough (a forward pass of the model) now if the tab shows, else when it is shown."""
        if self.model is None:
            self.steps = None
            return
        if not self.isVisible():
            self._stale = True  # e.g. a layer chosen from a script: run it when shown
            return
        try:
            steps = walkthrough(self.model, self.sentence.text(), self.target.text(), self.current_kind(),
                                self.layer.value(), self.head.value())
        except InputError as exc:
            show_error(self.walk_error, self.tr("Walkthrough: {0}").format(translated(exc)))
            return
        show_error(self.walk_error, None)
        self.steps = steps
        queries, keys = self._flagged(steps.kind, steps.query_tokens, steps.key_tokens)
        dims = [str(i) for i in range(steps.d_k)]
        score_levels = symmetric_levels(steps.scores)
        scaled_levels = symmetric_levels(steps.scaled)
        value_levels = symmetric_levels(steps.values, steps.output)
        self.score_view.set_data(steps.scores, queries, keys, levels=score_levels)
        self._title_steps(steps)
        self.scaled_view.set_data(steps.scaled, queries, keys, levels=scaled_levels)
        self.masked_view.set_data(steps.masked, queries, keys, levels=scaled_levels)
        self.softmax_view.set_data(steps.weights, queries, keys, levels=(0.0, 1.0))
        self.value_view.set_data(steps.values, keys, dims, levels=value_levels)
        self.output_view.set_data(steps.output, queries, dims, levels=value_levels)
        previous = self.query.currentIndex() if self._wanted_query is None else self._wanted_query
        self._wanted_query = None
        self.query.blockSignals(True)
        self.query.clear()
        self.query.addItems([f"{i}: {token}" for i, token in enumerate(queries)])
        self.query.setCurrentIndex(previous if 0 <= previous < len(queries) else len(queries) - 1)
        self.query.blockSignals(False)
        self._show_query()

    def _title_steps(self, steps: Walkthrough) -> None:
        """The titles of steps 1 to 3, with the positions a variant puts inside attention."""
        positional = self.model.config.positional if self.model is not None else ""
        rotary = positional == "rotary" and steps.kind != "cross"
        self.score_view.set_title(self.tr("1. raw scores Q Kᵀ, Q and K turned by their positions (RoPE)") if rotary
                                  else self.tr("1. raw scores Q Kᵀ"))
        scaled = self.model is None or self.model.config.scale_scores
        self.scaled_view.set_title(self.tr("2. scaled by 1/sqrt(d_k) = 1/sqrt({0})").format(steps.d_k) if scaled
                                   else self.tr("2. not scaled: this model leaves Q Kᵀ as it is (T5)"))
        if steps.position_bias is None:
            self.masked_view.set_title(self.tr("3. masked: -inf where blocked"))
            return
        assert self.model is not None  # a walkthrough was computed from it
        bias = attention_module(self.model, steps.kind, steps.layer).position_bias
        if not isinstance(bias, ALiBi):
            self.masked_view.set_title(self.tr("3. plus T5's learned bias of each offset's bucket, then -inf where "
                                               "blocked"))
            return
        self.masked_view.set_title(self.tr("3. plus ALiBi's bias -{0:.4g} x distance, then -inf where blocked")
                                   .format(float(bias.slopes[steps.head])))

    def _show_query(self) -> None:
        steps, row = self.steps, self.query.currentIndex()
        if steps is None or row < 0:
            return
        for view in self.step_views:
            view.set_highlighted_row(row)
        weights = ", ".join(f"{key} {w:.2f}" for key, w in zip(steps.key_tokens, steps.weights[row], strict=True))
        blocked = [key for key, visible in zip(steps.key_tokens, steps.mask[row], strict=True) if not visible]
        self.summary.setText(self.tr(
            "Query '{0}': softmax weights {1} (sum {2:.3f}). Blocked keys: {3}. The output row is these weights "
            "times the rows of V: this head's {4} numbers for '{0}'.").format(
            steps.query_tokens[row], weights, float(steps.weights[row].sum()),
            ", ".join(blocked) if blocked else self.tr("none"), steps.d_k))
