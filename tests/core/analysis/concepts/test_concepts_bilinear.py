"""W_Z with its bias row and column reproduces every head's scaled scores, of every kind of the
shipped model, as the walkthrough computes them from the model's own queries and keys; its rank
is at most d_k and its symmetric and antisymmetric parts add up to it."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import torch

import transviz
from transviz.core.analysis.concepts.bilinear import bilinear
from transviz.core.analysis.concepts.forward import Sentence
from transviz.core.analysis.walkthrough import KINDS, walkthrough
from transviz.core.data.held_out import held_out_pairs
from transviz.core.model.bundle import Model
from transviz.core.model.transformer import Transformer

SENTENCE = Sentence("ich mochte ein bier", ("i", "want", "a"))


@pytest.fixture(scope="module")
def model():
    return transviz.load_model("default")


@pytest.mark.parametrize("kind", KINDS)
def test_the_form_gives_every_heads_scaled_scores(model, kind):
    cfg = model.config
    layers = cfg.n_encoder_layers if kind == "encoder_self" else cfg.n_decoder_layers
    for layer in range(layers):
        for head in range(cfg.n_heads):
            shown = bilinear(model, SENTENCE, kind, layer, head)
            walk = walkthrough(model, SENTENCE.source, "i want a", kind, layer, head)
            np.testing.assert_allclose(shown.form, walk.scaled, atol=1e-4)
            assert shown.check < 1e-4 and shown.matrix.shape == (cfg.d_model + 1,) * 2
            np.testing.assert_allclose(shown.symmetric + shown.antisymmetric, shown.matrix, atol=1e-12)
            np.testing.assert_allclose(shown.symmetric, shown.symmetric.T)
            np.testing.assert_allclose(shown.antisymmetric, -shown.antisymmetric.T)
            assert shown.symmetric_norm == pytest.approx(np.sqrt((shown.symmetric ** 2).sum()))
            assert shown.antisymmetric_norm == pytest.approx(np.sqrt((shown.antisymmetric ** 2).sum()))
            assert shown.rank <= walk.d_k and 1 <= shown.entropy_rank <= shown.rank


def test_the_matrix_is_the_heads_query_and_key_weights(model):
    """Independently of the form: W_Z's top-left block is W_Q_h^T W_K_h, from the packed weights."""
    attention = model.net.encoder_layers[1].self_attn
    d, d_k, head = attention.d_model, attention.d_k, 2
    weight = attention.in_proj_weight.detach().double().numpy()
    w_q, w_k = weight[head * d_k:(head + 1) * d_k], weight[d + head * d_k:d + (head + 1) * d_k]
    shown = bilinear(model, SENTENCE, "encoder_self", 1, head)
    np.testing.assert_allclose(shown.matrix[:d, :d], w_q.T @ w_k, atol=1e-12)
    values = np.linalg.svd(shown.matrix, compute_uv=False)
    np.testing.assert_allclose(shown.singular_values, values)
    share = values / values.sum()
    assert shown.entropy_rank == pytest.approx(np.exp(-np.sum(share[share > 0] * np.log(share[share > 0]))))


def test_what_is_kept_per_head_follows_the_weights():
    """A second draw reuses W_Z and its SVD; changing the weights in place (as training does) gives
    the new head's W_Z, recomputed here with numpy, and the form still reproduces the scores."""
    model = transviz.load_model("default")
    first = bilinear(model, SENTENCE, "cross", 1, 2)
    again = bilinear(model, Sentence(SENTENCE.source, ("i",)), "cross", 1, 2)
    assert again.matrix is first.matrix and again.singular_values is first.singular_values
    attention = model.net.decoder_layers[1].cross_attn
    with torch.no_grad():
        attention.in_proj_weight.mul_(1.5)
    changed = bilinear(model, SENTENCE, "cross", 1, 2)
    d, d_k = attention.d_model, attention.d_k
    weight = attention.in_proj_weight.detach().double().numpy()
    w_q, w_k = weight[2 * d_k:3 * d_k], weight[d + 2 * d_k:d + 3 * d_k]
    np.testing.assert_allclose(changed.matrix[:d, :d], w_q.T @ w_k, atol=1e-12)
    np.testing.assert_allclose(changed.singular_values, np.linalg.svd(changed.matrix, compute_uv=False))
    walk = walkthrough(model, SENTENCE.source, "i want a", "cross", 1, 2)
    np.testing.assert_allclose(changed.form, walk.scaled, atol=1e-4)
    assert not np.allclose(changed.form, first.form, atol=1e-3)


def test_a_model_without_biases_has_a_zero_bias_row_and_column(model):
    """nn.Transformer(bias=False) imported: W_Z's bias row and column are 0 and the form still
    gives the walkthrough's scaled scores."""
    torch.manual_seed(0)
    net = Transformer(replace(model.config, bias=False)).eval()
    bare = Model(net, model.src_vocab, model.tgt_vocab)
    shown = bilinear(bare, SENTENCE, "cross", 0, 1)
    walk = walkthrough(bare, SENTENCE.source, "i want a", "cross", 0, 1)
    np.testing.assert_allclose(shown.form, walk.scaled, atol=1e-4)
    assert not shown.matrix[-1].any() and not shown.matrix[:, -1].any()


def d_model_plus_one(attention) -> int:
    return attention.in_proj_weight.shape[1] + 1


def raw_symmetric_part(attention, head: int) -> np.ndarray:
    """(W + W^T) / 2 of W = [W_Q_h^T; b_Q_h] [W_K_h^T; b_K_h]^T, built here from the packed weights."""
    d, d_k = attention.d_model, attention.d_k
    weight = attention.in_proj_weight.detach().double().numpy()
    bias = attention.in_proj_bias.detach().double().numpy()
    rows = slice(head * d_k, (head + 1) * d_k)
    query = np.vstack([weight[rows].T, bias[rows]])
    key = np.vstack([weight[d:][rows].T, bias[d:][rows]])
    matrix = query @ key.T
    return (matrix + matrix.T) / 2


@pytest.mark.parametrize("name", ["default", "dates", "zh-en"])
def test_the_signs_of_the_symmetric_parts_eigenvalues_are_numpys(name):
    """Every head of every shipped model: the counts shown are those of numpy's eigvalsh of the
    symmetric part built from the raw weights, and no head's W_Z is a metric (as many negative
    eigenvalues as positive ones)."""
    model = transviz.load_model(name)
    cfg = model.config
    sentence = Sentence(held_out_pairs(model, "test")[0].source)
    modules = {"encoder_self": [layer.self_attn for layer in model.net.encoder_layers],
               "decoder_self": [layer.self_attn for layer in model.net.decoder_layers],
               "cross": [layer.cross_attn for layer in model.net.decoder_layers]}
    for kind in KINDS:
        for layer, attention in enumerate(modules[kind]):
            for head in range(cfg.n_heads):
                values = np.linalg.eigvalsh(raw_symmetric_part(attention, head))
                cut = 1e-6 * np.abs(values).max()
                expected = ((values > cut).sum(), (values < -cut).sum(), (np.abs(values) <= cut).sum())
                shown = bilinear(model, sentence, kind, layer, head)
                assert shown.inertia == expected
                np.testing.assert_allclose(shown.eigenvalues, np.sort(values)[::-1], atol=1e-9)
                assert expected[0] == expected[1] == attention.d_k < d_model_plus_one(attention)


def test_with_the_keys_weights_the_queries_s_has_no_negative_eigenvalue(model):
    """W_K = W_Q and no biases make S = W_Q_h^T W_Q_h: d_k positive eigenvalues and the rest zero,
    counted as zero despite rounding; still short of a metric, which needs all d_model + 1 positive."""
    torch.manual_seed(0)
    net = Transformer(replace(model.config, bias=False)).eval()
    attention = net.encoder_layers[0].self_attn
    d = attention.d_model
    with torch.no_grad():
        attention.in_proj_weight[d:2 * d] = attention.in_proj_weight[:d]
    shown = bilinear(Model(net, model.src_vocab, model.tgt_vocab), SENTENCE, "encoder_self", 0, 1)
    assert shown.inertia == (attention.d_k, 0, d + 1 - attention.d_k)


@pytest.mark.parametrize("name", ["gqa", "mqa", "alibi"])
def test_shared_keys_and_a_distance_bias_keep_the_form_exact(name):
    """A head reads its group's shared key rows; ALiBi adds its bias after the form, so the form
    still gives the scaled scores."""
    model = transviz.load_model(name)
    for kind in KINDS:
        for head in range(model.config.n_heads):
            shown = bilinear(model, SENTENCE, kind, 1, head)
            walk = walkthrough(model, SENTENCE.source, "i want a", kind, 1, head)
            np.testing.assert_allclose(shown.form, walk.scaled, atol=1e-4)


def test_rotary_self_attention_has_no_single_form_and_says_so():
    model = transviz.load_model("rope")
    with pytest.raises(transviz.InputError, match="a different bilinear form for each distance"):
        bilinear(model, SENTENCE, "encoder_self", 0, 0)
    shown = bilinear(model, SENTENCE, "cross", 0, 0)  # cross-attention has no positions: one form
    np.testing.assert_allclose(shown.form, walkthrough(model, SENTENCE.source, "i want a", "cross", 0, 0).scaled,
                               atol=1e-4)
