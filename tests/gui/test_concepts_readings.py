"""The three readings of attention in the Concepts tab of the real window: each draws what its
core module computes for the explorer's sentence, kind, layer and head, and copes with a single
key (decoder self-attention before the first step)."""
from __future__ import annotations

import numpy as np
import pytest
from concept_views import concept_head

from transviz.core.analysis.concepts.bilinear import bilinear
from transviz.core.analysis.concepts.forward import Sentence
from transviz.core.analysis.concepts.hull import value_hull
from transviz.core.analysis.concepts.lookup import lookup, measure_agreement
from transviz.core.analysis.walkthrough import KINDS


def test_each_reading_draws_its_heads_numbers(shipped_window, shipped_model):
    panel = shipped_window.panels["concepts"]
    shipped_window.tabs.setCurrentWidget(panel)
    shipped_window.panels["explorer"].controller.step()
    written = tuple(shipped_window.workspace.session.target_tokens[1:])
    sentence = Sentence("ich mochte ein bier", written)
    panel.kind.setCurrentIndex(KINDS.index("decoder_self"))
    panel.layer.setValue(1)
    panel.head.setValue(2)
    for name, compute in (("lookup", lookup), ("bilinear", bilinear), ("hull", value_hull)):
        panel.select(name)
        assert panel.head.isVisibleTo(panel) and panel.error.isHidden()
        expected = compute(shipped_model, sentence, "decoder_self", 1, 2)
        shown = panel.current.shown
        for field in ("weights", "matrix", "projected"):
            if hasattr(expected, field):
                np.testing.assert_array_equal(getattr(shown, field), getattr(expected, field))
    assert "bilinear" in panel.list.item(1).text() and "convex region" in panel.claim.text()


@pytest.mark.parametrize("name", ("lookup", "bilinear", "hull"))
def test_before_the_first_step_every_kind_draws(shipped_window, name):
    panel = shipped_window.panels["concepts"]
    shipped_window.tabs.setCurrentWidget(panel)
    panel.select(name)
    for kind in range(len(KINDS)):
        panel.kind.setCurrentIndex(kind)
        assert panel.error.isHidden(), panel.error.text()
        assert panel.current.summary.text()
        if name != "bilinear" and KINDS[kind] != "encoder_self":
            title = panel.current.plots()[0].getPlotItem().titleLabel.text
            assert "'&lt;s&gt;'" in title  # the start token, escaped: plot titles are rich text


def test_the_bilinear_map_draws_w_z_or_its_symmetric_and_antisymmetric_parts(shipped_window):
    panel = shipped_window.panels["concepts"]
    shipped_window.tabs.setCurrentWidget(panel)
    panel.select("bilinear")
    view = panel.current
    whole = np.array(view.matrix.data, copy=True)
    view.part.setCurrentIndex(1)
    symmetric = np.array(view.matrix.data, copy=True)
    assert view.matrix.title.startswith("S of head 0")
    view.part.setCurrentIndex(2)
    antisymmetric = np.array(view.matrix.data, copy=True)
    np.testing.assert_allclose(symmetric, symmetric.T, atol=1e-7)
    np.testing.assert_allclose(antisymmetric, -antisymmetric.T, atol=1e-7)
    np.testing.assert_allclose(symmetric + antisymmetric, whole, atol=1e-6)
    assert view.matrix.levels == (-np.abs(whole).max(), np.abs(whole).max())  # one scale for the three


def test_the_bilinear_caption_counts_the_signs_of_s_eigenvalues(shipped_window, shipped_model):
    """The tutorial's "inner product with W_Z as its metric" does not hold: the caption says how many
    eigenvalues of S are positive and negative, counted here with numpy from the raw weights."""
    panel = concept_head(shipped_window, "bilinear", "cross", 2, 1)
    attention = shipped_model.net.decoder_layers[2].cross_attn
    d, d_k = attention.d_model, attention.d_k
    weight = attention.in_proj_weight.detach().double().numpy()
    bias = attention.in_proj_bias.detach().double().numpy()
    rows = slice(d_k, 2 * d_k)
    matrix = np.vstack([weight[rows].T, bias[rows]]) @ np.vstack([weight[d:][rows].T, bias[d:][rows]]).T
    values = np.linalg.eigvalsh((matrix + matrix.T) / 2)
    cut = 1e-6 * np.abs(values).max()
    positive, negative = int((values > cut).sum()), int((values < -cut).sum())
    assert negative > 0
    text = panel.caption.text()
    assert (f"{positive} positive, {negative} negative and {d + 1 - positive - negative} zero eigenvalues" in text
            and f"all {d + 1} positive" in text and "no metric" in text and "bilinear form" in text), text
    plot = panel.current.singular.getPlotItem()
    signed = [item.getData()[1] for item in plot.listDataItems() if (item.getData()[1] < 0).any()]
    assert len(signed) == 1 and np.allclose(np.sort(signed[0]), np.sort(values), atol=1e-6)


def test_the_lookup_caption_gives_how_often_the_reading_holds_over_the_test_split(shipped_window, shipped_model,
                                                                                   qtbot):
    """"Keys like the best one share its weight" is a tendency: the caption first says the split is
    being counted (off the window's thread), then gives the share of the head's rows where it holds
    and the rank correlation of the row shown, recomputed here from the picture's own numbers."""
    panel = concept_head(shipped_window, "lookup", "cross", 1, 3)
    view = panel.current
    assert "being counted over the test split" in panel.caption.text() and view.background.bar.isVisible()
    qtbot.waitUntil(lambda: "over the test split (rank" in panel.caption.text(), timeout=120_000)
    text = panel.caption.text()
    expected = measure_agreement(shipped_model, "cross")
    cosines, weights = view.shown.key_cosine[1:], view.shown.weights[1:]
    here = float(np.corrcoef(np.argsort(np.argsort(cosines)), np.argsort(np.argsort(weights)))[0, 1])
    assert f"in {expected.share[1, 3]:.0%} of this head's {expected.rows[1, 3]} query rows over the test split" in text
    assert f"mean {expected.mean[1, 3]:.2f}" in text and f"In the row shown it is {here:+.2f}" in text, text
    assert ("here keys more like the best one do not get more weight" in text) == (here <= 0)
    assert 0.5 < expected.share[1, 3] < 1 and not view.background.bar.isVisible()  # a tendency, not a rule
    panel.head.setValue(0)  # another head of the same kind: counted already
    assert f"this head's {expected.rows[1, 0]} query rows" in panel.caption.text()


def test_the_lookup_caption_says_when_the_row_shown_goes_against_the_reading(shipped_window, shipped_model, qtbot):
    """After three steps the cross-attention head 0 of layer 0 gives 'mochte', the key most like the
    best one, almost no weight: the caption says the row shown goes against the reading."""
    panel = shipped_window.panels["concepts"]
    shipped_window.tabs.setCurrentWidget(panel)
    panel.select("lookup")
    for _ in range(3):
        shipped_window.panels["explorer"].controller.step()
    qtbot.waitUntil(lambda: "over the test split (rank" in panel.caption.text(), timeout=120_000)
    shown = panel.current.shown
    ranks = [np.argsort(np.argsort(values)) for values in (shown.key_cosine[1:], shown.weights[1:])]
    here = float(np.corrcoef(*ranks)[0, 1])
    assert here < 0 and shown.key_tokens[int(np.argmax(shown.key_cosine[1:])) + 1] == "mochte"
    assert (f"In the row shown it is {here:+.2f}: here keys more like the best one do not get more weight"
            in panel.caption.text())


def test_without_a_built_in_task_the_lookup_caption_says_there_is_no_split(stepped_window):
    window = stepped_window(1)
    panel = window.panels["concepts"]
    window.tabs.setCurrentWidget(panel)
    panel.select("lookup")
    assert "names no built-in task, so there is no test split" in panel.caption.text()
    assert not panel.current.background.bar.isVisible() and panel.current.shown is not None


def test_after_an_animation_the_lookup_worker_gets_a_copy_of_the_model(shipped_window, shipped_model, qtbot):
    """Frames are drawn at once, on the window's thread, with the explorer's model; a count asked
    for afterwards runs on the worker, which must get a copy, never the model the explorer runs."""
    panel = shipped_window.panels["concepts"]
    shipped_window.tabs.setCurrentWidget(panel)
    panel.select("lookup")
    view = panel.current
    model = shipped_window.workspace.decoding_model
    with panel.drawn_at_once():
        assert view.background.model_copy(model) is model
    assert view.background.model_copy(model) is not model
    panel.kind.setCurrentIndex(KINDS.index("encoder_self"))  # a kind not counted yet: on the worker
    qtbot.waitUntil(lambda: "over the test split (rank" in panel.caption.text(), timeout=120_000)
