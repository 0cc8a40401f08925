"""The demonstrations of issue 16 against independent references: the spread of q·k against
sqrt(d_k) within its sampling error, softmax / entropy / Jacobian norm against torch (autograd's
Jacobian), the model's rows under ScaleScores against the softmax's temperature, and shuffling the
source: a permutation of the maps without positions, not with them (the shipped toy-de-en model)."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import transviz
from transviz.core.analysis.why_positions import positions_demo, random_permutation
from transviz.core.analysis.why_scale import (
    D_KS,
    SPREAD_SAMPLES,
    default_factors,
    entropy_bits,
    jacobian_norm,
    model_rows_under_scale,
    scale_curve,
    scale_demo,
)
from transviz.core.base.errors import InputError

SENTENCE = "ich möchte ein bier trinken"


@pytest.fixture(scope="module")
def toy():
    return transviz.load_model("default")


def torch_reference(scores: np.ndarray) -> tuple[np.ndarray, float, float]:
    """Softmax, its entropy in bits and the Frobenius norm of its Jacobian, by torch and autograd."""
    x = torch.tensor(scores, dtype=torch.float64)
    p = torch.softmax(x, dim=-1)
    jacobian = torch.autograd.functional.jacobian(lambda s: torch.softmax(s, dim=-1), x)
    entropy = -float(torch.special.xlogy(p, p).sum()) / math.log(2)
    return p.numpy(), entropy, float(torch.linalg.matrix_norm(jacobian))


@pytest.mark.parametrize("d_k", [1, 4, 64, 1024])
def test_the_spread_of_q_dot_k_is_sqrt_d_k_within_sampling_error(d_k):
    demo = scale_demo(d_k, seed=3)
    # q·k sums d_k products of N(0, 1) pairs: variance d_k, kurtosis 3 + 6/d_k; the std of a sample
    # of n has a relative standard error of about sqrt((kurtosis - 1) / 4n)
    error = math.sqrt((2 + 6 / d_k) / (4 * SPREAD_SAMPLES))
    assert abs(demo.spread / math.sqrt(d_k) - 1) < 5 * error


@pytest.mark.parametrize("d_k", [1, 16, 256, 1024])
def test_softmax_entropy_and_jacobian_norm_match_torch(d_k):
    demo = scale_demo(d_k, n_keys=7, seed=1)
    assert demo.scores.shape == (7,) and demo.d_k == d_k
    for probabilities, entropy, norm, scores in (
            (demo.unscaled, demo.entropy_unscaled, demo.jacobian_unscaled, demo.scores),
            (demo.scaled, demo.entropy_scaled, demo.jacobian_scaled, demo.scores / math.sqrt(d_k))):
        p, h, j = torch_reference(scores)
        np.testing.assert_allclose(probabilities, p, rtol=1e-9, atol=1e-300)
        assert entropy == pytest.approx(h, abs=1e-9)
        assert norm == pytest.approx(j, rel=1e-9, abs=1e-15)


def test_the_formulas_at_known_distributions():
    uniform = np.full(8, 1 / 8)
    assert entropy_bits(uniform) == pytest.approx(3.0)
    # diag(p) - ppᵀ of a uniform p: (1/8)(I - J/8); its squared entries sum to (1/64)(8 - 1)
    assert jacobian_norm(uniform) == pytest.approx(math.sqrt(7) / 8)
    one_hot = np.eye(5)[2]
    assert entropy_bits(one_hot) == 0.0 and jacobian_norm(one_hot) == 0.0


def test_without_the_scale_the_softmax_saturates_as_d_k_grows():
    curve = scale_curve(seed=0)
    np.testing.assert_array_equal(curve.d_ks, D_KS)
    np.testing.assert_allclose(curve.spread / np.sqrt(curve.d_ks), 1, atol=0.05)
    assert curve.entropy_unscaled[-1] < 0.01 and curve.jacobian_unscaled[-1] < 1e-3  # one key takes it all
    assert np.all(curve.entropy_scaled > 2.5) and np.all(curve.jacobian_scaled > 0.3)  # the same at every d_k
    assert curve.entropy_unscaled[0] == curve.entropy_scaled[0]  # sqrt(1) = 1
    assert np.all(np.diff(curve.entropy_unscaled[2:]) < 0)


def test_results_are_reproducible_from_the_seed():
    a, b, c = scale_demo(32, seed=5), scale_demo(32, seed=5), scale_demo(32, seed=6)
    np.testing.assert_array_equal(a.scores, b.scores)
    assert a.spread == b.spread and not np.array_equal(a.scores, c.scores)
    np.testing.assert_array_equal(scale_curve([8, 32], seed=2).entropy_scaled, scale_curve([8, 32], seed=2)
                                  .entropy_scaled)


@pytest.mark.parametrize("d_k", [0, 2.5, True, 10**6])
def test_a_d_k_out_of_range_is_refused(d_k):
    with pytest.raises(InputError, match="d_k"):
        scale_demo(d_k)


@pytest.mark.parametrize("kind,layer,head", [("encoder_self", 0, 1), ("cross", 2, 3), ("decoder_self", 1, 0)])
def test_the_models_rows_under_scale_scores_follow_the_softmaxs_temperature(toy, kind, layer, head):
    """Only the chosen layer is scaled, so its scores s stay the model's: the row at factor f is
    softmax(f s / sqrt(d_k)), which is softmax(f log p) of the model's own row p (factor 1)."""
    rows = model_rows_under_scale(toy, SENTENCE, kind, layer, head)
    d_k = toy.config.d_model // toy.config.n_heads
    assert rows.factors == default_factors(d_k) == (0.0, 0.5, 1.0, math.sqrt(d_k))
    plain = transviz.decode(toy, SENTENCE)
    maps = {"encoder_self": plain.encoder_self_attention, "decoder_self": plain.decoder_self_attention,
            "cross": plain.cross_attention}[kind][layer, head]
    np.testing.assert_allclose(rows.rows[2], maps, atol=1e-6)  # factor 1: the model as it is
    visible = rows.rows[2] > 0  # decoder self-attention masks the future
    for factor, got in zip(rows.factors, rows.rows, strict=True):
        logits = np.where(visible, factor * np.log(np.where(visible, rows.rows[2], 1.0)), -np.inf)
        expected = np.exp(logits - logits.max(-1, keepdims=True))
        expected /= expected.sum(-1, keepdims=True)
        np.testing.assert_allclose(got, expected, atol=2e-5)
    counts = visible.sum(-1)
    np.testing.assert_allclose(rows.entropy[0], np.log2(counts), atol=1e-5)  # factor 0: uniform over what it sees
    assert len(rows.query_labels) == rows.rows.shape[1] and len(rows.key_labels) == rows.rows.shape[2]


def test_a_layer_the_model_lacks_is_named(toy):
    with pytest.raises(InputError, match="no layer 7"):
        model_rows_under_scale(toy, SENTENCE, "cross", 7, 0)
    with pytest.raises(InputError, match="no head 9"):
        model_rows_under_scale(toy, SENTENCE, "cross", 0, 9)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_shuffled_without_positions_the_maps_are_only_permuted(toy, seed):
    demo = positions_demo(toy, SENTENCE, seed=seed)
    n = len(demo.tokens)
    assert sorted(demo.permutation) == list(range(n)) and demo.permutation != tuple(range(n))
    assert sorted(demo.shuffled_tokens) == sorted(demo.tokens) and demo.shuffled_tokens != demo.tokens
    assert demo.shuffled_tokens == [demo.tokens[i] for i in demo.permutation]
    assert demo.difference_unpositioned < 1e-5
    assert demo.difference > 1e-3
    # the differences by hand, with a permutation matrix (in float64: to float32 rounding)
    P = np.eye(n)[list(demo.permutation)]
    unpositioned = np.abs(demo.shuffled_unpositioned - P @ demo.original_unpositioned @ P.T).max()
    assert unpositioned == pytest.approx(demo.difference_unpositioned, rel=1e-6, abs=1e-9)
    assert np.abs(demo.shuffled - P @ demo.original @ P.T).max() == pytest.approx(demo.difference, rel=1e-6)


def test_the_maps_are_those_transviz_decode_records(toy):
    demo = positions_demo(toy, SENTENCE, permutation=[4, 3, 2, 1, 0])
    with_positions = transviz.decode(toy, SENTENCE).encoder_self_attention
    without = transviz.decode(toy, SENTENCE, interventions=[transviz.NoPositions("encoder")]).encoder_self_attention
    np.testing.assert_allclose(demo.original, with_positions, atol=1e-6)
    np.testing.assert_allclose(demo.original_unpositioned, without, atol=1e-6)
    reversed_text = transviz.decode(toy, " ".join(reversed(SENTENCE.split()))).encoder_self_attention
    np.testing.assert_allclose(demo.shuffled, reversed_text, atol=1e-6)
    assert demo.shuffled_tokens == list(reversed(demo.tokens))


def test_bad_permutations_and_one_token_sentences_are_refused(toy):
    with pytest.raises(InputError, match="not a permutation"):
        positions_demo(toy, SENTENCE, permutation=[0, 0, 1, 2, 3])
    with pytest.raises(InputError, match="at least two"):
        positions_demo(toy, "bier")


def test_a_random_permutation_changes_the_order_when_it_can():
    for seed in range(20):
        order = random_permutation(["a", "a", "b"], seed)
        assert sorted(order) == [0, 1, 2] and [["a", "a", "b"][i] for i in order] != ["a", "a", "b"]
    assert random_permutation(["x", "x"], 0) == (1, 0)  # the only other order, though it reads the same
