"""Axis titles longer than their axis: cut with "..." and whole in the tooltip, never running past
the window's edge or under the colour bar (issue 35, item 18)."""
from __future__ import annotations

import numpy as np

from transviz.gui.widgets.heatmap import AxisNames, HeatmapWidget

LONG = "queries: decoder input -> token written by the model at this step (rows)"


def test_a_long_title_is_cut_to_its_axis_and_whole_in_the_tooltip(show, qtbot):
    heatmap = show(HeatmapWidget(), 260, 220)
    heatmap.set_axes(AxisNames("query", "key", LONG, "keys: the source tokens the decoder reads (columns)"))
    heatmap.set_data(np.full((3, 3), 0.3, np.float32), ["a", "b", "c"], ["x", "y", "z"])
    qtbot.wait(50)
    for axis in (heatmap._left, heatmap._bottom):
        length = axis.size().height() if axis.orientation == "left" else axis.size().width()
        shown = axis.label.toPlainText().strip()
        assert shown.endswith("…") and len(shown) < len(axis.toolTip())
        assert axis.label.boundingRect().width() <= length  # along the axis, whatever its turn
    assert heatmap._left.toolTip() == LONG
    heatmap.resize(1600, 1200)  # room again: the whole title, no tooltip
    qtbot.waitUntil(lambda: heatmap._left.label.toPlainText().strip() == LONG, timeout=3000)
    assert heatmap._left.toolTip() == ""


def test_a_restyle_keeps_the_whole_title(show, qtbot):
    """Presentation mode sets every axis title again from the one it has: the whole one."""
    from transviz.gui.services.theme import style_plots
    from transviz.gui.style import plot_style

    heatmap = show(HeatmapWidget(), 260, 220)
    heatmap.set_axes(AxisNames("query", "key", LONG, "keys (columns)"))
    qtbot.wait(50)
    style_plots(heatmap, plot_style())
    heatmap.resize(1600, 1200)
    qtbot.waitUntil(lambda: heatmap._left.label.toPlainText().strip() == LONG, timeout=3000)
