"""Live line plots that keep every point and redraw at most a few dozen times a second.

A training run can report hundreds of steps a second; redrawing a plot for each would take the
GUI thread (and the Python lock the training thread needs) away from the work. So the data goes
into a :class:`Series` as it arrives, and a :class:`FrameClock` redraws the plots at a fixed
frame rate, only when something new arrived since the last frame.
"""
from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtWidgets import QWidget

from ..style import plain_axes, plot_style

FRAME_RATE = 60  # redraws per second at most (issue 6: smooth to 60 fps); data arriving faster waits for the next frame
# Legend positions (pyqtgraph offsets: negative counts from the right or bottom edge)
BOTTOM_LEFT = (10, -10)
BELOW = "below"  # under the plot's bottom axis: never over the curves


def legend_below(plot: pg.PlotItem, columns: int = 2) -> pg.LegendItem:
    """The curves' names in rows under ``plot``: inside it, a legend covers curves."""
    legend = pg.LegendItem(offset=None, horSpacing=20)
    legend.setColumnCount(columns)
    plot.layout.addItem(legend, 4, 1)  # below the bottom axis (row 3) of the data's column
    return legend


def name_legend(legend: pg.LegendItem, entries: list[tuple[pg.GraphicsObject, str]]) -> None:
    """Name ``legend``'s entries (item, name) anew only when the names changed (another language):
    a plot redrawn at every step keeps its legend as it is."""
    names = [name for _, name in entries]
    if [label.text for _, label in legend.items] != names:
        legend.clear()
        for item, name in entries:
            legend.addItem(item, name)


def curve_plot() -> pg.PlotWidget:
    """A small still plot: no menu, no mouse panning, plain axes."""
    plot = pg.PlotWidget(enableMenu=False)
    plot.hideButtons()
    plot.setMouseEnabled(False, False)
    plot.setMinimumSize(220, 170)
    plain_axes(plot.getPlotItem())
    return plot


class Series:
    """A growing ``(x, y)`` series, kept in full; appending is amortised O(1) (the buffers double)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._xy = np.empty((2, 256), dtype=np.float64)
        self._count = 0
        self.version = 0  # bumped by every change, so a plot redraws only what changed

    def __len__(self) -> int:
        return self._count

    def append(self, x: float, y: float) -> None:
        if self._count == self._xy.shape[1]:
            grown = np.empty((2, 2 * self._count), dtype=np.float64)
            grown[:, : self._count] = self._xy
            self._xy = grown
        self._xy[:, self._count] = (x, y)
        self._count += 1
        self.version += 1

    def clear(self) -> None:
        self._count = 0
        self.version += 1

    @property
    def x(self) -> np.ndarray:
        return self._xy[0, : self._count]

    @property
    def y(self) -> np.ndarray:
        return self._xy[1, : self._count]


class LivePlot(pg.PlotWidget):
    """A plot of one or more :class:`Series`, drawn when :meth:`redraw` is called.

    Args:
        title: above the plot (and in exported SVGs).
        left: what the vertical axis measures.
        bottom: what the horizontal axis counts.
        log_y: logarithmic vertical axis (values <= 0 and non-finite values are left out).
        legend: where the legend goes (:data:`BELOW` the plot, or an offset such as :data:`BOTTOM_LEFT`: a corner the
            curves are not expected to cross), or None for no legend.
        top: for values >= 0, a vertical axis from 0 to ``top`` that grows (by half again) only
            when a value passes it, instead of rescaling with every point; None: automatic.
        log_span: with ``log_y``, the (low, high) values the vertical axis always covers, growing
            only to take in a value outside them: a run on a plateau (all its losses between 3 and 5)
            keeps the ticks below it in view; None: automatic.
        legend_columns: names side by side in a legend :data:`BELOW` the plot.

    Axes that rescale are redrawn with all their ticks, and a redrawn plot costs the training
    thread time (they share the Python lock); :meth:`reset_axes` and ``top`` keep them still.
    """

    def __init__(self, title: str, left: str, bottom: str, log_y: bool = False,
                 legend: tuple[int, int] | str | None = BELOW, top: float | None = None,
                 log_span: tuple[float, float] | None = None, legend_columns: int = 1,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent, title=title, enableMenu=False)
        self.title = title
        self.setLabel("left", left)
        self.setLabel("bottom", bottom)
        self.hideButtons()
        plain_axes(self.getPlotItem())
        self.setLogMode(False, log_y)
        self._log_y = log_y
        if legend == BELOW:
            # one name per row by default: side by side, the names of a narrow plot would widen it past its edge
            self.plotItem.legend = legend_below(self.getPlotItem(), columns=legend_columns)
        elif legend is not None:
            self.addLegend(offset=legend, brush=(255, 255, 255, 170))  # curves show through
        self._curves: dict[int, tuple[Series, pg.PlotDataItem]] = {}
        self._drawn: dict[int, int] = {}  # series id -> version drawn
        self._first_top = self._top = top
        if top is not None:
            self.setYRange(0, top, padding=0)
            self.enableAutoRange(y=False)
        self._log_span = self._first_log_span = log_span
        if log_span is not None:
            self._show_log_span()

    def _show_log_span(self) -> None:
        assert self._log_span is not None
        low, high = self._log_span  # pyqtgraph ranges a log axis in log10 units
        self.setYRange(float(np.log10(low)), float(np.log10(high)), padding=0.02)
        self.enableAutoRange(y=False)
        # pyqtgraph labels every minor tick of a decade: 0.7, 0.8, 0.9, 1 ran into each other
        self.getAxis("left").setTicks([[(float(np.log10(v)), f"{v:g}") for v in one_two_five(low, high)], []])

    def set_texts(self, title: str, left: str, bottom: str) -> None:
        """Name the plot and its axes again (a language change)."""
        self.title = title
        self.setTitle(title)
        self.setLabel("left", left)
        self.setLabel("bottom", bottom)

    def rename(self, series: Series, name: str) -> None:
        """Call ``series`` ``name`` in the legend (a language change)."""
        series.name = name
        legend = self.plotItem.legend
        label = legend.getLabel(self._curves[id(series)][1]) if legend is not None else None
        if label is not None:
            label.setText(name)

    def add_series(self, series: Series, colour: str, width: float = 2.0, symbol: str | None = None,
                   dashed: bool = False) -> pg.PlotDataItem:
        """Draw ``series`` as a line (with ``symbol`` markers, e.g. ``"o"`` for sparse points)."""
        pen = pg.mkPen(colour, width=width, style=Qt.PenStyle.DashLine if dashed else Qt.PenStyle.SolidLine)
        curve = self.plot([], [], pen=pen, name=series.name, symbol=symbol, symbolSize=6, symbolBrush=colour,
                          symbolPen=None)
        curve.setDownsampling(auto=True, method="peak")  # thousands of steps stay cheap to draw
        curve.setClipToView(True)
        self._curves[id(series)] = (series, curve)
        self._drawn[id(series)] = -1
        return curve

    def add_level(self, value: float, label: str) -> pg.InfiniteLine:
        """A dotted horizontal reference line at ``value`` (in data units, on a log axis too)."""
        y = float(np.log10(value)) if self._log_y else value  # pyqtgraph places items in log10 units there
        style = plot_style()  # restyled with the plot: the card takes the background, the text the foreground
        # the label on a card just below the line, its right edge at the plot's: a label that grows (larger
        # text in presentation mode) grows inwards, not out of the plot
        line = self.addLine(y=y, pen=pg.mkPen("#888888", width=1.5, style=Qt.PenStyle.DashLine), label=label,
                            labelOpts={"position": 0.99, "color": style.foreground, "fill": style.background,
                                       "anchors": [(1, 0), (1, 0)]})
        line.setZValue(10)  # above the curves, so they never cover its label
        return line

    def reset_axes(self, high: float, top: float | None = None) -> None:
        """Fix the horizontal axis to ``0..high`` (a run's steps) and, with a ``top`` plot, the
        vertical one to ``0..top`` (default: the first ``top``): curves grow across still axes."""
        self.setXRange(0, high, padding=0.02)
        self.enableAutoRange(x=False)
        if self._first_top is not None:
            self._top = top or self._first_top
            self.setYRange(0, self._top, padding=0)
        if self._first_log_span is not None:
            self._log_span = self._first_log_span
            self._show_log_span()

    def remove_all(self) -> None:
        for _, curve in self._curves.values():
            self.removeItem(curve)
        self._curves.clear()
        self._drawn.clear()
        if self.plotItem.legend is not None:
            self.plotItem.legend.clear()

    def redraw(self) -> int:
        """Hand the series that changed since the last redraw to their curves; returns how many."""
        changed = 0
        for key, (series, curve) in self._curves.items():
            if self._drawn[key] == series.version:
                continue
            x, y = series.x, series.y
            if self._log_y:
                keep = np.isfinite(y) & (y > 0)
                x, y = x[keep], y[keep]
            curve.setData(x.copy(), y.copy())  # copies: the series' buffers keep growing underneath
            self._drawn[key] = series.version
            changed += 1
            self._raise_top(y)
            self._widen_log_span(y)
        return changed

    def _widen_log_span(self, y: np.ndarray) -> None:
        if self._log_span is None or not y.size:
            return
        low, high = self._log_span
        wider = (min(low, float(y.min())), max(high, float(y.max())))  # y: finite and positive here
        if wider != self._log_span:
            self._log_span = wider
            self._show_log_span()

    def _raise_top(self, y: np.ndarray) -> None:
        if self._top is None or not y.size:
            return
        finite = y[np.isfinite(y)]
        highest = float(finite.max()) if finite.size else 0.0
        if highest > self._top:
            self._top = 1.5 * highest
            self.setYRange(0, self._top, padding=0)

    def points(self, series: Series) -> int:
        """How many points the curve of ``series`` holds now (what was last drawn)."""
        data = self._curves[id(series)][1].getOriginalDataset()[1]
        return 0 if data is None else len(data)


class FrameClock(QObject):
    """Calls ``redraw`` at most ``rate`` times a second, and only after :meth:`mark`.

    ``frames`` counts the redraws done, so a test can check that the redraws were throttled.
    """

    def __init__(self, redraw: Callable[[], None], rate: int = FRAME_RATE, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._redraw = redraw
        self._pending = False
        self.frames = 0
        self._timer = QTimer(self)
        self._timer.setInterval(max(1, round(1000 / rate)))
        self._timer.timeout.connect(self._tick)

    def mark(self) -> None:
        """Something changed: redraw at the next frame (the clock runs only while marks come)."""
        self._pending = True
        if not self._timer.isActive():
            self._timer.start()

    def flush(self) -> None:
        """Redraw now if anything is pending (at the end of a run, so the last points show)."""
        if self._pending:
            self._tick()

    def _tick(self) -> None:
        if not self._pending:
            self._timer.stop()  # idle: no wake-ups while nothing happens
            return
        self._pending = False
        self.frames += 1
        self._redraw()


def one_two_five(low: float, high: float) -> list[float]:
    """The values 1, 2 and 5 times a power of ten from ``low`` to ``high`` (a log axis's labels)."""
    first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
    values = [m * 10.0**e for e in range(first, last + 1) for m in (1, 2, 5)]
    return [float(f"{v:.12g}") for v in values if low <= v <= high]
