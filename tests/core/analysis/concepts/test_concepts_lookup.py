"""The look-up's numbers against numpy: weights are the softmax of q.k / sqrt(d_k) from the
walkthrough's own queries and keys, cosines and the retrieved mixture are recomputed here."""
from __future__ import annotations

import numpy as np
import pytest

import transviz
from transviz.core.analysis.concepts.forward import Sentence
from transviz.core.analysis.concepts.lookup import lookup
from transviz.core.analysis.walkthrough import KINDS, walkthrough

SENTENCE = Sentence("ich mochte ein bier", ("i", "want"))


@pytest.fixture(scope="module")
def model():
    return transviz.load_model("default")


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("layer", "head"), [(0, 0), (2, 3)])
def test_the_lookup_is_softmax_cosines_and_weights_at_v(model, kind, layer, head):
    walk = walkthrough(model, SENTENCE.source, "i want", kind, layer, head)
    q = walk.queries[-1].astype(np.float64)
    keys, values = walk.keys.astype(np.float64), walk.values.astype(np.float64)
    scores = keys @ q / np.sqrt(keys.shape[1])
    weights = np.exp(scores - scores.max())
    weights /= weights.sum()  # the last query sees every key: no mask to apply
    shown = lookup(model, SENTENCE, kind, layer, head)
    order = np.argsort(-scores)
    assert list(shown.order) == list(order)
    assert shown.query_token == ("bier" if kind == "encoder_self" else "want")
    assert shown.key_tokens == [walk.key_tokens[i] for i in order]
    np.testing.assert_allclose(shown.weights, weights[order], atol=1e-5)
    assert all(np.diff(shown.scaled) <= 0)
    best = keys[order[0]]
    cosines = [k @ best / (np.linalg.norm(k) * np.linalg.norm(best)) for k in keys[order]]
    np.testing.assert_allclose(shown.key_cosine, cosines, atol=1e-6)
    assert shown.key_cosine[0] == pytest.approx(1.0)
    mixture = weights @ values
    np.testing.assert_allclose(shown.mixture, mixture, atol=1e-5)
    np.testing.assert_allclose(shown.best_value, values[order[0]])
    expected = mixture @ values[order[0]] / (np.linalg.norm(mixture) * np.linalg.norm(values[order[0]]))
    assert shown.mixture_cosine == pytest.approx(expected, abs=1e-5)
    assert shown.mixture_norm == pytest.approx(np.linalg.norm(mixture), abs=1e-5)


def test_before_a_step_the_decoder_query_is_the_start_token(model):
    shown = lookup(model, Sentence("ein bier"), "decoder_self", 0, 1)
    assert shown.query_token == "<s>" and shown.key_tokens == ["<s>"] and shown.weights == pytest.approx([1.0])
