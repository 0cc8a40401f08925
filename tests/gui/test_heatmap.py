"""The heatmap shows exactly the array it is given, rows = queries, with the right labels,
colours, read-out, masked cells and exports (checked on real pixels and real files)."""
from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

from transviz.gui.style import HIGHLIGHT, lookup_table
from transviz.gui.widgets.heatmap import MAX_LABELS, AxisNames, BlitImageItem, HeatmapWidget, label_stride

QUERIES = ["<s>", "i", "want", "a"]
KEYS = ["ich", "mochte", "ein", "bier", "bitte"]


def cross_map() -> np.ndarray:
    """4 x 5, every value different and no cell equal to its transposed partner."""
    data = np.array([[0.05, 0.15, 0.25, 0.35, 0.20],
                     [0.90, 0.02, 0.03, 0.04, 0.01],
                     [0.07, 0.83, 0.04, 0.02, 0.04],
                     [0.10, 0.12, 0.60, 0.08, 0.10]], dtype=np.float32)
    return data


@pytest.fixture
def heatmap(show):
    widget = HeatmapWidget("cross-attention, layer 0, head 1")
    widget.set_data(cross_map(), QUERIES, KEYS)
    return show(widget, 640, 480)


def test_image_is_the_array_and_labels_are_the_tokens(heatmap):
    np.testing.assert_array_equal(heatmap.displayed_image(), cross_map())
    assert heatmap.displayed_image().dtype == np.float32
    assert heatmap.row_labels() == QUERIES and heatmap.column_labels() == KEYS
    assert [t for _, t in heatmap.axis("left").tick_labels()] == QUERIES
    assert [t for _, t in heatmap.axis("bottom").tick_labels()] == KEYS


def visible_colours(item: pg.ImageItem) -> np.ndarray:
    """The picture an image item draws, as ARGB words; fully transparent pixels all read 0."""
    item.render()
    picture = item.qimage.convertToFormat(QImage.Format.Format_ARGB32)
    words = np.frombuffer(picture.constBits(), np.uint32).reshape(picture.height(), picture.width()).copy()
    words[words >> 24 == 0] = 0
    return words


@pytest.mark.parametrize("levels", [(0.0, 1.0), (-3.0, 2.5), (0.2, 0.2)])
@pytest.mark.parametrize("with_nan", [False, True])
def test_fast_image_draws_the_colours_pyqtgraph_draws(qapp, levels, with_nan):
    data = np.random.default_rng(0).normal(size=(13, 17)).astype(np.float32)
    data[4] = np.nextafter(np.float32(levels[1]), np.float32(-np.inf))  # just below the top: the last entry
    data[5] = levels[0]
    if with_nan:
        data[2, 3] = data[7, 0] = np.nan
    ours, reference = BlitImageItem(axisOrder="row-major"), pg.ImageItem(axisOrder="row-major")
    for item in (ours, reference):
        item.setImage(data, levels=levels, lut=lookup_table(), autoLevels=False)
    np.testing.assert_array_equal(visible_colours(ours), visible_colours(reference))
    transparent = visible_colours(ours) == 0
    assert transparent.sum() == (2 if with_nan else 0)
    assert ours.qimage.format() in (QImage.Format.Format_RGB32, QImage.Format.Format_ARGB32_Premultiplied)


def test_pixels_put_queries_on_rows_and_keys_on_columns(heatmap, pixels):
    data = cross_map()
    for row in range(4):
        for column in range(5):
            color = pixels.at(heatmap, heatmap.cell_position(row, column))
            assert pixels.shows(color, data[row, column]), (row, column, color.name())
    # row 0 is drawn on top (a matrix, not a y-up plot) and keys run left to right
    assert heatmap.cell_position(0, 0).y() < heatmap.cell_position(3, 0).y()
    assert heatmap.cell_position(0, 0).x() < heatmap.cell_position(0, 4).x()


def test_axis_titles_say_which_axis_is_query_and_key(heatmap):
    left = heatmap.axis("left").labelText.lower()
    bottom = heatmap.axis("bottom").labelText.lower()
    assert "quer" in left and "key" not in left
    assert "key" in bottom and "quer" not in bottom


def test_hover_read_out_for_a_known_cell(heatmap, qtbot):
    viewport = heatmap._view.viewport()
    target = viewport.mapFrom(heatmap, heatmap.cell_position(2, 1))
    with qtbot.waitSignal(heatmap.hovered, timeout=2000) as signal:
        qtbot.mouseMove(viewport, target)
    assert signal.args == [2, 1]
    assert heatmap.readout_text() == "query 'want' -> key 'mochte': 0.83"


def test_click_emits_the_cell(heatmap, qtbot):
    viewport = heatmap._view.viewport()
    target = viewport.mapFrom(heatmap, heatmap.cell_position(3, 2))
    with qtbot.waitSignal(heatmap.clicked, timeout=2000) as signal:
        qtbot.mouseClick(viewport, Qt.MouseButton.LeftButton, pos=target)
    assert signal.args == [3, 2]


def test_masked_cells_are_distinct_and_named(heatmap, pixels):
    data = cross_map()
    data[0, 3] = -np.inf
    heatmap.set_data(data, QUERIES, KEYS)
    assert math.isnan(heatmap.displayed_image()[0, 3])
    assert heatmap.readout(0, 3) == "query '<s>' -> key 'bier': -inf (masked)"
    assert heatmap._masked_legend.isVisibleTo(heatmap)
    color = pixels.at(heatmap, heatmap.cell_position(0, 3) + QPoint(3, 3))
    assert color.red() == color.green() == color.blue()  # grey: no viridis colour is grey
    assert not any(pixels.shows(color, v / 20) for v in range(21))
    heatmap.set_data(cross_map(), QUERIES, KEYS)
    assert not heatmap._masked_legend.isVisibleTo(heatmap)


def test_highlighted_row_is_outlined(heatmap, pixels):
    heatmap.set_highlighted_row(2)
    assert heatmap.highlighted_row == 2
    centre = heatmap.cell_position(2, 2)
    top = heatmap.cell_position(1, 2).y() + (centre.y() - heatmap.cell_position(1, 2).y()) // 2
    edge = [pixels.at(heatmap, QPoint(centre.x(), y)) for y in range(top - 2, top + 3)]
    assert any(c.name().upper() == HIGHLIGHT.upper() for c in edge)
    heatmap.set_highlighted_row(None)
    assert heatmap.highlighted_row is None


def test_levels_are_fixed_and_settable(heatmap, pixels):
    assert heatmap.levels == (0.0, 1.0)
    table = np.linspace(-1, 1, 20, dtype=np.float32).reshape(4, 5)
    heatmap.set_data(table, QUERIES, KEYS, levels=(-1.0, 1.0))
    assert heatmap.levels == (-1.0, 1.0) and heatmap._colorbar.levels() == (-1.0, 1.0)
    color = pixels.at(heatmap, heatmap.cell_position(3, 4))
    assert pixels.shows(color, 1.0, -1.0, 1.0)


def test_long_column_labels_rotate_when_cells_are_narrow(show):
    widget = HeatmapWidget()
    keys = ["Donaudampfschifffahrt", "Gesellschaft", "Kapitän", "mochte", "bier", "ein", "bitte", "sehr"]
    widget.set_data(np.full((2, 8), 0.125, np.float32), ["a", "b"], keys)
    show(widget, 360, 300)
    axis = widget.axis("bottom")
    assert axis.rotated
    # the first label, turned 45 degrees, runs down-left of its tick: all of it is inside what the axis paints
    first_x, first = axis.tick_labels()[0]
    tick = axis.mapFromScene(axis.linkedView().mapViewToScene(pg.Point(first_x, 0))).x()
    metrics = QFontMetricsF(axis.style["tickFont"] or axis.font())
    assert axis.boundingRect().left() <= tick - metrics.horizontalAdvance(first) * math.cos(math.radians(45))
    widget.set_data(np.full((2, 2), 0.5, np.float32), ["a", "b"], ["x", "y"])
    assert not widget.axis("bottom").rotated


def test_many_labels_are_thinned_never_dropped_silently():
    assert label_stride(5) == 1 and label_stride(MAX_LABELS) == 1
    assert [label_stride(n) for n in (41, 100, 512)] == [2, 5, 20]
    for n in (41, 100, 512, 2000):
        assert n / label_stride(n) <= MAX_LABELS


def test_custom_axis_names_in_read_out(qtbot):
    names = AxisNames("position", "dimension", "positions", "dimensions",
                      "{row_name} {row}, {column_name} {column}: {value}")
    widget = HeatmapWidget(axes=names, levels=(-1.0, 1.0))
    qtbot.addWidget(widget)
    widget.set_data(np.array([[0.5, -0.25]], np.float32), ["0"], ["0", "1"])
    assert widget.readout(0, 1) == "position 0, dimension 1: -0.25"


@pytest.mark.parametrize("points", [9, 24])
def test_colour_bar_labels_fit_in_the_font_of_the_plots(heatmap, qtbot, points):
    """pyqtgraph fixes the colour bar's axis at 45 pixels; in presentation mode's large bold font
    its labels would be cut off at the window's edge."""
    from dataclasses import replace

    from transviz.gui.services.theme import style_plots
    from transviz.gui.style import plot_style

    style_plots(heatmap, replace(plot_style(), points=points, bold=True))
    heatmap.restyle()
    bar = heatmap._colorbar.axis
    widest = max(QFontMetricsF(bar.style["tickFont"]).horizontalAdvance(text) for text in ("0.0", "0.5", "1.0"))
    needed = widest + bar.style["tickTextOffset"][0] + max(0, bar.style["tickLength"])
    qtbot.waitUntil(lambda: bar.width() >= needed, timeout=2000)  # once the layout has run


def test_export_png_has_real_pixels(heatmap, tmp_path):
    path = heatmap.export(tmp_path / "plot.png")
    image = QImage(str(path))
    assert not image.isNull() and image.width() == heatmap.width()
    colours = {image.pixel(x, y) for x in range(0, image.width(), 7) for y in range(0, image.height(), 7)}
    assert len(colours) > 10
    assert [p.name for p in tmp_path.iterdir()] == ["plot.png"]  # no temporary file left


def test_export_svg_parses_holds_the_labels_and_renders(heatmap, tmp_path):
    path = heatmap.export(tmp_path / "plot.svg")
    root = ET.parse(path).getroot()
    texts = {"".join(t.itertext()).strip() for t in root.iter("{http://www.w3.org/2000/svg}text")}
    assert set(QUERIES + KEYS) <= texts
    assert any("quer" in t for t in texts) and any("key" in t for t in texts)
    renderer = QSvgRenderer(str(path))
    assert renderer.isValid()
    image = QImage(renderer.defaultSize(), QImage.Format.Format_ARGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    renderer.render(painter)
    painter.end()
    colours = {image.pixel(x, y) for x in range(0, image.width(), 7) for y in range(0, image.height(), 7)}
    assert len(colours) > 10


def test_export_refuses_other_formats(heatmap, tmp_path):
    from transviz import InputError

    with pytest.raises(InputError, match="png or .svg"):
        heatmap.export(tmp_path / "plot.jpg")


def test_context_menu_offers_png_and_svg(heatmap):
    assert heatmap.contextMenuPolicy() == Qt.ContextMenuPolicy.ActionsContextMenu
    texts = [a.text() for a in heatmap.actions()]
    assert any("PNG" in t for t in texts) and any("SVG" in t for t in texts)


def test_labels_of_narrow_cells_are_thinned_to_what_fits(show, qtbot):
    widget = HeatmapWidget()
    dims = [str(i) for i in range(32)]
    widget.set_data(np.full((3, 32), 1 / 32, np.float32), ["a", "b", "c"], dims)
    show(widget, 260, 300)  # about 6 pixels a column: 32 labels would pile up
    axis = widget.axis("bottom")
    shown = [int(t) for _, t in axis.tick_labels()]
    stride = shown[1] - shown[0]
    assert stride > 1 and shown == list(range(0, 32, stride))
    line = axis._metrics().height()
    assert stride * axis._cell_pixels() >= min(line * 1.4, axis._widest * 1.1)
    widget.resize(1400, 300)
    qtbot.waitUntil(lambda: len(axis.tick_labels()) == 32, timeout=2000)  # room again: every column


def test_cell_marks_are_drawn_over_their_cells_and_cleared(heatmap, pixels) -> None:
    from transviz.gui.widgets.heatmap import MARK_INK, MARK_PAPER

    centre, other = heatmap.cell_position(1, 2), heatmap.cell_position(2, 1)
    before = pixels.at(heatmap, centre)
    assert pixels.shows(before, float(cross_map()[1, 2]))
    heatmap.set_cell_marks({(1, 2): "1", (3, 4): "2 \u2713"})
    assert heatmap.cell_marks == {(1, 2): "1", (3, 4): "2 \u2713"}
    image = heatmap.grab().toImage()
    ratio = image.devicePixelRatio()
    patch = {image.pixelColor(int(centre.x() * ratio) + dx, int(centre.y() * ratio) + dy).getRgb()[:3]
             for dx in range(-5, 6) for dy in range(-5, 6)}
    assert MARK_PAPER.getRgb()[:3] in patch and MARK_INK.getRgb()[:3] in patch  # the number on its white box
    assert pixels.shows(pixels.at(heatmap, other), float(cross_map()[2, 1]))  # an unmarked cell as it was
    heatmap.set_data(cross_map(), QUERIES, KEYS, hidden_rows=[1, 2])  # marks stay with new data
    assert heatmap.cell_marks == {(1, 2): "1", (3, 4): "2 \u2713"}
    marks = [item for item in heatmap._question_marks if item.isVisible()]
    assert len(marks) == 1  # row 1's "?" steps aside for its numbered cell; row 2 keeps its own
    heatmap.set_cell_marks({})
    assert heatmap.cell_marks == {} and len([item for item in heatmap._question_marks if item.isVisible()]) == 2
    heatmap.set_data(cross_map(), QUERIES, KEYS)
    assert pixels.shows(pixels.at(heatmap, centre), float(cross_map()[1, 2]))
