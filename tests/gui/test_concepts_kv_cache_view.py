"""The KV-cache view in the real window: it draws the chosen layer's cached keys of the chosen head's
key/value head, says which query heads share them, and gives the siblings' bytes per token as
their caches hold them."""
from __future__ import annotations

import numpy as np
from concept_views import concept_head

import transviz
from transviz.core.analysis.concepts.forward import Sentence
from transviz.core.analysis.concepts.kv_cache import cache_contents


def test_the_view_draws_the_cache_of_the_current_step_and_the_siblings_bytes(shipped_window, shipped_model):
    explorer = shipped_window.panels["explorer"]
    explorer.controller.step()
    explorer.controller.step()
    written = tuple(shipped_window.workspace.session.target_tokens[1:])
    panel = concept_head(shipped_window, "kv-cache", "decoder_self", 1, 2)
    view = panel.current
    assert panel.error.isHidden() and view.name == "kv-cache"
    expected = cache_contents(shipped_model, Sentence("ich mochte ein bier", written))
    cached = expected.layers[1]
    np.testing.assert_allclose(view.keys.data, np.vstack([cached.source_keys[2], cached.own_keys[2]]), atol=1e-6)
    assert view.siblings == {"default": 3072.0, "gqa": 1536.0, "mqa": 768.0}
    assert "computed once" in panel.caption.text() and "within" in panel.caption.text()


def test_a_grouped_query_head_names_the_query_heads_that_share_its_keys(shipped_window, qtbot):
    shipped_window.workspace.set_model(transviz.load_model("gqa"))
    panel = concept_head(shipped_window, "kv-cache", "decoder_self", 0, 3)
    assert "key/value head 1 (shared by query heads 2-3)" in panel.current.keys.title
