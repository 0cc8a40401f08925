"""Additive attention against numpy: its scores are v^T tanh(W1 q + W2 k) evaluated here; the
least-squares fit reproduces a planted additive map (known W1, W2, v and row offsets) exactly from
a random start, with and without a causal mask, and its linear step alone recovers v and the
offsets as numpy's lstsq does; the fit to a real head keeps the head's mask and reproduces its
scores (kept fits and warm starts included); random parameters score as numpy says; the memory
figures are the bytes of real tensors; the scores computed by rows are the batched ones; the
arithmetic is torch's count of the products plus one per addition and tanh; and the verdict on a
fit follows from counting: with no more scores than hidden units v alone matches any scores, with
more scores than parameters random scores are not matched."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode

import transviz
from transviz.core.analysis.concepts.additive import (
    LENGTHS,
    ROWS,
    TOLERANCE,
    AdditiveParams,
    additive,
    additive_blocks,
    additive_hidden,
    additive_scores,
    additive_scores_by_rows,
    dot_scores,
    fit_additive,
    linear_step,
    random_params,
    rows_bytes,
    score_bytes,
    score_flops,
    time_scores,
)
from transviz.core.analysis.concepts.forward import Sentence
from transviz.core.analysis.walkthrough import KINDS, walkthrough

SENTENCE = Sentence("ich mochte ein bier", ("i", "want"))
LONG = Sentence("ich mochte ein bier trinken und ein brot essen", ("i", "want", "a", "beer", "and"))
BLOCKED = 1e6  # what a planted map holds where the mask blocks: a fit that read it would be far off


def numpy_softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def numpy_centred(scores: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Each row less its mean over the allowed keys, 0 where blocked."""
    rows = [np.where(m, s - s[m].mean(), 0.0) for s, m in zip(scores, mask, strict=True)]
    return np.array(rows)


def causal(queries: int, keys: int) -> np.ndarray:
    """Query i may see keys 0..i+1 (a decoder's mask with one key to spare, so no row is a single key)."""
    return np.arange(keys)[None, :] <= np.arange(queries)[:, None] + 1


def planted(seed: int, d: int = 8, hidden: int = 4, queries: int = 6, keys: int = 7, masked: bool = False):
    """A known additive map with an arbitrary offset per row, and BLOCKED where the mask blocks."""
    rng = np.random.default_rng(seed)
    w1, w2 = rng.normal(size=(hidden, d)) / np.sqrt(d), rng.normal(size=(hidden, d)) / np.sqrt(d)
    v, offsets = rng.normal(size=hidden) * 2, rng.normal(size=queries) * 5
    q, k = rng.normal(size=(queries, d)), rng.normal(size=(keys, d))
    scores = np.array([[v @ np.tanh(w1 @ qi + w2 @ kj) for kj in k] for qi in q]) + offsets[:, None]
    mask = causal(queries, keys) if masked else np.ones((queries, keys), dtype=bool)
    return (w1, w2, v, offsets), q, k, np.where(mask, scores, BLOCKED), mask


def test_the_scores_are_v_tanh_of_w1_q_plus_w2_k():
    (w1, w2, v, _), q, k, _, _ = planted(3)
    expected = np.array([[v @ np.tanh(w1 @ qi + w2 @ kj) for kj in k] for qi in q])
    params = AdditiveParams(*(torch.from_numpy(a) for a in (w1, w2, v)))
    np.testing.assert_allclose(additive_scores(torch.from_numpy(q), torch.from_numpy(k), params).numpy(), expected,
                               atol=1e-10)


@pytest.mark.parametrize("masked", (False, True), ids=("full", "causal"))
@pytest.mark.parametrize(("seed", "plant", "hidden"), ((0, 4, 4), (1, 4, 4), (2, 4, 8), (3, 8, 8), (4, 6, 6)))
def test_the_fit_reproduces_a_planted_additive_map_exactly(seed, plant, hidden, masked):
    """From a random start (the seed's random W1 and W2, never the planted ones) the fitted scores
    equal the planted ones up to each row's offset, and so do the weights, to 1e-6."""
    (w1, _, _, _), q, k, scores, mask = planted(seed, hidden=plant, masked=masked)
    fit = fit_additive(*(torch.from_numpy(a) for a in (q, k, scores, mask)), hidden=hidden, seed=seed)
    start = random_params(8, hidden, seed)
    np.testing.assert_array_equal(start.w1.shape, fit.params.w1.shape)
    assert not np.allclose(start.w1.double().numpy()[:plant], w1, atol=0.1)  # it starts far from the plant
    fitted = fit.scores.numpy()
    np.testing.assert_allclose(numpy_centred(fitted, mask), numpy_centred(scores, mask), atol=1e-6)
    np.testing.assert_allclose(fit.weights.numpy(), numpy_softmax(np.where(mask, scores, -np.inf)), atol=1e-6)
    assert np.all(fit.weights.numpy()[~mask] == 0)
    assert fit.residual < 1e-8 and fit.steps > 0


@pytest.mark.parametrize("masked", (False, True), ids=("full", "causal"))
def test_the_linear_step_recovers_v_and_the_offsets_as_lstsq_does(masked):
    """With the planted W1 and W2, v and the row offsets solve a linear least-squares problem: the
    step returns what numpy's lstsq finds on the tanh features and one indicator column per row."""
    (w1, w2, v, offsets), q, k, scores, mask = planted(5, masked=masked)
    rows = [(i, j) for i in range(len(q)) for j in range(len(k)) if mask[i, j]]
    design = np.array([np.concatenate([np.tanh(w1 @ q[i] + w2 @ k[j]), np.eye(len(q))[i]]) for i, j in rows])
    solution = np.linalg.lstsq(design, np.array([scores[i, j] for i, j in rows]), rcond=None)[0]
    found_v, found_offsets = linear_step(*(torch.from_numpy(a) for a in (q, k, w1, w2, scores, mask)))
    np.testing.assert_allclose(solution[:len(v)], v, atol=1e-9)  # the reference recovers the plant...
    np.testing.assert_allclose(found_v.numpy(), solution[:len(v)], atol=1e-9)  # ...and so does the step
    np.testing.assert_allclose(found_offsets.numpy(), solution[len(v):], atol=1e-9)
    np.testing.assert_allclose(found_offsets.numpy(), offsets, atol=1e-9)


@pytest.fixture(scope="module")
def model():
    return transviz.load_model("default")


def numpy_residual(scores: np.ndarray, head: np.ndarray, mask: np.ndarray) -> float:
    """RMS of the row-centred difference over the RMS of the head's row-centred scores."""
    head_centred = numpy_centred(head, mask)
    return float(np.linalg.norm(numpy_centred(scores, mask) - head_centred) / np.linalg.norm(head_centred))


@pytest.mark.parametrize("kind", KINDS)
def test_the_fit_to_a_real_head_keeps_its_mask_and_reproduces_its_scores(model, kind):
    """Nine source words: the encoder and cross-attention fits need iterations, not only v."""
    found = additive(model, LONG, kind, 1, 2)
    walk = walkthrough(model, LONG.source, "i want a beer and", kind, 1, 2)
    np.testing.assert_array_equal(found.dot_weights, walk.weights)
    assert np.all(found.additive_weights[~walk.mask] == 0)
    np.testing.assert_allclose(found.additive_weights.sum(axis=-1), 1, atol=1e-5)
    # the log-weights are the scores up to each row's offset (float32 weights: to about 1e-6)
    logs = np.log(np.where(walk.mask, found.additive_weights, 1.0).astype(np.float64))
    assert numpy_residual(logs, walk.scaled.astype(np.float64), walk.mask) < 1e-5
    assert found.score_residual < 10 * TOLERANCE
    assert found.equations == sum(max(int(row.sum()) - 1, 0) for row in walk.mask)
    largest = np.abs(found.additive_weights.astype(np.float64) - walk.weights).max()
    assert found.largest_difference == pytest.approx(largest, abs=1e-7) and largest < 1e-6
    assert len(found.dot_seconds) == len(found.additive_seconds) == len(found.lengths)
    assert all(s > 0 for s in found.dot_seconds + found.additive_seconds)


def test_with_alibi_the_fit_is_to_the_scores_the_softmax_reads():
    """The distance bias is part of what the softmax reads: fitted without it, the weights would miss."""
    model = transviz.load_model("alibi")
    found = additive(model, LONG, "encoder_self", 1, 0)
    walk = walkthrough(model, LONG.source, "i want a beer and", "encoder_self", 1, 0)
    assert walk.position_bias is not None and np.abs(walk.position_bias).max() > 1
    np.testing.assert_array_equal(found.dot_weights, walk.weights)
    logs = np.log(np.where(walk.mask, found.additive_weights, 1.0).astype(np.float64))
    read = (walk.scaled + walk.position_bias).astype(np.float64)
    assert numpy_residual(logs, read, walk.mask) < numpy_residual(logs, walk.scaled.astype(np.float64), walk.mask)
    assert found.largest_difference == pytest.approx(
        np.abs(found.additive_weights.astype(np.float64) - walk.weights).max(), abs=1e-7)


def test_a_kept_fit_is_the_fresh_fit_and_a_step_starts_from_it():
    """The first fit of a head equals a fit with nothing kept (a new model object: nothing to reuse),
    drawing it again returns the same numbers, and the next step's fit, started from the kept
    W1 and W2, is as close to the head as a fit from scratch in no more iterations."""
    model, fresh = transviz.load_model("default"), transviz.load_model("default")
    before = Sentence(LONG.source, LONG.target[:-1])
    first = additive(model, before, "cross", 1, 2)
    np.testing.assert_array_equal(first.additive_weights, additive(fresh, before, "cross", 1, 2).additive_weights)
    again = additive(model, before, "cross", 1, 2)
    np.testing.assert_array_equal(again.additive_weights, first.additive_weights)
    assert again.fit_steps == first.fit_steps and again.fit_seconds == first.fit_seconds
    warm = additive(model, LONG, "cross", 1, 2)
    walk = walkthrough(model, LONG.source, "i want a beer and", "cross", 1, 2)
    cold = fit_additive(*(torch.from_numpy(a) for a in (walk.queries, walk.keys, walk.scaled, walk.mask)),
                        hidden=walk.d_k)
    np.testing.assert_array_equal(warm.dot_weights, walk.weights)
    assert cold.steps > 0 and cold.residual <= TOLERANCE
    assert warm.score_residual <= TOLERANCE and warm.fit_steps <= cold.steps


def test_changed_weights_are_fitted_again():
    model = transviz.load_model("default")
    before = additive(model, SENTENCE, "encoder_self", 0, 1)
    with torch.no_grad():
        model.net.encoder_layers[0].self_attn.in_proj_weight.mul_(1.3)
    after = additive(model, SENTENCE, "encoder_self", 0, 1)
    walk = walkthrough(model, SENTENCE.source, "i want", "encoder_self", 0, 1)
    np.testing.assert_array_equal(after.dot_weights, walk.weights)
    assert not np.allclose(after.dot_weights, before.dot_weights)
    assert np.abs(after.additive_weights - walk.weights).max() < 1e-6


def test_random_parameters_score_as_numpy_says_and_sit_further_from_the_head(model):
    walk = walkthrough(model, SENTENCE.source, "i want", "cross", 1, 2)
    found = additive(model, SENTENCE, "cross", 1, 2, mode="random")
    w1, w2, v = (t.double().numpy() for t in astuple_params(random_params(walk.d_k, walk.d_k)))
    q, k = walk.queries.astype(np.float64), walk.keys.astype(np.float64)
    scores = np.array([[v @ np.tanh(w1 @ qi + w2 @ kj) for kj in k] for qi in q])
    expected = numpy_softmax(np.where(walk.mask, scores, -np.inf))
    np.testing.assert_allclose(found.additive_weights, expected, atol=1e-6)
    residual = numpy_residual(scores, walk.scaled.astype(np.float64), walk.mask)
    assert found.score_residual == pytest.approx(residual, rel=1e-6)
    assert found.largest_difference == pytest.approx(np.abs(expected - walk.weights).max(), abs=1e-6)
    assert found.fit_steps == 0 and found.mode == "random"
    fitted = additive(model, SENTENCE, "cross", 1, 2)
    assert found.score_residual > 0.1 > 1e6 * fitted.score_residual


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
    assert (found.dot_seconds, found.additive_seconds, found.rows_seconds) == time_scores(found.hidden, LENGTHS)
    for n, by_rows in zip(found.lengths, found.rows_bytes, strict=True):
        q = torch.zeros(n, found.hidden)
        blocks = list(additive_blocks(q, q, random_params(found.hidden, found.hidden), found.rows))
        largest = max(block.element_size() * block.numel() for block in blocks)
        assert by_rows == max(largest, n * n * 4)  # a block, or the scores it fills
    assert found.rows == ROWS


@pytest.mark.parametrize(("n_q", "n_k", "rows"), ((37, 11, 16), (5, 9, 16), (16, 3, 4)))
def test_the_scores_by_rows_are_the_batched_scores_and_no_block_is_whole(n_q, n_k, rows):
    (w1, w2, v, _), _, _, _, _ = planted(7, hidden=4)
    rng = np.random.default_rng(1)
    q, k = rng.normal(size=(n_q, 8)), rng.normal(size=(n_k, 8))
    params = AdditiveParams(*(torch.from_numpy(a) for a in (w1, w2, v)))
    expected = np.array([[v @ np.tanh(w1 @ qi + w2 @ kj) for kj in k] for qi in q])
    found = additive_scores_by_rows(torch.from_numpy(q), torch.from_numpy(k), params, rows)
    np.testing.assert_allclose(found.numpy(), expected, atol=1e-10)
    shapes = [tuple(block.shape) for block in additive_blocks(torch.from_numpy(q), torch.from_numpy(k), params, rows)]
    assert shapes == [(min(rows, n_q - start), n_k, 4) for start in range(0, n_q, rows)]
    assert rows_bytes(n_q, n_k, 4, rows, 8) == 8 * max(min(rows, n_q) * n_k * 4, n_q * n_k)


@pytest.mark.parametrize(("n_q", "n_k", "d", "hidden"), ((8, 8, 32, 32), (512, 512, 32, 32), (7, 13, 6, 5)))
def test_the_arithmetic_is_torchs_count_of_the_products_and_one_per_addition_and_tanh(n_q, n_k, d, hidden):
    q, k = torch.randn(n_q, d), torch.randn(n_k, d)
    params = random_params(d, hidden)
    with FlopCounterMode(display=False) as dot_counter:
        dot_scores(q, k)
    with FlopCounterMode(display=False) as projections:  # W1 q and W2 k (the sum over v is no mm to torch)
        tensor = additive_hidden(q, k, params)
    with FlopCounterMode(display=False) as summed:
        tensor.reshape(-1, hidden) @ params.v[:, None]  # the same sum as a product torch counts
    elementwise = 2 * tensor.numel()  # W1 q + W2 k added, then tanh, for every (query, key, unit)
    dot, add = score_flops(n_q, n_k, d, hidden)
    assert dot == dot_counter.get_total_flops()
    assert add == projections.get_total_flops() + summed.get_total_flops() + elementwise
    if hidden == d and n_q == n_k >= 4 * d:  # once n x n x d outgrows the projections: the same order
        assert 2 < add / dot < 3


def test_the_parameters_are_w1_w2_and_v(model):
    found = additive(model, SENTENCE, "cross", 1, 2)
    d_k = model.config.d_model // model.config.n_heads
    assert found.hidden == d_k and found.parameters == sum(t.numel() for t in astuple_params(random_params(d_k, d_k)))


def test_with_no_more_scores_than_hidden_units_v_alone_matches_any_scores():
    """Exact by construction: random target scores, no Levenberg-Marquardt step, still no residual."""
    rng = np.random.default_rng(2)
    q, k, scores = rng.normal(size=(3, 8)), rng.normal(size=(4, 8)), rng.normal(size=(3, 4))
    mask = np.ones((3, 4), dtype=bool)  # 3 x (4 - 1) = 9 scores to match, 12 hidden units
    fit = fit_additive(*(torch.from_numpy(a) for a in (q, k, scores, mask)), hidden=12, steps=0)
    assert fit.steps == 0 and fit.residual < 1e-6


@pytest.mark.parametrize("kind", KINDS)
def test_on_a_real_heads_queries_and_keys_random_scores_are_matched_as_closely(model, kind):
    """Fewer scores than W1, W2 and v hold parameters (the view's "proves little"): scores drawn at
    random, of the head's spread, are fitted as closely as the head's own."""
    walk = walkthrough(model, LONG.source, "i want a beer and", kind, 1, 2)
    found = additive(model, LONG, kind, 1, 2)
    assert found.equations <= found.parameters
    rng = np.random.default_rng(0)
    noise = rng.normal(size=walk.scaled.shape) * walk.scaled[walk.mask].std()
    fit = fit_additive(*(torch.from_numpy(a) for a in (walk.queries, walk.keys, noise, walk.mask)), hidden=walk.d_k)
    assert fit.residual < 1e-6
    assert numpy_residual(fit.scores.numpy(), noise, walk.mask) < 1e-6


def test_with_more_scores_than_parameters_random_scores_are_not_matched():
    """2 x 2 x 2 + 2 = 10 parameters against 12 x 11 = 132 scores: a fit to noise stays far off."""
    rng = np.random.default_rng(3)
    q, k, scores = rng.normal(size=(12, 2)), rng.normal(size=(12, 2)), rng.normal(size=(12, 12))
    mask = np.ones((12, 12), dtype=bool)
    fit = fit_additive(*(torch.from_numpy(a) for a in (q, k, scores, mask)), hidden=2)
    assert fit.residual > 0.5
