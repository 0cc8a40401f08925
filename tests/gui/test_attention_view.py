"""The explorer's attention view says what it shows: decoder rows named "input -> written token",
read-outs and status that describe the present state, summaries and colour scales named in the
colour bar, rollout through the decoder, and the encoder's attention before the first step."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt

from transviz.core.decoding.strategies import Beam, Sampling
from transviz.core.model.vocab import BOS
from transviz.core.teaching.workspace import Workspace
from transviz.gui.main_window import MainWindow
from transviz.gui.services.session import SessionController
from transviz.gui.widgets.attention_view import SCALES, SUMMARIES, AttentionView
from transviz.gui.widgets.grid import SUMMARY_COLUMN

SENTENCE = "ich mochte ein bier bitte"
KINDS = {"encoder_self": 0, "decoder_self": 1, "cross": 2}


@pytest.fixture
def view(show, make_model):
    workspace = Workspace()
    workspace.set_model(make_model(layers=2, heads=2))
    workspace.open(SENTENCE)
    controller = SessionController(workspace)
    view = AttentionView(controller)
    controller.setParent(view)
    return show(view, 1200, 700)


def steps(view, count):
    for _ in range(count):
        view.controller.step()


def hover_grid(view, qtbot, layer, head, query, key):
    grid = view.grid
    qtbot.mouseMove(grid.canvas, grid.canvas.rect().topLeft())  # away first: the pointer may already be there
    qtbot.mouseMove(grid.canvas, grid.canvas.mapFrom(grid, grid.tile_position(layer, head, query, key).toPoint()))
    qtbot.waitUntil(lambda: "->" in grid.readout_text(), timeout=2000)
    return grid.readout_text()


def joint_state_rollout(decoder, cross, encoder):
    """Rollout through the decoder as one (T+S) x (T+S) product per sublayer (see the core test)."""
    def encoder_rollout():
        joint = np.eye(encoder.shape[-1])
        for layer in encoder.astype(np.float64):
            a = 0.5 * layer.mean(0) + 0.5 * np.eye(layer.shape[-1])
            joint = (a / a.sum(-1, keepdims=True)) @ joint
        return joint

    memory, (t, s) = encoder_rollout(), cross.shape[2:]
    joint, out = np.eye(t + s), []
    for layer in range(cross.shape[0]):
        a = 0.5 * decoder[layer].astype(np.float64).mean(0) + 0.5 * np.eye(t)
        self_step, cross_step = np.eye(t + s), np.eye(t + s)
        self_step[:t, :t] = a / a.sum(-1, keepdims=True)
        cross_step[:t, :t] *= 0.5
        cross_step[:t, t:] = 0.5 * cross[layer].astype(np.float64).mean(0) @ memory
        joint = cross_step @ self_step @ joint
        out.append(joint[:t, t:] / joint[:t, t:].sum(-1, keepdims=True))
    return np.array(out)


# -- 2. query rows ---------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["cross", "decoder_self"])
def test_decoder_rows_name_the_input_and_the_token_written(view, qtbot, kind):
    steps(view, 3)
    session = view.controller.session
    written = [record.token for record in session.history]
    expected = [f"{BOS} -> {written[0]}", f"{written[0]} -> {written[1]}", f"{written[1]} -> {written[2]}"]
    view.kind.setCurrentIndex(KINDS[kind])
    assert view.large.row_labels() == expected
    assert "input -> token written" in view.large.axes.row_title
    keys = session.source_tokens if kind == "cross" else [BOS, *written[:2]]  # keys stay the inputs
    assert view.large.column_labels() == keys
    assert f"query '{expected[2]}' -> key '{keys[0]}'" in hover_grid(view, qtbot, 1, 0, 2, 0)


# -- 3. stale text ---------------------------------------------------------------------------------
def test_hover_read_out_goes_when_what_it_named_does(view, qtbot, make_model):
    steps(view, 2)
    assert "layer 1, head 1" in hover_grid(view, qtbot, 1, 1, 1, 0)
    view.kind.setCurrentIndex(KINDS["encoder_self"])  # another view: the old cell is gone
    assert view.grid.readout_text() == "Click a head to open it large."
    assert "layer 1" in hover_grid(view, qtbot, 1, 0, 0, 0)
    view.controller.workspace.set_model(make_model(layers=1, heads=2), sentence=SENTENCE)  # one layer
    assert "layer 1" not in view.grid.readout_text() and view.large.readout_text().strip() == ""


def test_status_describes_the_start_after_every_reset(qtbot, make_model):
    window = MainWindow()
    qtbot.addWidget(window)
    window.resize(1400, 900)
    window.show()
    try:
        window.workspace.set_model(make_model())
        explorer = window.panels["explorer"]
        messages = []
        explorer.controls.status.connect(messages.append)
        window.workspace.open(SENTENCE)
        explorer.controller.step()
        explorer.controller.reset()  # Home
        assert messages[-1] == "At the start of the translation: Step (Space) writes the first token."
        explorer.controller.step()
        window.workspace.open(SENTENCE, reference="i want a beer", teacher_forcing=True)  # the start again
        assert messages and not any("nothing to undo" in m for m in messages)
        assert messages[-1] == "At the start of the translation: Step (Space) writes the first token."
    finally:
        window.shutdown()


def test_beam_caption_leaves_with_beam_search(qtbot, make_model):
    window = MainWindow()
    qtbot.addWidget(window)
    window.resize(1400, 900)
    window.show()
    try:
        window.workspace.set_model(make_model())
        explorer = window.panels["explorer"]
        explorer.controls.strategy.choice.setCurrentIndex(2)  # beam search
        assert isinstance(window.workspace.strategy, Beam)
        window.workspace.open(SENTENCE)
        explorer.controller.step()
        assert "in beam search" in explorer.candidates.title
        explorer.controls.strategy.choice.setCurrentIndex(1)  # sampling from the next step on
        assert isinstance(window.workspace.strategy, Sampling)
        assert "beam" not in explorer.candidates.title
    finally:
        window.shutdown()


# -- 9. summaries ----------------------------------------------------------------------------------
def test_max_of_heads_says_rows_do_not_sum_to_one(view):
    steps(view, 2)
    view.summary.setCurrentIndex(SUMMARIES.index("max"))
    view.select(1, SUMMARY_COLUMN)
    assert "do not sum to 1" in view.large.colorbar_title
    assert "no longer sum to 1" in view.summary.itemData(SUMMARIES.index("max"), Qt.ItemDataRole.ToolTipRole)
    view.select(1, 0)  # one head's rows are distributions again
    assert view.large.colorbar_title == "weight, 0..1"


def test_rollout_through_the_decoder_for_cross_attention(view):
    steps(view, 3)
    session = view.controller.session
    view.kind.setCurrentIndex(KINDS["cross"])
    view.summary.setCurrentIndex(SUMMARIES.index("rollout"))
    assert view.summary.model().item(SUMMARIES.index("rollout")).isEnabled()
    expected = joint_state_rollout(session.decoder_self_attention(), session.cross_attention(),
                                   session.encoder_attention)
    np.testing.assert_allclose(view.grid.summary, expected, atol=1e-5)
    np.testing.assert_allclose(view.grid.summary.sum(-1), 1.0, atol=1e-5)
    assert "cross-attention" in view.summary.itemData(SUMMARIES.index("rollout"), Qt.ItemDataRole.ToolTipRole)
    view.kind.setCurrentIndex(KINDS["decoder_self"])  # the chosen summary stays when the kind has it
    assert view.current_summary() == "rollout"
    view.summary.setCurrentIndex(SUMMARIES.index("max"))
    view.kind.setCurrentIndex(KINDS["cross"])
    assert view.current_summary() == "max"


# -- 10. colour scales -----------------------------------------------------------------------------
@pytest.mark.parametrize("scale, axis, words", [("map", (-2, -1), "map's largest"), ("row", (-1,), "row's largest")])
def test_colour_scale_per_map_or_row(view, qtbot, scale, axis, words):
    view.kind.setCurrentIndex(KINDS["encoder_self"])
    view.select(0, 1)
    assert view.large.colorbar_title == "weight, 0..1"
    encoder = view.controller.session.encoder_attention.astype(np.float64)
    view.scale.setCurrentIndex(SCALES.index(scale))
    assert words in view.large.colorbar_title
    np.testing.assert_allclose(view.large.displayed_image(), encoder[0, 1] / encoder[0, 1].max(axis=axis,
                                                                                                 keepdims=True),
                               atol=1e-6)
    rows, columns = encoder.shape[2:]
    origin = view.grid.tile_origin(1, 0)
    tile = view.grid.mosaic()[origin[0]:origin[0] + rows, origin[1]:origin[1] + columns]
    np.testing.assert_allclose(tile, encoder[1, 0] / encoder[1, 0].max(axis=axis, keepdims=True), atol=1e-6)
    assert f"{encoder[1, 0, 2, 1]:.2f}" in hover_grid(view, qtbot, 1, 0, 2, 1)  # the read-out keeps the weight


# -- 17. before the first step ---------------------------------------------------------------------
def test_encoder_attention_is_shown_before_the_first_step(view):
    session = view.controller.session
    assert session.position == 0 and view.current_kind() == "cross"
    assert view.pages.currentIndex() == 1  # not an empty page
    np.testing.assert_array_equal(view.grid.maps, session.encoder_attention)
    assert view.large.row_labels() == session.source_tokens
    assert "has not run yet" in view.grid._title.text() and "encoder self-attention" in view.grid._title.text()
    steps(view, 1)
    assert view.large.row_labels() == [f"{BOS} -> {session.output_tokens[0]}"]
    assert "has not run yet" not in view.grid._title.text()


def test_alignment_lines_from_the_token_written_to_the_source(qtbot, make_model):
    window = MainWindow()
    qtbot.addWidget(window)
    window.resize(1400, 900)
    window.show()
    try:
        window.workspace.set_model(make_model(layers=2, heads=2), sentence=SENTENCE)
        explorer = window.panels["explorer"]
        view, overlay = explorer.attention, explorer.alignment
        explorer.controller.step()
        explorer.controller.step()
        assert not overlay.isVisible()  # an option, off at first
        view.lines.setChecked(True)
        cross = explorer.controller.session.cross_attention()  # (L, H, 2, S)
        view.select(1, SUMMARY_COLUMN)
        np.testing.assert_allclose(overlay.weights, cross[1, :, 1].mean(axis=0), atol=1e-6)  # mean of heads
        view.select(0, 1)
        np.testing.assert_allclose(overlay.weights, cross[0, 1, 1], atol=1e-6)  # the head chosen
        lines = overlay.lines()
        current = explorer.output.chip_rect(2)  # <s>, then the two tokens written: the current one
        start = explorer.output.mapTo(explorer, current.center())
        assert all(abs(s.x() - start.x()) < 1 for s, _, _ in lines)
        sources = [explorer.source.preview.mapTo(explorer, explorer.source.preview.chip_rect(i).center()).x()
                   for i in range(len(SENTENCE.split()))]
        drawn = {round(end.x()): weight for _, end, weight in lines}
        for x, weight in zip(sources, cross[0, 1, 1], strict=True):  # each line ends at its source token
            assert drawn.get(round(x)) == pytest.approx(weight) if weight >= 0.02 else round(x) not in drawn
        # the lines pass behind the Back and Step buttons, which they crossed (issue 35, item 18)
        for button in (explorer.controls.back_button, explorer.controls.step_button):
            centre = button.mapTo(explorer, button.rect().center())
            assert not overlay.covered().contains(centre)
        view.lines.setChecked(False)
        assert not overlay.isVisible()
    finally:
        window.shutdown()
