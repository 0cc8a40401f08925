"""The compare tab: two decoding runs side by side, a minimal pair of sentences, one sentence
through two models (the loaded one, a shipped one, or a checkpoint file), or two training
snapshots of a checkpoint's probe sentence (a step chosen instead of "sentence").

Each sentence is decoded greedily to its end; a snapshot is the probe as it was at that step. The
tab draws one head (or a summary of a layer's heads) of each run, their difference B - A on a
diverging scale centred at 0 where the shapes match, and a token-level diff of the two outputs.
:mod:`transviz.core.analysis.compare` computes all of it.
"""
from __future__ import annotations

import html
from pathlib import Path

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ... import load_model
from ...core.analysis.compare import Comparison, Head, Run, Side, compare, minimal_partner, snapshot_run
from ...core.analysis.walkthrough import KINDS, Kind
from ...core.base.errors import TransvizError
from ...core.decoding.inference import decode
from ...core.io.checkpoint import SUFFIX
from ...core.io.resources import shipped_models
from ...core.model.bundle import Model
from ...core.teaching.workspace import Workspace
from ...core.training.snapshots import Snapshot, load_snapshots, snapshot_at
from ..services.core_messages import translated
from ..services.language import Retranslated, set_items
from ..services.observe import subscribe
from ..widgets.attention_view import chosen_head, future_masked, kind_axes, kind_names, set_head_items
from ..widgets.heatmap import HeatmapWidget
from ..widgets.labels import bound_label, error_label, plain_label, show_error
from ..widgets.output_diff import diff_html
from .base import PlotPanel
from .patching_view import PatchingView

LOADED = ""  # a run's model entry: the workspace's model
SENTENCE = -1  # a run's step entry: decode the sentence (any other entry: the snapshot at that step)


def hatched(side: Side, kind: Kind) -> np.ndarray:
    """A decoder self-attention map with the causally masked keys NaN, hatched like the explorer's."""
    if kind != "decoder_self":
        return side.map
    return future_masked(side.map)


class RunChooser(Retranslated, QWidget):
    """One run's model (loaded, shipped, or a file) and sentence, or a training snapshot of the
    model's checkpoint: a step chosen shows the snapshot's probe in the sentence field, read only.

    Signals:
        source_changed(): another model or step was chosen.
    """

    source_changed = Signal()

    def __init__(self, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._typed = ""  # the sentence typed, kept while a snapshot's probe is shown
        self._bare = ""  # the checkpoint offered, when it holds no snapshots
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(plain_label(name))
        self.model = QComboBox()
        self.model.addItem("", LOADED)
        for shipped in shipped_models():
            self.model.addItem(shipped, shipped)
        self.bind_text(lambda text: self.model.setItemText(0, text), lambda: self.tr("loaded model"))
        self.open = QPushButton()
        self.bind_text(self.open.setText, lambda: self.tr("Checkpoint..."))
        self.open.clicked.connect(self._choose_file)
        self.step = QComboBox()
        self.step.addItem("", SENTENCE)
        self.bind_text(self.step.setToolTip, self._step_tip)
        self.sentence = QLineEdit()
        layout.addWidget(self.model)
        layout.addWidget(self.open)
        layout.addWidget(self.step)
        layout.addWidget(self.sentence, 1)
        self.model.currentIndexChanged.connect(self.source_changed)
        self.step.currentIndexChanged.connect(self.source_changed)

    def retranslate(self) -> None:
        super().retranslate()
        for index in range(self.step.count()):
            step = self.step.itemData(index)
            self.step.setItemText(index, self.tr("sentence") if step == SENTENCE else self.tr("step {0}").format(step))

    def _step_tip(self) -> str:
        if self._bare:
            return self.tr("{0} holds no training snapshots").format(self._bare)
        return self.tr("Decode the sentence, or show a training snapshot saved in the checkpoint: its probe "
                       "sentence as the model saw it after that many training steps")

    def chosen_step(self) -> int | None:
        """The snapshot's step, or None where the sentence is decoded."""
        step = self.step.currentData()
        return None if step is None or step == SENTENCE else int(step)

    def offer_steps(self, steps: list[int], checkpoint: str) -> None:
        """Offer the snapshots at ``steps`` of ``checkpoint`` (keeping the one chosen if it is among
        them, else the sentence); the owner follows up, so no source_changed."""
        chosen = self.chosen_step()
        self._bare = "" if steps else checkpoint
        self.step.blockSignals(True)
        while self.step.count() > 1:
            self.step.removeItem(1)
        for step in steps:
            self.step.addItem("", step)
        self.step.setCurrentIndex(max(self.step.findData(chosen), 0) if chosen is not None else 0)
        self.step.setEnabled(bool(steps))
        self.step.blockSignals(False)
        self.retranslate()

    def choose_step(self, step: int | None) -> bool:
        """Choose the snapshot at ``step`` (None: the sentence); False if it is not offered."""
        index = self.step.findData(SENTENCE if step is None else step)
        if index >= 0:
            self.step.setCurrentIndex(index)
        return index >= 0

    def show_probe(self, probe: str | None) -> None:
        """Show a snapshot's probe, read only; None: the sentence typed, editable again."""
        if probe is not None and not self.sentence.isReadOnly():
            self._typed = self.sentence.text()
        elif probe is None and self.sentence.isReadOnly():
            self.sentence.setText(self._typed)
        self.sentence.setReadOnly(probe is not None)
        self.sentence.setEnabled(probe is None)  # greyed: a read-only field looks editable otherwise
        if probe is not None:
            self.sentence.setText(probe)

    def model_source(self) -> str:
        return str(self.model.currentData())

    def model_title(self) -> str:
        """The chosen model's name (and step), in the language in use now (the entry's text may lag behind)."""
        name = self.tr("loaded model") if self.model_source() == LOADED else self.model.currentText()
        step = self.chosen_step()
        return name if step is None else self.tr("{0}, step {1}").format(name, step)

    def _choose_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Open a checkpoint"), "",
                                              self.tr("Checkpoints (*{0})").format(SUFFIX))
        if path:
            self.add_file(path)

    def add_file(self, path: str) -> None:
        """Offer the checkpoint ``path`` (or choose the shipped model of that name)."""
        index = self.model.findData(path)
        if index < 0:
            self.model.addItem(Path(path).name, path)
            index = self.model.count() - 1
        self.model.setCurrentIndex(index)


class ComparePanel(Retranslated, PlotPanel):
    """Run A against run B. :attr:`comparison` is what is drawn (None before a comparison, or after
    an error, which the error line names)."""

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(workspace, parent)
        self.comparison: Comparison | None = None
        self._traces: list[Run] | None = None  # the last runs decoded (or snapshots taken), A then B
        self._models: dict[str, Model] = {}  # shipped models and files, loaded once
        self._snapshots: dict[str, list[Snapshot]] = {}  # checkpoint file -> its training snapshots, read once
        self._build()
        self.watch_model()
        subscribe(self, workspace.hidden_changed, lambda _: self._draw())

    def _build(self) -> None:
        self.run_a, self.run_b = RunChooser("A"), RunChooser("B")
        self.compare_button = QPushButton()
        self.bind_text(self.compare_button.setText, lambda: self.tr("Compare (Enter)"))
        self.compare_button.clicked.connect(self.run)
        for run in (self.run_a, self.run_b):
            run.sentence.returnPressed.connect(self.run)
            run.source_changed.connect(lambda run=run: self._source_changed(run))
        self.kind, self.layer, self.head = QComboBox(), QSpinBox(), QComboBox()
        self.kind.currentIndexChanged.connect(self._on_kind_changed)
        self.layer.valueChanged.connect(self._redraw)
        self.head.currentIndexChanged.connect(self._redraw)
        choices = QHBoxLayout()
        for label, widget in ((lambda: self.tr("Attention:"), self.kind), (lambda: self.tr("Layer:"), self.layer),
                              (lambda: self.tr("Head:"), self.head)):
            choices.addWidget(bound_label(self, label))
            choices.addWidget(widget)
        choices.addStretch(1)
        choices.addWidget(self.compare_button)
        controls = QVBoxLayout()
        controls.addWidget(self.run_a)
        controls.addWidget(self.run_b)
        controls.addLayout(choices)
        self.error = error_label()
        self.map_a, self.map_b = HeatmapWidget(), HeatmapWidget()
        self.difference = HeatmapWidget(value_format="{:+.3f}", diverging=True)
        self.no_difference = plain_label(wrap=True)
        self.no_difference.setAlignment(Qt.AlignmentFlag.AlignCenter)
        maps = QSplitter(Qt.Orientation.Horizontal)
        for plot in (self.map_a, self.map_b, self.difference, self.no_difference):
            maps.addWidget(plot)
        self.outputs = QLabel()
        self.outputs.setTextFormat(Qt.TextFormat.RichText)
        self.outputs.setWordWrap(True)
        self.outputs.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # instead of the runs while a quiz's question is open: decoded to the end, they give the answer away
        self.hidden_note = plain_label(wrap=True)
        self.hidden_note.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.bind_text(self.hidden_note.setText, lambda: self.tr(
            "Hidden until you answer: a quiz's question is open in the Explorer, and the runs decoded to their end "
            "would give the answer away. Reveal it there (Enter) to see the comparison."))
        self.hidden_note.setVisible(False)
        self.maps = maps
        attention = QWidget()
        grid = QGridLayout(attention)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.addWidget(maps, 0, 0)
        grid.addWidget(self.outputs, 1, 0)
        grid.setRowStretch(0, 1)
        self.patching = PatchingView()
        self.pages = QTabWidget()
        self.pages.addTab(attention, "")
        self.pages.addTab(self.patching, "")
        self.bind_text(lambda text: self.pages.setTabText(0, text), lambda: self.tr("Attention maps"))
        self.bind_text(lambda text: self.pages.setTabText(1, text), lambda: self.tr("Activation patching"))
        body = QGridLayout()
        body.addWidget(self.pages, 0, 0)
        body.addWidget(self.hidden_note, 0, 0)
        self.arrange(controls, self.error, body)
        self.track(self.map_a, self.map_b, self.difference, self.patching.map)
        self.retranslate()
        self.kind.setCurrentIndex(KINDS.index("cross"))  # where a minimal pair differs most visibly

    def retranslate(self) -> None:
        super().retranslate()
        set_items(self.kind, [kind_names()[kind] for kind in KINDS])
        self._name_heads()
        self._draw()

    def set_model(self, model: Model | None) -> None:
        self._models.clear()  # a file may have changed since; the loaded model is the workspace's
        self._snapshots.clear()
        self._traces, self.comparison = None, None  # the maps drawn were the last model's
        self.kind.setEnabled(model is not None)
        self._draw()
        if model is None:
            return
        for chooser in (self.run_a, self.run_b):
            self._source_changed(chooser)
        self._fit_layers()
        self._name_heads()
        self._offer_pair(model)

    def _offer_pair(self, model: Model) -> None:
        """Empty sentence boxes get the explorer's sentence (A) and its closest example (B): a
        minimal pair when the model's task has one."""
        session = self.workspace.session
        sentence = session.source if session is not None else ""
        examples = [pair.source for pair in self.workspace.examples]
        partner = minimal_partner(sentence, examples, model.src_vocab.tokenize) if sentence else None
        for run, text in ((self.run_a, sentence), (self.run_b, partner or sentence)):
            if not run.sentence.text():
                run.sentence.setText(text)

    def _name_heads(self) -> None:
        set_head_items(self.head, self._heads())

    def _heads(self) -> int:
        return self.model.config.n_heads if self.model is not None else 0

    def current_head(self) -> Head:
        return chosen_head(self.head, self._heads())

    def current_kind(self) -> Kind:
        return KINDS[max(self.kind.currentIndex(), 0)]

    def _fit_layers(self) -> None:
        """The layer chooser spans the chosen kind's stack: an encoder and a decoder may differ in depth."""
        model = self.model
        if model is not None:
            self.layer.blockSignals(True)  # a clamped value is drawn once, by the caller
            self.layer.setMaximum(model.config.layer_count(self.current_kind()) - 1)
            self.layer.blockSignals(False)

    def _on_kind_changed(self) -> None:
        self._fit_layers()
        self._redraw()

    # -- running -------------------------------------------------------------------------------
    def run(self) -> None:
        """Decode both runs and draw them; an error (a file that does not load, a sentence the
        model cannot read, a layer one model lacks) is named and the last comparison stays."""
        if self.model is None:
            show_error(self.error, self.tr("Open a model first."))
            return
        try:
            traces = [self._run_of(run) for run in (self.run_a, self.run_b)]
        except TransvizError as error:
            show_error(self.error, translated(error))
            return
        self._traces = traces
        self._redraw()
        self._patch(traces)

    def _patch(self, traces: list[Run]) -> None:
        """The patching page: sentence A's activations into B's run, when one model decoded both."""
        if any(run.chosen_step() is not None for run in (self.run_a, self.run_b)):
            self.patching.refuse(self.tr("Patching runs two sentences through one model: a training snapshot "
                                         "is a recorded run, not a model to run again."))
        elif self._model_of(self.run_a) is not self._model_of(self.run_b):
            self.patching.refuse(self.tr("Patching runs two sentences through one model: choose the same model "
                                         "for A and B."))
        else:
            self.patching.show_pair(self._model_of(self.run_a), self.run_a.sentence.text(),
                                    self.run_b.sentence.text(), (traces[0].output_tokens, traces[1].output_tokens))

    def _run_of(self, run: RunChooser) -> Run:
        step = run.chosen_step()
        if step is None:
            return decode(self._model_of(run), run.sentence.text())
        return snapshot_run(snapshot_at(self._snapshots_of(run), step, self._file_name(run)))

    def choose_snapshot(self, run: RunChooser, step: int) -> None:
        """Make ``run`` the snapshot at ``step`` of its model's checkpoint; InputError naming the
        steps there are if it has no such snapshot (``transviz render --snapshots``)."""
        if not run.choose_step(step):
            snapshot_at(self._snapshots_of(run), step, self._file_name(run))  # raises: the step is not there

    # -- snapshots -----------------------------------------------------------------------------
    def _file_of(self, run: RunChooser) -> str | None:
        """The checkpoint file of ``run``'s model (None: a loaded model never saved)."""
        source = run.model_source()
        if source == LOADED:
            return self.model.path if self.model is not None else None
        shipped = shipped_models()
        return str(shipped[source]) if source in shipped else source

    def _file_name(self, run: RunChooser) -> str:
        file = self._file_of(run)
        return Path(file).name if file else run.model_title()

    def _snapshots_of(self, run: RunChooser) -> list[Snapshot]:
        file = self._file_of(run)
        if file is None:
            return []
        if file not in self._snapshots:
            self._snapshots[file] = load_snapshots(file)
        return self._snapshots[file]

    def _source_changed(self, run: RunChooser) -> None:
        """Another model or step: offer the model's steps and show the chosen snapshot's probe."""
        had_step = run.chosen_step()
        try:
            snapshots = self._snapshots_of(run)
        except TransvizError:
            snapshots = []  # a file that does not load is named when the runs are compared
        run.offer_steps([snap.step for snap in snapshots], self._file_name(run))
        step = run.chosen_step()
        if step is None and had_step is not None:  # the new model lacks it: say so, and decode the sentence
            try:
                snapshot_at(self._snapshots_of(run), had_step, self._file_name(run))
            except TransvizError as error:
                show_error(self.error, translated(error))
        run.show_probe(None if step is None else self._probe(run, step))

    def _probe(self, run: RunChooser, step: int) -> str:
        tokens = snapshot_at(self._snapshots_of(run), step, self._file_name(run)).source_tokens
        try:
            return self._model_of(run).src_vocab.detokenize(tokens)
        except TransvizError:
            return " ".join(tokens)

    def _model_of(self, run: RunChooser) -> Model:
        source = run.model_source()
        if source == LOADED:
            assert self.model is not None  # run() checked
            return self.model
        if source not in self._models:
            self._models[source] = load_model(source)
        return self._models[source]

    def _redraw(self) -> None:
        if self._traces is None:
            return
        try:
            self.comparison = compare(self._traces[0], self._traces[1], self.current_kind(), self.layer.value(),
                                      self.current_head())
        except TransvizError as error:
            show_error(self.error, translated(error))
            self.comparison = None
        else:
            show_error(self.error, None)
        self._draw()

    # -- drawing -------------------------------------------------------------------------------
    def _draw(self) -> None:
        hidden = self.workspace.hidden_step is not None
        self.hidden_note.setVisible(hidden)
        self.pages.setVisible(not hidden)
        shown = self.comparison
        for widget in (self.map_a, self.map_b, self.difference):
            widget.setVisible(shown is not None)
        self.no_difference.setVisible(shown is not None and shown.shapes_differ)
        if shown is None:
            self.outputs.setText("")
            return
        kind = self.current_kind()
        for widget, side, run, name in ((self.map_a, shown.a, self.run_a, "A"), (self.map_b, shown.b, self.run_b, "B")):
            widget.set_axes(kind_axes(kind))
            widget.set_data(hatched(side, kind), side.rows, side.columns, levels=(0.0, 1.0))
            widget.set_title(f"{name}: {run.model_title()}")
        self.difference.setVisible(not shown.shapes_differ)
        if shown.difference is not None:
            scale = shown.scale or 1e-6
            self.difference.set_axes(kind_axes(kind))
            self.difference.set_data(hatched(Side(shown.difference, shown.a.rows, shown.a.columns), kind),
                                     shown.a.rows, shown.a.columns, levels=(-scale, scale))
            self.difference.set_title(self.tr("B - A, named as A (blue: A larger, red: B larger; scale ±{0:.3f})")
                                      .format(shown.scale))
        else:
            self.no_difference.setText(self.tr("No difference map: A's map is {0} x {1}, B's is {2} x {3}. The "
                                               "runs differ in length; the maps are compared only where their "
                                               "shapes match.").format(*shown.a.map.shape, *shown.b.map.shape))
        self.outputs.setText(self._outputs_text(shown))

    def _outputs_text(self, shown: Comparison) -> str:
        same = self.tr("The two outputs are the same.") if shown.same_output else \
            self.tr("Output of A turned into B's: struck out in red, A only; underlined in green, B only.")
        return f"{html.escape(same)}<br><b>{diff_html(shown.tokens)}</b>"
