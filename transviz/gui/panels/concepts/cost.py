"""Where the FLOPs go: one forward pass of the explorer's sentence split into its components, the
FFN's share as the model widens, and the share of the n x m x l attention products as sentences
grow (:mod:`transviz.core.concepts.cost`)."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QVBoxLayout, QWidget

from ....core.concepts.cost import COMPONENTS, PRODUCTS, flops, flops_by_length, flops_by_width, share
from ....core.concepts.forward import model_inputs
from ...plots import curve_plot, legend_below
from ...style import BLUE, GREY, ORANGE, VERMILLION
from .base import ConceptContext, ConceptView

WIDTHS = list(range(128, 1025, 128))  # d_model of the width curve, d_ff = 4 d_model
LENGTHS = [8, 16, 32, 64, 128, 256, 512]  # source and target length of the length curve


class CostView(ConceptView):
    """FLOPs per component of the loaded model on the explorer's sentence, and two curves."""

    name = "cost"
    uses_layer = uses_head = False

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bars, self.by_width, self.by_length = curve_plot(), curve_plot(), curve_plot()
        self.by_width.setYRange(0, 1, padding=0.02)
        self.width_legend = legend_below(self.by_width.getPlotItem())
        self.counts: dict[str, int] = {}
        below = QHBoxLayout()
        below.addWidget(self.by_width)
        below.addWidget(self.by_length)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.bars, 1)
        layout.addLayout(below, 1)

    def title(self) -> str:
        return self.tr("Where the FLOPs go")

    def claim(self) -> str:
        return self.tr("Once the model is large, what really consumes the compute (FLOPS) is still the MLP (FFN); "
                       "self-attention (attn) and multi-head attention (MHA) take only a small part. The time "
                       "complexity of MHA is n x m x l.")

    def caption(self) -> str:
        return self.tr("FLOPs of one teacher-forced pass of this sentence: a product of (m, k) and (k, n) matrices "
                       "counts 2mkn, as torch counts; the embedding lookup and the softmax multiply no matrices and "
                       "count 0. The FFN takes the largest part; of attention, the Q, K, V and output projections "
                       "cost far more than its n x m x l products, whose share grows only with the sentence's length.")

    def plots(self) -> list[QWidget]:
        return [self.bars, self.by_width, self.by_length]

    def component_names(self) -> dict[str, str]:
        return {"embeddings": self.tr("embedding"), "qkv": self.tr("Q, K, V"), "scores": self.tr("QK^T"),
                "softmax": self.tr("softmax"), "weights_v": self.tr("weights x V"), "out_proj": self.tr("out proj."),
                "ffn": self.tr("FFN"), "output": self.tr("output layer")}

    def draw(self, context: ConceptContext) -> None:
        inputs = model_inputs(context.model, context.sentence)
        source_len, target_len = len(inputs.source_tokens), len(inputs.target_tokens)
        config = context.model.config
        self.counts = flops(config, source_len, target_len)
        self._draw_bars(source_len, target_len)
        self._draw_widths(config.d_model, flops_by_width(config, WIDTHS, source_len, target_len))
        self._draw_lengths([share(counts, PRODUCTS) for counts in flops_by_length(config, LENGTHS)])

    def _draw_bars(self, source_len: int, target_len: int) -> None:
        plot, counts = self.bars, self.counts
        plot.clear()
        total = sum(counts.values())
        heights = np.array([counts[part] / 1e6 for part in COMPONENTS])
        colours = [ORANGE if part == "ffn" else VERMILLION if part in PRODUCTS else BLUE
                   for part in COMPONENTS]
        plot.addItem(pg.BarGraphItem(x=np.arange(len(COMPONENTS)), height=heights, width=0.7, brushes=colours,
                                     pen=None))
        names = self.component_names()
        plot.getAxis("bottom").setTicks([[(i, names[part]) for i, part in enumerate(COMPONENTS)]])
        for i, part in enumerate(COMPONENTS):  # each bar's share above it
            label = pg.TextItem(f"{counts[part] / total:.1%}", color=GREY, anchor=(0.5, 1.0))
            label.setPos(i, heights[i])
            plot.addItem(label)
        plot.setYRange(0, float(heights.max()) * 1.12, padding=0)
        plot.setXRange(-0.6, len(COMPONENTS) - 0.4, padding=0)
        plot.setLabel("left", self.tr("MFLOPs"))
        plot.setTitle(self.tr("One pass, {0} source and {1} decoder tokens: {2:.2f} MFLOPs, FFN {3:.0%}").format(
            source_len, target_len, total / 1e6, counts["ffn"] / total))

    def _draw_widths(self, own_width: int, by_width: list[dict[str, int]]) -> None:
        plot = self.by_width
        plot.clear()
        self.width_legend.clear()
        for parts, colour, name in ((["ffn"], ORANGE, self.tr("FFN")),
                                    (PRODUCTS, VERMILLION, self.tr("scores + weights x V"))):
            curve = plot.plot(WIDTHS, [share(counts, parts) for counts in by_width], pen=pg.mkPen(colour, width=2),
                              symbol="o", symbolSize=6, symbolBrush=colour, symbolPen=None)
            self.width_legend.addItem(curve, name)
        plot.addItem(pg.InfiniteLine(own_width, angle=90, pen=pg.mkPen(GREY, style=Qt.PenStyle.DashLine)))
        plot.setLabel("bottom", self.tr("d_model (d_ff = 4 d_model)"))
        plot.setLabel("left", self.tr("share of FLOPs"))
        plot.setTitle(self.tr("As the model widens (dashed: this model)"))

    def _draw_lengths(self, shares: list[float]) -> None:
        plot = self.by_length
        plot.clear()
        positions = np.log2(LENGTHS)  # doubling lengths, evenly spaced
        plot.plot(positions, shares, pen=pg.mkPen(VERMILLION, width=2), symbol="o", symbolSize=6,
                  symbolBrush=VERMILLION, symbolPen=None)
        plot.getAxis("bottom").setTicks([[(x, str(n)) for x, n in zip(positions, LENGTHS, strict=True)]])
        plot.setLabel("bottom", self.tr("tokens in each sentence (n = m)"))
        plot.setLabel("left", self.tr("share of scores + weights x V"))
        plot.setTitle(self.tr("As sentences grow (this model): the n x m x l products"))
