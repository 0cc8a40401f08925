"""The Concepts tab's parallel view on the shipped model: three measured curves over the same T
grid, timed once per model and source sentence (not again at each step of the explorer)."""
from __future__ import annotations

import pytest

import transviz
from transviz.core.analysis.concepts.forward import Sentence
from transviz.gui.panels.concepts.base import ConceptContext
from transviz.gui.panels.concepts.parallel import ParallelView


@pytest.fixture(scope="module")
def model():
    return transviz.load_model("default")


def test_three_curves_timed_once_per_sentence(show, model):
    view = show(ParallelView(), 1100, 650)
    view.draw(ConceptContext(model, Sentence("ich mochte ein bier"), "cross", 0, 0))
    curves = view.times_plot.getPlotItem().listDataItems()
    assert len(curves) == 3
    for curve in curves:
        xs, ys = curve.getData()
        assert list(xs) == [8, 16, 32, 64] and all(y > 0 for y in ys)
    first = view.timed
    view.draw(ConceptContext(model, Sentence("ich mochte ein bier", ("i", "want")), "cross", 0, 0))
    assert view.timed is first  # a step in the explorer: the same timings, redrawn
    view.draw(ConceptContext(model, Sentence("ein bier"), "cross", 0, 0))
    assert view.timed is not first and view.timed[1] == "ein bier"
    assert "At T = 64" in view.times_plot.getPlotItem().titleLabel.text
