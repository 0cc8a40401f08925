"""The grid on long inputs: a tile with fewer pixels than cells is drawn averaged over the area
each pixel covers (checked against an overlap matrix built here), never by dropping rows or
columns; short inputs are drawn cell for cell as before; hover still names the exact cell."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF

from transviz.gui.widgets.grid import GAP, SUMMARY_COLUMN, AttentionGrid

LAYERS, HEADS, QUERIES, KEYS = 6, 8, 100, 200  # a long sentence at step 100 of a 6 x 8 model


def softmax_maps(shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    logits = np.random.default_rng(seed).normal(size=shape) * 3
    return (np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)).astype(np.float32)


def overlap(cells: int, pixels: int) -> np.ndarray:
    """(pixels, cells): the share of each pixel that each cell covers, with exact fractions."""
    width, matrix = Fraction(cells, pixels), np.zeros((pixels, cells))
    for j in range(pixels):
        for i in range(math.floor(j * width), min(cells, math.ceil((j + 1) * width))):
            matrix[j, i] = float((min((j + 1) * width, Fraction(i + 1)) - max(j * width, Fraction(i))) / width)
    return matrix


def pixel_tiles(tiles: int, cells: int, pixels: int) -> tuple[list[int], int]:
    """Each tile's first whole pixel and the whole pixels all of them fit in, from the cell
    geometry: tile t's cells span [t * (cells + GAP), t * (cells + GAP) + cells) of the mosaic."""
    scale = Fraction(pixels, tiles * (cells + GAP) - GAP)
    spans = [(t * (cells + GAP) * scale, (t * (cells + GAP) + cells) * scale) for t in range(tiles)]
    starts = [math.ceil(a) for a, _ in spans]
    return starts, min(math.floor(b) - s for (_, b), s in zip(spans, starts, strict=True))


WORDS = [f"w{i}" for i in range(KEYS)]


@pytest.fixture
def long_grid(show):
    grid = AttentionGrid("cross-attention")
    grid.set_maps(softmax_maps((LAYERS, HEADS, QUERIES, KEYS)), WORDS[:QUERIES], WORDS)
    return show(grid, 900, 600)


def test_each_tile_is_the_area_average_of_its_cells(long_grid):
    maps, area = long_grid.maps, long_grid.canvas.mosaic_rect()
    drawn = long_grid.drawn()
    assert drawn.shape == (round(area.height()), round(area.width()))  # one value a pixel
    row_starts, tile_rows = pixel_tiles(LAYERS, QUERIES, drawn.shape[0])
    column_starts, tile_columns = pixel_tiles(HEADS + 1, KEYS, drawn.shape[1])
    assert tile_rows < QUERIES and tile_columns < KEYS  # the case under test: both axes shrink
    rows, columns = overlap(QUERIES, tile_rows), overlap(KEYS, tile_columns)
    for layer, head in [(0, 0), (5, 7), (2, 3)]:
        expected = rows @ maps[layer, head].astype(np.float64) @ columns.T
        top, left = row_starts[layer], column_starts[head]
        np.testing.assert_allclose(drawn[top:top + tile_rows, left:left + tile_columns], expected, atol=1e-5)
        assert np.isnan(drawn[top:top + tile_rows, left + tile_columns]).all()  # a pixel of gap at least
    summary = maps[1].mean(axis=0).astype(np.float64)  # the mean-of-heads column
    top, left = row_starts[1], column_starts[HEADS]
    np.testing.assert_allclose(drawn[top:top + tile_rows, left:left + tile_columns], rows @ summary @ columns.T,
                               atol=1e-5)


def test_the_screen_shows_the_averages(show, pixels):
    keys = np.arange(KEYS) / KEYS  # a ramp along the keys with noise: averages span the colormap
    maps = (keys + np.random.default_rng(5).uniform(-0.1, 0.1, (LAYERS, HEADS, QUERIES, KEYS))).clip(0, 1)
    long_grid = AttentionGrid()
    long_grid.set_maps(maps.astype(np.float32), WORDS[:QUERIES], WORDS)
    show(long_grid, 900, 600)
    area = long_grid.canvas.mosaic_rect()
    row_starts, tile_rows = pixel_tiles(LAYERS, QUERIES, round(area.height()))
    column_starts, tile_columns = pixel_tiles(HEADS + 1, KEYS, round(area.width()))
    expected = overlap(QUERIES, tile_rows) @ maps[4, 2].astype(np.float64) @ overlap(KEYS, tile_columns).T
    picture = long_grid.grab().toImage()  # what the screen shows, once
    corner = QPointF(long_grid.canvas.pos()) + area.topLeft()
    for i, j in [(0, 0), (tile_rows // 2, tile_columns // 3), (tile_rows // 3, tile_columns // 2),
                 (tile_rows - 1, tile_columns - 1)]:
        point = corner + QPointF(column_starts[2] + j + 0.5, row_starts[4] + i + 0.5)
        colour = picture.pixelColor(int(point.x()), int(point.y()))
        assert pixels.shows(colour, expected[i, j]), (i, j, expected[i, j])


def test_stripes_average_to_grey_instead_of_moire(show):
    stripes = np.zeros((LAYERS, HEADS, QUERIES, KEYS), np.float32)
    stripes[..., ::2] = 1.0  # every other key: dropping columns would show bands of 0 and 1
    grid = AttentionGrid()
    grid.set_maps(stripes, WORDS[:QUERIES], WORDS)
    show(grid, 900, 600)
    drawn = grid.drawn()
    tiles = drawn[np.isfinite(drawn)]
    tile_columns = pixel_tiles(HEADS + 1, KEYS, drawn.shape[1])[1]
    half_a_cell = 0.5 * tile_columns / KEYS  # a pixel edge inside a cell tips its mean by up to this
    assert np.abs(tiles - 0.5).max() <= half_a_cell + 1e-5


def test_short_maps_are_drawn_cell_for_cell_as_before(show):
    maps = softmax_maps((3, 4, 5, 7))
    grid = AttentionGrid()
    grid.set_maps(maps, WORDS[:5], WORDS[:7])
    show(grid, 900, 600)
    assert grid.drawn() is grid.mosaic()
    assert (grid.canvas.picture.image.height(), grid.canvas.picture.image.width()) == grid.mosaic().shape


def test_resizing_fits_the_picture_again(long_grid, qtbot):
    long_grid.resize(2400, 1400)  # room for a pixel a cell: drawn as the mosaic
    qtbot.waitUntil(lambda: long_grid.drawn() is long_grid.mosaic())
    long_grid.resize(700, 500)
    area = long_grid.canvas.mosaic_rect()
    qtbot.waitUntil(lambda: long_grid.drawn().shape == (round(area.height()), round(area.width())))


def test_hover_in_a_shrunk_tile_names_the_exact_cell(long_grid, qtbot):
    area = long_grid.canvas.mosaic_rect()
    mosaic_rows, mosaic_columns = LAYERS * (QUERIES + GAP) - GAP, (HEADS + 1) * (KEYS + GAP) - GAP
    # whole pixels, as the mouse reports them; several cells share each of them
    for x, y in [(area.left(), area.top()), (area.left() + 413, area.top() + 207),
                 (area.right() - 1, area.bottom() - 1), (area.left() + 77, area.top() + 333)]:
        row = math.floor((y - area.top()) * mosaic_rows / area.height())
        column = math.floor((x - area.left()) * mosaic_columns / area.width())
        layer, query = divmod(row, QUERIES + GAP)
        head, key = divmod(column, KEYS + GAP)
        point = QPointF(x, y) + QPointF(long_grid.canvas.pos())
        if query == QUERIES or key == KEYS:
            assert long_grid.cell_under(point) is None  # a gap
            continue
        expected = (layer, SUMMARY_COLUMN if head == HEADS else head, query, key)
        assert long_grid.cell_under(point) == expected
        qtbot.mouseMove(long_grid.canvas, QPoint(round(x), round(y)))
        qtbot.waitUntil(lambda q=query, k=key: f"'{WORDS[q]}' -> key '{WORDS[k]}'" in long_grid.readout_text())
