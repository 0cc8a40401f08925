"""The masks tab: padding, causal and combined masks with their true shapes, and the walkthrough
of one head, compared with the model's own attention."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from PySide6.QtCore import Qt

from transviz.core.walkthrough import KINDS, walkthrough
from transviz.gui.panels.masks import DEFAULT_SENTENCE, MasksPanel


@pytest.fixture
def panel(show):
    return show(MasksPanel(), 1400, 900)


def test_padding_mask_on_a_batch_of_different_lengths(panel):
    assert panel.sentence.text() == "ich mochte ein bier"
    lengths = [4, 2, 5]  # the sentence, then the defaults "ein bier" and "ich mochte ein bier bitte"
    expected = [[1.0 if k < n else 0.0 for k in range(5)] for n in lengths]
    np.testing.assert_array_equal(panel.padding_view.displayed_image(), expected)
    assert panel.padding_view.row_labels()[1] == "ein bier"
    assert panel.padding_view.column_labels() == ["0", "1", "2", "3", "4"]
    assert "(3, 1, 1, 5)" in panel.padding_view.title
    assert "2: ein bier <pad> <pad> <pad>" in panel.padded_tokens.text()
    assert panel.padding_view.readout(1, 3) == "sentence 'ein bier' -> key '3': 0: blocked"


def test_causal_mask_is_lower_triangular_with_its_shape(panel):
    shown = panel.causal_view.displayed_image()
    assert shown.shape == (5, 5) and "(1, 1, 5, 5)" in panel.causal_view.title
    for q in range(5):
        for k in range(5):
            assert shown[q, k] == (1.0 if k <= q else 0.0)  # query q sees keys 0..q only
    assert panel.causal_view.readout(1, 3) == "query '1' -> key '3': 0: blocked"


def test_combined_mask_of_the_chosen_sentence(panel):
    panel.combined_sentence.setCurrentIndex(1)  # "ein bier": 2 real tokens, 3 padding
    shown = panel.combined_view.displayed_image()
    np.testing.assert_array_equal(shown, [[1.0 if k <= q and k < 2 else 0.0 for k in range(5)] for q in range(5)])
    assert panel.combined_view.row_labels() == ["ein", "bier", "<pad>", "<pad>", "<pad>"]
    assert "(3, 1, 5, 5)" in panel.combined_view.title and "sentence 2" in panel.combined_view.title


def test_editing_the_batch_recomputes(panel):
    panel.others.setText("a b c d e f g")
    assert panel.padding_view.displayed_image().shape == (2, 7)
    assert "(2, 1, 1, 7)" in panel.padding_view.title and "(1, 1, 7, 7)" in panel.causal_view.title
    panel.sentence.setText("   ")
    assert panel.mask_error.isVisibleTo(panel) and "empty" in panel.mask_error.text()
    panel.sentence.setText(DEFAULT_SENTENCE)
    assert not panel.mask_error.isVisibleTo(panel)


def test_walkthrough_waits_for_a_model(panel):
    assert panel.walk_pages.currentWidget() is panel.no_model
    assert "File > Open" in panel.no_model.text()
    assert panel.steps is None


def model_maps(model, source, target):
    src = torch.tensor([model.src_vocab.encode(source).ids])
    tgt = torch.tensor([[model.tgt_vocab.bos_id] + model.tgt_vocab.encode(target).ids])
    with torch.no_grad():
        return model.net(src, tgt, return_attention=True).attention


@pytest.mark.parametrize("kind", KINDS)
def test_walkthrough_shows_the_models_own_attention(panel, make_model, kind):
    model = make_model(seed=4, layers=2, heads=2)
    panel.set_model(model)
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


def test_masked_step_shows_minus_infinity_above_the_diagonal(panel, make_model):
    panel.set_model(make_model())
    panel.kind.setCurrentIndex(KINDS.index("decoder_self"))
    masked = panel.masked_view.data
    for q in range(5):
        for k in range(5):
            assert (masked[q, k] == -np.inf) == (k > q)
    assert np.isnan(panel.masked_view.displayed_image()[0, 1])
    assert panel.masked_view.readout(0, 1) == "query '<s>' -> key 'i': -inf (masked)"
    assert panel.softmax_view.data[0].tolist() == [1.0, 0.0, 0.0, 0.0, 0.0]


def test_choosing_a_query_highlights_it_everywhere(panel, make_model, qtbot):
    panel.set_model(make_model())
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
    panel.set_model(make_model(layers=3, heads=4))
    assert panel.layer.maximum() == 2 and panel.head.maximum() == 3


def test_walkthrough_errors_are_shown_inline(panel, make_model):
    panel.set_model(make_model())
    panel.target.setText("want " * 30)
    assert panel.walk_error.isVisibleTo(panel) and "at most 24" in panel.walk_error.text()
    panel.target.setText("i want")
    assert not panel.walk_error.isVisibleTo(panel)
    assert panel.softmax_view.row_labels() == ["<s>", "i", "want"]


def test_model_vocabulary_tokenizes_the_batch(panel, make_model):
    panel.set_model(make_model())
    panel.others.setText("ich trinke")  # 'trinke' is unknown to the model: still one token, shown as typed
    assert "2: ich trinke <pad> <pad>" in panel.padded_tokens.text()
    np.testing.assert_array_equal(panel.padding_view.displayed_image(), [[1, 1, 1, 1], [1, 1, 0, 0]])
