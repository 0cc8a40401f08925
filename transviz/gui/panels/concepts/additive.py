"""Additive against dot-product attention: the chosen head's own weights, additive scores
v^T tanh(W1 q + W2 k) fitted to them from the same queries and keys, and the time each kind of
score takes as the sentence grows (:func:`transviz.core.concepts.additive.additive`)."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QHBoxLayout, QVBoxLayout, QWidget

from ....core.concepts.additive import Additive, additive
from ...heatmap import HeatmapWidget
from ...labels import plain_label
from ...plots import curve_plot, legend_below
from ...style import BLUE, VERMILLION
from .base import ConceptContext, ConceptView


class AdditiveView(ConceptView):
    """The two weight maps side by side, the timings below them and the fit's error."""

    name = "additive"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.shown: Additive | None = None
        self.dot, self.fitted = HeatmapWidget(), HeatmapWidget()
        self.times = curve_plot()
        self.legend = legend_below(self.times.getPlotItem(), columns=2)
        self.summary = plain_label(wrap=True)
        maps = QHBoxLayout()
        maps.addWidget(self.dot)
        maps.addWidget(self.fitted)
        row = QHBoxLayout()
        row.addWidget(self.times, 3)
        row.addWidget(self.summary, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(maps, 3)
        layout.addLayout(row, 2)

    def title(self) -> str:
        return self.tr("Additive vs dot-product attention")

    def claim(self) -> str:
        return self.tr("What is the difference between additive attention and dot-product (multiplicative) attention? "
                       "Additive and dot-product attention have the same computational complexity, but dot-product "
                       "attention can use highly optimised parallel matrix multiplication code, so it is faster and "
                       "saves space.")

    def caption(self) -> str:
        return self.tr("Left: the head's own weights, softmax(q.k / sqrt(d_k)). Right: additive attention, "
                       "softmax(v^T tanh(W1 q + W2 k)), with W1, W2 and v fitted by Adam to the left map from the "
                       "same queries and keys. Below: the time to score n queries against n keys, both ways.")

    def plots(self) -> list[QWidget]:
        return [self.dot, self.fitted, self.times]

    def draw(self, context: ConceptContext) -> None:
        shown = additive(context.model, context.sentence, context.kind, context.layer, context.head)
        self.shown = shown
        self.dot.set_data(shown.dot_weights, shown.query_tokens, shown.key_tokens)
        self.dot.set_title(self.tr("Dot product: layer {0}, head {1}").format(context.layer, context.head))
        self.fitted.set_data(shown.additive_weights, shown.query_tokens, shown.key_tokens)
        self.fitted.set_title(self.tr("Additive, fitted ({0:.2f} s)").format(shown.fit_seconds))
        self._draw_times(shown)
        slower = shown.additive_seconds[-1] / shown.dot_seconds[-1]
        self.summary.setText(self.tr(
            "The fit's weights differ from the head's by {0:.1e} on average (total variation per query, 0..1). "
            "At {1} tokens the additive scores took {2:.1f} times as long as the dot product: they build an "
            "n x n x d tensor before v sums it, the dot product is one matrix product.").format(
            shown.error, shown.lengths[-1], slower))

    def _draw_times(self, shown: Additive) -> None:
        plot = self.times
        plot.clear()
        self.legend.clear()
        positions = np.log2(shown.lengths)
        for seconds, colour, name in ((shown.dot_seconds, BLUE, self.tr("dot product")),
                                      (shown.additive_seconds, VERMILLION, self.tr("additive"))):
            curve = plot.plot(positions, np.log10(np.array(seconds) * 1000), pen=pg.mkPen(colour, width=2),
                              symbol="o", symbolSize=6, symbolBrush=colour, symbolPen=None)
            self.legend.addItem(curve, name)
        plot.getAxis("bottom").setTicks([[(x, str(n)) for x, n in zip(positions, shown.lengths, strict=True)]])
        plot.setLabel("bottom", self.tr("tokens (n queries x n keys)"))
        plot.setLabel("left", self.tr("log10 milliseconds"))
        plot.setTitle(self.tr("Time to score, as sentences grow (one CPU thread)"))
