"""Why scale: random q and k for d_k from 1 to 1024 (the slider), the spread of q·k against
sqrt(d_k), one row's softmax with and without the 1/sqrt(d_k), its entropy and the size of the
softmax's gradient as d_k grows; beside them the loaded model's real rows with its scaling
multiplied by a factor. Everything shown is computed by :mod:`transviz.core.analysis.why_scale`."""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGridLayout, QHBoxLayout, QSlider, QVBoxLayout, QWidget

from ...core.analysis.why_scale import D_KS, SPREAD_SAMPLES, ScaleCurve, ScaleDemo, scale_curve, scale_demo
from ..services.language import Retranslated
from ..style import BLUE, GREY, VERMILLION
from ..widgets.labels import bound_label, plain_label
from ..widgets.plots import curve_plot, legend_below
from .why_rows import ModelRows

DEFAULT_D_K = 64


def axis_title(plot: pg.PlotWidget, side: str) -> Callable[[str], object]:
    return lambda text: plot.setLabel(side, text)


def log_ticks(plot: pg.PlotWidget, side: str, values: Sequence[int]) -> None:
    """Label a logarithmic axis at ``values`` (it places them at their log10)."""
    plot.getAxis(side).setTicks([[(math.log10(v), str(v)) for v in values]])


class ScaleSection(Retranslated, QWidget):
    """The "why scale" page. :meth:`refresh` draws it; ``model_rows`` shows the loaded model's rows."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.curve: ScaleCurve | None = None  # computed when first shown: a few tenths of a second
        self.demo: ScaleDemo | None = None
        self._build()

    def retranslate(self) -> None:
        super().retranslate()
        if self.curve is not None and self.demo is not None:  # the legends' names
            self._draw_curves()
            self._draw_markers()
            self._draw_bars()
        self._show_numbers()

    # -- construction --------------------------------------------------------------------------
    def _build(self) -> None:
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(0, len(D_KS) - 1)  # log scale: the slider counts powers of 2
        self.slider.setValue(D_KS.index(DEFAULT_D_K))
        self.slider.setTickPosition(QSlider.TickPosition.TicksBelow)
        self.value = plain_label()
        self.numbers = plain_label(wrap=True)
        self.numbers.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        controls = QHBoxLayout()
        controls.addWidget(bound_label(self, lambda: self.tr("d_k (random q and k, entries from N(0, 1))")))
        controls.addWidget(self.slider, 1)
        controls.addWidget(self.value)

        self.spread_plot, self.bars_plot, self.entropy_plot, self.jacobian_plot = (curve_plot() for _ in range(4))
        self.spread_plot.setLogMode(True, True)
        self.entropy_plot.setLogMode(True, False)
        self.jacobian_plot.setLogMode(True, True)
        for plot in (self.spread_plot, self.entropy_plot, self.jacobian_plot):
            log_ticks(plot, "bottom", D_KS[::2])  # powers of 4: pyqtgraph's own 10¹, 10² hide the slider's steps
        log_ticks(self.spread_plot, "left", (1, 2, 4, 8, 16, 32))
        for plot, title, left, bottom in (
                (self.spread_plot, lambda: self.tr("Spread of q·k grows as √d_k"), lambda: self.tr("std of q·k"),
                 lambda: self.tr("d_k")),
                (self.bars_plot, lambda: self.tr("One row's softmax (10 keys)"), lambda: self.tr("weight"),
                 lambda: self.tr("key")),
                (self.entropy_plot, lambda: self.tr("Entropy of a row (median)"), lambda: self.tr("bits"),
                 lambda: self.tr("d_k")),
                (self.jacobian_plot, lambda: self.tr("Softmax gradient (median)"),
                 lambda: self.tr("‖diag(p) − ppᵀ‖"), lambda: self.tr("d_k"))):
            self.bind_text(plot.setTitle, title)
            self.bind_text(axis_title(plot, "left"), left)
            self.bind_text(axis_title(plot, "bottom"), bottom)
        self.legends = [legend_below(p.getPlotItem()) for p in (self.spread_plot, self.bars_plot, self.entropy_plot,
                                                                 self.jacobian_plot)]
        plots = QGridLayout()
        plots.addWidget(self.spread_plot, 0, 0)
        plots.addWidget(self.bars_plot, 0, 1)
        plots.addWidget(self.entropy_plot, 1, 0)
        plots.addWidget(self.jacobian_plot, 1, 1)
        self.model_rows = ModelRows()
        plots.addWidget(self.model_rows, 0, 2, 2, 1)
        for column, stretch in enumerate((2, 2, 3)):
            plots.setColumnStretch(column, stretch)
        layout = QVBoxLayout(self)
        layout.addLayout(controls)
        layout.addWidget(self.numbers)
        layout.addLayout(plots, 1)
        self.slider.valueChanged.connect(self.refresh)

    def plots(self) -> list[QWidget]:
        return [self.spread_plot, self.bars_plot, self.entropy_plot, self.jacobian_plot, self.model_rows.rows_view]

    # -- the random demonstration ------------------------------------------------------------------
    def d_k(self) -> int:
        return D_KS[self.slider.value()]

    def refresh(self) -> None:
        """Draw the demonstration at the slider's d_k (and the model's rows, if a model is loaded)."""
        if self.curve is None:
            self.curve = scale_curve()
            self._draw_curves()
        self.demo = scale_demo(self.d_k())
        self._draw_markers()
        self._draw_bars()
        self._show_numbers()
        if self.model_rows.rows is None:
            self.model_rows.refresh()

    def _draw_curves(self) -> None:
        curve = self.curve
        assert curve is not None
        for plot, legend in zip((self.spread_plot, self.entropy_plot, self.jacobian_plot),
                                (self.legends[0], self.legends[2], self.legends[3]), strict=True):
            plot.clear()
            legend.clear()
        self._line(self.spread_plot, 0, curve.d_ks, np.sqrt(curve.d_ks), GREY, self.tr("√d_k"), dashed=True)
        self._line(self.spread_plot, 0, curve.d_ks, curve.spread, BLUE, self.tr("measured"), points_only=True)
        for plot, index, unscaled, scaled in ((self.entropy_plot, 2, curve.entropy_unscaled, curve.entropy_scaled),
                                              (self.jacobian_plot, 3, curve.jacobian_unscaled,
                                               curve.jacobian_scaled)):
            self._line(plot, index, curve.d_ks, unscaled, VERMILLION, self.tr("unscaled"))
            self._line(plot, index, curve.d_ks, scaled, BLUE, self.tr("÷ √d_k"))
        self.markers = [plot.plot([], [], pen=None, symbol="o", symbolSize=12, symbolBrush=None,
                                  symbolPen=pg.mkPen("#000000", width=2))
                        for plot in (self.spread_plot, self.entropy_plot, self.entropy_plot, self.jacobian_plot,
                                     self.jacobian_plot)]

    def _line(self, plot: pg.PlotWidget, legend: int, x: np.ndarray, y: np.ndarray, colour: str, name: str,
              dashed: bool = False, points_only: bool = False) -> None:
        keep = y > 0 if plot is not self.entropy_plot else np.ones(len(y), bool)  # a log axis shows values > 0
        pen = pg.mkPen(colour, width=2, style=Qt.PenStyle.DashLine if dashed else Qt.PenStyle.SolidLine)
        item = plot.plot(x[keep], y[keep], pen=None if points_only else pen, symbol=None if dashed else "o",
                         symbolSize=7 if points_only else 5, symbolBrush=colour, symbolPen=None)
        self.legends[legend].addItem(item, name)

    def _draw_markers(self) -> None:
        """Circles on each curve at the slider's d_k."""
        curve, i = self.curve, self.slider.value()
        assert curve is not None
        values = (curve.spread, curve.entropy_unscaled, curve.entropy_scaled, curve.jacobian_unscaled,
                  curve.jacobian_scaled)
        for marker, y in zip(self.markers, values, strict=True):
            marker.setData([curve.d_ks[i]], [max(float(y[i]), 1e-30)])

    def _draw_bars(self) -> None:
        demo = self.demo
        assert demo is not None
        self.bars_plot.clear()
        self.legends[1].clear()
        keys = np.arange(len(demo.scores))
        for shift, heights, colour, name in ((-0.2, demo.unscaled, VERMILLION, self.tr("unscaled")),
                                             (0.2, demo.scaled, BLUE, self.tr("÷ √d_k"))):
            bars = pg.BarGraphItem(x=keys + shift, height=heights, width=0.38, brush=colour, pen=None)
            self.bars_plot.addItem(bars)
            self.legends[1].addItem(bars, name)
        self.bars_plot.setYRange(0, 1, padding=0.02)
        self.bars_plot.setXRange(-0.6, len(keys) - 0.4, padding=0)

    def bar_heights(self) -> list[np.ndarray]:
        """The heights of the bars drawn: the unscaled row's softmax, then the scaled one's."""
        return [np.asarray(item.opts["height"]) for item in self.bars_plot.getPlotItem().items
                if isinstance(item, pg.BarGraphItem)]

    def _show_numbers(self) -> None:
        demo = self.demo
        if demo is None:
            return
        self.value.setText(self.tr("d_k = {0}, √d_k = {1:.2f}").format(demo.d_k, demo.sqrt_d_k))
        self.numbers.setText(self.tr(
            "The std of q·k over {0} random pairs is {1:.2f}, close to √d_k = {2:.2f}. One row of 10 keys without "
            "the scale: entropy {3:.3f} bits, gradient norm {4:.3g}; divided by √d_k: entropy {5:.3f} bits, "
            "gradient norm {6:.3g}. Unscaled, large d_k gives one key almost all the weight, and almost no gradient "
            "reaches the scores.").format(SPREAD_SAMPLES, demo.spread, demo.sqrt_d_k, demo.entropy_unscaled,
                                          demo.jacobian_unscaled, demo.entropy_scaled, demo.jacobian_scaled))
