"""The positional-encoding tab: the sinusoidal table as a heatmap (positions x dimensions) in the
formula's interleaved layout or the seed's "sin half | cos half" layout, chosen dimensions as
curves across positions, and the similarity PE·PEᵀ, which depends only on the offset between
two positions. With a model loaded it can show the table that model adds to its embeddings
(a sine or a learned one), or, for a model whose positions act inside attention, what they do
there (:mod:`transviz.core.analysis.positions_inside`): RoPE's turned query and key, ALiBi's bias
of each head, T5's bucket of each offset and its learned bias.
"""
from __future__ import annotations

import re

import numpy as np
import pyqtgraph as pg
import torch
from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import (
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from ...core.analysis.positions_inside import position_bias, rotary_scores
from ...core.base.errors import InputError
from ...core.model.bundle import Model
from ...core.model.positional import HALF_LAYOUTS, interleave, similarity, sinusoidal_table, split_halves
from ...core.teaching.workspace import Workspace
from ..services.core_messages import translated
from ..services.language import Retranslated, set_items
from ..style import PALETTE, plain_axes
from ..widgets.heatmap import AxisNames, HeatmapWidget, label_stride
from ..widgets.labels import bound_label, error_label, plain_label, show_error
from ..widgets.plots import legend_below
from .base import PlotPanel

DEFAULT_LENGTH, DEFAULT_D_MODEL = 20, 512  # the seed's figure: 20 positions x 512 dimensions
DEFAULT_DIMENSIONS = "4, 5, 6, 7"
MAX_LENGTH, MAX_D_MODEL = 1024, 4096

FORMULA, MODEL = 0, 1  # entries of the source selector
INSIDE = ("rotary", "alibi", "t5")  # positions drawn as what they do in attention, not as a table
SAMPLE_SENTENCE = "ich mochte ein bier"  # whose tokens RoPE turns when the explorer has none
INTERLEAVED, HALVES = 0, 1  # entries of the layout selector


def parse_dimensions(text: str, d_model: int) -> list[int]:
    """``"4, 5 6"`` -> ``[4, 5, 6]``; ValueError with a translated message naming what is wrong."""
    parts = [p for p in re.split(r"[,\s]+", text.strip()) if p]
    if not all(p.isdigit() for p in parts):
        raise ValueError(QCoreApplication.translate("PositionalPanel",
                                                    "dimensions must be whole numbers separated by commas"))
    dims = [int(p) for p in parts]
    outside = [d for d in dims if d >= d_model]
    if outside:
        raise ValueError(QCoreApplication.translate("PositionalPanel", "dimension {0} does not exist: d_model is {1} "
                                                    "(dimensions 0..{2})").format(outside[0], d_model, d_model - 1))
    return list(dict.fromkeys(dims))


class PositionalPanel(Retranslated, PlotPanel):
    """Args:
        parent: the owning widget.

    The table shown is always computed by :mod:`transviz.core.model.positional` (or read from the
    loaded model's own buffer); this panel only arranges and draws it.
    """

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(workspace, parent)
        self._table = np.zeros((0, 0), np.float32)  # (positions, d_model), interleaved
        self._no_table = ""  # why a loaded model has no sine table to show (then the formula's is shown)
        self._build()
        self.watch_model()

    def retranslate(self) -> None:
        super().retranslate()
        self._enable_model_source(self.model)
        self.refresh()  # the table's title, the layout note, the curves' names

    # -- construction --------------------------------------------------------------------------
    def _build(self) -> None:
        self.source = QComboBox()
        self.bind_text(lambda texts: set_items(self.source, texts),
                       lambda: [self.tr("the formula"), self.tr("the loaded model's table")])
        self.length = QSpinBox()
        self.length.setRange(1, MAX_LENGTH)
        self.length.setValue(DEFAULT_LENGTH)
        self.d_model = QSpinBox()
        self.d_model.setRange(1, MAX_D_MODEL)
        self.d_model.setValue(DEFAULT_D_MODEL)
        self.layout_choice = QComboBox()
        self.bind_text(lambda texts: set_items(self.layout_choice, texts), lambda: [
            self.tr("interleaved: sin, cos, sin, cos ... (the formula)"),
            self.tr("sin half | cos half (the seed's figure)")])
        self.dimensions = QLineEdit(DEFAULT_DIMENSIONS)
        self.dimensions.setMinimumWidth(120)
        self.head = QSpinBox()  # for positions inside attention: whose bias or score is drawn
        self.stack = QComboBox()  # T5's buckets: the encoder's, or the decoder's
        self.bind_text(lambda texts: set_items(self.stack, texts), lambda: [
            self.tr("encoder (keys before and after)"), self.tr("decoder (keys before)")])
        self.error = error_label()
        controls = QHBoxLayout()
        self._head_controls: list[QWidget] = []  # shown while positions inside attention are drawn
        self._stack_controls: list[QWidget] = []  # and these for T5's, whose stacks differ
        self._table_controls: list[QWidget] = []  # hidden while positions inside attention are drawn
        for text, widget in ((lambda: self.tr("Table from"), self.source),
                             (lambda: self.tr("positions"), self.length), (lambda: self.tr("d_model"), self.d_model),
                             (lambda: self.tr("layout"), self.layout_choice),
                             (lambda: self.tr("curves of dimensions"), self.dimensions),
                             (lambda: self.tr("head"), self.head), (lambda: self.tr("stack"), self.stack)):
            label = bound_label(self, text)
            controls.addWidget(label)
            controls.addWidget(widget)
            if widget is self.head:
                self._head_controls += [label, widget]
            elif widget is self.stack:
                self._stack_controls += [label, widget]
            elif widget in (self.d_model, self.layout_choice, self.dimensions):
                self._table_controls += [label, widget]
        self.seed_figure = QPushButton()
        self.bind_text(self.seed_figure.setText, lambda: self.tr("The seed's figure: 20 x 512"))
        self.bind_text(self.seed_figure.setToolTip, lambda: self.tr(
            "The formula's table at 20 positions and d_model 512, as the seed tutorial draws it"))
        controls.addStretch(1)

        self.table_view = HeatmapWidget(levels=(-1.0, 1.0))
        self.bind_text(self.table_view.set_axes, lambda: AxisNames(
            self.tr("position"), self.tr("dimension"), self.tr("positions (rows)"), self.tr("dimensions (columns)"),
            self.tr("{row_name} {row}, {column_name} {column}: {value}")))
        self.layout_note = plain_label(wrap=True)  # fairseq's caption takes two lines on a small screen
        self.curves = pg.PlotWidget(enableMenu=False)
        self.bind_text(self.curves.setTitle, lambda: self.tr("Chosen dimensions across positions"))
        self.bind_text(lambda text: self.curves.setLabel("bottom", text), lambda: self.tr("position"))
        self.bind_text(lambda text: self.curves.setLabel("left", text), lambda: self.tr("PE value"))
        self.legend = legend_below(self.curves.getPlotItem())
        self.curves.setMinimumHeight(240)  # its size hint is low: the similarity below would take the column
        self.curves.hideButtons()
        plain_axes(self.curves.getPlotItem())
        self.similarity_view = HeatmapWidget(value_format="{:.1f}")
        self.bind_text(self.similarity_view.set_title,
                       lambda: self.tr("Similarity PE · PEᵀ (depends only on the offset)"))
        self.bind_text(self.similarity_view.set_axes, lambda: AxisNames(
            self.tr("position"), self.tr("position"), self.tr("positions"), self.tr("positions"),
            self.tr("{row_name} {row} . {column_name} {column}: {value}")))
        self.track(self.table_view, self.curves, self.similarity_view)

        plots = QGridLayout()
        left = QVBoxLayout()
        left.addWidget(self.table_view, 1)
        below = QHBoxLayout()  # not in the controls' row, which is as wide as a small screen
        below.addWidget(self.layout_note, 1)
        below.addWidget(self.seed_figure)
        left.addLayout(below)
        plots.addLayout(left, 0, 0, 2, 1)
        plots.addWidget(self.curves, 0, 1)
        plots.addWidget(self.similarity_view, 1, 1)
        plots.setColumnStretch(0, 3)
        plots.setColumnStretch(1, 2)
        plots.setRowStretch(0, 1)
        plots.setRowStretch(1, 1)
        self.arrange(controls, self.error, plots)

        for spin in (self.length, self.d_model, self.head):
            spin.valueChanged.connect(self.refresh)
        self.stack.currentIndexChanged.connect(self.refresh)
        self.source.currentIndexChanged.connect(self._on_source_changed)
        self.layout_choice.currentIndexChanged.connect(self.refresh)
        self.dimensions.textChanged.connect(self.refresh)
        self.seed_figure.clicked.connect(self.show_seed_figure)
        self._enable_model_source(None)


    # -- model -----------------------------------------------------------------------------------
    def set_model(self, model: Model | None) -> None:
        """A new model opens on its own table: its d_model, all the positions it can read."""
        if self._enable_model_source(model):
            assert model is not None
            config = model.config  # a table: every position it reads; a picture inside attention: the seed's 20
            length = min(DEFAULT_LENGTH, config.max_len) if config.positional in INSIDE else config.max_len
            self._show(MODEL, length, config.d_model)
        elif self.source.currentIndex() == MODEL:
            self.source.setCurrentIndex(FORMULA)  # refreshes
        else:
            self._on_source_changed()

    def show_seed_figure(self) -> None:
        """The formula's 20 x 512 table, the seed tutorial's figure."""
        self._show(FORMULA, DEFAULT_LENGTH, DEFAULT_D_MODEL)

    def _show(self, source: int, length: int, d_model: int) -> None:
        for widget in (self.source, self.length, self.d_model):
            widget.blockSignals(True)
        self.source.setCurrentIndex(source)
        self.length.setMaximum(MAX_LENGTH)  # the model's limit is set again below
        self.length.setValue(length)
        self.d_model.setValue(d_model)
        for widget in (self.source, self.length, self.d_model):
            widget.blockSignals(False)
        self._on_source_changed()

    def _enable_model_source(self, model: Model | None) -> bool:
        """The model's table as a choice; off, with the reason, without a model or a sine table. Returns
        whether it is on."""
        positional = None if model is None else model.config.positional
        enabled = model is not None and positional != "none"
        entries = self.source.model()
        assert isinstance(entries, QStandardItemModel)  # a combo box's own model
        item = entries.item(MODEL)
        item.setEnabled(enabled)
        reasons = {"none": self.tr("This model has no positions at all: only the decoder's causal mask tells it order, "
                                   "so this tab shows the formula's")}
        why = reasons.get(positional or "", self.tr("No model loaded: Model > Open"))
        item.setToolTip("" if enabled else why)
        self._no_table = reasons.get(positional or "", "")  # said under the table too, not only on hover
        if model is not None:
            self.head.setRange(0, model.config.n_heads - 1)
        return enabled

    def _on_source_changed(self) -> None:
        from_model = self.source.currentIndex() == MODEL and self.model is not None
        self.d_model.setEnabled(not from_model)
        if from_model:
            assert self.model is not None
            config = self.model.config
            self.length.setMaximum(config.max_len)
            self.d_model.blockSignals(True)
            self.d_model.setValue(config.d_model)
            self.d_model.blockSignals(False)
        else:
            self.length.setMaximum(MAX_LENGTH)
        self.refresh()

    # -- computing and drawing ---------------------------------------------------------------------
    def table(self) -> np.ndarray:
        """The table shown, ``(positions, d_model)``, in the formula's interleaved layout."""
        return self._table

    def _compute_table(self) -> np.ndarray:
        length = self.length.value()
        if self.source.currentIndex() == MODEL and self.model is not None:
            net = self.model.net
            buffer = net.position_table("encoder")  # what the model adds to its embeddings
            if net.config.positional in HALF_LAYOUTS:  # Marian's and fairseq's columns, back in the formula's order
                buffer = interleave(buffer)
            return buffer[:length].detach().cpu().numpy().astype(np.float32)
        return sinusoidal_table(length, self.d_model.value()).numpy()

    def _inside(self) -> str | None:
        """The kind of positions inside attention drawn now (the loaded model's), or None."""
        if self.source.currentIndex() != MODEL or self.model is None:
            return None
        positional = self.model.config.positional
        return positional if positional in INSIDE else None

    def refresh(self) -> None:
        inside = self._inside()
        for control in self._table_controls:
            control.setVisible(inside is None)
        self.seed_figure.setEnabled(inside is None)
        for control in self._head_controls:
            control.setVisible(inside is not None)
        for control in self._stack_controls:
            control.setVisible(inside == "t5")
        self.similarity_view.setVisible(inside in (None, "t5"))
        if inside is not None:
            self._draw_inside(inside)
            return
        self._table = self._compute_table()
        length, d_model = self._table.shape
        halves = self.layout_choice.currentIndex() == HALVES
        shown = split_halves(torch.from_numpy(self._table)).numpy() if halves else self._table
        # Columns keep their formula dimension number in either layout: 0 2 4 ... | 1 3 5 ...
        dims = split_halves(torch.arange(d_model)).tolist() if halves else list(range(d_model))
        positions = [str(p) for p in range(length)]
        step, half = label_stride(d_model), (d_model + 1) // 2
        # each half labelled from its own start: 0, 40, 80 ... | 1, 41, 81 ...
        labelled = [c for c in range(d_model) if (c if c < half else c - half) % step == 0] if halves else None
        self.table_view.set_data(shown, positions, [str(d) for d in dims], labelled_columns=labelled)
        from_model = self.source.currentIndex() == MODEL and self.model is not None
        source = self.tr("the loaded model") if from_model else self.tr("the formula")
        self.table_view.set_title(self.tr("Positional encoding PE: {0} positions x {1} dimensions, from {2}")
                                  .format(length, d_model, source))
        note = self._layout_note(halves, from_model)
        self.layout_note.setText(f"{self._no_table}. {note}" if self._no_table else note)
        learned = from_model and self.model is not None and self.model.config.positional == "learned"
        self.similarity_view.set_title(self.tr("Similarity PE · PEᵀ of the learned table") if learned
                                       else self.tr("Similarity PE · PEᵀ (depends only on the offset)"))
        self.table_view.set_axes(self._table_axes())
        self.similarity_view.set_axes(self._similarity_axes())
        sims = similarity(torch.from_numpy(self._table).double()).float().numpy()
        self.similarity_view.set_data(sims, positions, positions, levels=(float(sims.min()), float(sims.max())))
        self._draw_curves()

    def _table_axes(self) -> AxisNames:
        return AxisNames(self.tr("position"), self.tr("dimension"), self.tr("positions (rows)"),
                         self.tr("dimensions (columns)"), self.tr("{row_name} {row}, {column_name} {column}: {value}"))

    def _similarity_axes(self) -> AxisNames:
        return AxisNames(self.tr("position"), self.tr("position"), self.tr("positions"), self.tr("positions"),
                         self.tr("{row_name} {row} . {column_name} {column}: {value}"))

    # -- positions inside attention ----------------------------------------------------------------
    def _draw_inside(self, positional: str) -> None:
        """What the loaded model's positions do inside attention, in the table's place."""
        self.curves.clear()
        self.legend.clear()
        try:
            if positional == "rotary":
                self._draw_rotary()
            else:
                self._draw_bias()
        except InputError as exc:
            show_error(self.error, translated(exc))
            return
        show_error(self.error, None)

    def _pair_axes(self) -> AxisNames:
        return AxisNames(self.tr("query position"), self.tr("key position"), self.tr("the query's position (rows)"),
                         self.tr("the key's position (columns)"),
                         self.tr("{row_name} {row}, {column_name} {column}: {value}"))

    def _draw_rotary(self) -> None:
        assert self.model is not None  # _inside() found its positions
        session = self.workspace.session
        source = session.source if session is not None else SAMPLE_SENTENCE
        length, head = self.length.value(), self.head.value()
        shown = rotary_scores(self.model, source, 0, head, length)
        positions = [str(p) for p in range(length)]
        self.table_view.set_axes(self._pair_axes())
        self.table_view.set_data(shown.scores, positions, positions,
                                 levels=(float(shown.scores.min()), float(shown.scores.max())))
        self.table_view.set_title(self.tr(
            "RoPE, encoder layer 0, head {0}: the score of the query of '{1}' turned to position m (rows) over the "
            "key of '{2}' turned to position n (columns). Every diagonal holds one value: the score depends on n - m "
            "alone").format(head, shown.query_token, shown.key_token))
        colour = PALETTE[0]
        self.curves.plot(shown.pair[:, 0], shown.pair[:, 1], pen=pg.mkPen(colour, width=1), symbol="o", symbolSize=5,
                         symbolBrush=colour, symbolPen=None)
        self.curves.setTitle(self.tr("The query's pair of dimensions 0 and d_k/2, position by position"))
        self.curves.setLabel("bottom", self.tr("dimension 0"))
        self.curves.setLabel("left", self.tr("dimension d_k/2"))
        self.layout_note.setText(self.tr(
            "RoPE turns each pair of a head's dimensions by an angle that grows with the position: q_m = R(m θ) q and "
            "k_n = R(n θ) k, so q_m · k_n = q · R((n - m) θ) k. Why: the order a translation needs is relative, and "
            "the embeddings stay free of positions."))

    def _draw_bias(self) -> None:
        assert self.model is not None  # _inside() found its positions
        length, head = self.length.value(), self.head.value()
        decoder = self.model.config.positional == "t5" and self.stack.currentIndex() == 1
        shown = position_bias(self.model, length, "decoder_self" if decoder else "encoder_self")
        positions = [str(p) for p in range(length)]
        self.table_view.set_axes(self._pair_axes())
        self._draw_bias_curves(shown.bias, head)
        if shown.buckets is None:  # ALiBi
            slope = float(shown.slopes[head]) if shown.slopes is not None else 0.0
            self.table_view.set_data(shown.bias[head], positions, positions, levels=(float(shown.bias.min()), 0.0))
            self.table_view.set_title(self.tr("ALiBi, head {0}: -{1:.4g} x |query position - key position|, added "
                                              "to every scaled score").format(head, slope))
            self.layout_note.setText(self.tr(
                "ALiBi adds -m_h |i - j| to head h's scores, slopes m_h = 2^(-8h/H): nothing is learned. Why: nearer "
                "words weigh more, by a different amount in each head, and the model reads longer sentences than it "
                "trained on."))
            return
        buckets = shown.buckets.astype(np.float32)
        self.table_view.set_data(buckets, positions, positions, levels=(0.0, float(buckets.max())))
        side = self.tr("the decoder's: keys before the query") if decoder else self.tr(
            "the encoder's: keys before and after the query apart")
        self.table_view.set_title(self.tr("T5: the bucket of every offset, {0}").format(side))
        bias = shown.bias[head]
        self.similarity_view.set_axes(self._pair_axes())
        self.similarity_view.set_data(bias, positions, positions, levels=(float(bias.min()), float(bias.max())))
        self.similarity_view.set_title(self.tr("T5, head {0}: the learned bias of each (query, key)'s bucket")
                                       .format(head))
        config = self.model.config
        self.layout_note.setText(self.tr(
            "T5 adds b_h(bucket(j - i)) to head h's scores: one learned number per head and bucket. Offsets below "
            "{0} get a bucket each, farther ones share buckets that widen logarithmically up to {1}. Why: relative "
            "positions, learned, one table per stack shared by its layers.").format(
                config.relative_buckets // (2 if decoder else 4), config.relative_max_distance))

    def _draw_bias_curves(self, bias: np.ndarray, chosen: int) -> None:
        """Each head's bias (H, L, L) against the offset key - query, the chosen head's thicker."""
        length = bias.shape[-1]
        offsets = np.arange(-(length - 1), length)
        for head, matrix in enumerate(bias):
            colour = PALETTE[head % len(PALETTE)]
            by_offset = np.concatenate([matrix[length - 1, : length - 1], matrix[0]])  # offsets -(L-1)..L-1
            curve = self.curves.plot(offsets, by_offset, pen=pg.mkPen(colour, width=3 if head == chosen else 1))
            self.legend.addItem(curve, self.tr("head {0}").format(head))
        self.curves.setTitle(self.tr("Each head's bias against the offset (key - query)"))
        self.curves.setLabel("bottom", self.tr("offset: key position - query position"))
        self.curves.setLabel("left", self.tr("bias added to the score"))

    def _layout_note(self, halves: bool, from_model: bool) -> str:
        """What the columns hold; fairseq's table (M2M100, FSMT) has other rates and starts at 2."""
        if from_model and self.model is not None and self.model.config.positional == "learned":
            return self.tr("A learned table (this model's): each position's row was trained, no formula made it, so "
                           "PE · PEᵀ need not depend on the offset alone as a sine table's does.")
        fairseq = from_model and self.model is not None and self.model.config.positional == "sinusoidal-fairseq"
        if fairseq:
            return self.tr("fairseq's table (this model's): dimension 2i holds "
                           "sin((pos + 2) / 10000^(i/(d_model/2 - 1))), dimension 2i+1 the cos of the same angle: "
                           "fairseq counts positions from 2.")
        if halves:
            return self.tr("Left half: sin (even dimensions); right half: cos (odd dimensions).")
        return self.tr("Column 2i holds sin(pos / 10000^(2i/d_model)), column 2i+1 the cos of the same angle.")

    def _draw_curves(self) -> None:
        self.curves.clear()
        self.legend.clear()
        try:
            dims = parse_dimensions(self.dimensions.text(), self._table.shape[1])
        except ValueError as exc:
            show_error(self.error, self.tr("Curves: {0}").format(exc))
            return
        show_error(self.error, None)
        positions = np.arange(self._table.shape[0])
        for i, dim in enumerate(dims):
            colour = PALETTE[i % len(PALETTE)]
            name = self.tr("dim {0} ({1})").format(dim, "sin" if dim % 2 == 0 else "cos")
            curve = self.curves.plot(positions, self._table[:, dim], pen=pg.mkPen(colour, width=2), name=name,
                                     symbol="o", symbolSize=5, symbolBrush=colour, symbolPen=None)
            self.legend.addItem(curve, name)

    def curve_data(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Name -> (x, y) of every curve drawn."""
        return {item.name(): item.getData() for item in self.curves.getPlotItem().listDataItems()}
