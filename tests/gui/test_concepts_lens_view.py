"""The logit-lens view in the real window: what it draws against its core function at the
explorer's step, its caption, a decoder-only model's "not for this variant", and a quiz's hiding."""
from __future__ import annotations

import numpy as np
from concept_views import concept_head

import transviz
from transviz.core.analysis.concepts.forward import Sentence
from transviz.core.analysis.lens import logit_lens


def test_the_view_draws_each_layers_guess_and_each_heads_share(shipped_window, shipped_model):
    controller = shipped_window.panels["explorer"].controller
    for _ in range(3):
        controller.step()
    session = shipped_window.workspace.session
    panel = concept_head(shipped_window, "lens", "cross", 0, 0)
    view = panel.current
    assert panel.error.isHidden() and view.name == "lens"
    expected = logit_lens(shipped_model, Sentence("ich mochte ein bier", tuple(session.target_tokens[1:])),
                          session.output_tokens[-1], k=6)
    columns = view.guesses.column_labels()
    assert columns[:6] == expected.layers[-1].tokens
    ids = [shipped_model.tgt_vocab.id_of(token) for token in columns]
    np.testing.assert_allclose(view.guesses.data, [guess.distribution[ids] for guess in expected.layers], atol=1e-6)
    np.testing.assert_allclose(view.heads.data, expected.direct.heads, atol=1e-6)
    assert f"The model wrote '{session.output_tokens[-1]}'" in panel.caption.text()
    assert f"{expected.direct.logit:.2f}" in view.summary.text()
    assert panel.claim.text().startswith("Beyond the tutorials:")


def test_a_decoder_only_model_has_no_heads_to_split_off(open_window):
    window = open_window((1366, 768), model=transviz.load_model("decoder-only"), source="decoder-only",
                         sentence="ich mochte ein bier")
    window.panels["explorer"].controller.step()
    panel = concept_head(window, "lens", "cross", 0, 0)
    assert panel.error.isHidden() and panel.current.guesses.data.shape[0] == 3
    assert panel.current.summary.text().startswith("Not for this variant")


def test_before_the_first_step_the_view_asks_for_one(shipped_window):
    panel = concept_head(shipped_window, "lens", "cross", 0, 0)
    assert panel.current.shown is None and "Step in the explorer first" in panel.current.summary.text()
