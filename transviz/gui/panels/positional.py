"""The positional-encoding tab: the sinusoidal table as a heatmap (positions x dimensions) in the
formula's interleaved layout or the seed's "sin half | cos half" layout, chosen dimensions as
curves across positions, and the similarity PE·PEᵀ, which depends only on the offset between
two positions. With a model loaded it can show the table that model adds to its embeddings.
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

from ...core.model.bundle import Model
from ...core.model.positional import HALF_LAYOUTS, interleave, similarity, sinusoidal_table, split_halves
from ...core.teaching.workspace import Workspace
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
        self.error = error_label()
        controls = QHBoxLayout()
        for text, widget in ((lambda: self.tr("Table from"), self.source),
                             (lambda: self.tr("positions"), self.length), (lambda: self.tr("d_model"), self.d_model),
                             (lambda: self.tr("layout"), self.layout_choice),
                             (lambda: self.tr("curves of dimensions"), self.dimensions)):
            controls.addWidget(bound_label(self, text))
            controls.addWidget(widget)
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
        self.curves = pg.PlotWidget()
        self.bind_text(self.curves.setTitle, lambda: self.tr("Chosen dimensions across positions"))
        self.bind_text(lambda text: self.curves.setLabel("bottom", text), lambda: self.tr("position"))
        self.bind_text(lambda text: self.curves.setLabel("left", text), lambda: self.tr("PE value"))
        self.legend = legend_below(self.curves.getPlotItem())
        self.curves.setMenuEnabled(False)
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

        for spin in (self.length, self.d_model):
            spin.valueChanged.connect(self.refresh)
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
            self._show(MODEL, model.config.max_len, model.config.d_model)
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
        enabled = model is not None and model.config.adds_positions and positional != "learned"
        entries = self.source.model()
        assert isinstance(entries, QStandardItemModel)  # a combo box's own model
        item = entries.item(MODEL)
        item.setEnabled(enabled)
        reasons = {
            "learned": self.tr("This model learns a table of positions for each stack (BART): it is no sine table, "
                               "so this tab shows the formula's"),
            "rotary": self.tr("This model adds no table to its embeddings: it turns each self-attention query and key "
                              "by angles that grow with its position (RoPE), so this tab shows the formula's"),
            "alibi": self.tr("This model adds no table to its embeddings: each self-attention score loses a slope "
                             "times the distance between query and key (ALiBi), so this tab shows the formula's"),
            "none": self.tr("This model has no positions at all: only the decoder's causal mask tells it order, so "
                            "this tab shows the formula's")}
        why = reasons.get(positional or "", self.tr("No model loaded: Model > Open"))
        item.setToolTip("" if enabled else why)
        self._no_table = reasons.get(positional or "", "")  # said under the table too, not only on hover
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

    def refresh(self) -> None:
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
        sims = similarity(torch.from_numpy(self._table).double()).float().numpy()
        self.similarity_view.set_data(sims, positions, positions, levels=(float(sims.min()), float(sims.max())))
        self._draw_curves()

    def _layout_note(self, halves: bool, from_model: bool) -> str:
        """What the columns hold; fairseq's table (M2M100, FSMT) has other rates and starts at 2."""
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
