"""The attention grid: each head's map at its place in the mosaic, the mean-of-heads column,
the highlighted query, clicks reporting (layer, head)."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor

from transviz.gui.style import HIGHLIGHT
from transviz.gui.widgets.grid import GAP, SUMMARY_COLUMN, AttentionGrid

LAYERS, HEADS, QUERIES, KEYS = 3, 4, 5, 7  # non-square tiles: a transposed tile cannot fit


def attention_maps(seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    logits = rng.normal(size=(LAYERS, HEADS, QUERIES, KEYS)) * 2
    return (np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)).astype(np.float32)


QUERY_LABELS = ["<s>", "i", "want", "a", "beer"]
KEY_LABELS = ["ich", "mochte", "ein", "bier", "bitte", "sehr", "</s>"]


@pytest.fixture
def grid(show):
    widget = AttentionGrid("cross-attention")
    widget.set_maps(attention_maps(), QUERY_LABELS, KEY_LABELS)
    return show(widget, 900, 600)


def test_mosaic_holds_each_head_at_its_place(grid):
    maps, mosaic = attention_maps(), grid.mosaic()
    assert mosaic.shape == (LAYERS * (QUERIES + GAP) - GAP, (HEADS + 1) * (KEYS + GAP) - GAP)
    for layer in range(LAYERS):
        for head in range(HEADS):
            row, column = grid.tile_origin(layer, head)
            assert (row, column) == (layer * (QUERIES + GAP), head * (KEYS + GAP))
            np.testing.assert_array_equal(mosaic[row:row + QUERIES, column:column + KEYS], maps[layer, head])
        row, column = grid.tile_origin(layer, SUMMARY_COLUMN)
        mean = [[sum(maps[layer, h, q, k] for h in range(HEADS)) / HEADS for k in range(KEYS)] for q in range(QUERIES)]
        np.testing.assert_allclose(mosaic[row:row + QUERIES, column:column + KEYS], mean, atol=1e-6)
    gaps = np.ones(mosaic.shape, bool)
    for layer in range(LAYERS):
        for head in [*range(HEADS), SUMMARY_COLUMN]:
            row, column = grid.tile_origin(layer, head)
            gaps[row:row + QUERIES, column:column + KEYS] = False
    assert np.isnan(mosaic[gaps]).all() and not np.isnan(mosaic[~gaps]).any()


def test_pixels_of_a_tile_follow_its_rows_and_columns(grid, pixels):
    maps = attention_maps()
    for layer, head, query, key in [(0, 0, 0, 6), (2, 3, 4, 0), (1, 2, 2, 5)]:
        color = pixels.at(grid, grid.tile_position(layer, head, query, key))
        assert pixels.shows(color, maps[layer, head, query, key]), (layer, head, query, key)


def test_redraw_with_new_maps_replaces_the_image(grid):
    new = attention_maps(seed=7)
    grid.set_maps(new, QUERY_LABELS, KEY_LABELS)
    row, column = grid.tile_origin(2, 1)
    np.testing.assert_array_equal(grid.mosaic()[row:row + QUERIES, column:column + KEYS], new[2, 1])
    np.testing.assert_array_equal(grid.maps, new)


def test_current_query_row_is_outlined_in_every_layer(grid, pixels):
    def outline_drawn(layer: int, query: int) -> bool:
        """The highlight colour on the top edge of a query row (in head 1's tile)."""
        below, above = grid.tile_position(layer, 1, query, 0), grid.tile_position(layer, 1, query - 1, 0)
        return pixels.at(grid, QPointF(below.x(), (above.y() + below.y()) / 2)) == QColor(HIGHLIGHT)

    assert grid.band_rows() == [] and not outline_drawn(1, 3)
    grid.set_query(3)
    assert grid.query == 3
    assert grid.band_rows() == [layer * (QUERIES + GAP) + 3 for layer in range(LAYERS)]
    assert all(outline_drawn(layer, 3) for layer in range(LAYERS)) and not outline_drawn(1, 2)
    grid.set_query(None)
    assert grid.band_rows() == [] and not outline_drawn(1, 3)


@pytest.mark.parametrize("layer,head", [(0, 0), (2, 3), (1, SUMMARY_COLUMN)])
def test_clicking_a_tile_emits_layer_and_head(grid, qtbot, layer, head):
    viewport = grid.canvas
    target = viewport.mapFrom(grid, grid.tile_position(layer, head, 1, 1).toPoint())
    with qtbot.waitSignal(grid.cell_clicked, timeout=2000) as signal:
        qtbot.mouseClick(viewport, Qt.MouseButton.LeftButton, pos=target)
    assert signal.args == [layer, head]


def test_hover_names_layer_head_query_and_key(grid, qtbot):
    maps = attention_maps()
    viewport = grid.canvas
    qtbot.mouseMove(viewport, viewport.mapFrom(grid, grid.tile_position(1, 2, 2, 3).toPoint()))
    qtbot.waitUntil(lambda: "head 2" in grid.readout_text(), timeout=2000)
    assert grid.readout_text() == f"layer 1, head 2: query 'want' -> key 'bier': {maps[1, 2, 2, 3]:.2f}"


def test_shape_mismatch_is_refused(grid):
    with pytest.raises(ValueError, match="do not match"):
        grid.set_maps(attention_maps(), KEY_LABELS, QUERY_LABELS)  # labels of a transposed map


def test_repaint_now_paints_the_plot(grid):
    """The bench times repaint_now(): it must really paint, not just schedule."""
    from PySide6.QtCore import QEvent, QObject

    class PaintCounter(QObject):
        count = 0

        def eventFilter(self, watched, event):
            if event.type() == QEvent.Type.Paint:
                self.count += 1
            return False

    counter = PaintCounter()
    grid.canvas.installEventFilter(counter)
    grid.repaint_now()
    assert counter.count == 1
