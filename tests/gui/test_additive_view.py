"""The additive view in the real window with the shipped model: the chosen head's own weights on
the left, the additive fit on the right, timings for both kinds of score, and the fit's error."""
from __future__ import annotations

import numpy as np
import pytest

import transviz
from transviz.core.walkthrough import KINDS, walkthrough
from transviz.gui.main_window import MainWindow


@pytest.fixture
def window(show):
    window = show(MainWindow(), 1366, 768)
    window.workspace.set_model(transviz.load_model("default"), "default", sentence="ich mochte ein bier")
    yield window
    window.shutdown()


def test_the_view_shows_the_heads_weights_and_a_close_additive_fit(window):
    panel = window.panels["concepts"]
    window.tabs.setCurrentWidget(panel)
    panel.select("additive")
    panel.kind.setCurrentIndex(KINDS.index("encoder_self"))
    panel.layer.setValue(1)
    panel.head.setValue(3)
    view = panel.current
    walk = walkthrough(window.workspace.decoding_model, "ich mochte ein bier", "", "encoder_self", 1, 3)
    np.testing.assert_array_equal(view.dot.data, walk.weights)
    assert view.dot.row_labels() == ["ich", "mochte", "ein", "bier"] == view.fitted.column_labels()
    assert np.abs(view.fitted.data - walk.weights).sum(axis=-1).mean() / 2 < 0.05
    assert len(view.times.getPlotItem().listDataItems()) == 2
    assert "At 512 tokens the additive scores took" in view.summary.text()
