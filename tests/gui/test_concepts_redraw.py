"""Stepping the explorer redraws the hull, FFN, bilinear and additive views by updating the items
they made once: after each step they show what the core computes for the new sentence (numpy
references for the hull), and no plot gathers items from earlier steps."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg

from rounding import assert_close
from transviz.core.analysis.concepts.bilinear import bilinear
from transviz.core.analysis.concepts.forward import Sentence
from transviz.core.analysis.concepts.hull import value_hull


def items(plot: pg.PlotWidget) -> int:
    return len(plot.getPlotItem().items)


def points(item: pg.PlotDataItem) -> np.ndarray:
    """The item's (n, 2) points; pyqtgraph gives None for an item set to no points."""
    x, y = item.getData()
    return np.zeros((0, 2)) if x is None else np.column_stack([x, y])


def steps(window, count: int) -> Sentence:
    for _ in range(count):
        window.panels["explorer"].controller.step()
    return Sentence("ich mochte ein bier", tuple(window.workspace.session.target_tokens[1:]))


def test_the_hull_view_moves_its_points_and_labels(shipped_window, shipped_model):
    panel = shipped_window.panels["concepts"]
    shipped_window.tabs.setCurrentWidget(panel)
    panel.select("hull")
    view = panel.current
    before = items(view.plane)
    for _ in range(3):
        sentence = steps(shipped_window, 1)
        expected = value_hull(shipped_model, sentence, "cross", 0, 0)
        assert_close(points(view._values), expected.points)  # the window computes on its own thread count
        others = np.arange(len(expected.query_tokens)) != expected.current
        assert_close(points(view._outputs), expected.projected[others])
        assert_close(points(view._output), expected.projected[[expected.current]])
        shown = [label.textItem.toPlainText() for label in view._labels if label.isVisible()]
        assert shown == expected.key_tokens
        corners = points(view._hull)
        np.testing.assert_allclose(corners[0], corners[-1])  # closed
        assert view._current.textItem.toPlainText() == expected.query_tokens[expected.current]
    assert items(view.plane) == before  # the labels were there from the first draw: same key tokens


def test_the_ffn_bars_and_the_bilinear_matrix_are_updated_not_remade(shipped_window, shipped_model):
    panel = shipped_window.panels["concepts"]
    shipped_window.tabs.setCurrentWidget(panel)
    panel.select("ffn")
    ffn = panel.current
    before = items(ffn.active)
    steps(shipped_window, 2)
    assert items(ffn.active) == before
    np.testing.assert_allclose(ffn._bars.opts["height"], (ffn.shown.hidden > 0).mean(axis=1))

    panel.select("bilinear")
    view = panel.current
    matrix = view.matrix.data
    sentence = steps(shipped_window, 1)
    assert view.matrix.data is matrix  # W_Z did not change with the step: not set again
    expected = bilinear(shipped_model, sentence, "cross", 0, 0)
    assert_close(view.shown.form, expected.form)
    panel.head.setValue(1)
    np.testing.assert_allclose(view.matrix.data, bilinear(shipped_model, sentence, "cross", 0, 1).matrix, rtol=1e-6)
