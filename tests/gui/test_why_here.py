"""The explorer's "Why here?": right-click a cell of one head, and the masks tab walks through
that head and query; its numbers are checked against attention computed here from the model's
own weights."""
from __future__ import annotations

import copy
import math

import numpy as np
import pytest
import torch
from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtWidgets import QApplication

import transviz
from transviz.core.analysis.walkthrough import KINDS

LAYER, HEAD, QUERY = 1, 1, 2


def reference_weights(model, sentence: str, decoder_inputs: list[str], layer: int, head: int, query: int):
    """Decoder self-attention of one query, from the layer's input and its packed W_Q, W_K (the
    post-norm layer projects its input as it is): softmax(q Kᵀ / sqrt(d_k)) over keys 0..query."""
    src = torch.tensor([model.src_vocab.encode(sentence).ids])
    tgt = torch.tensor([[model.tgt_vocab.stoi[token] for token in decoder_inputs]])
    inputs = []
    net = copy.deepcopy(model.net)  # the masks tab's worker may run the model meanwhile: hook a copy
    hook = net.decoder_layers[layer].register_forward_pre_hook(lambda module, args: inputs.append(args[0]))
    with torch.no_grad():
        net.eval()
        net(src, tgt)
    hook.remove()
    attention = net.decoder_layers[layer].self_attn
    d, d_k = model.config.d_model, model.config.d_model // model.config.n_heads
    x = inputs[0][0].double()  # (T, d)
    weight, bias = attention.in_proj_weight.detach().double(), attention.in_proj_bias.detach().double()
    heads = slice(head * d_k, (head + 1) * d_k)
    q = (x @ weight[:d].T + bias[:d])[:, heads]
    k = (x @ weight[d:2 * d].T + bias[d:2 * d])[:, heads]
    scaled = (q[query] @ k.T / math.sqrt(d_k)).numpy()
    visible = np.arange(len(decoder_inputs)) <= query
    weights = np.where(visible, np.exp(scaled - scaled[visible].max()), 0.0)
    return scaled, weights / weights.sum()


@pytest.fixture
def explored(qtbot):
    """A window with the shipped default model (a trained one writes words, not special tokens)
    and a sentence decoded ``steps`` steps."""
    from transviz.gui.main_window import MainWindow

    windows = []

    def open_window(steps: int):
        window = MainWindow()
        qtbot.addWidget(window)
        windows.append(window)
        window.resize(1400, 900)
        window.show()
        qtbot.waitExposed(window)
        window.workspace.set_model(transviz.load_model("default"), "default")
        window.panels["explorer"].source.sentence.setText("ich mochte ein bier")
        for _ in range(steps):
            assert window.panels["explorer"].controller.step()
        return window

    yield open_window
    for window in windows:
        window.shutdown()


def right_click_and_choose_why_here(qtbot, plot, point: QPoint) -> None:
    """Right-click ``point`` of ``plot`` and pick the menu's first entry with the keyboard."""
    chosen = []

    def choose():
        menu = QApplication.activePopupWidget()
        assert menu is not None
        why = next((a for a in menu.actions() if a.text().startswith("Why here?")), None)
        assert [a.text() for a in menu.actions()][-2:] == ["Export as PNG...", "Export as SVG..."]
        if why is None or not why.isEnabled():
            menu.close()  # not offered: the test fails below, instead of waiting on the menu
            return
        menu.setActiveAction(why)
        qtbot.keyClick(menu, Qt.Key.Key_Return)
        chosen.append(why.text())

    QTimer.singleShot(200, choose)
    event = QContextMenuEvent(QContextMenuEvent.Reason.Mouse, point, plot.mapToGlobal(point))
    QApplication.sendEvent(plot, event)
    assert chosen


def test_why_here_on_a_grid_cell_opens_the_walkthrough_of_that_head_and_query(explored, qtbot):
    window = explored(4)
    explorer = window.panels["explorer"]  # the masks tab is never shown before: "Why here?" builds it
    view = explorer.attention
    view.kind.setCurrentIndex(KINDS.index("decoder_self"))
    session = explorer.controller.session
    inputs = session.target_tokens
    assert len(inputs) > QUERY
    grid = view.grid
    point = grid.tile_position(LAYER, HEAD, QUERY, 0).toPoint()
    assert not window.panels.is_built("masks")
    right_click_and_choose_why_here(qtbot, grid, point)

    masks = window.panels["masks"]
    assert window.tabs.currentWidget() is masks
    qtbot.waitUntil(lambda: masks.steps is not None and masks.steps.query_tokens == inputs, timeout=10000)
    assert masks.current_kind() == "decoder_self" and (masks.layer.value(), masks.head.value()) == (LAYER, HEAD)
    assert masks.query.currentIndex() == QUERY and masks.softmax_view.highlighted_row == QUERY
    assert masks.sentence.text() == session.source and masks.following.isChecked()
    scaled, weights = reference_weights(window.workspace.model, session.source, inputs, LAYER, HEAD, QUERY)
    visible = np.arange(len(inputs)) <= QUERY
    np.testing.assert_allclose(masks.scaled_view.data[QUERY], scaled, atol=1e-5)
    assert np.all(np.isneginf(masks.masked_view.data[QUERY][~visible]))
    np.testing.assert_allclose(masks.softmax_view.data[QUERY], weights, atol=1e-5)
    # the pixel asked about: the explorer's own map (its step-by-step session) at that cell
    np.testing.assert_allclose(grid.maps[LAYER, HEAD, QUERY][visible], weights[visible], atol=1e-5)


def test_why_here_on_the_large_head_takes_its_layer_and_head(explored, qtbot):
    window = explored(3)
    explorer, masks = window.panels["explorer"], window.panels["masks"]
    view = explorer.attention
    view.kind.setCurrentIndex(KINDS.index("cross"))
    view.select(0, 1)
    large = view.large
    right_click_and_choose_why_here(qtbot, large, large.cell_position(1, 0))
    assert window.tabs.currentWidget() is masks
    qtbot.waitUntil(lambda: masks.steps is not None and masks.steps.kind == "cross", timeout=10000)
    assert (masks.steps.layer, masks.steps.head, masks.query.currentIndex()) == (0, 1, 1)
    np.testing.assert_allclose(masks.softmax_view.data[1], large.data[1], atol=1e-5)
