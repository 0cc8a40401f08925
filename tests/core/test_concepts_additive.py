"""Additive attention against numpy: its scores are v^T tanh(W1 q + W2 k) evaluated here, Adam
recovers a planted additive map from its queries and keys, and the fit to a real head keeps the
head's mask and comes close to its weights."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import transviz
from transviz.core.concepts.additive import AdditiveParams, additive, additive_scores, fit_additive
from transviz.core.concepts.forward import Sentence
from transviz.core.walkthrough import KINDS, walkthrough

SENTENCE = Sentence("ich mochte ein bier", ("i", "want"))


def numpy_softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def planted(seed: int = 3, d: int = 6, hidden: int = 8, queries: int = 10, keys: int = 12):
    rng = np.random.default_rng(seed)
    w1, w2 = rng.normal(size=(hidden, d)), rng.normal(size=(hidden, d))
    v = rng.normal(size=hidden) * 2
    q, k = rng.normal(size=(queries, d)), rng.normal(size=(keys, d))
    scores = np.array([[v @ np.tanh(w1 @ qi + w2 @ kj) for kj in k] for qi in q])
    return (w1, w2, v), q, k, scores


def test_the_scores_are_v_tanh_of_w1_q_plus_w2_k():
    (w1, w2, v), q, k, scores = planted()
    params = AdditiveParams(*(torch.from_numpy(a) for a in (w1, w2, v)))
    np.testing.assert_allclose(additive_scores(torch.from_numpy(q), torch.from_numpy(k), params).numpy(), scores,
                               atol=1e-10)


def test_adam_recovers_a_planted_additive_map():
    _, q, k, scores = planted()
    target = numpy_softmax(scores)
    mask = torch.ones(target.shape, dtype=torch.bool)
    _, fitted = fit_additive(torch.from_numpy(q).float(), torch.from_numpy(k).float(),
                             torch.from_numpy(target).float(), mask, hidden=8, steps=600)
    distance = np.abs(fitted.numpy() - target).sum(axis=-1) / 2  # total variation per query
    assert distance.mean() < 0.03 and distance.max() < 0.1


@pytest.fixture(scope="module")
def model():
    return transviz.load_model("default")


@pytest.mark.parametrize("kind", KINDS)
def test_the_fit_to_a_real_head_keeps_its_mask_and_its_weights(model, kind):
    found = additive(model, SENTENCE, kind, 1, 2)
    walk = walkthrough(model, SENTENCE.source, "i want", kind, 1, 2)
    np.testing.assert_array_equal(found.dot_weights, walk.weights)
    assert np.all(found.additive_weights[~walk.mask] == 0)
    np.testing.assert_allclose(found.additive_weights.sum(axis=-1), 1, atol=1e-5)
    tv = np.abs(found.additive_weights - walk.weights).sum(axis=-1).mean() / 2
    assert found.error == pytest.approx(tv, abs=1e-6) and tv < 0.05
    assert len(found.dot_seconds) == len(found.additive_seconds) == len(found.lengths)
    assert all(s > 0 for s in found.dot_seconds + found.additive_seconds)
