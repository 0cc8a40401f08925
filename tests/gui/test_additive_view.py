"""The additive view in the real window with the shipped model: the chosen head's own weights on
the left, the additive fit on the right, timings for both kinds of score (the additive all at once
and by rows), how close the fit is, and a caption that compares like with like and says what a fit
of that many parameters to that many scores can show."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from concept_views import concept_head

import transviz
from transviz.core.analysis.concepts.additive import random_params
from transviz.core.analysis.walkthrough import KINDS, walkthrough


@pytest.fixture
def window(open_window):
    return open_window((1366, 768), model=transviz.load_model("default"), source="default",
                       sentence="ich mochte ein bier")


def test_the_view_shows_the_heads_weights_and_a_close_additive_fit(window):
    panel = concept_head(window, "additive", "encoder_self", 1, 3)
    view = panel.current
    walk = walkthrough(window.workspace.decoding_model, "ich mochte ein bier", "", "encoder_self", 1, 3)
    np.testing.assert_array_equal(view.dot.data, walk.weights)
    assert view.dot.row_labels() == ["ich", "mochte", "ein", "bier"] == view.fitted.column_labels()
    largest = np.abs(view.fitted.data - walk.weights).max()
    assert largest < 1e-6 and view.shown.largest_difference == pytest.approx(largest, abs=1e-7)
    assert len(view.times.getPlotItem().listDataItems()) == 3
    assert f"{view.shown.score_residual:.1e} of their spread" in view.summary.text()
    # four words: 4 x 3 scores to match, fewer than d_k = 32 hidden units, so v alone fits them
    assert view.shown.fit_steps == 0 and view.shown.equations == 12 < view.shown.hidden
    assert "12 scores, 32 hidden units, so v alone fits them" in view.fitted.title
    assert ("This fit proves nothing: 12 scores to match and 32 hidden units, so v alone matches any scores "
            "exactly, by construction.") in panel.caption.text()
    # like with like: the arithmetic by hand, n x n x d both ways; the ratios of what was measured
    shown, n, d = view.shown, 512, walk.d_k
    dot_flops, additive_flops = 2 * n * n * d, 2 * 2 * n * d * d + 4 * n * n * d
    assert (f"the same order of arithmetic, n x n x {d}: at {n} tokens {dot_flops / 1e6:.1f} million operations for "
            f"the dot product, {additive_flops / 1e6:.1f} million for the additive scores") in panel.caption.text()
    assert (f"the additive scores took {shown.additive_seconds[-1] / shown.dot_seconds[-1]:.0f} times the dot "
            f"product's time and {d} times its memory; 16 query rows at a time, "
            f"{shown.rows_seconds[-1] / shown.dot_seconds[-1]:.0f} times its time and "
            f"{max(16 * n * d, n * n) / (n * n):.1f} times its memory") in panel.caption.text()
    # more scores than hidden units, then more than W1, W2 and v hold: 2 x 32 x 32 + 32 parameters
    view.shown = dataclasses.replace(shown, equations=100)
    assert "This fit proves little: 100 scores to match against 2080 parameters" in view.caption()
    view.shown = dataclasses.replace(shown, equations=3000)
    assert "3000 scores to match against 2080 parameters in W1, W2 and v: more points than parameters" in \
        view.caption()


def test_random_parameters_and_the_memory_of_each_way(window):
    panel = window.panels["concepts"]
    window.tabs.setCurrentWidget(panel)
    panel.select("additive")
    panel.kind.setCurrentIndex(KINDS.index("encoder_self"))
    view = panel.current
    fitted_error = view.shown.score_residual
    view.mode.setCurrentIndex(1)  # random: the view draws again by itself
    shown = view.shown
    walk = walkthrough(window.workspace.decoding_model, "ich mochte ein bier", "", "encoder_self", 0, 0)
    w1, w2, v = (t.double().numpy() for t in (lambda p: (p.w1, p.w2, p.v))(random_params(walk.d_k, walk.d_k)))
    scores = np.array([[v @ np.tanh(w1 @ q + w2 @ k) for k in walk.keys] for q in walk.queries])
    expected = np.exp(scores - scores.max(axis=-1, keepdims=True))
    np.testing.assert_allclose(view.fitted.data, expected / expected.sum(axis=-1, keepdims=True), atol=1e-5)
    assert shown.mode == "random" and shown.score_residual > 1e6 * fitted_error
    assert "Untrained" in view.summary.text() and f"{shown.largest_difference:.2f}" in view.summary.text()
    assert "This fit" not in panel.caption.text() and "same order of arithmetic" in panel.caption.text()  # no fit
    memory = view.memory.getPlotItem().listDataItems()
    assert len(memory) == 3
    n = np.array(shown.lengths, dtype=np.float64)
    np.testing.assert_allclose(10 ** memory[0].getData()[1], n * n * 4 / 2 ** 20)
    np.testing.assert_allclose(10 ** memory[1].getData()[1], n * n * walk.d_k * 4 / 2 ** 20)
    blocks = np.maximum(np.minimum(16, n) * n * walk.d_k, n * n)  # 16 query rows' block, or the scores it fills
    np.testing.assert_allclose(10 ** memory[2].getData()[1], blocks * 4 / 2 ** 20)
    view.mode.setCurrentIndex(0)
    assert view.shown.mode == "fitted" and view.shown.score_residual == pytest.approx(fitted_error)
