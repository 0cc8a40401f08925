"""Projector and classroom comfort in a real window: presentation mode (F11) goes full screen with
larger text and thicker plot labels in the high-contrast theme and comes back; the dark theme
turns widgets and plots dark; the colormap choice redraws every heatmap and grid. What is checked
is what the widgets show: fonts, palettes, pixels of the plots and the lookup tables drawn."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QApplication, QWidget

from transviz.gui.services.theme import CONTRAST, DARK, LIGHT, current_appearance
from transviz.gui.style import COLORMAPS, colormap_name, diverging_lookup_table, lookup_table
from transviz.gui.widgets.heatmap import HeatmapWidget


@pytest.fixture
def window(stepped_window):
    return stepped_window(steps=3)


def tick_points(axis: pg.AxisItem) -> float:
    return (axis.style["tickFont"] or axis.font()).pointSizeF()


def lightness(colour) -> int:
    return colour.lightness()


def background_pixel(view: QWidget):
    """A pixel of a plot's background (a corner of the view, where nothing is drawn)."""
    image = view.grab().toImage()
    return image.pixelColor(2, 2)


def test_presentation_mode_goes_full_screen_with_larger_text_and_back(window, qtbot):
    app_points = QApplication.font().pointSizeF()
    large = window.panels["explorer"].attention.large
    grid = window.panels["explorer"].attention.grid.canvas
    ticks = (tick_points(large.axis("left")), grid.font().pointSizeF())
    chip = window.panels["explorer"].output.chip_rect(1).height()
    button = window.panels["explorer"].controls.step_button.font().pointSizeF()
    action = window.view_choices.presentation
    assert action.shortcut() == QKeySequence("F11") and not action.isChecked()

    action.trigger()  # View > Presentation mode (F11)
    qtbot.waitUntil(window.isFullScreen, timeout=5000)
    assert current_appearance().presentation and action.isChecked()
    big = QApplication.font().pointSizeF()
    screen = QApplication.primaryScreen()
    share_of_screen = screen.size().height() / 48 * 72 / screen.logicalDotsPerInchY()  # a 48th, in points
    assert big == pytest.approx(max(share_of_screen, 1.2 * app_points))
    assert big > button
    qtbot.waitUntil(lambda: window.panels["explorer"].controls.step_button.font().pointSizeF() == big, timeout=5000)
    for font, before in zip((large.axis("left").style["tickFont"], grid.font()), ticks, strict=True):
        assert font.pointSizeF() == big > before and font.bold()  # read from the back of the room
    assert large.axis("left").pen().widthF() == 2.0 and grid.line_width == 2.0
    assert window.panels["explorer"].output.chip_rect(1).height() > chip  # the output tokens grow with the text
    title = large.axis("left")
    assert title.labelText == "queries: decoder input -> token written (rows)" and title.label.isVisible()
    assert f"font-size: {big:g}pt" in title.labelString()
    assert current_appearance().shown_theme == CONTRAST
    palette = QApplication.palette()
    assert palette.window().color().name() == "#ffffff" and palette.windowText().color().name() == "#000000"

    action.trigger()
    qtbot.waitUntil(lambda: not window.isFullScreen(), timeout=5000)
    assert QApplication.font().pointSizeF() == app_points
    assert tick_points(large.axis("left")) == ticks[0] and not large.axis("left").style["tickFont"].bold()
    assert grid.font().pointSizeF() == ticks[1] and not grid.font().bold()
    qtbot.waitUntil(lambda: window.panels["explorer"].controls.step_button.font().pointSizeF() == button, timeout=5000)
    assert current_appearance().shown_theme == LIGHT


def test_f11_toggles_presentation_mode(window, qtbot):
    window.activateWindow()
    qtbot.waitActive(window)
    qtbot.keyClick(window, Qt.Key.Key_F11)
    qtbot.waitUntil(window.isFullScreen, timeout=5000)
    qtbot.keyClick(window, Qt.Key.Key_F11)
    qtbot.waitUntil(lambda: not window.isFullScreen(), timeout=5000)
    assert not current_appearance().presentation


def test_the_dark_theme_turns_widgets_and_plots_dark_and_back(window, qtbot):
    list(window.panels.values())  # every tab built: the plots of all of them are checked below
    grid_view = window.panels["explorer"].attention.grid.canvas
    assert lightness(background_pixel(grid_view)) > 240
    window.view_choices.themes[DARK].trigger()
    assert window.view_choices.themes[DARK].isChecked() and current_appearance().theme == DARK
    assert lightness(QApplication.palette().window().color()) < 60
    assert lightness(QApplication.palette().windowText().color()) > 200
    qtbot.waitUntil(lambda: lightness(background_pixel(grid_view)) < 40, timeout=5000)
    for view in window.findChildren(pg.GraphicsView):
        assert lightness(view.backgroundBrush().color()) < 40
    axis = window.panels["explorer"].attention.large.axis("bottom")
    assert lightness(axis.textPen().color()) > 200 and lightness(axis.pen().color()) > 200
    assert "#ff8a80" in window.panels["explorer"].source.error.styleSheet()  # inline errors readable on dark
    window.view_choices.themes[LIGHT].trigger()
    qtbot.waitUntil(lambda: lightness(background_pixel(grid_view)) > 240, timeout=5000)
    assert lightness(axis.textPen().color()) < 40


def test_the_high_contrast_theme_outside_presentation_mode(window):
    window.view_choices.themes[CONTRAST].trigger()
    assert current_appearance().shown_theme == CONTRAST and not window.isFullScreen()
    assert window.panels["explorer"].attention.large.axis("left").pen().widthF() == 2.0


def cell_colour(heatmap: HeatmapWidget, row: int, column: int):
    image = heatmap.grab().toImage()
    point = heatmap.cell_position(row, column) + QPoint(1, 1)
    ratio = image.devicePixelRatio()
    return image.pixelColor(int(point.x() * ratio), int(point.y() * ratio))


def lut_of(name: str) -> np.ndarray:
    """The colormap's 256 colours, straight from pyqtgraph (an independent reference)."""
    return pg.colormap.get(name).getLookupTable(0.0, 1.0, 256, alpha=False).astype(np.uint8)


@pytest.mark.parametrize("name", [n for n in COLORMAPS if n != "viridis"])
def test_the_colormap_choice_redraws_every_heatmap_and_grid(window, qtbot, name):
    list(window.panels.values())  # every tab built: the heatmaps of all of them are checked below
    large = window.panels["explorer"].attention.large
    value = float(large.data[0, 0])
    index = min(255, int(value * 256))
    assert cell_colour(large, 0, 0).getRgb()[:3] == pytest.approx(tuple(lut_of("viridis")[index]), abs=2)
    window.view_choices.colormaps[name].trigger()
    assert colormap_name() == name and window.view_choices.colormaps[name].isChecked()
    np.testing.assert_array_equal(lookup_table(), lut_of(name))
    heatmaps = window.findChildren(HeatmapWidget)
    assert len(heatmaps) >= 9  # the explorer's, the masks tab's
    for heatmap in heatmaps:  # signed maps (attribution) keep their diverging colours, centred at 0
        expected = diverging_lookup_table() if heatmap._diverging else lut_of(name)
        np.testing.assert_array_equal(heatmap._image.lut, expected)
    assert sum(not heatmap._diverging for heatmap in heatmaps) >= 9
    np.testing.assert_array_equal(window.panels["explorer"].attention.grid.lut, lut_of(name))
    qtbot.waitUntil(lambda: cell_colour(large, 0, 0).getRgb()[:3] == pytest.approx(tuple(lut_of(name)[index]), abs=2),
                    timeout=5000)
    bar = large._colorbar.colorMap().getLookupTable(0.0, 1.0, 256, alpha=False)
    np.testing.assert_array_equal(bar, lut_of(name))


def test_the_dark_theme_reaches_the_training_and_lab_tabs(window, qtbot):
    """The lab's reference-line card, its length note and the training notice are drawn in the
    theme's colours (hard-coded light colours would leave white text on a white card)."""
    from pyqtgraph.graphicsItems.InfiniteLine import InfLineLabel

    card = next(item for item in window.panels["lab"].plot.scene().items() if isinstance(item, InfLineLabel))
    assert card.toPlainText() == "predicting the mean: 3.5"
    window.panels["lab"].set_length(10, 2)  # not the seed's setting: a warning
    window.panels["training"].notice.show_notice("Finished 10 steps.", "#009E73")
    window.view_choices.themes[DARK].trigger()
    assert lightness(card.fill.color()) < 60 and lightness(card.color) > 200
    assert "#ff8a80" in window.panels["lab"].length_note.styleSheet()
    assert "background: #1e1e1e" in window.panels["training"].notice.styleSheet()
    window.view_choices.themes[LIGHT].trigger()
    assert lightness(card.fill.color()) > 200 and lightness(card.color) < 60
    assert "background: #ffffff" in window.panels["training"].notice.styleSheet()
