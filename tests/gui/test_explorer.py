"""The explorer tab in the real window with real tiny models: what the grid and the large view
draw is the session's attention (checked against a separate teacher-forced forward pass too),
rows are queries, and every control, key and click does what it says."""
from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication

import transviz
from transviz.core.decoding.session import DecodingSession
from transviz.core.decoding.strategies import Beam, Greedy, Sampling
from transviz.core.model.vocab import BOS, EOS, PAD, UNK
from transviz.core.teaching.workspace import TOP_K
from transviz.gui.widgets.beam_tree import SEPARATOR
from transviz.gui.widgets.grid import GAP, SUMMARY_COLUMN

SENTENCE = "ich mochte ein bier bitte"
AT_THE_START = "At the start of the translation: Step (Space) writes the first token."


def with_bias(model, **bias):
    """Push the model's next-token logits for some tokens up or down (e.g. never the end token)."""
    with torch.no_grad():
        for token, value in bias.items():
            model.net.generator.bias[model.tgt_vocab.stoi[token]] += value
    return model


def plain_words(model):
    """Never a special token: decoding writes words until the length limit."""
    return with_bias(model, **{PAD: -1e4, BOS: -1e4, EOS: -1e4, UNK: -1e4})


@pytest.fixture
def window(open_window):
    return open_window(active=True)


@pytest.fixture
def model(make_model):
    return plain_words(make_model(layers=2, heads=3))


def open_sentence(window, qtbot, model, sentence=SENTENCE):
    """Load the model and type the sentence, then Enter: the keys are the explorer's."""
    window.workspace.set_model(model)
    explorer = window.panels["explorer"]
    explorer.source.sentence.clear()
    qtbot.keyClicks(explorer.source.sentence, sentence)
    qtbot.keyClick(explorer.source.sentence, Qt.Key.Key_Return)
    assert explorer.hasFocus()
    return explorer


def press(window, key, times=1):
    """Key presses as the user makes them: to the widget with the focus."""
    from PySide6.QtTest import QTest

    for _ in range(times):
        QTest.keyClick(window.focusWidget() or window, key)


def click(widget, point: QPoint, qtbot):
    qtbot.mouseClick(widget, Qt.MouseButton.LeftButton, pos=point)


def settle(widget):
    """Paint once and let the layout that painting asks for run (pyqtgraph sizes its axes for
    their labels after a first paint), so that cell positions are final."""
    from PySide6.QtWidgets import QApplication

    widget.grab()
    QApplication.processEvents()
    widget.grab()
    QApplication.processEvents()


def tile(grid, layer, head, queries, keys):
    row, column = grid.tile_origin(layer, head)
    return grid.mosaic()[row:row + queries, column:column + keys]


# -- the test: type, Space x 3, the pictures are the session's arrays ----------------------------

def test_space_three_times_shows_the_sessions_attention(window, qtbot, model, tmp_path, pixels):
    path = transviz.save_model(model, tmp_path / "words.safetensors")
    with qtbot.waitSignal(window.model_changed, timeout=10000):
        window.files.open(path)  # a real file, loaded off the GUI thread
    loaded = window.workspace.model
    explorer = window.panels["explorer"]
    explorer.source.sentence.clear()
    qtbot.keyClicks(explorer.source.sentence, SENTENCE)
    qtbot.keyClick(explorer.source.sentence, Qt.Key.Key_Return)
    press(window, Qt.Key.Key_Space, 3)
    session = explorer.controller.session
    assert session.position == 3 and session.source == SENTENCE
    cross = session.cross_attention()  # (L, H, 3, S)
    layers, heads, queries, keys = cross.shape
    assert (queries, keys) == (3, 5)  # not square: a transposed picture cannot pass

    # a separate forward pass over the same tokens (no cache) gives the same maps
    outputs = session.output_tokens
    reference = transviz.teacher_force(loaded, SENTENCE, " ".join(outputs[:2]))
    np.testing.assert_allclose(cross, reference.cross_attention, atol=1e-5)
    assert session.target_tokens == reference.target_tokens == [BOS, *outputs[:2]]

    grid = explorer.attention.grid
    for layer in range(layers):
        for head in range(heads):
            np.testing.assert_array_equal(tile(grid, layer, head, queries, keys), cross[layer, head])
        mean = sum(cross[layer, h] for h in range(heads)) / heads
        np.testing.assert_allclose(tile(grid, layer, SUMMARY_COLUMN, queries, keys), mean, atol=1e-6)
    assert grid.band_rows() == [layer * (queries + GAP) + 2 for layer in range(layers)]  # the current query

    viewport = grid.canvas
    with qtbot.waitSignal(grid.cell_clicked, timeout=2000):
        click(viewport, viewport.mapFrom(grid, grid.tile_position(1, 2, 0, 0).toPoint()), qtbot)
    large = explorer.attention.large
    settle(large)  # the new labels' widths lay the axes out again
    np.testing.assert_array_equal(large.displayed_image(), cross[1, 2])
    # row t is fed input t and writes output t: its label names both (not only the input)
    rows = [f"{BOS} -> {outputs[0]}", f"{outputs[0]} -> {outputs[1]}", f"{outputs[1]} -> {outputs[2]}"]
    assert large.row_labels() == rows and large.column_labels() == SENTENCE.split()
    assert large.highlighted_row == 2
    assert "queries" in large.axes.row_title and "keys" in large.axes.column_title
    assert large.title == "cross-attention, layer 1: head 2"
    for query, key in [(0, 4), (2, 0), (1, 3)]:  # the pixels: row = query, column = key
        shown = pixels.at(large, large.cell_position(query, key))
        assert pixels.shows(shown, cross[1, 2, query, key]), (query, key)
    view = large._view.viewport()
    qtbot.mouseMove(view, view.mapFrom(large, large.cell_position(2, 1)))
    qtbot.waitUntil(lambda: "->" in large.readout_text(), timeout=2000)
    assert large.readout_text() == f"query '{rows[2]}' -> key 'mochte': {cross[1, 2, 2, 1]:.2f}"


def test_back_restores_the_previous_image(window, qtbot, model):
    explorer = open_sentence(window, qtbot, model)
    press(window, Qt.Key.Key_Space, 2)
    grid, large = explorer.attention.grid, explorer.attention.large
    before = grid.mosaic().copy(), large.displayed_image().copy(), large.row_labels()
    press(window, Qt.Key.Key_Space)
    assert grid.mosaic().shape != before[0].shape
    press(window, Qt.Key.Key_Left)
    assert explorer.controller.session.position == 2
    np.testing.assert_array_equal(grid.mosaic(), before[0])
    np.testing.assert_array_equal(large.displayed_image(), before[1])
    assert large.row_labels() == before[2]


def test_clicking_a_candidate_forces_it(window, qtbot, model):
    explorer = open_sentence(window, qtbot, model)
    press(window, Qt.Key.Key_Space, 2)
    session = explorer.controller.session
    record = session.history[-1]
    bars = explorer.candidates.bars()
    assert bars == [(c.token, pytest.approx(c.probability)) for c in record.candidates] and len(bars) == TOP_K
    assert explorer.candidates.bar_colour(0) != explorer.candidates.bar_colour(1)  # the chosen one stands out
    other = record.candidates[1].token
    bars = explorer.candidates.bars_widget
    click(bars, bars.mapFrom(explorer.candidates, explorer.candidates.bar_position(1)), qtbot)
    assert session.position == 2
    assert session.history[-1].token == other and session.history[-1].forced
    expected = DecodingSession(model, SENTENCE)
    expected.step()
    expected.force(other)
    assert session.output_tokens == expected.output_tokens
    chips = explorer.output.chips
    assert [c.text for c in chips] == [BOS, *session.output_tokens]
    assert [c.forced for c in chips] == [False, False, True] and chips[-1].current and chips[-1].label == other + "*"


def test_clicking_an_earlier_output_token_rewinds(window, qtbot, model):
    explorer = open_sentence(window, qtbot, model)
    press(window, Qt.Key.Key_Space, 4)
    first = explorer.controller.session.output_tokens[0]
    click(explorer.output, explorer.output.chip_rect(1).center(), qtbot)
    session = explorer.controller.session
    assert session.position == 1 and session.output_tokens == [first]
    assert [c.text for c in explorer.output.chips] == [BOS, first] and explorer.output.chips[1].current
    click(explorer.output, explorer.output.chip_rect(0).center(), qtbot)  # the start token: back to 0
    assert session.position == 0


def test_keyboard_shortcuts(window, qtbot, model):
    explorer = open_sentence(window, qtbot, model)
    session = explorer.controller.session
    press(window, Qt.Key.Key_Right, 3)
    assert session.position == 3
    press(window, Qt.Key.Key_Left)
    assert session.position == 2
    press(window, Qt.Key.Key_Home)
    assert session.position == 0
    press(window, Qt.Key.Key_P)
    assert explorer.controls.playing
    press(window, Qt.Key.Key_P)
    assert not explorer.controls.playing
    # in the sentence box the keys type: no step, and the session follows the new text
    explorer.source.sentence.setFocus()
    qtbot.keyClick(explorer.source.sentence, Qt.Key.Key_End)
    qtbot.keyClick(explorer.source.sentence, Qt.Key.Key_Space)
    qtbot.keyClicks(explorer.source.sentence, "ein")
    assert explorer.source.sentence.text() == SENTENCE + " ein"
    assert explorer.controller.session.position == 0 and explorer.controller.session.source == SENTENCE + " ein"


def test_disabled_controls_say_why(window, qtbot, make_model):
    ends_at_once = with_bias(make_model(), **{EOS: 1e4})
    explorer = open_sentence(window, qtbot, ends_at_once)
    controls = explorer.controls
    assert not controls.back_button.isEnabled() and not controls.reset_button.isEnabled()
    assert controls.back_button.toolTip() == "nothing to undo: this is the start of the translation"
    # the status bar says where the translation stands, not what an untried Back could not do
    assert window.statusBar().currentMessage() == AT_THE_START
    press(window, Qt.Key.Key_Left)  # refused: the status bar says why
    assert window.statusBar().currentMessage() == "nothing to undo: this is the start of the translation"
    press(window, Qt.Key.Key_Space)
    session = explorer.controller.session
    assert session.output_tokens == [EOS] and session.stop_reason == "end"
    for button in (controls.step_button, controls.run_button, controls.play_button):
        assert not button.isEnabled()
        assert "ended with the end token" in button.toolTip()
    assert "ended with the end token" in window.statusBar().currentMessage()
    assert controls.back_button.isEnabled()
    press(window, Qt.Key.Key_Left)  # Step can act again: its reason goes, the start (step 0 again) is said
    assert controls.step_button.isEnabled()
    assert window.statusBar().currentMessage() == AT_THE_START


def test_play_reaches_the_end(window, qtbot, make_model):
    model = plain_words(make_model(max_len=6))
    explorer = open_sentence(window, qtbot, model)
    controls = explorer.controls
    controls.speed.setValue(controls.speed.maximum())
    with qtbot.waitSignal(controls.playing_changed, timeout=2000, check_params_cb=lambda on: on):
        controls.play_button.click()
    with qtbot.waitSignal(controls.playing_changed, timeout=10000, check_params_cb=lambda on: not on):
        pass
    session = explorer.controller.session
    assert session.position == 6 and session.stop_reason == "max_len"
    assert not controls.play_button.isChecked() and controls.play_button.text() == "Play (P)"
    assert session.output_tokens == transviz.decode(model, SENTENCE, max_len=6).output_tokens


def test_run_to_end_and_reset(window, qtbot, make_model):
    model = plain_words(make_model(max_len=7))
    explorer = open_sentence(window, qtbot, model)
    explorer.controls.run_button.click()
    session = explorer.controller.session
    assert session.position == 7 and len(explorer.output.chips) == 8
    np.testing.assert_array_equal(tile(explorer.attention.grid, 0, 0, 7, 5), session.cross_attention()[0, 0])
    explorer.controls.reset_button.click()
    # cross-attention has no row yet: the encoder's self-attention it will read is shown meanwhile
    view = explorer.attention
    assert session.position == 0 and view.pages.currentIndex() == 1 and view.current_kind() == "cross"
    np.testing.assert_array_equal(view.grid.maps, session.encoder_attention)


def test_strategy_switch(window, qtbot, model):
    explorer = open_sentence(window, qtbot, model)
    editor = explorer.controls.strategy
    editor.choice.setCurrentIndex(1)  # sampling
    editor.temperature.setValue(1.5)
    editor.top_k.setValue(3)
    editor.seed.setValue(11)
    session = explorer.controller.session
    assert session.strategy == Sampling(temperature=1.5, top_k=3, top_p=1.0, seed=11)
    press(window, Qt.Key.Key_Space, 4)
    expected = DecodingSession(model, SENTENCE, strategy=Sampling(temperature=1.5, top_k=3, seed=11))
    for _ in range(4):
        expected.step()
    assert session.output_tokens == expected.output_tokens
    editor.choice.setCurrentIndex(2)  # beam search, from the next step on
    editor.beam_width.setValue(3)
    assert session.strategy == Beam(width=3, length_penalty=1.0) and explorer.beam_tree.isVisible()
    editor.choice.setCurrentIndex(0)
    assert session.strategy == Greedy() and not explorer.beam_tree.isVisible()
    explorer.source.sentence.setText("ein bier")  # a new sentence keeps the chosen strategy
    assert explorer.controller.session.strategy == Greedy()


def two_places(score):
    """A score as the tree writes it (a score that rounds to zero has no minus sign)."""
    return f"{score:.2f}".replace("-0.00", "0.00")


def test_beam_tree_holds_the_sessions_hypotheses(window, qtbot, model):
    explorer = open_sentence(window, qtbot, model)
    editor = explorer.controls.strategy
    editor.choice.setCurrentIndex(2)
    editor.beam_width.setValue(3)
    press(window, Qt.Key.Key_Space, 3)
    session = explorer.controller.session
    history = session.beam_history
    assert [len(b.hypotheses) for b in history] == [1, 3, 3, 3]
    tree = explorer.beam_tree
    expected_points = [(0.0, 0.0)] + [(float(b.position), float(rank)) for b in history[1:]
                                      for rank in range(len(b.hypotheses))]
    assert tree.drawn_points() == expected_points
    expected_labels = [BOS] + [f"{h.tokens[-1]}{SEPARATOR}{two_places(h.normalized_score)}"
                               for b in history[1:] for h in b.hypotheses]
    assert tree.drawn_labels() == expected_labels
    expected_edges = [((b.position - 1.0, float(h.parent)), (float(b.position), float(rank)))
                      for b in history[1:] for rank, h in enumerate(b.hypotheses)]
    assert tree.drawn_edges() == expected_edges
    best = [0]  # the best hypothesis's ancestors, rank by rank, read from the parents
    for beam in reversed(history[1:]):
        best.append(beam.hypotheses[best[-1]].parent)
    assert tree.best_path_points() == [(float(s), float(r)) for s, r in enumerate(reversed(best))]
    # the output strip follows the best hypothesis, the one the attention shows
    assert [c.text for c in explorer.output.chips] == [BOS, *history[-1].best.tokens]
    assert explorer.attention.grid.maps.shape[2] == 3
    reference = transviz.teacher_force(model, SENTENCE, " ".join(history[-1].best.tokens[:2]))
    np.testing.assert_allclose(session.cross_attention(), reference.cross_attention, atol=1e-5)
    np.testing.assert_array_equal(tile(explorer.attention.grid, 1, 1, 3, 5), session.cross_attention()[1, 1])


def test_teacher_forcing_shows_gold_and_predicted(window, qtbot, make_model):
    model = make_model(seed=3)
    explorer = open_sentence(window, qtbot, model, "ich mochte ein bier")
    source = explorer.source
    source.teacher.setChecked(True)
    source.reference.setText("i want a beer")
    session = explorer.controller.session
    assert session.teacher_forcing and not explorer.controls.strategy.isEnabled()
    QApplication.processEvents()  # the layout takes the reference's tokens
    # the summary grows with every step: neither the buttons (under the pointer) nor the maps move
    placed = (explorer.controls.step_button, explorer.controls.run_button, explorer.legend, explorer.pages)
    before = [(widget.mapTo(window, QPoint(0, 0)), widget.height()) for widget in placed]
    explorer.take_keyboard()
    press(window, Qt.Key.Key_Space, 5)
    QApplication.processEvents()
    assert explorer.source.summary.text().startswith("Teacher forcing, 5 steps")
    assert [(widget.mapTo(window, QPoint(0, 0)), widget.height()) for widget in placed] == before
    gold = transviz.teacher_force(model, "ich mochte ein bier", "i want a beer")
    chips = explorer.output.chips[1:]
    assert [c.text for c in chips] == gold.output_tokens == ["i", "want", "a", "beer", EOS]
    assert [c.below for c in chips] == gold.predicted_tokens
    right = [p == g for p, g in zip(gold.predicted_tokens, gold.output_tokens, strict=True)]
    assert [c.below_right for c in chips] == right
    assert "Teacher forcing" in explorer.candidates.title
    explorer.controller.choose_instead("please")  # the reference chooses: refused, nothing changes
    assert "Teacher forcing feeds the reference" in window.statusBar().currentMessage()
    assert session.output_tokens == gold.output_tokens


def test_sentence_problems_are_shown_inline(window, qtbot, model):
    explorer = open_sentence(window, qtbot, model)
    source = explorer.source
    source.sentence.setText("")
    assert source.error.isVisible() and "empty" in source.error.text()
    assert explorer.controller.session is None and explorer.attention.pages.currentIndex() == 0
    source.sentence.setText("zebra giraffe")
    assert "none of the words" in source.error.text() and explorer.controller.session is None
    assert [c.unknown for c in source.preview.chips] == [True, True]
    source.sentence.setText("ich mag bier")
    assert not source.error.isVisible() and explorer.controller.session.source == "ich mag bier"
    chips = source.preview.chips
    assert [c.text for c in chips] == ["ich", "mag", "bier"] and [c.unknown for c in chips] == [False, True, False]
    assert source.preview.tooltip_at(1) == "'mag' is not in this model's vocabulary: the model reads it as <unk>"
    source.sentence.setText(" ".join(["ich"] * 30))  # longer than the model reads (max_len 24)
    assert "at most 24" in source.error.text()
    press(window, Qt.Key.Key_Space)  # no session: the status bar says what to do
    assert window.statusBar().currentMessage() == "Type a sentence to translate first."


def test_a_sentence_too_long_for_the_model_says_so_in_the_centre_and_where_it_is_typed(window, qtbot, model):
    """The centre once said "Type a sentence above..." beside a sentence of 30 words."""
    explorer = open_sentence(window, qtbot, model)
    assert explorer.source.sentence.toolTip() == "This model reads at most 24 tokens per sentence"
    explorer.source.sentence.setText(" ".join(["ich"] * 30))
    hint = explorer.attention.hint
    assert explorer.attention.pages.currentWidget() is hint and hint.isVisible()
    assert hint.text() == "This sentence cannot be shown: the sentence has 30 tokens; this model reads at most 24."
    explorer.source.sentence.setText("")  # no sentence: the invitation to type one
    assert hint.text() == "Type a sentence above to see its attention."
    explorer.source.sentence.setText(SENTENCE)
    assert explorer.attention.pages.currentIndex() == 1


def test_examples_of_the_models_task(window, qtbot, model):
    model.facts["task"] = "toy-de-en"
    window.workspace.set_model(model)
    source = window.panels["explorer"].source
    examples = [source.examples.itemText(i) for i in range(source.examples.count())]
    assert examples[0] == "ich mochte ein bier" and len(examples) == 10
    assert source.sentence.text() == "ich mochte ein bier"  # the first example opens at once
    assert window.panels["explorer"].controller.session.source == "ich mochte ein bier"
    source.examples.activated.emit(2)
    assert source.sentence.text() == "ich möchte ein bier trinken"
    assert source.reference.text() == "i want to drink a beer" and source.examples.currentIndex() == 2
    source.sentence.setText("ich trinke")  # the user's own sentence: no example is shown as chosen
    assert source.examples.currentIndex() == -1 and source.examples.currentText() == ""
    model.facts["task"] = "my-corpus"
    window.workspace.set_model(model)
    assert source.examples.count() == 0 and not source.examples.isEnabled()


def rollout_reference(maps):
    """Abnar & Zuidema's rollout, written out: (0.5 A + 0.5 I) row-normalised, multiplied upwards."""
    joint = None
    out = []
    for layer in maps.astype(np.float64):
        a = 0.5 * layer.mean(axis=0) + 0.5 * np.eye(layer.shape[-1])
        a = a / a.sum(axis=-1, keepdims=True)
        joint = a if joint is None else a @ joint
        out.append(joint)
    return np.array(out)


def test_kinds_and_summaries(window, qtbot, model):
    explorer = open_sentence(window, qtbot, model)
    press(window, Qt.Key.Key_Space, 4)
    session, view = explorer.controller.session, explorer.attention
    grid, large = view.grid, view.large

    view.kind.setCurrentIndex(0)  # encoder self-attention: source x source, no current query
    encoder = session.encoder_attention
    np.testing.assert_array_equal(grid.maps, encoder)
    assert grid.query is None and large.row_labels() == large.column_labels() == SENTENCE.split()
    assert "source tokens" in large.axes.row_title
    view.summary.setCurrentIndex(2)  # rollout
    np.testing.assert_allclose(grid.summary, rollout_reference(encoder), atol=1e-5)

    view.kind.setCurrentIndex(1)  # decoder masked self-attention: the future is masked, not "low"
    decoder = session.decoder_self_attention()  # (L, H, 4, 4), zero above the diagonal
    future = np.triu(np.ones((4, 4), bool), k=1)
    assert (decoder[..., future] == 0).all()
    shown = grid.maps
    assert np.isnan(shown[..., future]).all()
    np.testing.assert_array_equal(shown[..., ~future], decoder[..., ~future])
    np.testing.assert_allclose(grid.summary[..., ~future], rollout_reference(decoder)[..., ~future], atol=1e-5)
    view.select(1, SUMMARY_COLUMN)
    assert large.title == "decoder masked self-attention, layer 1: rollout through layers 0..1"
    np.testing.assert_allclose(large.displayed_image()[~future], rollout_reference(decoder)[1][~future], atol=1e-5)
    view.summary.setCurrentIndex(1)  # max of heads
    np.testing.assert_array_equal(grid.summary[..., ~future], decoder.max(axis=1)[..., ~future])

    view.summary.setCurrentIndex(2)
    view.kind.setCurrentIndex(2)  # cross: rollout through the decoder into the encoder; the choice stays
    assert view.current_summary() == "rollout" and view.summary.model().item(2).isEnabled()
    assert grid.summary.shape == session.cross_attention().shape[:1] + session.cross_attention().shape[2:]
    np.testing.assert_allclose(grid.summary.sum(-1), 1.0, atol=1e-5)


def test_masks_tab_follows_the_explorer(window, qtbot, model):
    explorer = open_sentence(window, qtbot, model)
    press(window, Qt.Key.Key_Space, 3)
    session = explorer.controller.session
    masks = window.panels["masks"]
    window.tabs.setCurrentWidget(masks)
    assert masks.sentence.text() == SENTENCE and masks.sentence.isReadOnly()
    assert masks.target.text() == " ".join(session.output_tokens[:2])
    assert masks.steps.query_tokens == session.target_tokens
    masks.following.setChecked(False)  # the user's own sentence from now on
    masks.sentence.setText("ein bier")
    window.tabs.setCurrentWidget(explorer)
    press(window, Qt.Key.Key_Space)
    window.tabs.setCurrentWidget(masks)
    assert masks.sentence.text() == "ein bier" and not masks.sentence.isReadOnly()
    masks.others.setText("bitte")  # the example batch stays editable
    assert masks.batch.sentences == ["ein bier", "bitte"]


def test_trace_export_round_trips(window, qtbot, model, tmp_path):
    explorer = open_sentence(window, qtbot, model)
    press(window, Qt.Key.Key_Space, 3)
    session = explorer.controller.session
    trace = session.trace()
    npz = window.files.export_trace(tmp_path / "trace.npz")
    with np.load(npz, allow_pickle=False) as data:
        for name in ("encoder_self_attention", "decoder_self_attention", "cross_attention"):
            np.testing.assert_array_equal(data[name], getattr(trace, name))
        assert data["target_tokens"].tolist() == session.target_tokens
        assert data["output_tokens"].tolist() == session.output_tokens
        assert data["source_tokens"].tolist() == SENTENCE.split()
    written = json.loads(window.files.export_trace(tmp_path / "trace.json").read_text(encoding="utf-8"))
    assert written["output_tokens"] == session.output_tokens and written["source"] == SENTENCE
    np.testing.assert_allclose(np.array(written["cross_attention"]), session.cross_attention(), atol=1e-7)
    assert [s["token"] for s in written["steps"]] == session.output_tokens
    assert sorted(p.name for p in tmp_path.iterdir()) == ["trace.json", "trace.npz"]
    with pytest.raises(transviz.InputError, match="choose a .npz or .json"):
        window.files.export_trace(tmp_path / "trace.csv")


def test_the_session_decodes_its_own_copy(window, qtbot, model):
    explorer = open_sentence(window, qtbot, model)
    decoding = explorer.controller.session.model
    assert decoding is not model and decoding.net is not model.net and not decoding.net.training
    before = explorer.controller.session.encoder_attention.copy()
    with torch.no_grad():
        for p in model.net.parameters():  # what a training worker would do to the loaded model
            p.add_(torch.randn_like(p))
    explorer.source.open_session()  # a new session, after the change
    assert explorer.controller.session.model is decoding
    np.testing.assert_array_equal(explorer.controller.session.encoder_attention, before)


def test_file_export_writes_the_explorers_plot(window, qtbot, model, tmp_path):
    from PySide6.QtGui import QImage

    open_sentence(window, qtbot, model)
    press(window, Qt.Key.Key_Space, 2)
    grid, large = window.panels["explorer"].attention.grid, window.panels["explorer"].attention.large
    qtbot.mouseMove(large)  # the plot pointed at last is the one File > Export writes
    assert QImage(str(window.export_current_plot(tmp_path / "large.png"))).size() == large.size()
    qtbot.mouseMove(grid)
    path = window.export_current_plot(tmp_path / "grid.png")
    image = QImage(str(path))
    assert image.size() == grid.size()
    assert len({image.pixel(x, y) for x in range(0, image.width(), 7) for y in range(0, image.height(), 7)}) > 10
    svg = window.export_current_plot(tmp_path / "grid.svg").read_text(encoding="utf-8")
    assert "layer 1" in svg and "head 2" in svg


def test_choosing_a_candidate_in_beam_search(window, qtbot, make_model):
    """The candidates shown are those of the best hypothesis extended at the last step; forcing
    continues the best hypothesis before it, so a click forces only when those are the same one."""
    explorer = open_sentence(window, qtbot, make_model(seed=0))
    explorer.controls.strategy.choice.setCurrentIndex(2)
    explorer.controls.strategy.beam_width.setValue(3)
    session = explorer.controller.session
    cases = {}
    while len(cases) < 2 and session.cant_step() is None:
        press(window, Qt.Key.Key_Space)
        record = session.history[-1]
        same = record.path.previous is session.beam_history[-2].best.node
        cases.setdefault(same, session.position)
    assert set(cases) == {True, False}, "this model's beam must show both cases"
    session.rewind(cases[False])
    before = session.output_tokens, [h.tokens for h in session.beam.hypotheses]
    other = session.history[-1].candidates[1].token
    assert not explorer.controller.choose_instead(other)
    assert "switch to greedy" in window.statusBar().currentMessage()
    assert (session.output_tokens, [h.tokens for h in session.beam.hypotheses]) == before  # unchanged
    session.rewind(cases[True])
    other = session.history[-1].candidates[1].token
    assert explorer.controller.choose_instead(other)
    assert session.history[-1].forced and session.output_tokens[-1] == other
    assert len(session.beam.hypotheses) == 1  # a forced step keeps the one hypothesis it made


def test_a_long_candidates_title_is_shown_whole_above_the_bars(window, qtbot, model):
    """A narrow column wraps the title into more lines than its usual room: the bars move down,
    no word of the title is cut off."""
    from PySide6.QtCore import QRect

    explorer = open_sentence(window, qtbot, model)
    explorer.controls.strategy.choice.setCurrentIndex(2)  # beam search: the title says more
    press(window, Qt.Key.Key_Space, 2)
    bars = explorer.candidates.bars_widget
    bars.resize(170, 400)
    title = explorer.candidates.title
    wrapped = bars.fontMetrics().boundingRect(QRect(0, 0, 170 - 12, 100_000),
                                              int(Qt.AlignmentFlag.AlignLeft | Qt.TextFlag.TextWordWrap), title)
    assert wrapped.height() > 4 * bars.fontMetrics().lineSpacing()  # more than the room kept by default
    assert bars.bar_rect(0).top() >= wrapped.height()
