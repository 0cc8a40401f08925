"""The heads-similarity view in the real window with the shipped model: it shows the clustered
matrix of the chosen kind with its heads named, names the most alike pair, and a click on a cell
makes the explorer's session decode with the later head copying the earlier one's pattern."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF, Qt

from transviz.core.concepts.similarity import head_similarity
from transviz.core.interventions import AblateHead
from transviz.core.walkthrough import KINDS


def click_cell(qtbot, heatmap, row: int, column: int) -> None:
    """A real left click at the centre of a cell, through pyqtgraph's scene."""
    box = heatmap._plot.getViewBox()
    point = heatmap._view.mapFromScene(box.mapViewToScene(QPointF(column + 0.5, row + 0.5)))
    qtbot.mouseClick(heatmap._view.viewport(), Qt.MouseButton.LeftButton, pos=point)


def test_the_view_shows_every_head_of_the_chosen_kind_clustered(shipped_window, shipped_model):
    panel = shipped_window.panels["concepts"]
    shipped_window.tabs.setCurrentWidget(panel)
    panel.select("heads-similarity")
    panel.kind.setCurrentIndex(KINDS.index("decoder_self"))
    view = panel.current
    names = [f"L{layer} H{head}" for layer in range(3) for head in range(4)]
    assert sorted(view.matrix.row_labels()) == sorted(names) and view.matrix.column_labels() == view.matrix.row_labels()
    assert panel.kind.isVisibleTo(panel) and not panel.layer.isVisibleTo(panel) and not panel.head.isVisibleTo(panel)
    expected = head_similarity(shipped_model, "decoder_self")
    a, b, _ = expected.most_alike()
    shown = np.array([[expected.divergence[expected.heads.index(_head(r)), expected.heads.index(_head(c))]
                       for c in view.matrix.column_labels()] for r in view.matrix.row_labels()])
    np.testing.assert_allclose(view.matrix.data, shown, atol=1e-6)
    assert f"Most alike: L{a[0]} H{a[1]} and L{b[0]} H{b[1]}" in view.summary.text()


def _head(name: str) -> tuple[int, int]:
    layer, head = name.split()
    return int(layer[1:]), int(head[1:])


def test_clicking_a_cell_lets_the_later_head_copy_the_other_in_the_explorer(shipped_window, shipped_model, qtbot):
    panel = shipped_window.panels["concepts"]
    shipped_window.tabs.setCurrentWidget(panel)
    panel.select("heads-similarity")
    panel.kind.setCurrentIndex(KINDS.index("cross"))
    view = panel.current
    labels = view.matrix.row_labels()
    row, column = labels.index("L2 H1"), labels.index("L0 H3")
    click_cell(qtbot, view.matrix, row, column)
    copy = AblateHead("cross", 2, 1, "copy", (0, 3))
    assert shipped_window.workspace.interventions == (copy,)
    session = shipped_window.workspace.session
    assert session.interventions == (copy,)
    shipped_window.panels["explorer"].controller.step()
    record = session.history[-1]
    assert record.interventions == (copy,)
    np.testing.assert_allclose(record.cross_rows[2, 1], record.cross_rows[0, 3], atol=1e-6)  # the copied pattern
    click_cell(qtbot, view.matrix, row, row)  # a head with itself: nothing to copy
    assert shipped_window.workspace.interventions == (copy,)
