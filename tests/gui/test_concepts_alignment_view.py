"""The heads-that-align view in the real window: its scores are the core's over the test split, its
example marks the best head's choices against the gold links, and a model of no built-in task is told why."""
from __future__ import annotations

import numpy as np
from concept_views import concept_head

from transviz.core.analysis.alignment_heads import alignment_heads, gold_pairs
from transviz.gui.panels.concepts.alignment import HIT, MISSED, WRONG


def test_the_view_draws_every_heads_score_and_the_best_heads_example(shipped_window, shipped_model):
    panel = concept_head(shipped_window, "alignment", "cross", 0, 0)
    view = panel.current
    assert panel.error.isHidden() and view.name == "alignment"
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


def test_a_model_of_no_built_in_task_is_told_why(open_window, make_model):
    window = open_window((1366, 768), model=make_model(), sentence="ich mochte ein bier")
    panel = concept_head(window, "alignment", "cross", 0, 0)
    assert "not a built-in task: give its sentence pairs as a TSV file" in panel.error.text()
