"""What every picture is drawn with: the palette, the colormaps of attention and their lookup
tables, and the current plot style (colours, line width, font). The bottom layer of the GUI: it
imports nothing else from :mod:`transviz.gui`, so any view may use it.

The theme (:mod:`.theme`) decides the plot style and the colormap when the appearance changes;
views read them here when they draw.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, replace

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QApplication

from ..core.base.errors import ConfigError

# Perceptually uniform and readable with every common colour-vision deficiency (cividis was made
# for red-green deficiency); attention plots use no other colormaps (View > Colormap chooses).
COLORMAPS = ("viridis", "cividis", "magma")
# Okabe & Ito's colour-blind-safe palette: lines, highlights and marks drawn over heatmaps.
BLUE, VERMILLION, GREEN, PURPLE, ORANGE, SKY, YELLOW, BLACK = PALETTE = (
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000")
# Signed values centred at 0 (attribution): blue below, red above, white at 0; blue-red stays
# distinct with red-green deficiency. The View > Colormap choice does not apply to it.
DIVERGING = "CET-D1A"
HIGHLIGHT = VERMILLION  # stands out on every colour of these colormaps
GREY = "#9a9a9a"  # outlines and edges that must not compete with the data


@dataclass(frozen=True)
class PlotStyle:
    """What plots and painted views are drawn with."""

    background: str
    foreground: str
    error: str  # inline messages about the user's input
    line_width: float  # axes and ticks
    points: float  # tick labels, axis titles, plot titles
    bold: bool


LIGHT_PLOTS = PlotStyle("#ffffff", "#000000", "#b00020", 1.0, 0.0, False)  # points 0: the application font's


class _Current:
    """The colormap and plot style in use (changed through :func:`set_colormap` and :func:`set_plot_style`)."""

    colormap = COLORMAPS[0]
    plot_style: PlotStyle | None = None  # None: LIGHT_PLOTS at the application font's size


def configure_pyqtgraph() -> None:
    """Set pyqtgraph's global options (idempotent; call before creating any plot).

    ``imageAxisOrder='row-major'``, otherwise an array ``(queries, keys)`` is drawn transposed;
    no OpenGL: the offscreen platform and many classroom laptops have none.
    """
    style = plot_style()
    pg.setConfigOptions(imageAxisOrder="row-major", useOpenGL=False, enableExperimental=False,
                        antialias=True,  # line plots and outlines; images are unaffected
                        background=style.background, foreground=style.foreground)


def plain_axes(plot: pg.PlotItem) -> pg.PlotItem:
    """Axes that show their numbers as they are: pyqtgraph's automatic SI prefix would turn a range
    of steps, ranks or learning rates into "step (x0.001)". Returns ``plot``."""
    for side in ("left", "bottom", "right", "top"):
        plot.getAxis(side).enableAutoSIPrefix(False)
    return plot


def plot_style() -> PlotStyle:
    if _Current.plot_style is not None:
        return _Current.plot_style
    app = QApplication.instance()
    points = app.font().pointSizeF() if isinstance(app, QApplication) else 9.0
    return replace(LIGHT_PLOTS, points=points)


def set_plot_style(style: PlotStyle) -> None:
    """Draw plots made from now on with ``style`` (the theme restyles the ones that exist)."""
    _Current.plot_style = style
    pg.setConfigOptions(background=style.background, foreground=style.foreground)


def plot_font(style: PlotStyle | None = None) -> QFont:
    """The font of tick labels and plot texts."""
    style = style or plot_style()
    font = QFont(QApplication.font())
    font.setPointSizeF(style.points)
    font.setBold(style.bold)
    return font


def colormap_name() -> str:
    return _Current.colormap


def set_colormap(name: str) -> None:
    """Draw attention with ``name`` (one of :data:`COLORMAPS`) from now on; ConfigError otherwise.
    Heatmaps already shown take it when restyled (:func:`transviz.gui.services.theme.restyle`)."""
    if name not in COLORMAPS:
        raise ConfigError(f"unknown colormap {name!r}; choose one of {', '.join(COLORMAPS)}")
    if name != _Current.colormap:
        _Current.colormap = name
        lookup_table.cache_clear()


def colormap() -> pg.ColorMap:
    return pg.colormap.get(_Current.colormap)


@functools.cache
def lookup_table() -> np.ndarray:
    """The colormap as a 256 x 3 uint8 table (pyqtgraph's fast path for float images)."""
    return colormap().getLookupTable(0.0, 1.0, 256, alpha=False).astype(np.uint8)


def diverging_colormap() -> pg.ColorMap:
    return pg.colormap.get(DIVERGING)


@functools.cache
def diverging_lookup_table() -> np.ndarray:
    """:data:`DIVERGING` as a 256 x 3 uint8 table; give it levels symmetric about 0."""
    return diverging_colormap().getLookupTable(0.0, 1.0, 256, alpha=False).astype(np.uint8)
