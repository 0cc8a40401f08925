"""The Why tab with the shipped toy-de-en model: the d_k slider shows what the formulas give for
that d_k (numpy here, not the core), the model's rows under ScaleScores are the softmax of its
own row at another temperature, the shuffle button shows the two largest differences (about 1e-7
without positions, clearly more with them), and without a model the tab says so."""
from __future__ import annotations

import math
import re

import numpy as np
import pytest
from PySide6.QtCore import Qt

import transviz
from transviz.core.analysis.why_scale import D_KS
from transviz.core.teaching.workspace import Workspace
from transviz.gui.panels.why import POSITIONS, SCALE, WhyPanel

SENTENCE = "ich möchte ein bier trinken"
NUMBER = r"(\d+(?:\.\d+)?(?:e[-+]?\d+)?)"


@pytest.fixture(scope="module")
def toy():
    return transviz.load_model("default")


@pytest.fixture
def panel(show):
    return show(WhyPanel(Workspace()), 1366, 700)


@pytest.fixture
def loaded(panel, toy):
    panel.workspace.set_model(toy, sentence=SENTENCE)
    return panel


def numbers(text: str) -> list[float]:
    return [float(n) for n in re.findall(NUMBER, text)]


def shown_statistics(text: str) -> tuple[float, float, float, float, float, float]:
    """Spread, then entropy and gradient norm unscaled, then scaled, as the numbers line reads."""
    (spread,) = re.findall(r"is " + NUMBER + r", close to", text)
    (h_unscaled, j_unscaled), (h_scaled, j_scaled) = re.findall(r"entropy " + NUMBER + r" bits, gradient norm "
                                                                + NUMBER, text)
    return float(spread), float(h_unscaled), float(j_unscaled), float(h_scaled), float(j_scaled)


def entropy_bits(p: np.ndarray) -> float:
    nonzero = p[p > 0]
    return float(-(nonzero * np.log2(nonzero)).sum())


def jacobian_norm(p: np.ndarray) -> float:
    return float(np.linalg.norm(np.diag(p) - np.outer(p, p)))


@pytest.mark.parametrize("d_k", [1, 16, 256])
def test_the_slider_shows_the_formulas_at_its_d_k(panel, d_k):
    scale = panel.scale
    scale.slider.setValue(D_KS.index(d_k))
    assert scale.value.text().startswith(f"d_k = {d_k}, √d_k = {math.sqrt(d_k):.2f}")
    unscaled, scaled = scale.bar_heights()
    assert unscaled.shape == scaled.shape == (10,)
    np.testing.assert_allclose([unscaled.sum(), scaled.sum()], 1.0, rtol=1e-9)
    # log p of the unscaled row is the scores less a constant: dividing it by sqrt(d_k) gives the scaled row
    logits = np.log(unscaled) / math.sqrt(d_k)
    np.testing.assert_allclose(scaled, np.exp(logits - logits.max()) / np.exp(logits - logits.max()).sum(),
                               rtol=1e-6, atol=1e-12)
    spread, h_unscaled, j_unscaled, h_scaled, j_scaled = shown_statistics(scale.numbers.text())
    assert abs(spread / math.sqrt(d_k) - 1) < 0.05
    assert h_unscaled == pytest.approx(entropy_bits(unscaled), abs=5e-4)
    assert h_scaled == pytest.approx(entropy_bits(scaled), abs=5e-4)
    assert j_unscaled == pytest.approx(jacobian_norm(unscaled), rel=5e-3, abs=1e-12)
    assert j_scaled == pytest.approx(jacobian_norm(scaled), rel=5e-3)
    for marker in scale.markers:  # every curve marks the slider's d_k
        assert list(marker.getOriginalDataset()[0]) == [d_k]


def test_without_the_scale_a_large_d_k_saturates(panel):
    panel.scale.slider.setValue(D_KS.index(1024))
    unscaled, scaled = panel.scale.bar_heights()
    assert unscaled.max() > 0.99 and scaled.max() < 0.9
    _, h_unscaled, _, h_scaled, _ = shown_statistics(panel.scale.numbers.text())
    assert h_unscaled < 0.1 < 1.5 < h_scaled


def test_the_models_rows_are_its_own_row_at_other_temperatures(loaded, toy):
    rows = loaded.scale.model_rows
    assert not rows.no_model.isVisibleTo(loaded)
    rows.kind.setCurrentIndex(2)  # cross-attention
    rows.layer.setValue(1)
    rows.head.setValue(2)
    rows.query.setCurrentIndex(1)
    shown = rows.rows_view.data
    plain = transviz.decode(toy, SENTENCE).cross_attention[1, 2, 1]
    d_k = toy.config.d_model // toy.config.n_heads
    assert shown.shape == (4, len(plain)) and rows.rows_view.column_labels() == SENTENCE.split()
    assert rows.rows_view.row_labels()[2] == "×1: the model"
    np.testing.assert_allclose(shown[0], 1 / len(plain), atol=1e-6)  # factor 0: uniform
    np.testing.assert_allclose(shown[2], plain, atol=1e-6)
    for factor, row in zip((0.5, math.sqrt(d_k)), (shown[1], shown[3]), strict=True):
        logits = factor * np.log(plain.astype(np.float64))
        np.testing.assert_allclose(row, np.exp(logits) / np.exp(logits).sum(), atol=2e-5)
    shown_entropies = numbers(rows.rows_note.text().split(":")[1])[1::2]  # "×0 2.32, ×0.5 1.69, ..."
    np.testing.assert_allclose(shown_entropies, [entropy_bits(r.astype(np.float64)) for r in shown], atol=0.006)


def test_shuffling_shows_the_differences_with_and_without_positions(loaded, qtbot):
    loaded.pages.setCurrentIndex(POSITIONS)
    section = loaded.positions
    assert section.shuffle_button.text() == "Shuffle the source words"
    assert section.views[0].row_labels() == SENTENCE.split()
    qtbot.mouseClick(section.shuffle_button, Qt.MouseButton.LeftButton)
    assert section.shuffle_button.text() == "Shuffle again"
    original, shuffled = (line.split(": ", 1)[1] for line in section.order.text().replace("\u2060", "").split("\n"))
    words, order = shuffled.split(" (original positions ")
    permutation = [int(i) for i in order.rstrip(")").split()]
    assert sorted(permutation) == list(range(5)) and permutation != list(range(5))
    assert original.split() == SENTENCE.split() and words.split() == [SENTENCE.split()[i] for i in permutation]
    (with_positions,) = numbers(section.with_result.text())
    (without_positions,) = numbers(section.without_result.text())
    assert without_positions < 1e-5 and with_positions > 1e-3
    # what the heatmaps show, layer 0 head 0: the shuffled map without positions is P A Pᵀ
    P = np.eye(5)[permutation]
    np.testing.assert_allclose(section.views[3].data, P @ section.views[2].data @ P.T, atol=1e-5)
    assert np.abs(section.views[1].data - P @ section.views[0].data @ P.T).max() > 1e-3
    assert section.views[1].row_labels() == words.split()
    qtbot.mouseClick(section.shuffle_button, Qt.MouseButton.LeftButton)  # a new draw, the same claims
    assert numbers(section.without_result.text())[0] < 1e-5 < 1e-3 < numbers(section.with_result.text())[0]


def test_a_new_sentence_in_the_workspace_starts_unshuffled(loaded, qtbot):
    loaded.pages.setCurrentIndex(POSITIONS)
    qtbot.mouseClick(loaded.positions.shuffle_button, Qt.MouseButton.LeftButton)
    loaded.workspace.open("ich mochte ein bier")
    assert loaded.positions.shuffle_button.text() == "Shuffle the source words"
    assert loaded.positions.views[0].row_labels() == ["ich", "mochte", "ein", "bier"]
    assert loaded.positions.with_result.text() == ""


def test_without_a_model_the_tab_says_so_and_the_scale_still_works(panel, qtbot):
    rows = panel.scale.model_rows
    assert rows.no_model.isVisibleTo(panel) and "No model loaded" in rows.no_model.text()
    assert not rows.rows_view.isVisibleTo(panel)
    panel.scale.slider.setValue(D_KS.index(8))
    assert panel.scale.value.text().startswith("d_k = 8,")
    panel.pages.setCurrentIndex(POSITIONS)
    section = panel.positions
    assert section.pages.currentWidget() is section.no_model and "No model loaded" in section.no_model.text()
    assert not section.shuffle_button.isEnabled()
    panel.pages.setCurrentIndex(SCALE)
    panel.workspace.set_model(None)  # and back to none after a model
    assert rows.no_model.isVisibleTo(panel)


def test_hidden_the_tab_runs_nothing_and_catches_up_when_shown(panel, toy):
    panel.hide()
    panel.workspace.set_model(toy, sentence=SENTENCE)
    assert panel.scale.model_rows.rows is None and panel.positions.demo is None  # no copy, no forward pass
    panel.show()
    assert panel.scale.model_rows.rows is not None and panel.scale.model_rows.rows_view.isVisibleTo(panel)
    assert panel.scale.model_rows.model is not toy  # its own copy: interventions never reach the workspace's


def test_a_language_change_redraws_the_same_plots(loaded, qtbot):
    from transviz.gui.services.language import CHINESE, set_language

    scale = loaded.scale
    before = [len(legend.items) for legend in scale.legends], len(scale.markers)
    set_language(CHINESE)
    # the heatmaps' own axis names have a shipped translation: once they show it, every widget has retranslated
    qtbot.waitUntil(lambda: loaded.positions.views[0].axes.column_title == "键（列）", timeout=2000)
    assert ([len(legend.items) for legend in scale.legends], len(scale.markers)) == before
    assert len(scale.bar_heights()) == 2 and len(scale.spread_plot.getPlotItem().listDataItems()) == 3


def test_decoder_self_attention_rows_hatch_the_future(loaded):
    rows = loaded.scale.model_rows
    rows.kind.setCurrentIndex(1)  # decoder self-attention
    rows.query.setCurrentIndex(1)  # the second decoder input: it sees keys 0 and 1
    shown = rows.rows_view.data
    assert np.isnan(shown[:, 2:]).all() and np.isfinite(shown[:, :2]).all()
    np.testing.assert_allclose(shown[0, :2], 0.5, atol=1e-6)  # factor 0: uniform over what it may see
