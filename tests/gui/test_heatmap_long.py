"""The large heatmap on long inputs: labels thin out to what fits, the view zooms and scrolls and
keeps the current query row in view as it moves, and hover names the exact cell even where the
picture has fewer pixels than the map has cells."""
from __future__ import annotations

import math
from itertools import pairwise

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, QRectF, Qt
from PySide6.QtGui import QFontMetricsF, QWheelEvent
from PySide6.QtWidgets import QApplication

from transviz.gui.widgets.heatmap import HeatmapWidget

QUERIES, KEYS = 100, 200
ROWS, COLUMNS = [f"q{i}" for i in range(300)], [f"k{i}" for i in range(KEYS)]


def softmax_rows(rows: int, columns: int, seed: int = 0) -> np.ndarray:
    logits = np.random.default_rng(seed).normal(size=(rows, columns)) * 3
    return (np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)).astype(np.float32)


@pytest.fixture
def long_map(show):
    widget = HeatmapWidget("cross-attention, layer 5, head 7")
    widget.set_data(softmax_rows(QUERIES, KEYS), ROWS[:QUERIES], COLUMNS)
    return show(widget, 260, 420)  # fewer pixels than keys across


def plot_area(widget: HeatmapWidget):
    """The view box's rectangle in the widget's coordinates: where the cells shown are spread."""
    view = widget._view
    scene = widget._plot.getViewBox().sceneBoundingRect()
    corner = view.viewportTransform().map(scene.topLeft()) + QPointF(view.viewport().mapTo(widget, QPoint(0, 0)))
    return corner, scene.width(), scene.height()


def row_label_pixels(widget: HeatmapWidget) -> list[float]:
    """The y pixel of each drawn row label inside the rows shown, from the box geometry."""
    (corner, _, height), shown = plot_area(widget), widget.visible_cells()
    return [corner.y() + (position - shown.top()) * height / shown.height()
            for position, _ in widget.axis("left").tick_labels() if shown.top() <= position <= shown.bottom()]


def assert_labels_fit(widget: HeatmapWidget) -> None:
    line = QFontMetricsF(widget.axis("left").style["tickFont"] or widget.axis("left").font()).height()
    ys = row_label_pixels(widget)
    assert ys and min(b - a for a, b in pairwise(ys)) >= line - 1e-6  # never overlapping
    assert len(ys) <= plot_area(widget)[2] / line + 1


def test_labels_thin_out_to_what_fits(long_map):
    assert_labels_fit(long_map)
    shown_columns = long_map.axis("bottom").tick_labels()
    assert len(shown_columns) < KEYS and len(shown_columns) <= plot_area(long_map)[1] / 4


def test_zooming_shows_fewer_cells_and_more_of_their_labels(long_map):
    before = len(row_label_pixels(long_map))
    long_map.zoom_by(5, QPointF(100, 50))
    shown = long_map.visible_cells()
    assert (shown.width(), shown.height()) == pytest.approx((KEYS / 5, QUERIES / 5))
    assert shown.contains(QPointF(100, 50))  # the point zoomed at stays in view
    step = [b - a for a, b in pairwise(p for p, _ in long_map.axis("left").tick_labels())]
    assert min(step) < QUERIES / before  # labels closer in cells than before: more of the shown rows
    assert_labels_fit(long_map)
    long_map.show_all()
    assert long_map.visible_cells() == long_map.visible_cells().united(long_map.visible_cells())
    assert (long_map.visible_cells().width(), long_map.visible_cells().height()) == (KEYS, QUERIES)


def test_zoom_follows_the_current_query_row_as_steps_advance(long_map):
    long_map.set_highlighted_row(QUERIES - 1)
    long_map.zoom_by(5)  # 20 rows shown, about the current query
    assert long_map.visible_cells().top() <= QUERIES - 1 < long_map.visible_cells().bottom()
    data = softmax_rows(300, KEYS, seed=1)
    for row in range(QUERIES, 160):  # each step adds the new query row and highlights it
        long_map.set_data(data[:row + 1], ROWS[:row + 1], COLUMNS)
        long_map.set_highlighted_row(row)
        shown = long_map.visible_cells()
        assert shown.top() <= row < shown.bottom(), row
        assert shown.height() == pytest.approx(QUERIES / 5)  # the zoom is kept
    long_map.set_highlighted_row(3)  # back at the start: scrolled up to it
    assert long_map.visible_cells().top() <= 3 < long_map.visible_cells().bottom()


def wheel(widget: HeatmapWidget, notches: int, modifiers=Qt.KeyboardModifier.NoModifier) -> QWheelEvent:
    viewport = widget.canvas()
    centre = QPointF(viewport.width() / 2, viewport.height() / 2)
    event = QWheelEvent(centre, viewport.mapToGlobal(centre), QPoint(), QPoint(0, 120 * notches),
                        Qt.MouseButton.NoButton, modifiers, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(viewport, event)
    return event


def test_ctrl_wheel_zooms_and_the_wheel_scrolls(long_map):
    wheel(long_map, 3, Qt.KeyboardModifier.ControlModifier)
    zoomed = long_map.visible_cells()
    assert zoomed.height() == pytest.approx(QUERIES / 1.25 ** 3)
    wheel(long_map, -2)  # down
    assert long_map.visible_cells().top() > zoomed.top()
    wheel(long_map, -1, Qt.KeyboardModifier.ShiftModifier)  # right
    assert long_map.visible_cells().left() > zoomed.left()


def picture_rect(widget: HeatmapWidget) -> tuple[QPointF, float, float]:
    """Where the whole map's picture lies, in the widget's coordinates (zoomed in: partly outside)."""
    view, scene = widget._view, widget._image.sceneBoundingRect()
    corner = view.viewportTransform().map(scene.topLeft()) + QPointF(view.viewport().mapTo(widget, QPoint(0, 0)))
    return corner, scene.width(), scene.height()


def test_the_wheel_goes_on_to_the_page_unless_the_map_is_zoomed_in(long_map):
    # a map inside a scrolled page (the Why and Concepts tabs) must not stop the page scrolling;
    # an ignored wheel event is what Qt passes on to the widgets around
    assert not wheel(long_map, -3).isAccepted()
    assert long_map.visible_cells() == QRectF(0, 0, KEYS, QUERIES)
    long_map.zoom_by(4)
    assert wheel(long_map, -3).isAccepted()  # now it scrolls the map


@pytest.mark.parametrize("zoom", [1.0, 3.0])
def test_hover_names_the_exact_cell_where_pixels_are_fewer_than_cells(long_map, qtbot, zoom):
    long_map.zoom_by(zoom, QPointF(150, 70))
    if zoom == 1.0:  # the picture is averaged: fewer columns than keys
        qtbot.waitUntil(lambda: long_map._image.qimage is not None and long_map._image.qimage.width() < KEYS)
    qtbot.wait(50)  # the axes take their labels' width: the box settles
    box, box_width, box_height = plot_area(long_map)
    corner, width, height = picture_rect(long_map)
    for fx, fy in [(0.01, 0.02), (0.37, 0.61), (0.93, 0.48), (0.5, 0.99)]:
        point = QPoint(math.floor(box.x() + fx * box_width), math.floor(box.y() + fy * box_height))
        column = math.floor((point.x() - corner.x()) * KEYS / width)
        row = math.floor((point.y() - corner.y()) * QUERIES / height)
        assert long_map.visible_cells().contains(QPointF(column + 0.5, row + 0.5))
        assert long_map.cell_under(QPointF(point)) == (row, column)
        qtbot.wait(50)  # pyqtgraph drops mouse moves that come faster than its frame rate
        with qtbot.waitSignal(long_map.hovered, timeout=2000) as signal:
            qtbot.mouseMove(long_map.canvas(), long_map.canvas().mapFrom(long_map, point))
        assert signal.args == [row, column]
        assert long_map.readout_text().startswith(f"query 'q{row}' -> key 'k{column}': ")
