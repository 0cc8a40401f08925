"""The positional tab draws the sinusoidal table (both layouts), the chosen dimensions, the
similarity PE·PEᵀ, a loaded model's own table (sine or learned), and what positions inside
attention do: ALiBi's bias (the paper's slopes), T5's buckets and learned bias, RoPE's score."""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import pyqtgraph as pg
import pytest
import torch
from PySide6.QtCore import Qt

import transviz
from transviz.core.analysis.positions_inside import position_bias, rotary_scores
from transviz.core.model.bundle import Model
from transviz.core.model.positional import sinusoidal_table
from transviz.core.model.transformer import Transformer
from transviz.core.teaching.workspace import Workspace
from transviz.gui.panels.positional import (
    HALVES,
    INTERLEAVED,
    MODEL,
    SAMPLE_SENTENCE,
    PositionalPanel,
    parse_dimensions,
)
from transviz.gui.services.language import CHINESE, ENGLISH, set_language


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
    panel.length.setValue(20)
    shown = panel.table_view.displayed_image()
    np.testing.assert_array_equal(shown, model.net.positional[:20].numpy())
    np.testing.assert_allclose(shown, [[formula(p, d, 16) for d in range(16)] for p in range(20)], atol=1e-6)
    assert "loaded model" in panel.table_view.title
    panel.workspace.set_model(None)
    assert panel.source.currentIndex() != MODEL and panel.d_model.isEnabled()
    assert panel.table_view.displayed_image().shape == (20, 16)


def test_a_loaded_model_opens_on_its_own_table_and_the_seeds_figure_is_a_click_away(panel, make_model, qtbot):
    model = make_model()  # d_model 16, max_len 24
    panel.workspace.set_model(model)
    assert panel.source.currentIndex() == MODEL
    assert (panel.length.value(), panel.d_model.value()) == (24, 16)
    np.testing.assert_allclose(panel.table_view.displayed_image(),
                               [[formula(p, d, 16) for d in range(16)] for p in range(24)], atol=1e-6)
    qtbot.mouseClick(panel.seed_figure, Qt.MouseButton.LeftButton)
    assert panel.source.currentIndex() != MODEL and (panel.length.value(), panel.d_model.value()) == (20, 512)
    np.testing.assert_allclose(panel.table_view.displayed_image(),
                               [[formula(p, d, 512) for d in range(512)] for p in range(20)], atol=1e-5)
    assert "20 positions x 512 dimensions, from the formula" in panel.table_view.title


def area_average(values: np.ndarray, pixels: int) -> np.ndarray:
    """Columns averaged over the share of each that ``pixels`` equal pixels cover: every column
    repeated ``pixels`` times, then ``columns`` of those a pixel (exact, and simple to check)."""
    rows, columns = values.shape
    return np.repeat(values, pixels, axis=1).reshape(rows, pixels, columns).mean(axis=2)


def test_a_table_wider_than_its_pixels_is_drawn_area_averaged_without_moire(show, pixels):
    """More columns than pixels: every pixel shows the mean of the columns it covers, as the
    formula evaluated here gives them, not every n-th column (alternating sin / cos columns
    near 0 and 1 would then alias into stripes)."""
    panel = show(PositionalPanel(Workspace()), 1200, 700)
    d_model = 2048
    panel.d_model.setValue(d_model)
    view = panel.table_view
    first, last = view.cell_position(0, 0), view.cell_position(0, d_model - 1)
    cell = (last.x() - first.x()) / (d_model - 1)
    left, width = first.x() - cell / 2, round(d_model * cell)
    assert width < d_model  # the case where columns are dropped unless they are averaged
    table = np.array([[formula(p, d, d_model) for d in range(d_model)] for p in range(20)])
    reference = area_average(table, width)
    grabbed = view.grab().toImage()
    ratio = grabbed.devicePixelRatio()
    from transviz.gui.style import lookup_table

    lut = lookup_table().astype(int)
    for row in (3, 10, 19):
        y = view.cell_position(row, 0).y()
        shown = []
        for x in range(width):
            colour = grabbed.pixelColor(int((left + x + 0.5) * ratio), int(y * ratio))
            index = np.abs(lut - [colour.red(), colour.green(), colour.blue()]).sum(axis=1).argmin()
            shown.append(-1 + 2 * (index + 0.5) / 256)  # the value the colour stands for
        shown = np.array(shown)
        # a pixel may sit half a pixel off the reference's grid: compare with its neighbours too
        error = np.min([np.abs(shown - np.roll(reference[row], shift)) for shift in (-1, 0, 1)], axis=0)
        assert np.mean(error < 0.05) > 0.95, (row, np.mean(error < 0.05))


def test_the_legend_stays_off_the_curves(panel):
    [legend] = [item for item in panel.curves.scene().items() if isinstance(item, pg.LegendItem)]
    data = panel.curves.getPlotItem().getViewBox().sceneBoundingRect()
    assert legend.isVisible() and len(legend.items) == 4
    assert not legend.sceneBoundingRect().intersects(data)
    assert {label.text for _, label in legend.items} == set(panel.curve_data())


def test_before_any_plot_is_pointed_at_the_first_is_current(qtbot):
    """Checked on a panel never shown: a shown one may find the pointer, left by an earlier test in
    this process, already over one of its plots."""
    panel = PositionalPanel(Workspace())
    qtbot.addWidget(panel)
    assert panel.current_plot() is panel.table_view


def test_current_plot_follows_the_mouse(panel, qtbot):
    for plot in (panel.table_view, panel.similarity_view, panel.table_view):
        qtbot.mouseMove(plot)
        qtbot.waitUntil(lambda plot=plot: panel.current_plot() is plot, timeout=2000)


def fairseq(pos: int, dim: int, d_model: int) -> float:
    """fairseq's table from its formula, written apart from transviz: the rates 10000^(-i/(d/2-1)),
    the sin of every rate then the cos, the first token at position 2."""
    half = d_model // 2
    i = dim % half
    angle = (pos + 2) * math.exp(-i * math.log(10000.0) / (half - 1))
    return math.sin(angle) if dim < half else math.cos(angle)


def test_fairseqs_table_is_shown_in_the_formulas_columns_and_named_as_its_own(panel, make_model):
    """M2M100's and FSMT's table (other rates, positions from 2) in the formula's column order,
    with a caption that gives its formula, not the paper's."""
    base = make_model()
    config = dataclasses.replace(base.config, positional="sinusoidal-fairseq")
    model = Model(Transformer(config).eval(), base.src_vocab, base.tgt_vocab)
    panel.workspace.set_model(model)
    assert panel.source.currentIndex() == MODEL
    halves = [[fairseq(p, d, 16) for d in range(16)] for p in range(24)]
    interleaved = np.array(halves)[:, [d // 2 + 8 * (d % 2) for d in range(16)]]  # sin 0, cos 0, sin 1, ...
    np.testing.assert_allclose(panel.table_view.displayed_image(), interleaved, atol=1e-6)
    assert "fairseq" in panel.layout_note.text() and "10000^(i/(d_model/2 - 1))" in panel.layout_note.text()
    panel.workspace.set_model(make_model())
    assert "fairseq" not in panel.layout_note.text()


@pytest.mark.parametrize(("positional", "words"), [("none", "no positions")])
def test_a_model_without_positions_says_why_in_both_languages(panel, make_model, qtbot, positional, words):
    base = make_model()
    config = dataclasses.replace(base.config, positional=positional)
    panel.workspace.set_model(Model(Transformer(config).eval(), base.src_vocab, base.tgt_vocab))

    def entry():  # fetched each time: no wrapper of the item is held while the language changes
        return panel.source.model().item(MODEL)

    english = entry().toolTip()
    assert not entry().isEnabled() and words in english and panel.source.currentIndex() != MODEL
    assert panel.layout_note.text().startswith(english)  # said under the table, not only on hover
    set_language(CHINESE)
    try:  # retranslating must not switch the model's entry back on
        qtbot.waitUntil(lambda: entry().toolTip() != english, timeout=5000)
        assert not entry().isEnabled() and "公式" in entry().toolTip()
        assert panel.layout_note.text().startswith(entry().toolTip())
    finally:
        set_language(ENGLISH)


def variant(make_model, **changes):
    """A tiny model with ``changes``, its weights spread (a learned table starts at 0)."""
    base = make_model()
    net = Transformer(dataclasses.replace(base.config, **changes))
    generator = torch.Generator().manual_seed(3)
    with torch.no_grad():
        for parameter in net.parameters():
            parameter.copy_(0.3 * torch.randn(parameter.shape, generator=generator))
    return Model(net.eval(), base.src_vocab, base.tgt_vocab)


def test_a_learned_table_is_drawn_as_the_model_holds_it(panel, make_model):
    model = variant(make_model, positional="learned")
    panel.workspace.set_model(model)
    assert panel.source.currentIndex() == MODEL
    table = model.net.position_table("encoder").detach().numpy()
    np.testing.assert_allclose(panel.table_view.displayed_image(), table[: panel.length.value()], atol=1e-6)
    assert "learned table" in panel.layout_note.text() and "learned" in panel.similarity_view.title


def test_alibis_bias_of_the_chosen_head_is_drawn_with_every_heads_slope(panel, make_model):
    model = variant(make_model, positional="alibi")
    panel.workspace.set_model(model)
    assert panel.length.value() == 20 and panel.head.isVisibleTo(panel) and not panel.stack.isVisibleTo(panel)
    panel.head.setValue(1)
    heads = model.config.n_heads
    slope = 2.0 ** (-8.0 * 2 / heads)  # head 1's: 2^(-8h/H), h counted from 1
    distance = np.abs(np.arange(20)[:, None] - np.arange(20)[None])
    np.testing.assert_allclose(panel.table_view.displayed_image(), -slope * distance, rtol=1e-6)
    assert len(panel.curves.getPlotItem().listDataItems()) == heads and "ALiBi" in panel.layout_note.text()


def test_t5s_buckets_and_the_heads_learned_bias_are_drawn_for_either_stack(panel, make_model):
    model = variant(make_model, positional="t5", scale_scores=False)
    panel.workspace.set_model(model)
    panel.head.setValue(1)
    for stack, shown in enumerate(("encoder_self", "decoder_self")):
        panel.stack.setCurrentIndex(stack)
        expected = position_bias(model, 20, shown)
        np.testing.assert_array_equal(panel.table_view.displayed_image(), expected.buckets)
        np.testing.assert_allclose(panel.similarity_view.displayed_image(), expected.bias[1], rtol=1e-6)
    assert panel.stack.isVisibleTo(panel) and not panel.layout_choice.isVisibleTo(panel)


def test_ropes_score_is_drawn_over_every_pair_of_positions(panel):
    model = transviz.load_model("rope")
    panel.workspace.set_model(model)
    shown = rotary_scores(model, SAMPLE_SENTENCE, 0, 0, 20)
    np.testing.assert_allclose(panel.table_view.displayed_image(), shown.scores, rtol=1e-5)
    assert "depends on n - m alone" in panel.table_view.title and "RoPE" in panel.layout_note.text()
