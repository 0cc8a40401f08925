"""Models whose encoder and decoder differ in depth, in the window: the grid draws each kind's own
layers (never a decoder layer copied from layer 0), the large view and the layer choosers stay
within the chosen kind's stack, and the window names both depths."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from transviz.core.analysis.walkthrough import KINDS
from transviz.core.teaching.workspace import Workspace
from transviz.gui.main_window import MainWindow
from transviz.gui.panels.compare import ComparePanel
from transviz.gui.services.session import SessionController
from transviz.gui.widgets.attention_view import AttentionView

SENTENCE = "ich mochte ein bier bitte"
DEPTHS = [(1, 2), (2, 1)]
VIEW_KINDS = {"encoder_self": 0, "decoder_self": 1, "cross": 2}  # the view's menu order


def full_pass(model, source_tokens: list[str], target_tokens: list[str]) -> dict[str, np.ndarray]:
    """Every map of one forward pass over the session's tokens, without its cache or the session:
    kind -> (layers, heads, queries, keys)."""
    src = torch.tensor([[model.src_vocab.stoi[t] for t in source_tokens]])
    tgt = torch.tensor([[model.tgt_vocab.stoi[t] for t in target_tokens]])
    with torch.no_grad():
        maps = model.net.eval()(src, tgt, return_attention=True).attention
    return {kind: torch.stack([m[0] for m in getattr(maps, kind)]).numpy()
            for kind in ("encoder_self", "decoder_self", "cross")}


@pytest.fixture(params=DEPTHS, ids=["1-encoder-2-decoder", "2-encoder-1-decoder"])
def stepped(request, show, make_model):
    encoder_layers, decoder_layers = request.param
    model = make_model(layers=encoder_layers, decoder_layers=decoder_layers)
    workspace = Workspace()
    workspace.set_model(model)
    workspace.open(SENTENCE)
    controller = SessionController(workspace)
    view = AttentionView(controller)
    controller.setParent(view)
    show(view, 1200, 700)
    for _ in range(3):
        assert controller.step()
    return view, model


@pytest.mark.parametrize("kind", ["encoder_self", "decoder_self", "cross"])
def test_the_grid_draws_each_kinds_own_layers_and_their_maps(stepped, kind):
    view, model = stepped
    view.kind.setCurrentIndex(VIEW_KINDS[kind])
    session = view.controller.session
    layers = model.config.n_encoder_layers if kind == "encoder_self" else model.config.n_decoder_layers
    grid = view.grid
    assert grid.maps.shape[:2] == (layers, model.config.n_heads)
    assert [text for _, text in grid.canvas.picture.row_names] == [f"layer {i}" for i in range(layers)]
    queries, keys = grid.maps.shape[2:]
    assert grid.mosaic().shape[0] == layers * (queries + 1) - 1  # tile rows and the gaps between them
    expected = full_pass(model, session.source_tokens, session.target_tokens)[kind]
    shown = np.where(np.isnan(grid.maps), 0.0, grid.maps)  # the decoder's masked cells are blank (NaN)
    np.testing.assert_allclose(shown, expected, atol=1e-5)
    if kind != "encoder_self":
        assert len(grid.band_rows()) == layers  # the current query outlined once a layer


def test_the_large_view_stays_within_the_kinds_stack(stepped):
    view, model = stepped
    deepest = max(model.config.n_encoder_layers, model.config.n_decoder_layers) - 1
    deeper_kind = "cross" if model.config.n_decoder_layers > model.config.n_encoder_layers else "encoder_self"
    shallower_kind = "encoder_self" if deeper_kind == "cross" else "cross"
    view.kind.setCurrentIndex(VIEW_KINDS[deeper_kind])
    view.select(deepest, 0)
    assert view.selected() == (deepest, 0) and f"layer {deepest}: head 0" in view.large.title
    view.kind.setCurrentIndex(VIEW_KINDS[shallower_kind])
    assert view.selected() == (0, 0)  # the shallower stack's one layer, not a layer it lacks
    np.testing.assert_allclose(np.nan_to_num(view.large.data), np.nan_to_num(view.grid.maps[0, 0]))


@pytest.mark.parametrize(("encoder_layers", "decoder_layers"), DEPTHS)
def test_the_window_names_both_depths_and_the_compare_tab_chooses_within_each(show, make_model, encoder_layers,
                                                                               decoder_layers):
    window = show(MainWindow(), 1366, 768)
    try:
        window.workspace.set_model(make_model(layers=encoder_layers, decoder_layers=decoder_layers), sentence=SENTENCE)
        assert f"{encoder_layers} encoder and {decoder_layers} decoder layers, 2 heads" in window.model_label.text()
        compare = window.panels["compare"]
        assert isinstance(compare, ComparePanel)
        window.tabs.setCurrentWidget(compare)
        compare.run_a.sentence.setText(SENTENCE)
        compare.run_b.sentence.setText("ich mochte ein bier")
        compare.run()
        for kind, layers in (("encoder_self", encoder_layers), ("decoder_self", decoder_layers),
                             ("cross", decoder_layers)):
            compare.kind.setCurrentIndex(KINDS.index(kind))
            assert compare.layer.maximum() == layers - 1, kind
            compare.layer.setValue(layers - 1)
            assert compare.comparison is not None and not compare.error.isVisibleTo(compare), kind
        compare.kind.setCurrentIndex(KINDS.index("encoder_self" if encoder_layers == 1 else "cross"))
        assert compare.layer.value() == 0  # a layer the chosen stack lacks is never chosen
        assert compare.comparison is not None and not compare.error.isVisibleTo(compare)
    finally:
        window.shutdown()


def test_equal_depths_keep_the_one_count(show, make_model):
    window = show(MainWindow(), 1366, 768)
    try:
        window.workspace.set_model(make_model(layers=2), sentence=SENTENCE)
        assert "2 layers, 2 heads" in window.model_label.text() and "encoder" not in window.model_label.text()
    finally:
        window.shutdown()
