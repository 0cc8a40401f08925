"""Keys and values shared between query heads (``ModelConfig.n_kv_heads``: grouped-query and
multi-query attention) against independent references: torch's ``scaled_dot_product_attention``
with ``enable_gqa`` on projections sliced here, the softmax formula with keys repeated by hand,
parameter counts of torch's own ``nn.Linear`` projections, the KV cache against a full
recomputation, and a checkpoint's round trip."""
from __future__ import annotations

import dataclasses
import math

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from test_model_reference import randomize_, small_model_and_batch
from torch import nn

import transviz
from transviz.core.analysis.concepts.bilinear import head_matrix
from transviz.core.base.errors import ConfigError
from transviz.core.io import checkpoint
from transviz.core.model.config import ModelConfig
from transviz.core.model.layout import tensor_layout
from transviz.core.model.transformer import MultiHeadAttention, Transformer

D, H = 24, 6


def reference(module: MultiHeadAttention, x_q: torch.Tensor, x_kv: torch.Tensor, kv_heads: int,
              mask: torch.Tensor | None) -> tuple[torch.Tensor, torch.Tensor]:
    """Output (B, Lq, D) by torch's SDPA with enable_gqa, and weights (B, H, Lq, Lk) by the formula
    with each key head copied for its group of query heads by hand."""
    d_k, kv = D // H, D // H * kv_heads
    w, b = module.in_proj_weight.detach(), module.in_proj_bias.detach()
    q = F.linear(x_q, w[:D], b[:D]).unflatten(-1, (H, d_k)).transpose(1, 2)
    k = F.linear(x_kv, w[D:D + kv], b[D:D + kv]).unflatten(-1, (kv_heads, d_k)).transpose(1, 2)
    v = F.linear(x_kv, w[D + kv:], b[D + kv:]).unflatten(-1, (kv_heads, d_k)).transpose(1, 2)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=True)
    mixed = F.linear(out.transpose(1, 2).flatten(2), module.out_proj.weight.detach(), module.out_proj.bias.detach())
    group = H // kv_heads
    k_each = torch.stack([k[:, h // group] for h in range(H)], dim=1)
    scores = q @ k_each.transpose(-2, -1) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, -math.inf)
    return mixed, torch.softmax(scores, dim=-1)


@pytest.mark.parametrize("kv_heads", [1, 2, 3, 6])
@pytest.mark.parametrize("need_weights", [False, True])
def test_attention_with_shared_heads_is_torchs_grouped_query_attention(kv_heads, need_weights):
    module = MultiHeadAttention(D, H, 0.0, n_kv_heads=kv_heads)
    randomize_(module, kv_heads)
    module.eval()
    x_q, x_kv = torch.randn(2, 4, D), torch.randn(2, 7, D)
    mask = torch.rand(2, 1, 4, 7) > 0.3
    mask[..., 0] = True  # every query sees a key
    out, weights = module.attend(module.project_q(x_q), *module.project_kv(x_kv), mask, need_weights)
    expected, expected_weights = reference(module, x_q, x_kv, kv_heads, mask)
    torch.testing.assert_close(out, expected, atol=1e-5, rtol=0)
    if need_weights:
        assert weights.shape == (2, H, 4, 7)  # one map per query head
        torch.testing.assert_close(weights, expected_weights, atol=1e-6, rtol=0)
    q, k, v = module.project_qkv(x_kv)  # self-attention: one product for the three
    assert q.shape == (2, H, 7, D // H) and k.shape == v.shape == (2, kv_heads, 7, D // H)
    torch.testing.assert_close(module.attend(q, k, v, None, False)[0], reference(module, x_kv, x_kv, kv_heads, None)[0],
                               atol=1e-5, rtol=0)


@pytest.mark.parametrize("kv_heads", [1, 2, 3])
def test_the_parameter_count_is_that_of_torchs_own_projections(kv_heads):
    config = ModelConfig(40, 50, d_model=D, n_heads=H, n_kv_heads=kv_heads, d_ff=32, n_encoder_layers=2,
                         n_decoder_layers=3)
    net = Transformer(config)
    d_kv = D // H * kv_heads
    torch_attention = sum(p.numel() for p in (nn.Linear(D, D), nn.Linear(D, d_kv), nn.Linear(D, d_kv),
                                                    nn.Linear(D, D)) for p in p.parameters())
    full = ModelConfig(40, 50, d_model=D, n_heads=H, d_ff=32, n_encoder_layers=2, n_decoder_layers=3)
    attentions = 2 + 2 * 3
    assert net.parameter_count() == sum(p.numel() for p in net.parameters()) == config.parameter_count()
    assert full.parameter_count() - config.parameter_count() == attentions * (4 * (D * D + D) - torch_attention)
    state = net.state_dict()
    real = sorted((tuple(g), tuple(state[g[0]].shape)) for g in checkpoint._tied_groups(net))
    assert real == sorted(tensor_layout(config))


@pytest.mark.parametrize("kv_heads", [1, 2])
def test_the_cache_holds_only_the_shared_heads(kv_heads):
    model, src, tgt = small_model_and_batch("pre", seed=2, n_kv_heads=kv_heads)  # 4 query heads of 4 dimensions
    with torch.no_grad():
        state = model.start(model.encode(src))
        for t in range(3):
            state = model.step(tgt[:, t], state).state
    for keys, values in (*state.self_kv, *state.memory_kv):
        assert keys.shape[1] == values.shape[1] == kv_heads
    assert state.self_kv[0][0].shape == (3, kv_heads, 3, 4)
    cached = sum(t.numel() * t.element_size() for kv in state.self_kv for t in kv)  # 3 sentences, 3 tokens
    assert cached / 9 == model.config.kv_cache_bytes_per_token() == 2 * 2 * kv_heads * 4 * 4


@settings(max_examples=12, deadline=None)
@given(kv_heads=st.sampled_from([1, 2, 4]), norm=st.sampled_from(["post", "pre"]), seed=st.integers(0, 50),
       steps=st.integers(1, 9))
def test_cached_steps_equal_the_full_recomputation(kv_heads, norm, seed, steps):
    model, src, _ = small_model_and_batch(norm, seed=seed, n_kv_heads=kv_heads)
    tgt = torch.randint(1, 23, (src.shape[0], steps), generator=torch.Generator().manual_seed(seed))
    with torch.no_grad():
        encoded = model.encode(src)
        state = model.start(encoded)
        for t in range(steps):
            step = model.step(tgt[:, t], state)
            state = step.state
        full = model.decode(tgt, encoded, return_attention=True)
    torch.testing.assert_close(step.logits, full.logits[:, -1], atol=1e-5, rtol=0)
    for row, whole in zip(step.self_attention + step.cross_attention, full.self_attention + full.cross_attention,
                          strict=True):
        torch.testing.assert_close(row[:, :, -1], whole[:, :, -1], atol=1e-6, rtol=0)


def test_query_heads_of_one_group_differ_only_by_their_queries():
    model, src, tgt = small_model_and_batch("post", seed=5, n_kv_heads=1)
    encoder = model.encoder_layers[0].self_attn
    for head in range(4):  # multi-query: every head's bilinear form reads the one key head's rows
        weight = encoder.in_proj_weight.detach().double()
        expected = weight[head * 4:(head + 1) * 4].T @ weight[16:20]
        assert torch.allclose(torch.from_numpy(head_matrix(encoder, head)[:-1, :-1]), expected, atol=1e-12)
    with torch.no_grad():
        maps = model(src, tgt, return_attention=True).attention
    assert not torch.allclose(maps.encoder_self[0][:, 0], maps.encoder_self[0][:, 1])  # own queries, own maps


def test_n_kv_heads_must_divide_the_heads_and_is_recorded_only_when_set():
    assert "n_kv_heads" not in ModelConfig(20, 20).to_dict()
    assert ModelConfig(20, 20, n_heads=4, n_kv_heads=2).to_dict()["n_kv_heads"] == 2
    assert ModelConfig(20, 20, n_heads=4).kv_heads == 4 and ModelConfig(20, 20, n_heads=4, n_kv_heads=1).kv_heads == 1
    with pytest.raises(ConfigError, match=r"n_kv_heads \(3\) must divide n_heads \(4\)"):
        ModelConfig(20, 20, n_heads=4, n_kv_heads=3)
    for bad in (-1, 5, 1.0, True, "2"):
        with pytest.raises(ConfigError, match="n_kv_heads"):
            ModelConfig(20, 20, n_heads=4, n_kv_heads=bad)


def test_a_checkpoint_keeps_the_shared_heads(tmp_path):
    model = transviz.load_model("default")
    config = dataclasses.replace(model.config, n_kv_heads=1, dropout=0.0)
    net = Transformer(config)
    randomize_(net, 6)
    path = tmp_path / "mqa.safetensors"
    checkpoint.save(transviz.Model(net, model.src_vocab, model.tgt_vocab), path)
    loaded = transviz.load_model(str(path))
    assert loaded.config.n_kv_heads == 1
    src, tgt = torch.tensor([[4, 5, 6]]), torch.tensor([[1, 7, 8]])
    with torch.no_grad():
        torch.testing.assert_close(loaded.net(src, tgt).logits, net.eval()(src, tgt).logits, atol=0, rtol=0)
