"""The Concepts tab's parallel view on the shipped model: three measured curves over the same T
grid, timed once per model and source sentence (not again at each step of the explorer), beside
the chains of layers that must run one after another; the caption says what the times measure,
with their ratios and the chains' lengths."""
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


def test_the_caption_says_what_one_thread_measures_and_gives_the_chains(show, model):
    view = show(ParallelView(), 1100, 650)
    view.draw(ConceptContext(model, Sentence("ich mochte ein bier"), "cross", 0, 0))
    times = view.timed[2]
    assert times.threads == 1
    layers = model.config.n_decoder_layers
    # the chains by hand: the pass is as deep as the decoder; generating repeats it 64 times; a GRU's wavefront
    assert [list(curve.getData()[1]) for curve in view.chains_plot.getPlotItem().listDataItems()] == [
        [layers] * 4, [t * layers for t in (8, 16, 32, 64)], [t + layers - 1 for t in (8, 16, 32, 64)]]
    caption = view.caption()
    assert f"on one thread (median of {times.repeats}):" in caption
    assert "On one thread nothing runs at the same time: at T = 64 the steps took " \
           f"{times.cached_steps[-1] / times.teacher_forced[-1]:.1f} times as long as the pass" in caption
    assert f"the GRU, looping inside one call, took {times.gru[-1] / times.teacher_forced[-1]:.1f} times" in caption
    assert f"its chain is {layers} layers at any T; generating must wait through {64 * layers}, the GRU, in " \
           f"training too, through {64 + layers - 1}." in caption
