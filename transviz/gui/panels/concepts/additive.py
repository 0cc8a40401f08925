"""Additive against dot-product attention: the chosen head's own weights, additive scores
v^T tanh(W1 q + W2 k) from the same queries and keys with W1, W2 and v fitted by least squares to
the head's scores or random (a chooser in the view), how close the fit gets and what a fit of that
many parameters to that many scores can show, and the time and memory each kind of score takes as
the sentence grows, beside their arithmetic
(:func:`transviz.core.analysis.concepts.additive.additive`)."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QVBoxLayout, QWidget

from ....core.analysis.concepts.additive import MODES, Additive, additive
from ...services.language import set_items
from ...style import BLUE, GREEN, VERMILLION
from ...widgets.heatmap import HeatmapWidget
from ...widgets.labels import bound_label, plain_label
from ...widgets.plots import curve_plot, legend_below, name_legend
from .base import ConceptContext, ConceptView, joined

MEBIBYTE = 2 ** 20


class AdditiveView(ConceptView):
    """The two weight maps side by side; below them the timings, the memory, the choice of fitted
    or random parameters and how far the additive map is from the head's."""

    name = "additive"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.shown: Additive | None = None
        self._context: ConceptContext | None = None
        self._costs_drawn: tuple[object, ...] | None = None  # what the cost plots show: measured once per size
        self.dot, self.fitted = HeatmapWidget(), HeatmapWidget()
        self.times, self.memory = curve_plot(), curve_plot()
        self.mode = QComboBox()
        self.bind_text(lambda names: set_items(self.mode, names),
                       lambda: [self.tr("fitted to the head's scores"), self.tr("random (untrained)")])
        self.mode.currentIndexChanged.connect(self._redraw)
        self.summary = plain_label(wrap=True)
        self._curves = {plot: self._three_curves(plot) for plot in (self.times, self.memory)}
        maps = QHBoxLayout()
        maps.addWidget(self.dot)
        maps.addWidget(self.fitted)
        chooser = QHBoxLayout()
        chooser.addWidget(bound_label(self, lambda: self.tr("W1, W2, v:")))
        chooser.addWidget(self.mode, 1)
        side = QVBoxLayout()
        side.addLayout(chooser)
        side.addWidget(self.summary, 1)
        row = QHBoxLayout()
        row.addWidget(self.times, 3)
        row.addWidget(self.memory, 3)
        row.addLayout(side, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(maps, 3)
        layout.addLayout(row, 2)

    def _three_curves(self, plot: pg.PlotWidget) -> tuple[list[pg.PlotDataItem], pg.LegendItem]:
        """The dot product's curve and the additive scores' (all at once, by rows), made once and given
        new data per draw."""
        legend = legend_below(plot.getPlotItem(), columns=1)
        curves = [plot.plot([], [], pen=pg.mkPen(colour, width=2), symbol="o", symbolSize=6, symbolBrush=colour,
                            symbolPen=None) for colour in (BLUE, VERMILLION, GREEN)]
        return curves, legend

    def title(self) -> str:
        return self.tr("Additive vs dot-product attention")

    def claim(self) -> str:
        return self.tr("What is the difference between additive attention and dot-product (multiplicative) attention? "
                       "Additive and dot-product attention have the same computational complexity, but dot-product "
                       "attention can use highly optimised parallel matrix multiplication code, so it is faster and "
                       "saves space.")

    def caption(self) -> str:
        shown = self.shown
        described = self.tr("Left: the head's own weights, softmax(q.k / sqrt(d_k)). Right: additive attention, "
                            "softmax(v^T tanh(W1 q + W2 k)) on the same queries and keys, with W1, W2 and v fitted by "
                            "least squares to the head's scores (up to a constant per row, which the softmax ignores) "
                            "or random. Below: the time and the memory to score n queries against n keys.")
        if shown is None:
            return described
        parts = [described, self._cost(shown)]
        if shown.mode == "fitted":
            parts.insert(1, self._verdict(shown))
        return joined(*parts)

    def _verdict(self, shown: Additive) -> str:
        """What a fit of this many parameters to this many scores can show."""
        if shown.exact_by_construction:
            return self.tr("This fit proves nothing: {0} scores to match and {1} hidden units, so v alone matches "
                           "any scores exactly, by construction.").format(shown.equations, shown.hidden)
        if shown.underdetermined:
            return self.tr("This fit proves little: {0} scores to match against {1} parameters in W1, W2 and v. With "
                           "at least as many parameters as points, random scores are matched as closely, so a close "
                           "fit says little about this head.").format(shown.equations, shown.parameters)
        return self.tr("{0} scores to match against {1} parameters in W1, W2 and v: more points than parameters, so "
                       "a close fit shows that additive scores can reproduce this head.").format(
            shown.equations, shown.parameters)

    def plots(self) -> list[QWidget]:
        return [self.dot, self.fitted, self.times, self.memory]

    def draw(self, context: ConceptContext) -> None:
        self._context = context
        mode = MODES[max(self.mode.currentIndex(), 0)]
        shown = additive(context.model, context.sentence, context.kind, context.layer, context.head, mode)
        self.shown = shown
        hidden = () if context.hidden_query is None else (context.hidden_query,)
        self.dot.set_data(shown.dot_weights, shown.query_tokens, shown.key_tokens, hidden_rows=hidden)
        self.dot.set_title(self.tr("Dot product: layer {0}, head {1}").format(context.layer, context.head))
        self.fitted.set_data(shown.additive_weights, shown.query_tokens, shown.key_tokens, hidden_rows=hidden)
        self.fitted.set_title(self._fit_title(shown) if mode == "fitted"
                              else self.tr("Additive, random W1, W2 and v (untrained)"))
        self._draw_costs(shown)
        self.summary.setText(self._closeness(shown))
        self.caption_changed.emit()  # the fit's verdict and the measured costs

    def _redraw(self) -> None:
        if self._context is not None and self.isVisible():
            self.draw(self._context)

    def _closeness(self, shown: Additive) -> str:
        if shown.mode == "random":
            return self.tr("Untrained, the scores miss the head's by {0:.2f} of their spread (RMS, rows centred) and "
                           "a weight by up to {1:.2f}: only a fit makes them alike.").format(
                shown.score_residual, shown.largest_difference)
        return self.tr("The fit misses the head's scores by {0:.1e} of their spread (RMS, rows centred); no weight "
                       "differs by more than {1:.1e}.").format(shown.score_residual, shown.largest_difference)

    def _fit_title(self, shown: Additive) -> str:
        if shown.fit_steps > 0 or shown.equations > shown.hidden:
            return self.tr("Additive, fitted: {0} Levenberg-Marquardt iterations, {1:.2f} s").format(
                shown.fit_steps, shown.fit_seconds)
        # a short sentence: fewer scores than hidden units, so v interpolates them from any W1, W2
        return self.tr("Additive, fitted: {0} scores, {1} hidden units, so v alone fits them ({2:.2f} s)").format(
            shown.equations, shown.hidden, shown.fit_seconds)

    def _cost(self, shown: Additive) -> str:
        # like with like: the same order of arithmetic both ways; the batched tensor is a choice
        return self.tr(
            "Both ways cost the same order of arithmetic, n x n x {0}: at {1} tokens {2:.1f} million operations for "
            "the dot product, {3:.1f} million for the additive scores. All at once, as an n x n x {0} tensor, the "
            "additive scores took {4:.0f} times the dot product's time and {5:.0f} times its memory; {6} query rows "
            "at a time, {7:.0f} times its time and {8:.1f} times its memory. What is left is a matrix product's "
            "optimised code against tanh element by element, not the complexity.").format(
            shown.hidden, shown.lengths[-1], shown.dot_flops[-1] / 1e6, shown.additive_flops[-1] / 1e6,
            shown.additive_seconds[-1] / shown.dot_seconds[-1], shown.additive_bytes[-1] / shown.dot_bytes[-1],
            shown.rows, shown.rows_seconds[-1] / shown.dot_seconds[-1], shown.rows_bytes[-1] / shown.dot_bytes[-1])

    def _draw_costs(self, shown: Additive) -> None:
        names = (self.tr("dot product"), self.tr("additive, all at once"),
                 self.tr("additive, {0} rows at a time").format(shown.rows))
        drawn = (shown.lengths, shown.dot_seconds, shown.additive_seconds, shown.rows_seconds, shown.dot_bytes,
                 shown.additive_bytes, shown.rows_bytes, names)
        if drawn == self._costs_drawn:
            return  # a step changes the maps, not these: leave the plots as they are, unrepainted
        self._costs_drawn = drawn
        positions = np.log2(shown.lengths)
        ticks = [[(x, str(n)) for x, n in zip(positions, shown.lengths, strict=True)]]
        for plot, values, left, title in (
                (self.times, (shown.dot_seconds, shown.additive_seconds, shown.rows_seconds),
                 self.tr("log10 milliseconds"), self.tr("Time to score (one CPU thread)")),
                (self.memory, (shown.dot_bytes, shown.additive_bytes, shown.rows_bytes), self.tr("log10 MiB"),
                 self.tr("Memory of the largest tensor (float32)"))):
            scale = 1000 if plot is self.times else 1 / MEBIBYTE
            curves, legend = self._curves[plot]
            heights = [np.log10(np.array(series, dtype=np.float64) * scale) for series in values]
            for curve, height in zip(curves, heights, strict=True):
                curve.setData(positions, height)
            name_legend(legend, list(zip(curves, names, strict=True)))
            # set, not auto-ranged: curves made empty and filled later kept a range short of the last point
            plot.setXRange(positions[0] - 0.4, positions[-1] + 0.4, padding=0)
            low, high = float(min(h.min() for h in heights)), float(max(h.max() for h in heights))
            plot.setYRange(low - 0.3, high + 0.3, padding=0)
            plot.getAxis("bottom").setTicks(ticks)
            plot.setLabel("bottom", self.tr("tokens (n queries x n keys)"))
            plot.setLabel("left", left)
            plot.setTitle(title)
