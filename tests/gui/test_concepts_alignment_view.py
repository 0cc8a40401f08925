"""The heads-that-align view in the real window: it scores on its worker thread, its scores are the
core's over the test split, its example marks the best head's choices against the gold links, a quiz
then reads the scores the worker found, and a model of no built-in task is told why."""
from __future__ import annotations

import numpy as np
from concept_views import concept_head

from transviz.core.analysis.alignment_heads import alignment_heads, gold_pairs
from transviz.core.analysis.alignment_heads import test_split_alignment as kept_scores
from transviz.gui.panels.concepts.alignment import HIT, MISSED, WRONG

WAIT_MS = 60_000  # about a second's scoring, more on a busy machine


def test_the_view_draws_every_heads_score_and_the_best_heads_example(shipped_window, shipped_model, qtbot):
    panel = concept_head(shipped_window, "alignment", "cross", 0, 0)
    view = panel.current
    assert panel.error.isHidden() and view.name == "alignment"
    assert not view.background.synchronous  # the window's views score off its thread
    qtbot.waitUntil(lambda: view.shown is not None, timeout=WAIT_MS)
    assert view.pictures.isVisibleTo(view) and not view.waiting.isVisibleTo(view)
    expected = alignment_heads(shipped_model, gold_pairs(shipped_model))
    np.testing.assert_allclose(view.scores.data, np.column_stack([expected.accuracy, expected.layer_accuracy]))
    assert view.scores.column_labels()[-1] == "mean"
    example = expected.example
    cells = view.example.data
    predicted, gold = set(example.predicted), set(example.possible)
    for target in range(len(example.target_tokens)):
        for source in range(len(example.source_tokens)):
            link = (source, target)
            value = HIT if link in predicted and link in gold else WRONG if link in predicted else \
                MISSED if link in gold else 0.0
            assert cells[target, source] == value, link
    layer, head = expected.best
    assert f"layer {layer} head {head}" in panel.caption.text()
    assert f"{expected.accuracy[layer, head]:.1%}" in panel.caption.text()
    # the scores the worker found on its copy are the explorer's model's now: a quiz reads them
    assert shipped_window.workspace.session.model is shipped_window.workspace.decoding_model
    assert kept_scores(shipped_window.workspace.decoding_model) is view.shown


def test_scores_come_after_the_window_has_drawn(open_window, shipped_model, qtbot):
    window = open_window((1366, 768), model=shipped_model, sentence="ich möchte ein bier")
    panel = concept_head(window, "alignment", "cross", 0, 0)
    view = panel.current
    # a new copy of the weights: nothing kept for them, so the view waits for its worker
    assert view.shown is None and view.waiting.isVisibleTo(view) and not view.pictures.isVisibleTo(view)
    assert "off the window's thread" in view.waiting.text()
    qtbot.waitUntil(lambda: view.shown is not None, timeout=WAIT_MS)
    expected = alignment_heads(shipped_model, gold_pairs(shipped_model))
    np.testing.assert_array_equal(view.shown.accuracy, expected.accuracy)


def test_a_model_of_no_built_in_task_is_told_why(open_window, make_model, qtbot):
    window = open_window((1366, 768), model=make_model(), sentence="ich mochte ein bier")
    view = concept_head(window, "alignment", "cross", 0, 0).current
    status = view.background.status
    qtbot.waitUntil(lambda: "not a built-in task: give its sentence pairs as a TSV file" in status.text(),
                    timeout=WAIT_MS)
    assert status.isVisibleTo(view) and view.shown is None
