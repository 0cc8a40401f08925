"""The positional tab draws the sinusoidal table (both layouts), the chosen dimensions, the
similarity PE·PEᵀ, and a loaded model's own table."""
from __future__ import annotations

import math

import numpy as np
import pytest

from transviz.core.positional import sinusoidal_table
from transviz.core.workspace import Workspace
from transviz.gui.panels.positional import HALVES, INTERLEAVED, MODEL, PositionalPanel, parse_dimensions


@pytest.fixture
def panel(show):
    return show(PositionalPanel(Workspace()), 1200, 800)


def formula(pos: int, dim: int, d_model: int) -> float:
    angle = pos / 10000 ** ((dim - dim % 2) / d_model)
    return math.sin(angle) if dim % 2 == 0 else math.cos(angle)


def test_defaults_are_the_seeds_20_by_512_table(panel):
    shown = panel.table_view.displayed_image()
    assert shown.shape == (20, 512) and shown.dtype == np.float32
    np.testing.assert_allclose(shown, sinusoidal_table(20, 512).numpy(), atol=1e-6)
    for pos, dim in [(0, 0), (0, 1), (7, 4), (19, 511), (13, 100)]:
        assert shown[pos, dim] == pytest.approx(formula(pos, dim, 512), abs=1e-5)
    assert panel.table_view.row_labels() == [str(p) for p in range(20)]
    assert panel.table_view.column_labels() == [str(d) for d in range(512)]
    assert panel.table_view.levels == (-1.0, 1.0)


def test_split_halves_layout_puts_sin_left_and_cos_right(panel):
    panel.layout_choice.setCurrentIndex(HALVES)
    shown = panel.table_view.displayed_image()
    table = sinusoidal_table(20, 512).numpy()
    np.testing.assert_array_equal(shown[:, :256], table[:, 0::2])
    np.testing.assert_array_equal(shown[:, 256:], table[:, 1::2])
    labels = panel.table_view.column_labels()
    assert labels[:3] == ["0", "2", "4"] and labels[256:259] == ["1", "3", "5"]
    assert panel.table_view.readout(3, 256) == f"position 3, dimension 1: {formula(3, 1, 512):.2f}"
    ticks = [text for _, text in panel.table_view.axis("bottom").tick_labels()]
    assert ticks[0] == "0" and ticks[len(ticks) // 2] == "1"  # each half labelled from its own start
    panel.layout_choice.setCurrentIndex(INTERLEAVED)
    np.testing.assert_array_equal(panel.table_view.displayed_image(), table)


def test_length_and_d_model_are_adjustable(panel):
    panel.length.setValue(7)
    panel.d_model.setValue(10)
    shown = panel.table_view.displayed_image()
    assert shown.shape == (7, 10)
    np.testing.assert_allclose(shown, [[formula(p, d, 10) for d in range(10)] for p in range(7)], atol=1e-6)
    assert panel.similarity_view.displayed_image().shape == (7, 7)


def test_curves_show_the_chosen_dimensions(panel):
    curves = panel.curve_data()
    assert list(curves) == ["dim 4 (sin)", "dim 5 (cos)", "dim 6 (sin)", "dim 7 (cos)"]
    x, y = curves["dim 5 (cos)"]
    np.testing.assert_array_equal(x, np.arange(20))
    np.testing.assert_allclose(y, [formula(p, 5, 512) for p in range(20)], atol=1e-6)
    panel.dimensions.setText("0 511")
    assert list(panel.curve_data()) == ["dim 0 (sin)", "dim 511 (cos)"]
    assert not panel.error.isVisibleTo(panel)


@pytest.mark.parametrize("text,message", [("4, x", "whole numbers"), ("4, 600", "dimension 600 does not exist")])
def test_bad_dimensions_are_named_inline(panel, text, message):
    panel.dimensions.setText(text)
    assert panel.error.isVisibleTo(panel) and message in panel.error.text()
    assert panel.curve_data() == {}
    with pytest.raises(ValueError, match=message):
        parse_dimensions(text, 512)


def test_similarity_is_pe_times_pe_transposed_and_depends_on_offset(panel):
    panel.length.setValue(12)
    panel.d_model.setValue(64)
    table = np.array([[formula(p, d, 64) for d in range(64)] for p in range(12)])
    sims = panel.similarity_view.displayed_image()
    np.testing.assert_allclose(sims, table @ table.T, atol=1e-4)
    for offset in range(12):
        diagonal = np.diagonal(sims, offset)
        np.testing.assert_allclose(diagonal, diagonal[0], atol=1e-4)  # same offset, same similarity


def test_loaded_models_own_table(panel, make_model):
    model_item = panel.source.model().item(MODEL)
    assert not model_item.isEnabled()  # nothing loaded yet
    model = make_model()
    panel.workspace.set_model(model)
    assert model_item.isEnabled()
    panel.source.setCurrentIndex(MODEL)
    assert panel.d_model.value() == model.config.d_model and not panel.d_model.isEnabled()
    assert panel.length.maximum() == model.config.max_len
    shown = panel.table_view.displayed_image()
    np.testing.assert_array_equal(shown, model.net.positional[:20].numpy())
    np.testing.assert_allclose(shown, [[formula(p, d, 16) for d in range(16)] for p in range(20)], atol=1e-6)
    assert "loaded model" in panel.table_view.title
    panel.workspace.set_model(None)
    assert panel.source.currentIndex() != MODEL and panel.d_model.isEnabled()
    assert panel.table_view.displayed_image().shape == (20, 16)


def test_current_plot_follows_the_mouse(panel, qtbot):
    assert panel.current_plot() is panel.table_view
    qtbot.mouseMove(panel.similarity_view)
    qtbot.waitUntil(lambda: panel.current_plot() is panel.similarity_view, timeout=2000)
