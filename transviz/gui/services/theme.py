"""How the window looks: the theme (light, high-contrast light, dark), the colormap of attention
plots and presentation mode (large fonts and thick plot lines for a projector), applied to the
whole application while it runs.

Qt widgets follow the application's palette and font by themselves (:func:`apply_appearance`).
pyqtgraph items do not: :func:`restyle` restyles every plot of a window (background, axes, titles,
legends, text items) and then calls ``restyle()`` on every widget that has one (see
:class:`Styled`): heatmaps take the new colormap, token axes re-measure their labels.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Protocol, runtime_checkable

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QApplication, QWidget

from ...core.base.errors import ConfigError
from ..style import COLORMAPS, PlotStyle, plot_font, plot_style, set_colormap, set_plot_style

LIGHT, CONTRAST, DARK = "light", "contrast", "dark"
THEMES = (LIGHT, CONTRAST, DARK)
# Presentation text is a share of the screen's height: a projected picture is as large at 1280 x 800
# as at 1920 x 1080, so the same share reads as well from the back of the room on either, and the
# window's layout fits both (1080 / 48 = 22.5 px, 17 pt at 96 dpi; 800 / 48 = 12.5 pt).
PRESENTATION_LINES = 48  # lines of text the screen's height holds
PRESENTATION_MIN_SCALE = 1.2  # never less than the desktop's size times this
ZOOMS = (0.75, 1.0, 1.25, 1.5, 1.75, 2.0)  # View > Zoom: the plots' text, times the window's
STYLE = "Fusion"  # the one Qt style that draws every palette colour, on every platform


@dataclass(frozen=True)
class Appearance:
    """The look chosen in the View menu (persisted in the settings).

    ``theme`` is one of :data:`THEMES` and ``colormap`` one of :data:`~transviz.gui.style.COLORMAPS`.
    Presentation mode shows the light theme in high contrast (a dark theme stays dark). ``zoom``
    (one of :data:`ZOOMS`) scales the text of plots and grids against the window's (not persisted).
    """

    theme: str = LIGHT
    colormap: str = COLORMAPS[0]
    presentation: bool = False
    zoom: float = 1.0

    @property
    def shown_theme(self) -> str:
        return CONTRAST if self.presentation and self.theme == LIGHT else self.theme


_ROLES = QPalette.ColorRole
# (role, colour) of the themes that replace the style's standard palette
_CONTRAST = {_ROLES.Window: "#ffffff", _ROLES.WindowText: "#000000", _ROLES.Base: "#ffffff",
             _ROLES.AlternateBase: "#eeeeee", _ROLES.Text: "#000000", _ROLES.Button: "#eeeeee",
             _ROLES.ButtonText: "#000000", _ROLES.Highlight: "#0047ab", _ROLES.HighlightedText: "#ffffff",
             _ROLES.ToolTipBase: "#ffffdc", _ROLES.ToolTipText: "#000000", _ROLES.PlaceholderText: "#505050",
             _ROLES.Link: "#0033cc", _ROLES.Light: "#ffffff", _ROLES.Midlight: "#cccccc", _ROLES.Mid: "#777777",
             _ROLES.Dark: "#333333", _ROLES.Shadow: "#000000"}
_DARK = {_ROLES.Window: "#2b2b2b", _ROLES.WindowText: "#e8e8e8", _ROLES.Base: "#1e1e1e",
         _ROLES.AlternateBase: "#303030", _ROLES.Text: "#e8e8e8", _ROLES.Button: "#383838",
         _ROLES.ButtonText: "#e8e8e8", _ROLES.Highlight: "#3d7dca", _ROLES.HighlightedText: "#ffffff",
         _ROLES.ToolTipBase: "#3a3a3a", _ROLES.ToolTipText: "#e8e8e8", _ROLES.PlaceholderText: "#9a9a9a",
         _ROLES.Link: "#6cb4ff", _ROLES.BrightText: "#ffffff", _ROLES.Light: "#505050",
         _ROLES.Midlight: "#404040", _ROLES.Mid: "#2a2a2a", _ROLES.Dark: "#1a1a1a", _ROLES.Shadow: "#000000"}
_DISABLED_TEXT = {CONTRAST: "#6e6e6e", DARK: "#7f7f7f"}
_PLOTS = {LIGHT: ("#ffffff", "#000000", "#b00020"), CONTRAST: ("#ffffff", "#000000", "#b00020"),
          DARK: ("#1e1e1e", "#e8e8e8", "#ff8a80")}


def palette(theme: str) -> QPalette:
    """The application palette of ``theme`` (light: the style's own)."""
    standard = QApplication.style().standardPalette()
    if theme == LIGHT:
        return standard
    colours = _CONTRAST if theme == CONTRAST else _DARK
    result = QPalette(standard)
    for role, colour in colours.items():
        result.setColor(role, QColor(colour))
    for role in (_ROLES.WindowText, _ROLES.Text, _ROLES.ButtonText):
        result.setColor(QPalette.ColorGroup.Disabled, role, QColor(_DISABLED_TEXT[theme]))
    return result


class _State:
    """The appearance in use and the desktop's font (the base presentation mode enlarges)."""

    appearance = Appearance()
    base_font: QFont | None = None


def current_appearance() -> Appearance:
    return _State.appearance


def _base_font() -> QFont:
    if _State.base_font is None:
        _State.base_font = QFont(QApplication.font())
    return _State.base_font


def presentation_points(desktop_points: float) -> float:
    """The text size of presentation mode on the primary screen (see PRESENTATION_LINES)."""
    screen = QApplication.primaryScreen()
    share = screen.size().height() / PRESENTATION_LINES * 72 / screen.logicalDotsPerInchY()  # px -> pt
    return max(share, desktop_points * PRESENTATION_MIN_SCALE)


def application_font(appearance: Appearance) -> QFont:
    font = QFont(_base_font())
    if appearance.presentation:
        font.setPointSizeF(presentation_points(font.pointSizeF()))
    return font


def plot_style_of(appearance: Appearance) -> PlotStyle:
    """What plots are drawn with in ``appearance``."""
    theme = appearance.shown_theme
    background, foreground, error = _PLOTS[theme]
    points = application_font(appearance).pointSizeF() * appearance.zoom
    heavy = appearance.presentation or theme == CONTRAST
    return PlotStyle(background, foreground, error, 2.0 if heavy else 1.0, points, appearance.presentation)


@runtime_checkable
class Styled(Protocol):
    """A widget with more to restyle than Qt and :func:`style_plots` do (colormaps, measured text)."""

    def restyle(self) -> None: ...


def style_plots(root: QWidget, style: PlotStyle) -> None:
    """Restyle every pyqtgraph view under ``root``: background, axes, titles, legends, texts."""
    font, pen = plot_font(style), pg.mkPen(style.foreground, width=style.line_width)
    label_style = {"color": style.foreground, "font-size": f"{style.points:g}pt",
                   "font-weight": "bold" if style.bold else "normal"}
    for view in root.findChildren(pg.GraphicsView):
        view.setBackground(style.background)
        for item in view.scene().items():
            if isinstance(item, pg.AxisItem):
                item.setPen(pen)
                item.setTextPen(style.foreground)
                item.setTickFont(font)
                # pyqtgraph's setLabel replaces the title too: give it the one it has
                item.setLabel(item.labelText, item.labelUnits, item.labelUnitPrefix, **label_style)
            elif isinstance(item, pg.LegendItem):
                item.setBrush(QColor(style.background))
                item.setLabelTextColor(style.foreground)
                item.setLabelTextSize(f"{style.points:g}pt")
            elif isinstance(item, pg.LabelItem):
                item.setText(item.text, color=style.foreground, size=f"{style.points:g}pt", bold=style.bold)
            elif isinstance(item, pg.TextItem):
                item.setColor(style.foreground)
                item.setFont(font)
                if item.fill.style() != Qt.BrushStyle.NoBrush:  # a card behind the text
                    item.fill = pg.mkBrush(style.background)
                    item.update()


def restyle(root: QWidget) -> None:
    """Bring ``root`` and everything in it up to the current appearance (a window built before
    the appearance changed, or a widget built outside a window)."""
    style_plots(root, plot_style())
    for widget in (root, *root.findChildren(QWidget)):
        if isinstance(widget, Styled):
            widget.restyle()


def apply_appearance(appearance: Appearance) -> None:
    """Use ``appearance`` from now on (ConfigError for an unknown theme or colormap): Qt's widgets
    follow at once; the plots of a window follow when it is restyled (:func:`restyle`)."""
    if appearance.theme not in THEMES:
        raise ConfigError(f"unknown theme {appearance.theme!r}; choose one of {', '.join(THEMES)}")
    set_colormap(appearance.colormap)
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    _base_font()  # remember the desktop's font before the first change
    if app.style().name().lower() != STYLE.lower():
        app.setStyle(STYLE)
    _State.appearance = appearance
    set_plot_style(plot_style_of(appearance))
    app.setPalette(palette(appearance.shown_theme))
    app.setFont(application_font(appearance))


def with_changes(**changes: Any) -> Appearance:
    """The current appearance with some fields changed (e.g. ``presentation=True``)."""
    return replace(_State.appearance, **changes)
