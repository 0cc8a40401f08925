"""Additive attention against numpy: its scores are v^T tanh(W1 q + W2 k) evaluated here, the fit
recovers a planted additive map from its queries and keys, the fit to a real head keeps the head's
mask and comes close to its weights (kept fits and warm starts included), random parameters score
as numpy says, and the memory figures are the bytes of real tensors."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import transviz
from transviz.core.concepts.additive import (
    LENGTHS,
    TOLERANCE,
    AdditiveParams,
    additive,
    additive_hidden,
    additive_scores,
    dot_scores,
    fit_additive,
    random_params,
    score_bytes,
    time_scores,
)
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


def test_the_fit_recovers_a_planted_additive_map():
    _, q, k, scores = planted()
    target = numpy_softmax(scores)
    mask = torch.ones(target.shape, dtype=torch.bool)
    fitted = fit_additive(torch.from_numpy(q).float(), torch.from_numpy(k).float(),
                          torch.from_numpy(target).float(), mask, hidden=8, steps=600).weights
    distance = np.abs(fitted.numpy() - target).sum(axis=-1) / 2  # total variation per query
    assert distance.mean() < 0.03 and distance.max() < 0.1


@pytest.mark.parametrize("seed", (3, 4, 5))
def test_with_room_to_spare_the_fit_reproduces_a_planted_map_closely(seed):
    """Fitted with more hidden units than the plant (as the view fits a head: hidden = d_k), the
    non-convex fit reaches the planted weights to within a few thousandths, not only roughly."""
    _, q, k, scores = planted(seed)
    target = numpy_softmax(scores)
    mask = torch.ones(target.shape, dtype=torch.bool)
    fitted = fit_additive(torch.from_numpy(q), torch.from_numpy(k), torch.from_numpy(target), mask, hidden=32,
                          steps=400).weights
    distance = np.abs(fitted.numpy() - target).sum(axis=-1) / 2
    assert distance.mean() < 3e-3 and distance.max() < 6e-3


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


def test_a_kept_fit_is_the_fresh_fit_and_a_step_starts_from_it():
    """The first fit of a head equals a fit with nothing kept (a new model object: nothing to reuse),
    drawing it again returns the same numbers, and the next step's fit, started from the kept
    parameters, is as close to the head as a fit from scratch."""
    model, fresh = transviz.load_model("default"), transviz.load_model("default")
    first = additive(model, SENTENCE, "cross", 1, 2)
    np.testing.assert_array_equal(first.additive_weights, additive(fresh, SENTENCE, "cross", 1, 2).additive_weights)
    again = additive(model, SENTENCE, "cross", 1, 2)
    np.testing.assert_array_equal(again.additive_weights, first.additive_weights)
    assert again.fit_steps == first.fit_steps and again.fit_seconds == first.fit_seconds
    stepped = Sentence(SENTENCE.source, (*SENTENCE.target, "a"))
    warm = additive(model, stepped, "cross", 1, 2)
    walk = walkthrough(model, SENTENCE.source, "i want a", "cross", 1, 2)
    cold = fit_additive(*(torch.from_numpy(a) for a in (walk.queries, walk.keys, walk.weights, walk.mask)),
                        hidden=walk.d_k, tolerance=TOLERANCE)
    cold_error = np.abs(cold.weights.numpy() - walk.weights).sum(axis=-1).mean() / 2
    np.testing.assert_array_equal(warm.dot_weights, walk.weights)
    assert warm.error < max(TOLERANCE, cold_error + 1e-4) and warm.fit_steps <= cold.steps


def test_changed_weights_are_fitted_again():
    model = transviz.load_model("default")
    before = additive(model, SENTENCE, "encoder_self", 0, 1)
    with torch.no_grad():
        model.net.encoder_layers[0].self_attn.in_proj_weight.mul_(1.3)
    after = additive(model, SENTENCE, "encoder_self", 0, 1)
    walk = walkthrough(model, SENTENCE.source, "i want", "encoder_self", 0, 1)
    np.testing.assert_array_equal(after.dot_weights, walk.weights)
    assert not np.allclose(after.dot_weights, before.dot_weights)
    assert np.abs(after.additive_weights - walk.weights).sum(axis=-1).mean() / 2 < 0.05


def test_random_parameters_score_as_numpy_says_and_sit_further_from_the_head(model):
    walk = walkthrough(model, SENTENCE.source, "i want", "cross", 1, 2)
    found = additive(model, SENTENCE, "cross", 1, 2, mode="random")
    w1, w2, v = (t.double().numpy() for t in astuple_params(random_params(walk.d_k, walk.d_k)))
    q, k = walk.queries.astype(np.float64), walk.keys.astype(np.float64)
    scores = np.array([[v @ np.tanh(w1 @ qi + w2 @ kj) for kj in k] for qi in q])
    expected = numpy_softmax(np.where(walk.mask, scores, -np.inf))
    np.testing.assert_allclose(found.additive_weights, expected, atol=1e-5)
    assert found.error == pytest.approx(np.abs(expected - walk.weights).sum(axis=-1).mean() / 2, abs=1e-5)
    assert found.fit_steps == 0 and found.mode == "random"
    assert found.error > 10 * additive(model, SENTENCE, "cross", 1, 2).error


def astuple_params(params: AdditiveParams) -> tuple[torch.Tensor, ...]:
    return params.w1, params.w2, params.v


@pytest.mark.parametrize("dtype", (torch.float32, torch.float64))
def test_the_memory_figures_are_the_bytes_of_the_real_tensors(dtype):
    d, hidden, n_q, n_k = 6, 5, 7, 9
    q, k = torch.randn(n_q, d, dtype=dtype), torch.randn(n_k, d, dtype=dtype)
    params = random_params(d, hidden, dtype=dtype)
    scores, tensor = dot_scores(q, k), additive_hidden(q, k, params)
    assert tensor.shape == (n_q, n_k, hidden)
    size = torch.finfo(dtype).bits // 8
    assert score_bytes(n_q, n_k, hidden, size) == (scores.element_size() * scores.numel(),
                                                    tensor.element_size() * tensor.numel())


def test_the_view_figures_are_float32_bytes_and_the_timings_are_measured_once(model):
    found = additive(model, SENTENCE, "decoder_self", 0, 0)
    for n, dot, add in zip(found.lengths, found.dot_bytes, found.additive_bytes, strict=True):
        q = torch.zeros(n, found.hidden)
        tensor = additive_hidden(q, q, random_params(found.hidden, found.hidden))
        assert (dot, add) == (dot_scores(q, q).numel() * 4, tensor.element_size() * tensor.numel())
    assert time_scores(found.hidden, LENGTHS) is time_scores(found.hidden, LENGTHS)
    assert (found.dot_seconds, found.additive_seconds) == time_scores(found.hidden, LENGTHS)
