"""What the explorer says about decoding (issue 14, items 5-8), in the real window with real tiny
models, checked against quantities computed here with torch directly on the model's logits."""
from __future__ import annotations

import pytest
import torch

from transviz.core.model.vocab import BOS, EOS, PAD, UNK
from transviz.gui.widgets.beam_tree import SEPARATOR

SENTENCE = "ich mochte ein bier"


@pytest.fixture
def window(open_window):
    return open_window()


def words_only(model):
    with torch.no_grad():
        for token in (PAD, BOS, UNK):
            model.net.generator.bias[model.tgt_vocab.stoi[token]] -= 1e4
    return model


def open_sentence(window, qtbot, model, sentence=SENTENCE):
    window.workspace.set_model(model)
    explorer = window.panels["explorer"]
    explorer.source.sentence.setText(sentence)
    return explorer


def next_logits(model, sentence: str, output_tokens: list[str]) -> torch.Tensor:
    """The logits of the next token, by a full forward pass over the prefix (no cache, no session)."""
    src = torch.tensor([model.src_vocab.encode(sentence).ids])
    vocab = model.tgt_vocab
    tgt = torch.tensor([[vocab.bos_id] + [vocab.stoi[t] for t in output_tokens]])
    model.net.eval()
    with torch.no_grad():
        return model.net(src, tgt).logits[0].double()  # (T, V): row t chose output t


def sampling_distribution(logits: torch.Tensor, temperature: float, top_k: int, top_p: float) -> torch.Tensor:
    p = torch.softmax(logits / temperature, -1)
    values, order = torch.sort(p, descending=True, stable=True)
    if top_k:
        values, order = values[:top_k], order[:top_k]
    reached = (torch.cumsum(values, 0) >= top_p - 1e-12).nonzero()
    last = int(reached[0]) if top_p < 1 and len(reached) else len(values) - 1
    kept = torch.zeros_like(p)
    kept[order[: last + 1]] = p[order[: last + 1]]
    return kept / kept.sum()


def test_sampling_bars_show_the_distribution_drawn_from_and_the_raw_one(window, qtbot, make_model):
    """Item 7: at temperature 2.5 the bars are the tempered, filtered distribution; the raw beside it."""
    model = words_only(make_model(layers=2, heads=2))
    explorer = open_sentence(window, qtbot, model)
    editor = explorer.controls.strategy
    editor.choice.setCurrentIndex(1)
    editor.temperature.setValue(2.5)
    editor.top_k.setValue(5)
    editor.top_p.setValue(0.9)
    editor.seed.setValue(7)
    for _ in range(3):
        assert explorer.controller.step()
    session = explorer.controller.session
    logits = next_logits(model, SENTENCE, session.output_tokens[:-1])[-1]
    drawn, raw = sampling_distribution(logits, 2.5, 5, 0.9), torch.softmax(logits, -1)
    bars = explorer.candidates.bars()
    for (token, p), raw_p in zip(bars, explorer.candidates.raw_bars(), strict=True):
        i = model.tgt_vocab.stoi[token]
        assert p == pytest.approx(float(drawn[i]), abs=1e-5)
        assert raw_p == pytest.approx(float(raw[i]), abs=1e-5)
    assert len(bars) == int((drawn > 0).sum().clamp(max=explorer.controller.workspace.top_k))
    title = explorer.candidates.title
    written = session.output_tokens[-1]
    assert f"{float(drawn[model.tgt_vocab.stoi[written]]):.3f}" in title and "raw" in title


def test_no_plot_axis_in_the_window_scales_with_an_si_prefix(window, qtbot, make_model):
    """Item 8: "step (x0.001)", "rank (x0.001)", "lr (x0.001)": every axis of every tab shows plain numbers."""
    import pyqtgraph as pg

    explorer = open_sentence(window, qtbot, words_only(make_model(layers=2, heads=2)))
    explorer.controls.strategy.choice.setCurrentIndex(2)  # beam search: the tree shows
    explorer.controller.step()
    axes = []
    for index in range(window.tabs.count()):
        window.tabs.setCurrentIndex(index)  # every tab built and shown
        qtbot.wait(10)
    for view in window.findChildren(pg.GraphicsView):
        axes += [item for item in view.scene().items() if isinstance(item, pg.AxisItem)]
    assert len(axes) > 20 and {type(window.panels[name]).__name__ for name in ("training", "lab")}
    assert [axis for axis in axes if axis.autoSIPrefix] == []
    lr = window.panels["training"].lr_plot.getPlotItem().getAxis("bottom")
    lr.setRange(0, 0.002)  # the range that read "(x0.001)"
    assert lr.autoSIPrefixScale == 1.0 and "x0.001" not in lr.labelString()


def test_beam_tree_scores_share_one_named_scale_after_a_greedy_start(window, qtbot, make_model):
    """Item 8: a beam started from a greedy run shows the greedy steps on the beam's scale too."""
    model = words_only(make_model(layers=2, heads=2))
    explorer = open_sentence(window, qtbot, model)
    for _ in range(2):
        explorer.controller.step()  # greedy
    editor = explorer.controls.strategy
    editor.choice.setCurrentIndex(2)
    editor.beam_width.setValue(3)
    editor.length_penalty.setValue(0.7)
    for _ in range(2):
        explorer.controller.step()
    history = explorer.controller.session.beam_history
    labels = iter(explorer.beam_tree.drawn_labels()[1:])  # the start token has no score
    for beam in history[1:]:
        for hypothesis in beam.hypotheses:
            tokens = list(hypothesis.tokens)
            log_probs = torch.log_softmax(next_logits(model, SENTENCE, tokens[:-1]), -1)
            summed = sum(float(log_probs[t, model.tgt_vocab.stoi[token]]) for t, token in enumerate(tokens))
            assert next(labels).split(SEPARATOR)[1] == f"{round(summed / len(tokens) ** 0.7, 2) + 0.0:.2f}"
    assert "length^0.7" in explorer.beam_tree.title
    axis = explorer.beam_tree._view.getPlotItem().getAxis("bottom")
    assert axis.labelString().count("x0.") == 0


def example_model(make_model):
    """A tiny model of the toy German-English task: it has examples with references."""
    model = words_only(make_model(layers=2, heads=2))
    model.facts["task"] = "toy-de-en"
    return model


def test_teacher_forcing_fills_in_only_the_sentences_own_reference(window, qtbot, make_model):
    """Item 5: an example's reference does not stay for a different typed sentence."""
    model = example_model(make_model)
    window.workspace.set_model(model)
    source = window.panels["explorer"].source
    example = window.workspace.examples[0]
    assert source.reference.text() == example.target
    source.sentence.setText("ein bier")  # typed, not an example
    source.teacher.setChecked(True)
    assert source.reference.text() == ""
    assert window.workspace.session is None and window.workspace.error is not None  # "the reference is empty"
    source.use_example(1)
    assert source.reference.text() == window.workspace.examples[1].target
    source.reference.clear()
    qtbot.keyClicks(source.reference, "i want a beer")  # typed by the user: it stays
    source.sentence.setText("ich mochte ein bier")
    assert source.reference.text() == "i want a beer"


def test_teacher_forcing_flags_unknown_reference_words_and_sums_up(window, qtbot, make_model):
    """Item 5: `would` is flagged, and the summary's numbers are the model's, computed here with torch."""
    import torch.nn.functional as F

    model = words_only(make_model(layers=2, heads=2))
    window.workspace.set_model(model)
    source = window.panels["explorer"].source
    source.sentence.setText(SENTENCE)
    source.reference.setText("i would want a beer")
    source.teacher.setChecked(True)
    chips = source.reference_preview.chips
    assert [c.text for c in chips] == ["i", "would", "want", "a", "beer", EOS]
    assert [c.unknown for c in chips] == [False, True, False, False, False, False] and "would" in chips[1].tooltip
    explorer = window.panels["explorer"]
    for _ in range(4):
        assert explorer.controller.step()
    vocab = model.tgt_vocab
    gold = [vocab.stoi.get(t, vocab.unk_id) for t in "i would want a".split()]
    logits = next_logits(model, SENTENCE, [vocab.itos[i] for i in gold[:-1]])  # (4, V)
    loss = F.cross_entropy(logits, torch.tensor(gold)).item()
    matched = int((logits.argmax(-1) == torch.tensor(gold)).sum())
    probabilities = torch.softmax(logits, -1)[torch.arange(4), torch.tensor(gold)]
    text = source.summary.text()
    assert source.summary.isVisible() and f"{loss:.3f}" in text
    assert f"gold one {matched} times" in text
    for token, p in zip(["i", "<unk>", "want", "a"], probabilities.tolist(), strict=True):
        assert f"{token} {p:.3f}" in text
    summary_loss = float(text.split("mean loss ")[1].split(" ")[0])
    assert summary_loss == pytest.approx(loss, abs=1e-3)


def test_the_masks_batch_says_which_words_the_model_does_not_know(window, qtbot, make_model):
    """Item 6: the default batch holds `bitte`; the tab says it is read as <unk>."""
    from transviz.core.analysis.mask_batch import source_batch

    model = make_model(layers=2, heads=2)  # its vocabulary has no "danke"
    window.workspace.set_model(model)
    masks = window.panels["masks"]
    window.tabs.setCurrentWidget(masks)
    masks.others.setText("ein bier; ich mochte ein bier danke")
    qtbot.waitUntil(lambda: "danke" in masks.padded_tokens.text())
    note = masks.padded_tokens.text()
    assert "sentence 3: 'danke' is not in the vocabulary (read as <unk>)" in note
    batch = source_batch(["ein bier", "ich mochte ein bier danke"], model.src_vocab, model.config.pad_id)
    assert batch.unknown == [[], [(4, "danke")]]


def test_the_explorer_has_a_colour_legend_drawn_in_the_chips_colours(window, qtbot, make_model):
    """Item 6: yellow = not in the vocabulary, orange = current query, dashed = forced, hatched = masked."""
    from transviz.gui.services.language import CHINESE, set_language
    from transviz.gui.widgets.token_strip import Chip, TokenStrip

    explorer = open_sentence(window, qtbot, make_model(layers=2, heads=2))
    legend = explorer.legend
    assert legend.isVisible() and legend.width() <= explorer.width()
    assert [kind for kind, _ in legend.entries] == ["unknown", "current", "forced", "masked"]
    assert legend.entries[0][1].startswith("not in the vocabulary") and legend.entries[3][1] == "masked"
    strip = TokenStrip()
    strip.set_chips([Chip("bitte", unknown=True), Chip("want", current=True)])
    strip.resize(300, 40)
    picture, chips = legend.grab().toImage(), strip.grab().toImage()
    for index in (0, 1):
        swatch, chip = legend.swatch_rect(index).center(), strip.chip_rect(index)
        assert picture.pixelColor(swatch) == chips.pixelColor(chip.center().x(), chip.bottom() - 3)
    set_language(CHINESE)
    qtbot.waitUntil(lambda: legend.entries[3][1] != "masked", timeout=5000)
    assert all(text and text.isascii() is False for _, text in legend.entries)


def test_in_teacher_forcing_the_legend_explains_the_two_line_chips_and_the_bars(window, qtbot, make_model):
    explorer = open_sentence(window, qtbot, make_model(layers=2, heads=2))
    legend, source = explorer.legend, explorer.source
    source.reference.setText("i want a beer")
    source.teacher.setChecked(True)
    for _ in range(2):
        assert explorer.controller.step()
    assert [kind for kind, _ in legend.entries] == ["unknown", "current", "forced", "masked", "prediction", "bars"]
    assert "gold token over the model's prediction" in legend.entries[4][1]
    # the bars' sample has the chart's colours: the token fed over another candidate
    chart = explorer.candidates._bars
    fed = next(i for i, row in enumerate(chart.rows) if row[0] == explorer.controller.session.history[-1].token)
    other = next(i for i, row in enumerate(chart.rows) if i != fed and row[0] is not None)
    picture, bars = legend.grab().toImage(), chart.grab().toImage()
    swatch = legend.swatch_rect(5)
    for row, y in ((fed, swatch.top() + swatch.height() // 4), (other, swatch.bottom() - swatch.height() // 4)):
        assert picture.pixelColor(swatch.left() + 4, y) == bars.pixelColor(chart.bar_rect(row).center().toPoint())
    source.teacher.setChecked(False)
    assert [kind for kind, _ in legend.entries] == ["unknown", "current", "forced", "masked"]


def test_beam_caption_says_when_the_search_goes_on_past_the_best_ending(window, qtbot, make_model):
    """Item 8: "Step 7" with one token shown says why: the best ended, an unfinished one could still win."""
    model = words_only(make_model(seed=0, layers=2, heads=2, max_len=12))
    with torch.no_grad():
        model.net.generator.bias[model.tgt_vocab.stoi[EOS]] += 1.0
    explorer = open_sentence(window, qtbot, model)
    editor = explorer.controls.strategy
    editor.choice.setCurrentIndex(2)
    editor.beam_width.setValue(3)
    explorer.controller.run_to_end()
    session = explorer.controller.session
    best = session.beam.best
    assert best.finished and len(best.tokens) < session.position  # the search went on past the best ending
    # independently: some hypothesis was live one step before the end, and its bound s / max_len beat the best
    before = session.beam_history[-2]
    ended = max(h.score / len(h.tokens) for h in before.hypotheses if h.finished)
    assert any(h.score / 12 > ended for h in before.hypotheses if not h.finished)
    title = explorer.candidates.title
    # numbered as shown: the search's step, after the translation shown (its chips) ended
    assert title.startswith(f"Search step {session.position}, after the translation shown ended "
                            f"({len(best.tokens)} tokens)") and "could still beat it" in title
    assert len(explorer.output.chips) == len(best.tokens) + 1


def test_unknown_source_words_are_marked_on_the_axes_of_the_explorer_and_the_walkthrough(window, qtbot):
    """Item 6: a word read as <unk> is flagged on every axis that names the source, not only in its chip."""
    from transviz import load_model
    from transviz.core.analysis.walkthrough import KINDS
    from transviz.core.io.resources import shipped_models

    model = load_model(shipped_models()["default"])
    sentence = "ich mochte ein bier bitte"
    known = model.src_vocab.stoi
    expected = [word if word in known else f"{word} (?)" for word in sentence.split()]
    assert expected[-1] == "bitte (?)" and expected[:-1] == sentence.split()[:-1]  # the shipped model lacks "bitte"
    window.workspace.set_model(model)
    window.workspace.open(sentence)
    explorer = window.panels["explorer"]
    explorer.controller.step()
    explorer.attention.kind.setCurrentIndex(KINDS.index("cross"))
    assert explorer.attention.large.column_labels() == expected
    explorer.attention.kind.setCurrentIndex(KINDS.index("encoder_self"))
    assert explorer.attention.large.row_labels() == expected == explorer.attention.large.column_labels()
    masks = window.panels["masks"]
    window.tabs.setCurrentWidget(masks)
    masks.kind.setCurrentIndex(KINDS.index("cross"))
    qtbot.waitUntil(lambda: masks.score_view.column_labels() == expected, timeout=5000)
    assert "(?)" in explorer.legend.entries[0][1]  # the legend says what the mark means


def test_greedy_bars_sum_to_one_with_the_others_and_say_why_a_smoothed_model_spreads(open_window, shipped_model,
                                                                                        make_model):
    """The shipped model was trained with label smoothing 0.1: its surest bar stays near 0.9, and
    the six bars alone summed to about 0.95 with nothing saying where the rest went."""
    window = open_window(model=shipped_model, source="default", sentence=SENTENCE)
    explorer = window.panels["explorer"]
    assert explorer.controller.step()
    record = explorer.controller.session.history[-1]
    chart = explorer.candidates
    bars, (name, rest, raw) = chart.bars(), chart.others()
    assert bars == [(c.token, pytest.approx(c.probability)) for c in record.candidates]
    assert name == "all others" and raw is None
    assert rest == pytest.approx(1 - sum(c.probability for c in record.candidates), abs=1e-6) and rest > 0.01
    assert chart.smoothing_note.isVisible() and "label smoothing (0.1)" in chart.smoothing_note.text()
    window.workspace.set_model(words_only(make_model(layers=2, heads=2)), sentence=SENTENCE)  # trained without: no line
    assert not chart.smoothing_note.isVisible()


def test_a_token_sampled_from_outside_the_top_six_gets_a_bar(window, qtbot):
    from decoding_models import tiny_model  # nine words: a draw can land outside the six bars

    model = tiny_model()
    explorer = open_sentence(window, qtbot, model)
    editor = explorer.controls.strategy
    editor.choice.setCurrentIndex(1)
    editor.temperature.setValue(20.0)  # nearly uniform over the words sampling may draw
    top = explorer.controller.workspace.top_k
    record = None
    for seed in range(1, 200):  # until a draw lands outside the six most probable
        editor.seed.setValue(seed)
        explorer.controller.reset()
        assert explorer.controller.step()
        record = explorer.controller.session.history[-1]
        if record.token not in [c.token for c in record.drawn]:
            break
    assert record is not None and record.token not in [c.token for c in record.drawn] and len(record.drawn) == top
    chart = explorer.candidates
    bars, raw = chart.bars(), chart.raw_bars()
    assert len(bars) == top + 1 and bars[-1] == (record.token, pytest.approx(record.drawn_probability))
    assert raw[-1] == pytest.approx(record.probability)
    _, rest, raw_rest = chart.others()
    assert sum(p for _, p in bars) + rest == pytest.approx(1.0, abs=1e-6)
    assert sum(raw) + raw_rest == pytest.approx(1.0, abs=1e-6)


def test_the_beam_trees_labels_never_meet(window, qtbot, make_model):
    """Item 4 (issue 35): two-line labels overlapped the next rank's and the edges ran through their
    text. One line each now, on the background's colour above the edges, and a plot that keeps a
    row a rank and a column a step wide enough for them (it scrolls when the window is smaller)."""
    model = words_only(make_model(layers=2, heads=2))
    explorer = open_sentence(window, qtbot, model)
    editor = explorer.controls.strategy
    editor.choice.setCurrentIndex(2)
    editor.beam_width.setValue(4)
    for _ in range(5):
        explorer.controller.step()
    qtbot.wait(50)  # the plot takes its new size
    tree = explorer.beam_tree
    boxes = [label.sceneBoundingRect() for label in tree._labels if label.isVisible()]
    assert len(boxes) > 8 and all("\n" not in text for text in tree.drawn_labels())
    assert not any(a.intersects(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])
    assert all(label.zValue() > tree._edges.zValue() for label in tree._labels)
