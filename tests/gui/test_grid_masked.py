"""The grid's masked cells: grey and hatched, as the large view, the legend and the lessons draw
them, not blank like a weight of 0 (issue 35, item 5)."""
from __future__ import annotations

from collections import Counter

import numpy as np

from transviz.core.analysis.walkthrough import KINDS
from transviz.gui.widgets.grid import masked_runs
from transviz.gui.widgets.heatmap import MASKED_FILL


def fill_at(widget, point) -> tuple[int, int, int]:
    """The commonest colour around ``point`` in a grab of ``widget``: a cell's fill under its hatching."""
    image = widget.grab().toImage()
    ratio = image.devicePixelRatio()
    x, y = int(point.x() * ratio), int(point.y() * ratio)
    return Counter(image.pixelColor(x + dx, y + dy).getRgb()[:3] for dx in range(-3, 4) for dy in range(-3, 4)
                   ).most_common(1)[0][0]


def test_the_masked_future_is_grey_and_hatched_in_every_tile(shipped_window, qtbot):
    explorer = shipped_window.panels["explorer"]
    explorer.attention.kind.setCurrentIndex(KINDS.index("decoder_self"))
    for _ in range(3):
        assert explorer.controller.step()
    qtbot.wait(50)
    grid = explorer.attention.grid
    layers, heads = grid.maps.shape[:2]
    masked = grid.tile_position(layers - 1, heads - 1, 0, 2)  # query 0 may not see key 2: the future
    seen = grid.tile_position(layers - 1, heads - 1, 2, 0)
    assert fill_at(grid, masked) == MASKED_FILL.getRgb()[:3]
    assert fill_at(grid, seen) != MASKED_FILL.getRgb()[:3]
    # every masked cell of every tile, the summary column's too, one run a row
    future = np.triu(np.ones((3, 3), bool), k=1)
    expected = sum(int(row.any()) for row in future) * layers * (heads + 1)
    assert len(grid.canvas.picture.masked) == expected


def test_masked_runs_are_the_stretches_of_true_cells():
    cells = np.array([[0, 1, 1, 0, 1], [0, 0, 0, 0, 0], [1, 1, 1, 1, 1]], bool)
    assert masked_runs(cells) == [(0, 1, 2), (0, 4, 1), (2, 0, 5)]
    assert masked_runs(cells, skipped_rows=[2]) == [(0, 1, 2), (0, 4, 1)]
