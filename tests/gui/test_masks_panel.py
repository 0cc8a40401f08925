"""The masks tab: padding, causal and combined masks with their true shapes, and the walkthrough
of one head, compared with the model's own attention."""
from __future__ import annotations

import dataclasses
import math
import threading

import numpy as np
import pytest
import torch
from PySide6.QtCore import QPointF, Qt, QThread, QTimer

import transviz
from transviz.core.analysis.mask_batch import translate, translated_inputs
from transviz.core.analysis.walkthrough import KINDS, walkthrough
from transviz.core.model.bundle import Model
from transviz.core.model.masks import causal_mask, decoder_self_mask
from transviz.core.model.transformer import Transformer
from transviz.core.teaching.workspace import Workspace
from transviz.gui.panels.masks import DEFAULT_SENTENCE, MasksPanel
from transviz.gui.services import batch_translator
from transviz.gui.services.batch_translator import BatchTranslator


def title(view) -> str:
    return view.title.replace("\u00a0", " ")  # shapes hold no-break spaces: a title never splits one


def mask_shown(view) -> np.ndarray:
    """What a mask plot shows: 1 where it allows (a colour of the map), 0 where it blocks (drawn as
    NaN: hatched, as masked attention is)."""
    image = view.displayed_image()
    assert np.all(np.isnan(image) | (image == 1))
    return np.where(np.isnan(image), 0.0, image)


@pytest.fixture
def panel(show):
    return show(MasksPanel(Workspace()), 1400, 900)


def test_padding_mask_on_a_batch_of_different_lengths(panel):
    assert panel.sentence.text() == "ich mochte ein bier"
    lengths = [4, 2, 5]  # the sentence, then the defaults "ein bier" and "ich mochte ein bier bitte"
    expected = [[1.0 if k < n else 0.0 for k in range(5)] for n in lengths]
    np.testing.assert_array_equal(mask_shown(panel.padding_view), expected)
    assert panel.padding_view.row_labels()[1] == "ein bier"
    assert panel.padding_view.column_labels() == ["0", "1", "2", "3", "4"]
    assert "(3, 1, 1, 5)" in title(panel.padding_view)
    assert "2: ein bier <pad> <pad> <pad>" in panel.padded_tokens.text()
    assert panel.padding_view.readout(1, 3) == "sentence 'ein bier' -> key '3': 0: blocked"


def lower_triangle_with_padding(length: int, real: int) -> np.ndarray:
    """The decoder self-attention mask of one sentence built by hand: query q sees keys 0..q, and
    never a padded key (``real`` inputs, then padding up to ``length``)."""
    return np.tril(np.ones((length, length))) * (np.arange(length) < real)[None, :]


def test_causal_mask_is_over_the_decoder_inputs(panel):
    decoder_inputs = ["<s>", "i", "want", "a", "beer"]  # the start token and the default target so far
    shown = mask_shown(panel.causal_view)
    np.testing.assert_array_equal(shown, causal_mask(5)[0, 0].float().numpy())
    np.testing.assert_array_equal(shown, np.tril(np.ones((5, 5))))  # query q sees keys 0..q only
    assert "(1, 1, 5, 5)" in title(panel.causal_view)
    assert panel.causal_view.row_labels() == decoder_inputs == panel.causal_view.column_labels()
    assert panel.causal_view.readout(1, 3) == "query 'i' -> key 'a': 0: blocked"
    panel.target.setText("i want")  # the causal mask follows the target's length, not the source's
    np.testing.assert_array_equal(mask_shown(panel.causal_view), np.tril(np.ones((3, 3))))
    assert "(1, 1, 3, 3)" in title(panel.causal_view) and panel.causal_view.row_labels() == ["<s>", "i", "want"]


def test_without_a_model_the_combined_mask_is_the_target_alone(panel):
    assert panel.translation_note.isVisibleTo(panel) and "cannot be translated" in panel.translation_note.text()
    ids = torch.arange(1, 6)[None]  # (1, 5): "<s> i want a beer", none of them the pad id 0
    np.testing.assert_array_equal(mask_shown(panel.combined_view),
                                  decoder_self_mask(ids, 0)[0, 0].float().numpy())
    np.testing.assert_array_equal(mask_shown(panel.combined_view), lower_triangle_with_padding(5, 5))
    assert panel.combined_sentence.count() == 1 and "(1, 1, 5, 5)" in title(panel.combined_view)
    assert panel.decoder_tokens.text() == "Decoder inputs:\n1: <s> i want a beer"


@pytest.fixture(scope="module")
def default_model():
    return transviz.load_model("default")


def translations_drawn(qtbot, panel):
    """Waits until the other sentences' translations, computed on the panel's worker thread, are drawn."""
    return qtbot.waitSignal(panel.translator.busy_changed, timeout=30000, check_params_cb=lambda busy: not busy)


def own_batch_with(qtbot, panel, model):
    """Load ``model`` into the panel's workspace with the panel's own sentence and target (not the
    session the workspace opens), and wait for the translations."""
    panel.following.setChecked(False)
    with translations_drawn(qtbot, panel):
        panel.workspace.set_model(model)


def test_combined_mask_is_the_decoder_self_mask_of_the_batch(panel, default_model, qtbot):
    own_batch_with(qtbot, panel, default_model)
    assert not panel.translation_note.isVisibleTo(panel)
    vocab, others = default_model.tgt_vocab, ["ein bier", "ich mochte ein bier bitte"]
    # the decoder inputs: the start token, then the target so far (sentence 1) or a greedy translation
    inputs = [["<s>", "i", "want", "a", "beer"]]
    for sentence in others:
        outputs = transviz.decode(default_model, sentence, "greedy", max_len=12).output_tokens
        assert outputs[-1] == "</s>"  # the translations end before the cap
        inputs.append(["<s>", *outputs[:-1]])
    longest = max(map(len, inputs))
    assert min(map(len, inputs)) < longest  # the batch has target padding to show
    ids = torch.zeros(3, longest, dtype=torch.long)  # (B, T_max), padded with the pad id 0
    for row, tokens in enumerate(inputs):
        ids[row, : len(tokens)] = torch.tensor([vocab.id_of(t) for t in tokens])
    reference = decoder_self_mask(ids, default_model.config.pad_id)
    for row, tokens in enumerate(inputs):
        panel.combined_sentence.setCurrentIndex(row)
        shown = mask_shown(panel.combined_view)
        np.testing.assert_array_equal(shown, reference[row, 0].float().numpy())
        np.testing.assert_array_equal(shown, lower_triangle_with_padding(longest, len(tokens)))
        padded = tokens + ["<pad>"] * (longest - len(tokens))
        assert panel.combined_view.row_labels() == padded == panel.combined_view.column_labels()
        assert f"(3, 1, {longest}, {longest})" in title(panel.combined_view)
        assert f"sentence {row + 1}" in title(panel.combined_view)
        assert f"{row + 1}: " + " ".join(padded) in panel.decoder_tokens.text()
    assert "(1, 1, 5, 5)" in title(panel.causal_view)  # the causal mask stays the target so far's
    assert "(3, 1, 1, 5)" in title(panel.padding_view)  # the source batch: "ich mochte ein bier bitte" is longest


def test_a_windowed_models_combined_mask_says_so_and_shows_it(panel, default_model, qtbot):
    net = Transformer(dataclasses.replace(default_model.config, attention_window=2))
    net.load_state_dict(default_model.net.state_dict())
    own_batch_with(qtbot, panel, dataclasses.replace(default_model, net=net))
    shown = mask_shown(panel.combined_view)  # sentence 1, "<s> i want a beer": no padding
    length = shown.shape[0]
    near = [[1.0 if 0 <= i - j < 2 else 0.0 for j in range(length)] for i in range(length)]
    np.testing.assert_array_equal(shown, np.array(near))
    assert "padding AND causal AND a window of 2 keys" in title(panel.combined_view)


def test_a_prefix_lms_combined_mask_is_its_one_stream(panel, qtbot):
    model = transviz.load_model("decoder-only")
    own_batch_with(qtbot, panel, model)
    panel.combined_sentence.setCurrentIndex(1)  # "ein bier": 2 source words, then its decoder inputs
    source = panel.batch.tokens[1]
    inputs = panel.decoder.tokens[1]
    assert panel.combined_view.row_labels() == source + inputs
    s, t = 2, inputs.index("<pad>") if "<pad>" in inputs else len(inputs)
    expected = np.zeros((len(source) + len(inputs),) * 2)
    expected[:s, :s] = 1.0  # the source's words see each other both ways
    for q in range(t):  # an input sees the whole source and the inputs up to its own
        expected[len(source) + q, :s] = 1.0
        expected[len(source) + q, len(source) : len(source) + q + 1] = 1.0
    shown = mask_shown(panel.combined_view)
    real = [*range(s), *range(len(source), len(source) + t)]
    np.testing.assert_array_equal(shown[real][:, real], expected[real][:, real])
    assert "prefix LM's one mask" in title(panel.combined_view)
    assert "decoder-only" in panel.shapes.text()


def test_causal_mask_follows_the_explorer_as_it_steps(stepped_window):
    window = stepped_window(0)
    controller = window.panels["explorer"].controller
    for word in ("i", "want", "a"):  # words, not what the untrained model would say (it may say <s>)
        assert controller.force(word)
    window.tabs.setCurrentWidget(window.panels["masks"])  # the masks tab catches up when it is shown
    masks, session = window.panels["masks"], controller.session
    for length in (3, 4):
        assert session.target_tokens == masks.causal_view.row_labels()
        assert len(session.target_tokens) == length
        np.testing.assert_array_equal(mask_shown(masks.causal_view), np.tril(np.ones((length, length))))
        assert f"(1, 1, {length}, {length})" in title(masks.causal_view)
        masks.combined_sentence.setCurrentIndex(0)
        assert masks.combined_view.row_labels()[:length] == session.target_tokens
        assert controller.force("beer")


def test_a_tab_built_after_the_explorer_opened_its_sentence_shows_it(show, make_model):
    """The window builds the masks tab when it is first shown, long after the explorer's sentence."""
    workspace = Workspace()
    workspace.set_model(make_model(), sentence="ein bier bitte")
    for word in ("i", "want"):  # the decoder's inputs: <s> i
        workspace.session.force(word)
    panel = show(MasksPanel(workspace), 1400, 900)
    assert (panel.sentence.text(), panel.target.text()) == ("ein bier bitte", "i")
    assert panel.causal_view.row_labels() == workspace.session.target_tokens


def drawn_ticks(view, side):
    """(cell, text) of the ticks pyqtgraph draws on an axis (what setTicks gave it; long axes label
    every n-th cell), not the labels the widget keeps."""
    return [(int(position), text) for level in view.axis(side)._tickLevels for position, text in level]


def test_new_tokens_of_the_same_length_are_drawn(panel, default_model, qtbot):
    """The explorer's target "i want a beer" then "i want": the batch stays 6 inputs long, and the axes
    must still draw the new tokens (they once kept the old texts when the count did not change)."""
    with translations_drawn(qtbot, panel):
        panel.workspace.set_model(default_model)
    panel.target.setText("i want a beer")  # 5 inputs, the longest translation 6: T_max 6
    panel.target.setText("i want")  # 3 inputs: T_max still 6
    expected = ["<s>", "i", "want", "<pad>", "<pad>", "<pad>"]
    assert panel.combined_view.row_labels() == expected
    for side in ("left", "bottom"):
        ticks = drawn_ticks(panel.combined_view, side)
        assert ticks and all(text == expected[cell] for cell, text in ticks)


def shown_inputs(panel, row: int) -> list[str]:
    """The decoder inputs the panel lists for a row of the batch, without their padding."""
    line = panel.decoder_tokens.text().splitlines()[1 + row]
    assert line.startswith(f"{row + 1}: ")
    return [token for token in line.split()[1:] if token != "<pad>"]


class HeldTranslations:
    """Stands in for core.analysis.mask_batch.translate in the panel's translator: records the thread each call runs on
    and what it returned, and holds the first ``held`` calls until :meth:`release`."""

    def __init__(self, monkeypatch, held: int = 0) -> None:
        self.threads: list[QThread] = []
        self.results: list[dict] = []
        self.held = held
        self._released = threading.Event()
        monkeypatch.setattr(batch_translator, "translate", self)

    def release(self) -> None:
        self._released.set()

    def __call__(self, model, sentences, cancelled):
        self.threads.append(QThread.currentThread())
        if len(self.threads) <= self.held:
            assert self._released.wait(20)
        self.results.append(translate(model, sentences, cancelled))
        return self.results[-1]


def test_translations_are_computed_off_the_gui_thread(panel, default_model, qtbot, monkeypatch):
    calls = HeldTranslations(monkeypatch, held=1)
    panel.following.setChecked(False)  # the panel's own sentence and target, not the workspace's session
    panel.workspace.set_model(default_model)
    # the call returned with the translations under way: the source half and row 0 are drawn, and it says so
    assert panel.translator.is_busy() and panel.translation_note.isVisibleTo(panel)
    assert panel.translation_note.text().startswith("Translating the other sentences")
    assert "(3, 1, 1, 5)" in title(panel.padding_view) and "(1, 1, 5, 5)" in title(panel.causal_view)
    assert panel.combined_sentence.count() == 1
    assert panel.decoder_tokens.text() == "Decoder inputs:\n1: <s> i want a beer"
    assert panel.steps is not None  # the walkthrough did not wait for them either
    with translations_drawn(qtbot, panel):
        QTimer.singleShot(0, calls.release)  # only a GUI event loop that is not blocked lets the worker go on
    assert calls.threads[0] is not QThread.currentThread() and calls.threads[0] is not panel.thread()
    assert not panel.translation_note.isVisibleTo(panel) and panel.combined_sentence.count() == 3
    for row, sentence in ((1, "ein bier"), (2, "ich mochte ein bier bitte")):
        assert shown_inputs(panel, row) == translated_inputs(default_model, sentence)[0]


def test_a_newer_batch_supersedes_the_translation_under_way(panel, default_model, qtbot, monkeypatch):
    own_batch_with(qtbot, panel, default_model)
    calls = HeldTranslations(monkeypatch, held=1)
    changes = []
    panel.translator.busy_changed.connect(changes.append)
    panel.others.setText("ein bier bitte")  # held in the worker
    panel.others.setText("ich mochte")  # cancels it: its result, if any, is dropped
    with translations_drawn(qtbot, panel):
        calls.release()
    assert calls.results[0] == {}  # cancelled before it translated anything
    assert list(calls.results[1]) == ["ich mochte"]
    assert changes == [True, False]  # one computation as far as the panel shows
    assert shown_inputs(panel, 1) == translated_inputs(default_model, "ich mochte")[0]
    assert panel.combined_sentence.count() == 2 and panel.padding_view.row_labels()[1] == "ich mochte"


def test_explorer_steps_do_not_restart_the_translation_under_way(panel, default_model, qtbot, monkeypatch):
    calls = HeldTranslations(monkeypatch, held=1)
    panel.workspace.set_model(default_model)  # the panel follows the session the workspace opens
    for target in ("i", "i want", "i want a"):
        panel.follow(DEFAULT_SENTENCE, target)  # each redraws the masks, the translations still missing
    assert panel.causal_view.row_labels() == ["<s>", "i", "want", "a"]
    with translations_drawn(qtbot, panel):
        calls.release()
    assert len(calls.threads) == 1 and panel.combined_sentence.count() == 3


def test_a_request_with_another_model_supersedes_the_one_under_way(qtbot, make_model, monkeypatch):
    calls = HeldTranslations(monkeypatch, held=1)
    translator = BatchTranslator()
    try:
        first, second = make_model(seed=1), make_model(seed=2)
        translator.request(first, ["ein bier"])
        translator.request(second, ["ein bier"])  # the same sentence, but not the same model's translation
        with qtbot.waitSignal(translator.translated, timeout=30000) as arrived:
            calls.release()
        assert arrived.args[0] is second and len(calls.threads) == 2 and calls.results[0] == {}
    finally:
        translator.shutdown()
    assert calls.threads[0].isFinished()


def test_closing_mid_translation_stops_the_thread_and_draws_nothing(show, default_model, qtbot, monkeypatch):
    panel = show(MasksPanel(Workspace()), 1400, 900)
    calls = HeldTranslations(monkeypatch, held=1)
    panel.workspace.set_model(default_model)
    assert panel.translator.is_busy()
    qtbot.waitUntil(lambda: bool(calls.threads), timeout=10000)  # mid-translation: the worker is in the call
    threading.Timer(0.2, calls.release).start()  # the worker is held: closing waits for it to let go
    panel.close()
    assert calls.threads[0].isFinished() and not panel.translator.is_busy()
    qtbot.wait(50)  # a result still queued for the GUI thread would arrive now
    assert calls.results == [{}] and panel.combined_sentence.count() == 1
    assert not panel.mask_error.isVisibleTo(panel)


def test_the_tab_translates_only_while_shown(stepped_window, qtbot, monkeypatch):
    calls = HeldTranslations(monkeypatch)
    window = stepped_window(0)
    masks, explorer = window.panels["masks"], window.panels["explorer"]
    assert not masks.translator.is_busy() and calls.threads == []  # a hidden tab computes nothing
    with translations_drawn(qtbot, masks):
        window.tabs.setCurrentWidget(masks)
    assert masks.combined_sentence.count() == 3 and calls.threads[0].isRunning()
    masks.others.setText("bier")  # hidden before the translation arrives: it is cancelled at once
    window.tabs.setCurrentWidget(explorer)
    assert not masks.translator.is_busy() and masks.combined_sentence.count() == 1
    with translations_drawn(qtbot, masks):  # and computed again when the tab shows
        window.tabs.setCurrentWidget(masks)
    assert masks.combined_sentence.count() == 2
    window.tabs.setCurrentWidget(explorer)
    window.close()  # the masks tab is hidden: the window's closing stops its thread
    assert calls.threads[-1].isFinished()


def test_editing_the_batch_recomputes(panel):
    panel.others.setText("a b c d e f g")
    assert mask_shown(panel.padding_view).shape == (2, 7)
    assert "(2, 1, 1, 7)" in title(panel.padding_view)
    assert "(1, 1, 5, 5)" in title(panel.causal_view)  # the target's length, whatever the source's
    panel.sentence.setText("   ")
    assert panel.mask_error.isVisibleTo(panel) and "empty" in panel.mask_error.text()
    panel.sentence.setText(DEFAULT_SENTENCE)
    assert not panel.mask_error.isVisibleTo(panel)


def test_walkthrough_waits_for_a_model(panel):
    assert panel.walk_pages.currentWidget() is panel.no_model
    assert "Model > Open" in panel.no_model.text()
    assert panel.steps is None


def model_maps(model, source, target):
    src = torch.tensor([model.src_vocab.encode(source).ids])
    tgt = torch.tensor([[model.tgt_vocab.bos_id] + model.tgt_vocab.encode(target).ids])
    with torch.no_grad():
        return model.net(src, tgt, return_attention=True).attention


@pytest.mark.parametrize("kind", KINDS)
def test_walkthrough_shows_the_models_own_attention(panel, make_model, kind):
    model = make_model(seed=4, layers=2, heads=2)
    panel.workspace.set_model(model)
    panel.kind.setCurrentIndex(KINDS.index(kind))
    panel.layer.setValue(1)
    panel.head.setValue(1)
    assert panel.walk_pages.currentIndex() == 1
    maps = model_maps(model, DEFAULT_SENTENCE, "i want a beer")
    reference = getattr(maps, kind)[1][0, 1].numpy()
    np.testing.assert_allclose(panel.softmax_view.displayed_image(), reference, atol=1e-6)
    source, target = DEFAULT_SENTENCE.split(), ["<s>", "i", "want", "a", "beer"]
    queries = source if kind == "encoder_self" else target
    keys = target if kind == "decoder_self" else source
    assert panel.softmax_view.row_labels() == queries and panel.softmax_view.column_labels() == keys
    steps = walkthrough(model, DEFAULT_SENTENCE, "i want a beer", kind, 1, 1)
    np.testing.assert_array_equal(panel.score_view.displayed_image(), steps.scores)
    np.testing.assert_allclose(panel.scaled_view.displayed_image(), steps.scores / math.sqrt(steps.d_k), atol=1e-6)
    np.testing.assert_array_equal(panel.value_view.displayed_image(), steps.values)
    np.testing.assert_array_equal(panel.output_view.displayed_image(), steps.output)


@pytest.mark.parametrize("positional", ["rotary", "alibi"])
def test_the_walkthrough_of_a_variant_names_its_positions_and_ends_in_its_maps(panel, make_model, positional):
    base = make_model(seed=5, layers=2, heads=2)
    net = Transformer(dataclasses.replace(base.config, positional=positional)).eval()
    model = Model(net, base.src_vocab, base.tgt_vocab)
    panel.workspace.set_model(model)
    panel.kind.setCurrentIndex(KINDS.index("decoder_self"))
    panel.layer.setValue(1)
    panel.head.setValue(1)
    reference = model_maps(model, DEFAULT_SENTENCE, "i want a beer").decoder_self[1][0, 1].numpy()
    np.testing.assert_allclose(panel.softmax_view.displayed_image(), reference, atol=1e-6)
    scores, masked = title(panel.score_view), title(panel.masked_view)
    if positional == "rotary":
        assert "RoPE" in scores and "ALiBi" not in masked
    else:  # two heads: slopes 2^-4 and 2^-8; the masked step is scaled - slope x |i - j| where visible
        assert "RoPE" not in scores and "ALiBi's bias -0.003906 x distance" in masked
        distance = np.abs(np.arange(5)[:, None] - np.arange(5)[None, :])
        visible = np.tril(np.ones((5, 5), dtype=bool))
        np.testing.assert_allclose(panel.masked_view.data[visible],
                                   (panel.scaled_view.data - 2.0 ** -8 * distance)[visible], atol=1e-6)
    panel.kind.setCurrentIndex(KINDS.index("cross"))  # no positions in cross-attention
    assert "RoPE" not in title(panel.score_view) and "ALiBi" not in title(panel.masked_view)


def test_masked_step_shows_minus_infinity_above_the_diagonal(panel, make_model):
    panel.workspace.set_model(make_model())
    panel.kind.setCurrentIndex(KINDS.index("decoder_self"))
    masked = panel.masked_view.data
    for q in range(5):
        for k in range(5):
            assert (masked[q, k] == -np.inf) == (k > q)
    assert np.isnan(panel.masked_view.displayed_image()[0, 1])
    assert panel.masked_view.readout(0, 1) == "query '<s>' -> key 'i': -inf (masked)"
    assert panel.softmax_view.data[0].tolist() == [1.0, 0.0, 0.0, 0.0, 0.0]


def test_choosing_a_query_highlights_it_everywhere(panel, make_model, qtbot):
    panel.workspace.set_model(make_model())
    assert panel.query.currentIndex() == 4  # the last query by default
    panel.query.setCurrentIndex(2)
    assert all(view.highlighted_row == 2 for view in panel.step_views)
    assert "Query 'want'" in panel.summary.text() and "sum 1.000" in panel.summary.text()
    assert "Blocked keys: a, beer" in panel.summary.text()
    viewport = panel.softmax_view._view.viewport()
    target = viewport.mapFrom(panel.softmax_view, panel.softmax_view.cell_position(1, 0))
    qtbot.mouseClick(viewport, Qt.MouseButton.LeftButton, pos=target)
    qtbot.waitUntil(lambda: panel.query.currentIndex() == 1, timeout=2000)
    assert panel.score_view.highlighted_row == 1


def test_layer_and_head_ranges_follow_the_model(panel, make_model):
    panel.workspace.set_model(make_model(layers=3, heads=4))
    assert panel.layer.maximum() == 2 and panel.head.maximum() == 3


def test_walkthrough_errors_are_shown_inline(panel, make_model):
    panel.workspace.set_model(make_model())
    panel.target.setText("want " * 30)
    assert panel.walk_error.isVisibleTo(panel) and "at most 24" in panel.walk_error.text()
    panel.target.setText("i want")
    assert not panel.walk_error.isVisibleTo(panel)
    assert panel.softmax_view.row_labels() == ["<s>", "i", "want"]


def test_model_vocabulary_tokenizes_the_batch(panel, make_model):
    panel.workspace.set_model(make_model())
    panel.others.setText("ich trinke")  # 'trinke' is unknown to the model: still one token, shown as typed
    assert "2: ich trinke <pad> <pad>" in panel.padded_tokens.text()
    np.testing.assert_array_equal(mask_shown(panel.padding_view), [[1, 1, 1, 1], [1, 1, 0, 0]])


def colour_at(view, row: float, column: float):
    """The colour drawn at a point of a cell (``row + 0.2``: a fifth of the cell down)."""
    base = view.cell_position(int(row), int(column))
    step_x = view.cell_position(int(row), int(column) + 1).x() - base.x() if column + 1 < view.data.shape[1] \
        else base.x() - view.cell_position(int(row), int(column) - 1).x()
    step_y = view.cell_position(int(row) + 1, int(column)).y() - base.y() if row + 1 < view.data.shape[0] \
        else base.y() - view.cell_position(int(row) - 1, int(column)).y()
    point = QPointF(base.x() + (column % 1 - 0.5) * step_x, base.y() + (row % 1 - 0.5) * step_y)
    image = view.grab().toImage()
    ratio = image.devicePixelRatio()
    return image.pixelColor(int(point.x() * ratio), int(point.y() * ratio))


def far_from_every_colour_of_the_map(colour) -> bool:
    from transviz.gui.style import lookup_table

    rgb = np.array([colour.red(), colour.green(), colour.blue()])
    return bool(np.abs(lookup_table().astype(int) - rgb).max(axis=1).min() > 12)


def test_blocked_is_hatched_in_mask_plots_as_masked_cells_are_in_attention_plots(panel, make_model, pixels):
    panel.workspace.set_model(make_model())
    panel.kind.setCurrentIndex(KINDS.index("decoder_self"))  # the walkthrough's step 3 masks the future
    assert math.isinf(panel.masked_view.data[0, 1]) and panel.causal_view.readout(0, 1).endswith("0: blocked")
    for where in ((0.2, 1.2), (0.5, 1.5)):  # inside a blocked cell, and on its hatching line
        in_mask, in_attention = colour_at(panel.causal_view, *where), colour_at(panel.masked_view, *where)
        assert in_mask == in_attention, (where, in_mask.name(), in_attention.name())
        assert far_from_every_colour_of_the_map(in_mask)  # no weight, whatever the colormap says
    allowed = colour_at(panel.causal_view, 1.2, 0.2)
    assert not pixels.shows(allowed, 0.0) and pixels.shows(allowed, 1.0)  # never "a weight close to 0"
    assert allowed != colour_at(panel.causal_view, 0.2, 1.2)


def test_every_row_of_the_decoder_masks_is_labelled_at_1366_by_768(qtbot, default_model):
    from transviz.gui.main_window import MainWindow

    window = MainWindow()
    qtbot.addWidget(window)
    window.resize(1366, 768)
    window.show()
    qtbot.waitExposed(window)
    try:
        window.workspace.set_model(default_model, "default")
        window.panels["explorer"].source.sentence.setText("ich mochte ein bier")
        controller = window.panels["explorer"].controller
        while controller.step():
            pass
        masks = window.panels["masks"]
        window.tabs.setCurrentWidget(masks)
        qtbot.waitUntil(lambda: masks.causal_view.data.shape[0] >= 5, timeout=10000)
        qtbot.wait(200)  # laid out and painted
        for view in (masks.causal_view, masks.combined_view):
            rows = view.data.shape[0]
            axis = view.axis("left")
            assert [text for _, text in axis.tick_labels()] == view.row_labels(), rows  # every row named
            assert axis.label.boundingRect().width() <= axis.size().height()  # "queries (rows)" whole
    finally:
        window.shutdown()
