"""The variants tab: two to four models decode one sentence in lock-step (Space steps all of
them), each showing the same attention kind, layer and head on one colour scale, with its
parameters, KV-cache bytes and test exact match, its heads framed by the keys and values they
share, and its output marked where it differs from the first model's.

The models are the loaded one, the shipped siblings (the 2017 default and today's variants,
each trained on the same task), a checkpoint or a Hugging Face folder.
:class:`~transviz.core.analysis.lockstep.Lockstep` decodes and picks the maps.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut, QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from ... import load_model
from ...core.analysis.compare import Head, token_diff
from ...core.analysis.lockstep import MAX_MODELS, MIN_MODELS, Lockstep, Pane, kv_groups, recorded_exact_match
from ...core.analysis.walkthrough import KINDS, Kind
from ...core.base.errors import TransvizError
from ...core.base.messages import translate_noop
from ...core.decoding.session import DecodingSession
from ...core.io.checkpoint import SUFFIX
from ...core.io.resources import shipped_models
from ...core.model.bundle import Model
from ...core.teaching.lesson import View
from ...core.teaching.workspace import Workspace
from ..services.core_messages import translated
from ..services.files import model_name
from ..services.language import Retranslated, set_items
from ..services.observe import subscribe
from ..widgets.attention_view import chosen_head, future_masked, kind_axes, kind_names, one_stream_note, set_head_items
from ..widgets.head_groups import HeadGroups
from ..widgets.heatmap import AxisNames, HeatmapWidget
from ..widgets.labels import bound_label, error_label, plain_label, show_error
from ..widgets.output_diff import diff_html
from .base import PlotPanel

LOADED = ""  # a column's model entry: the workspace's model
# what the columns show first: the loaded model beside today's variants of it
FIRST_CHOICES = (LOADED, "gqa", "decoder-only", "rope")
FIRST_COUNT = 3


class ModelColumn(Retranslated, QWidget):
    """One model of the side-by-side: its chooser, its figures, its heads, its map and its output.

    Signals:
        model_changed(): another model was chosen.
        head_clicked(int): one of its query heads was clicked.
    """

    model_changed = Signal()
    head_clicked = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = QComboBox()
        self.model.addItem("", LOADED)
        for shipped in shipped_models():
            self.model.addItem(shipped, shipped)
        self._loaded: str | None = None  # the loaded model's name
        self.bind_text(lambda text: self.model.setItemText(0, text), self._loaded_text)
        self.model.currentIndexChanged.connect(self.model_changed)
        self.open = QPushButton()
        self.bind_text(self.open.setText, lambda: self.tr("Open..."))
        menu = QMenu(self.open)
        checkpoint, folder = menu.addAction(""), menu.addAction("")
        self.bind_text(checkpoint.setText, lambda: self.tr("Checkpoint file..."))
        self.bind_text(folder.setText, lambda: self.tr("Hugging Face folder..."))
        checkpoint.triggered.connect(self._choose_file)
        folder.triggered.connect(self._choose_folder)
        self.open.setMenu(menu)
        self.facts = plain_label(wrap=True)
        self.groups = HeadGroups()
        self.groups.head_clicked.connect(self.head_clicked)
        self.map = HeatmapWidget()
        self.output = QLabel()
        self.output.setTextFormat(Qt.TextFormat.RichText)
        self.output.setWordWrap(True)
        self.output.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        for label in (self.facts, self.output):
            label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        chooser = QHBoxLayout()
        chooser.addWidget(self.model, 1)
        chooser.addWidget(self.open)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(chooser)
        layout.addWidget(self.facts)
        layout.addWidget(self.groups)
        layout.addWidget(self.map, 1)
        layout.addWidget(self.output)
        layout.addStretch(0)  # the space of a map not drawn yet

    def _loaded_text(self) -> str:
        return self.tr("loaded model") if self._loaded is None else self.tr("loaded: {0}").format(self._loaded)

    def set_loaded_name(self, name: str | None) -> None:
        self._loaded = name
        self.model.setItemText(0, self._loaded_text())

    def source(self) -> str:
        return str(self.model.currentData())

    def name(self) -> str:
        """The chosen model's name, in the language in use now."""
        return self.model.currentText()

    def choose(self, source: str) -> None:
        """Choose ``source`` (a shipped name or a path; offered first if it is a path not yet offered)."""
        index = self.model.findData(source)
        if index < 0:
            self.model.addItem(Path(source).name, source)
            index = self.model.count() - 1
        self.model.setCurrentIndex(index)

    def _choose_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Open a checkpoint"), "",
                                              self.tr("Checkpoints (*{0})").format(SUFFIX))
        if path:
            self.choose(path)

    def _choose_folder(self) -> None:
        path = QFileDialog.getExistingDirectory(self, self.tr("Open a Hugging Face model folder"))
        if path:
            self.choose(path)

    def show_figures(self, model: Model, kv_now: int, kv_per_token: int) -> None:
        exact = recorded_exact_match(model)
        exact_text = f"{exact:.1%}" if exact is not None else self.tr("not recorded")
        self.facts.setText(self.tr("{0:,} parameters · KV cache {1:,} bytes now, {2:,} more per token · test exact "
                                   "match {3}").format(model.net.parameter_count(), kv_now, kv_per_token, exact_text))

    def clear(self) -> None:
        self.facts.setText("")
        self.output.setText("")
        self.map.setVisible(False)
        self.groups.setVisible(False)


class VariantsPanel(Retranslated, PlotPanel):
    """Models side by side in lock-step. :attr:`lockstep` is what is drawn (None before a model is
    loaded, or after an error, which the error line names)."""

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(workspace, parent)
        self.lockstep: Lockstep | None = None
        self.panes: list[Pane] = []
        self._models: dict[str, Model] = {}  # shipped models, files and folders, loaded once
        self._typed = False  # a sentence typed here; until then the tab follows the explorer's
        self._build()
        self._add_shortcuts()
        self.watch_model()
        subscribe(self, workspace.hidden_changed, lambda _: self._draw())
        subscribe(self, workspace.session_changed, self._on_session_changed)
        self._on_session_changed(workspace.session)  # a new model's session comes after it: none here

    def _build(self) -> None:
        self.sentence = QLineEdit()
        self.sentence.returnPressed.connect(self.rebuild)
        self.sentence.textEdited.connect(self._on_typed)
        self.count = QSpinBox()
        self.count.setRange(MIN_MODELS, MAX_MODELS)
        self.count.setValue(FIRST_COUNT)
        self.count.valueChanged.connect(self._show_columns)
        self.kind, self.layer, self.head = QComboBox(), QSpinBox(), QComboBox()
        self.kind.currentIndexChanged.connect(self._on_kind_changed)
        self.layer.valueChanged.connect(self._draw)
        self.head.currentIndexChanged.connect(self._draw)
        self.buttons = {name: QPushButton() for name in ("reset", "back", "step", "end")}
        texts = {"reset": lambda: self.tr("Reset (Home)"), "back": lambda: self.tr("Back (←)"),
                 "step": lambda: self.tr("Step all (Space)"), "end": lambda: self.tr("To the end (End)")}
        actions = {"reset": self.reset, "back": self.back, "step": self.step, "end": self.run_to_end}
        for name, button in self.buttons.items():
            self.bind_text(button.setText, texts[name])
            button.clicked.connect(actions[name])
        first = QHBoxLayout()
        first.addWidget(bound_label(self, lambda: self.tr("Sentence:")))
        first.addWidget(self.sentence, 1)
        first.addWidget(bound_label(self, lambda: self.tr("Models:")))
        first.addWidget(self.count)
        second = QHBoxLayout()
        for label, widget in ((lambda: self.tr("Attention:"), self.kind), (lambda: self.tr("Layer:"), self.layer),
                              (lambda: self.tr("Head:"), self.head)):
            second.addWidget(bound_label(self, label))
            second.addWidget(widget)
        second.addStretch(1)
        for button in self.buttons.values():
            second.addWidget(button)
        controls = QVBoxLayout()
        controls.addLayout(first)
        controls.addLayout(second)
        self.scale_note = plain_label(wrap=True)
        controls.addWidget(self.scale_note)
        self.error = error_label()
        self.columns = [ModelColumn() for _ in range(MAX_MODELS)]
        row = QHBoxLayout()
        for index, column in enumerate(self.columns):
            column.choose(FIRST_CHOICES[index])
            column.model_changed.connect(self.rebuild)
            column.head_clicked.connect(self._choose_head)
            row.addWidget(column, 1)
        self.columns_row = QWidget()
        self.columns_row.setLayout(row)
        row.setContentsMargins(0, 0, 0, 0)
        # instead of the maps while a quiz's question is open: stepping here would give the answer away
        self.hidden_note = plain_label(wrap=True)
        self.hidden_note.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.bind_text(self.hidden_note.setText, lambda: self.tr(
            "Hidden until you answer: a quiz's question is open in the Explorer, and stepping here would give the "
            "answer away. Reveal it there (Enter) to see the models side by side."))
        body = QVBoxLayout()
        body.addWidget(self.columns_row, 1)
        body.addWidget(self.hidden_note, 1)
        self.arrange(controls, self.error, body)
        self.track(*(column.map for column in self.columns))
        self._show_columns()
        self.retranslate()
        self.kind.setCurrentIndex(KINDS.index("cross"))

    def _add_shortcuts(self) -> None:
        """Window shortcuts that act only while this tab shows; the sentence box keeps the keys it
        types with."""
        keys = ((Qt.Key.Key_Space, self.step), (Qt.Key.Key_Right, self.step), (Qt.Key.Key_Left, self.back),
                (Qt.Key.Key_Home, self.reset), (Qt.Key.Key_End, self.run_to_end))
        self.shortcuts = [QShortcut(QKeySequence(key), self, action) for key, action in keys]
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # a click beside the maps takes the keys from the box
        self.sentence.returnPressed.connect(lambda: self.setFocus(Qt.FocusReason.OtherFocusReason))

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.setFocus(Qt.FocusReason.OtherFocusReason)  # Space steps at once, as the button says

    def retranslate(self) -> None:
        super().retranslate()
        set_items(self.kind, [kind_names()[kind] for kind in KINDS])
        self._name_heads()
        self._draw()

    # -- models ----------------------------------------------------------------------------------
    def set_model(self, model: Model | None) -> None:
        self._models.clear()  # a file may have changed since; the loaded model is the workspace's
        for column in self.columns:
            column.set_loaded_name(None if model is None else model_name(model))
        if self._typed:  # the session that follows a new model leaves a typed sentence alone
            self.rebuild()

    def _on_typed(self) -> None:
        self._typed = True

    def apply_view(self, view: View) -> None:
        self._typed = False  # a slide's sentence, at its step

    def _on_session_changed(self, session: DecodingSession | None) -> None:
        """The explorer's new sentence (a new model's too), at its step, unless one was typed here."""
        if self._typed:
            return
        if session is None:  # no sentence of the explorer's: the models chosen, on the sentence shown
            self.rebuild()
            return
        self.sentence.setText(session.source)
        self.rebuild(session.position)

    def _shown_columns(self) -> list[ModelColumn]:
        return self.columns[:self.count.value()]

    def _show_columns(self) -> None:
        for index, column in enumerate(self.columns):
            column.setVisible(index < self.count.value())
        self.rebuild()

    def _model_of(self, column: ModelColumn) -> Model:
        source = column.source()
        if source == LOADED:
            if self.model is None:
                raise TransvizError(translate_noop("CoreMessages", "no model is loaded: open a checkpoint first"))
            return self.model
        if source not in self._models:
            self._models[source] = load_model(source)
        return self._models[source]

    def rebuild(self, position: int | None = None) -> None:
        """Decode the sentence again with the models chosen, to ``position`` steps (default: the step
        shown before)."""
        if position is None:
            position = self.lockstep.position if self.lockstep is not None else 0
        self.lockstep = None
        if not self.sentence.text().strip():  # nothing to decode yet: no error either
            show_error(self.error, None)
            self._fit_choices()
            self._draw()
            return
        try:
            models = [(column.name(), self._model_of(column)) for column in self._shown_columns()]
            lockstep = Lockstep(models, self.sentence.text())
        except TransvizError as error:
            show_error(self.error, translated(error))
        else:
            show_error(self.error, None)
            self.lockstep = lockstep
            while lockstep.position < position and lockstep.step():
                pass
        self._fit_choices()
        self._draw()

    def _fit_choices(self) -> None:
        """Layers and heads that every model shown has."""
        self._fit_layers()
        self._name_heads()

    def _fit_layers(self) -> None:
        models = self.lockstep.models if self.lockstep is not None else []
        self.layer.blockSignals(True)  # a clamped value is drawn once, by the caller
        self.layer.setMaximum(min((m.config.layer_count(self.current_kind()) for m in models), default=1) - 1)
        self.layer.blockSignals(False)

    def _heads(self) -> int:
        models = self.lockstep.models if self.lockstep is not None else []
        return min((model.config.n_heads for model in models), default=0)

    def _name_heads(self) -> None:
        set_head_items(self.head, self._heads())

    def current_kind(self) -> Kind:
        return KINDS[max(self.kind.currentIndex(), 0)]

    def current_head(self) -> Head:
        return chosen_head(self.head, self._heads())

    def _choose_head(self, head: int) -> None:
        if head < self._heads():
            self.head.setCurrentIndex(head)
        self._draw()  # a head another model lacks: its button pressed again as it was

    def _on_kind_changed(self) -> None:
        self._fit_layers()
        self._draw()

    # -- stepping ----------------------------------------------------------------------------------
    def step(self) -> None:
        if self.lockstep is not None and self.workspace.hidden_step is None:
            self.lockstep.step()
            self._draw()

    def back(self) -> None:
        if self.lockstep is not None:
            self.lockstep.back()
            self._draw()

    def reset(self) -> None:
        if self.lockstep is not None:
            self.lockstep.reset()
            self._draw()

    def run_to_end(self) -> None:
        if self.lockstep is not None and self.workspace.hidden_step is None:
            self.lockstep.run_to_end()
            self._draw()

    # -- drawing ---------------------------------------------------------------------------------
    def _draw(self) -> None:
        hidden = self.workspace.hidden_step is not None
        self.hidden_note.setVisible(hidden)
        self.columns_row.setVisible(not hidden)
        self.panes = []
        if self.lockstep is not None:
            try:
                self.panes = self.lockstep.panes(self.current_kind(), self.layer.value(), self.current_head())
            except TransvizError as error:
                show_error(self.error, translated(error))
        for column in self.columns:
            column.clear()
        if not self.panes:
            self.scale_note.setText("")
            return
        high = max((float(np.nanmax(pane.map)) for pane in self.panes if pane.map.size), default=1.0)
        self.scale_note.setText(self.tr("Step {0}. One colour scale for every model: 0 to {1:.2f}, the largest weight "
                                        "shown.").format(self.lockstep.position if self.lockstep else 0, high))
        for index, (column, pane) in enumerate(zip(self.columns, self.panes, strict=False)):
            self._draw_column(index, column, pane, (0.0, high if high > 0 else 1.0))

    def _draw_column(self, index: int, column: ModelColumn, pane: Pane, levels: tuple[float, float]) -> None:
        lockstep = self.lockstep
        assert lockstep is not None
        model = lockstep.models[index]
        column.show_figures(model, *lockstep.kv_bytes(index))
        head = self.current_head()
        column.groups.setVisible(True)
        column.groups.set_groups(kv_groups(model.config), head if isinstance(head, int) else None)
        kind = self.current_kind()
        if not pane.map.shape[0]:  # the decoder's rows before the first step
            column.output.setText(self.tr("The decoder has not run yet: press Step all (Space)."))
            return
        column.map.setVisible(True)
        column.map.set_axes(kind_axes(kind) if pane.source_columns is None else self._stream_axes())
        column.map.set_data(_hatched(pane, kind), pane.rows, pane.columns, levels=levels)
        column.map.set_column_divider(pane.source_columns)
        column.map.set_title(self._title(column, pane, model))
        column.output.setText(self._output_text(index, pane))

    def _stream_axes(self) -> AxisNames:
        return replace(kind_axes("cross"), column_title=self.tr("keys: source tokens, then the output's (columns)"))

    def _title(self, column: ModelColumn, pane: Pane, model: Model) -> str:
        if pane.source_columns is not None:
            return self.tr("{0}: one map, source | output").format(column.name())
        if model.config.decoder_only:
            return self.tr("{0} ({1})").format(column.name(), one_stream_note(self.current_kind()))
        return column.name()

    def _output_text(self, index: int, pane: Pane) -> str:
        """The first model's output as it is; the others' marked where they differ from it."""
        first = self.panes[0].output_tokens
        ended = self.tr(" (ended)") if pane.finished else ""
        if index == 0:
            return diff_html(token_diff(first, first)) + ended
        return diff_html(token_diff(first, pane.output_tokens)) + ended


def _hatched(pane: Pane, kind: Kind) -> np.ndarray:
    """The map with the decoder's future keys hatched: all of decoder self-attention's above the
    diagonal, and in a decoder-only model's one map those of its output part."""
    if pane.source_columns is not None:
        return future_masked(pane.map, pane.source_columns)
    return future_masked(pane.map) if kind == "decoder_self" else pane.map
