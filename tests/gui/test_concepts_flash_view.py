"""The online-softmax view in the real window: it draws what its core function computes for the
explorer's current query, redraws when the block size changes, and says that the blocks' output is
the ordinary softmax's."""
from __future__ import annotations

import numpy as np
from concept_views import concept_head

from transviz.core.analysis.concepts.forward import Sentence
from transviz.core.analysis.concepts.online_softmax import flash_row


def test_the_view_draws_the_current_rows_blocks_and_follows_the_block_size(shipped_window, shipped_model):
    shipped_window.panels["explorer"].controller.step()
    written = tuple(shipped_window.workspace.session.target_tokens[1:])
    panel = concept_head(shipped_window, "flash", "cross", 2, 1)
    view = panel.current
    assert panel.error.isHidden() and view.name == "flash"
    expected = flash_row(shipped_model, Sentence("ich mochte ein bier", written), "cross", 2, 1, 2)
    np.testing.assert_array_equal(view.shown.partial, expected.partial)
    view.block.setValue(3)
    assert view.shown.block == 3 and len(view.shown.partial) == -(-len(expected.scores) // 3)
    assert "differs from it by" in panel.caption.text() and view.shown.error < 1e-5
    claim = panel.claim.text()  # not the tutorials' words: said so
    assert claim.startswith("Beyond the tutorials:") and "never hold a row of weights" in claim
