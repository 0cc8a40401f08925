"""The model against independent references: torch.nn's attention and Transformer layers with
copied weights, mathematical invariants of attention, and KV-cache vs full recomputation."""
from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from transviz.core.base.errors import ConfigError, InputError
from transviz.core.model.config import ModelConfig
from transviz.core.model.masks import causal_mask
from transviz.core.model.transformer import DecoderLayer, EncoderLayer, MultiHeadAttention, Transformer

ATOL = 1e-5
D, H, DFF = 24, 3, 40


def randomize_(module: nn.Module, seed: int) -> None:
    """Non-trivial values everywhere (biases and LayerNorm affine too, which init at 0/1)."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randn(p.shape, generator=gen) * 0.3)


def copy_mha(ours: MultiHeadAttention, ref: nn.MultiheadAttention) -> None:
    with torch.no_grad():
        ref.in_proj_weight.copy_(ours.in_proj_weight)
        ref.in_proj_bias.copy_(ours.in_proj_bias)
        ref.out_proj.weight.copy_(ours.out_proj.weight)
        ref.out_proj.bias.copy_(ours.out_proj.bias)


def copy_linear_norm(dst: nn.Module, src: nn.Module) -> None:
    with torch.no_grad():
        dst.weight.copy_(src.weight)
        dst.bias.copy_(src.bias)


def layer_config(norm="post", activation="relu") -> ModelConfig:
    return ModelConfig(50, 50, d_model=D, n_heads=H, d_ff=DFF, dropout=0.0, norm=norm, activation=activation)


def lengths_to_pad(lengths, width):
    """(B, width) bool: True where a REAL token is."""
    return torch.arange(width)[None, :] < torch.tensor(lengths)[:, None]


# ---------------------------------------------------------------------------------------------
# (a) MultiHeadAttention vs torch.nn.MultiheadAttention
# ---------------------------------------------------------------------------------------------
def make_mha(seed=0):
    ours = MultiHeadAttention(D, H, dropout=0.0)
    randomize_(ours, seed)
    ref = nn.MultiheadAttention(D, H, batch_first=True)
    copy_mha(ours, ref)
    return ours.eval(), ref.eval()


def ref_call(ref, q, k, v, **kw):
    out, w = ref(q, k, v, need_weights=True, average_attn_weights=False, **kw)
    return out, w


def test_mha_self_no_mask():
    ours, ref = make_mha(1)
    x = torch.randn(2, 7, D)
    out, w = ours.attend(*ours.project_qkv(x), None, need_weights=True)
    rout, rw = ref_call(ref, x, x, x)
    assert w.shape == (2, H, 7, 7)
    torch.testing.assert_close(w, rw, atol=ATOL, rtol=0)
    torch.testing.assert_close(out, rout, atol=ATOL, rtol=0)


def test_mha_self_key_padding():
    ours, ref = make_mha(2)
    x = torch.randn(3, 6, D)
    real = lengths_to_pad([6, 4, 2], 6)
    mask = real[:, None, None, :]
    out, w = ours.attend(*ours.project_qkv(x), mask, need_weights=True)
    rout, rw = ref_call(ref, x, x, x, key_padding_mask=~real)
    torch.testing.assert_close(w, rw, atol=ATOL, rtol=0)
    torch.testing.assert_close(out, rout, atol=ATOL, rtol=0)
    assert torch.all(w[1, :, :, 4:] == 0) and torch.all(w[2, :, :, 2:] == 0)


def test_mha_self_causal():
    ours, ref = make_mha(3)
    x = torch.randn(2, 5, D)
    out, w = ours.attend(*ours.project_qkv(x), causal_mask(5), need_weights=True)
    hide = torch.triu(torch.ones(5, 5, dtype=torch.bool), diagonal=1)  # torch: True = blocked
    rout, rw = ref_call(ref, x, x, x, attn_mask=hide)
    torch.testing.assert_close(w, rw, atol=ATOL, rtol=0)
    torch.testing.assert_close(out, rout, atol=ATOL, rtol=0)


def test_mha_cross_different_lengths():
    ours, ref = make_mha(4)
    q_in, mem = torch.randn(2, 3, D), torch.randn(2, 8, D)
    real = lengths_to_pad([8, 5], 8)
    k, v = ours.project_kv(mem)
    out, w = ours.attend(ours.project_q(q_in), k, v, real[:, None, None, :], need_weights=True)
    rout, rw = ref_call(ref, q_in, mem, mem, key_padding_mask=~real)
    assert w.shape == (2, H, 3, 8)
    torch.testing.assert_close(w, rw, atol=ATOL, rtol=0)
    torch.testing.assert_close(out, rout, atol=ATOL, rtol=0)
    # no mask
    out2, w2 = ours.attend(ours.project_q(q_in), k, v, None, need_weights=True)
    rout2, rw2 = ref_call(ref, q_in, mem, mem)
    torch.testing.assert_close(w2, rw2, atol=ATOL, rtol=0)
    torch.testing.assert_close(out2, rout2, atol=ATOL, rtol=0)


def test_mha_projections_match_manual_formula():
    """Independent of torch.nn: Q = x W_Q^T + b_Q etc., per head softmax(QK^T/sqrt(d_k))V."""
    ours, _ = make_mha(5)
    x = torch.randn(1, 4, D, dtype=torch.float64)
    ours = ours.double()
    W, b = ours.in_proj_weight, ours.in_proj_bias
    dk = D // H
    q_full, k_full, v_full = (x @ W[i * D : (i + 1) * D].T + b[i * D : (i + 1) * D] for i in range(3))
    heads = []
    for h in range(H):
        sl = slice(h * dk, (h + 1) * dk)
        s = q_full[..., sl] @ k_full[..., sl].transpose(-1, -2) / math.sqrt(dk)
        heads.append(torch.softmax(s, -1) @ v_full[..., sl])
    expected = torch.cat(heads, -1) @ ours.out_proj.weight.T + ours.out_proj.bias
    out, _ = ours.attend(*ours.project_qkv(x), None, need_weights=True)
    torch.testing.assert_close(out, expected, atol=1e-10, rtol=0)


# ---------------------------------------------------------------------------------------------
# (b) EncoderLayer vs torch.nn.TransformerEncoderLayer
# ---------------------------------------------------------------------------------------------
def build_torch_encoder_layer(ours: EncoderLayer, norm: str, activation: str) -> nn.TransformerEncoderLayer:
    ref = nn.TransformerEncoderLayer(
        D, H, DFF, dropout=0.0, activation=activation, batch_first=True, norm_first=(norm == "pre")
    )
    copy_mha(ours.self_attn, ref.self_attn)
    copy_linear_norm(ref.linear1, ours.ffn.linear1)
    copy_linear_norm(ref.linear2, ours.ffn.linear2)
    copy_linear_norm(ref.norm1, ours.norm1)
    copy_linear_norm(ref.norm2, ours.norm2)
    return ref.train()  # train mode + dropout 0: deterministic, and no eval "fast path"


@pytest.mark.parametrize("norm,activation", [("post", "relu"), ("pre", "relu"), ("post", "gelu"), ("pre", "gelu")])
def test_encoder_layer_matches_torch(norm, activation):
    ours = EncoderLayer(layer_config(norm, activation))
    randomize_(ours, 10)
    ours.eval()
    ref = build_torch_encoder_layer(ours, norm, activation)
    lengths = [7, 4, 2]
    real = lengths_to_pad(lengths, 7)
    x = torch.randn(3, 7, D)
    for need_weights in (True, False):
        out, _ = ours(x, real[:, None, None, :], need_weights=need_weights)
        rout = ref(x, src_key_padding_mask=~real)
        torch.testing.assert_close(out[real], rout[real], atol=ATOL, rtol=0)
    # eval-mode torch (possibly fast path) agrees on the real positions too
    ref.eval()
    with torch.no_grad():
        rout_eval = ref(x, src_key_padding_mask=~real)
        out, _ = ours(x, real[:, None, None, :])
    torch.testing.assert_close(out[real], rout_eval[real], atol=ATOL, rtol=0)


# ---------------------------------------------------------------------------------------------
# (c) DecoderLayer vs torch.nn.TransformerDecoderLayer
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("norm,activation", [("post", "relu"), ("pre", "gelu")])
def test_decoder_layer_matches_torch(norm, activation):
    ours = DecoderLayer(layer_config(norm, activation))
    randomize_(ours, 20)
    ours.eval()
    ref = nn.TransformerDecoderLayer(
        D, H, DFF, dropout=0.0, activation=activation, batch_first=True, norm_first=(norm == "pre")
    )
    copy_mha(ours.self_attn, ref.self_attn)
    copy_mha(ours.cross_attn, ref.multihead_attn)
    copy_linear_norm(ref.linear1, ours.ffn.linear1)
    copy_linear_norm(ref.linear2, ours.ffn.linear2)
    for i in (1, 2, 3):
        copy_linear_norm(getattr(ref, f"norm{i}"), getattr(ours, f"norm{i}"))
    ref.train()

    T_, S = 6, 5
    tgt_real = lengths_to_pad([6, 3, 1], T_)
    mem_real = lengths_to_pad([5, 2, 4], S)
    x, memory = torch.randn(3, T_, D), torch.randn(3, S, D)
    self_mask = tgt_real[:, None, None, :] & causal_mask(T_)
    mem_mask = mem_real[:, None, None, :]
    hide = torch.triu(torch.ones(T_, T_, dtype=torch.bool), diagonal=1)
    rout = ref(
        x, memory, tgt_mask=hide, tgt_key_padding_mask=~tgt_real, memory_key_padding_mask=~mem_real
    )
    for need_weights in (True, False):
        res = ours(x, ours.cross_attn.project_kv(memory), self_mask, mem_mask, need_weights=need_weights)
        # every query row has at least key 0 visible, so all positions are comparable
        torch.testing.assert_close(res.x, rout, atol=ATOL, rtol=0)
    res = ours(x, ours.cross_attn.project_kv(memory), self_mask, mem_mask, need_weights=True)
    assert res.self_weights.shape == (3, H, T_, T_)
    assert res.cross_weights.shape == (3, H, T_, S)


# ---------------------------------------------------------------------------------------------
# (d) explicit vs SDPA
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["none", "pad", "causal", "cross"])
def test_explicit_and_sdpa_paths_agree(kind):
    ours, _ = make_mha(30)
    x = torch.randn(3, 6, D)
    if kind == "cross":
        mem = torch.randn(3, 9, D)
        q, (k, v) = ours.project_q(x), ours.project_kv(mem)
        mask = lengths_to_pad([9, 3, 6], 9)[:, None, None, :]
    else:
        q, k, v = ours.project_qkv(x)
        mask = {
            "none": None,
            "pad": lengths_to_pad([6, 2, 4], 6)[:, None, None, :],
            "causal": causal_mask(6) & lengths_to_pad([6, 2, 4], 6)[:, None, None, :],
        }[kind]
    out_w, w = ours.attend(q, k, v, mask, need_weights=True)
    out_f, none = ours.attend(q, k, v, mask, need_weights=False)
    assert none is None and w is not None
    torch.testing.assert_close(out_w, out_f, atol=ATOL, rtol=0)


def test_model_outputs_same_with_and_without_attention():
    model, src, tgt = small_model_and_batch("post")
    a = model(src, tgt, return_attention=True)
    b = model(src, tgt, return_attention=False)
    assert b.attention is None
    torch.testing.assert_close(a.logits, b.logits, atol=ATOL, rtol=0)


# ---------------------------------------------------------------------------------------------
# A full-model reference assembled from torch.nn layers with copied weights
# ---------------------------------------------------------------------------------------------
def small_config(norm="post", **kw) -> ModelConfig:
    base = dict(
        src_vocab_size=23, tgt_vocab_size=23, d_model=16, n_heads=4, n_encoder_layers=2,
        n_decoder_layers=2, d_ff=32, dropout=0.0, max_len=64, norm=norm,
    )
    base.update(kw)
    return ModelConfig(**base)


def small_model_and_batch(norm="post", seed=0, **kw):
    torch.manual_seed(seed)
    model = Transformer(small_config(norm, **kw))
    randomize_(model, seed + 100)
    model.eval()
    src = torch.tensor([[3, 4, 5, 6, 7], [8, 9, 2, 0, 0], [5, 0, 0, 0, 0]])
    tgt = torch.tensor([[1, 4, 6, 8], [1, 3, 0, 0], [1, 5, 7, 0]])
    return model, src, tgt


@pytest.mark.parametrize("norm", ["post", "pre"])
def test_full_model_matches_torch_layers(norm):
    model, src, tgt = small_model_and_batch(norm, seed=1)
    cfg = model.config
    d = cfg.d_model
    pe = torch.tensor(
        [[math.sin(p / 10000 ** ((c - c % 2) / d)) if c % 2 == 0 else math.cos(p / 10000 ** ((c - c % 2) / d))
          for c in range(d)] for p in range(cfg.max_len)]
    )
    enc_layers, dec_layers = [], []
    for ours in model.encoder_layers:
        ref = nn.TransformerEncoderLayer(d, cfg.n_heads, cfg.d_ff, 0.0, batch_first=True, norm_first=norm == "pre")
        copy_mha(ours.self_attn, ref.self_attn)
        for a, b in [("linear1", ours.ffn.linear1), ("linear2", ours.ffn.linear2), ("norm1", ours.norm1),
                     ("norm2", ours.norm2)]:
            copy_linear_norm(getattr(ref, a), b)
        enc_layers.append(ref.train())
    for ours in model.decoder_layers:
        ref = nn.TransformerDecoderLayer(d, cfg.n_heads, cfg.d_ff, 0.0, batch_first=True, norm_first=norm == "pre")
        copy_mha(ours.self_attn, ref.self_attn)
        copy_mha(ours.cross_attn, ref.multihead_attn)
        for a, b in [("linear1", ours.ffn.linear1), ("linear2", ours.ffn.linear2), ("norm1", ours.norm1),
                     ("norm2", ours.norm2), ("norm3", ours.norm3)]:
            copy_linear_norm(getattr(ref, a), b)
        dec_layers.append(ref.train())
    src_pad, tgt_pad = src == 0, tgt == 0
    x = model.src_embed.weight[src] * math.sqrt(d) + pe[: src.shape[1]]
    for layer in enc_layers:
        x = layer(x, src_key_padding_mask=src_pad)
    if norm == "pre":
        x = nn.functional.layer_norm(x, (d,), model.encoder_norm.weight, model.encoder_norm.bias, cfg.layer_norm_eps)
    memory = x
    y = model.tgt_embed.weight[tgt] * math.sqrt(d) + pe[: tgt.shape[1]]
    hide = torch.triu(torch.ones(tgt.shape[1], tgt.shape[1], dtype=torch.bool), 1)
    for layer in dec_layers:
        y = layer(y, memory, tgt_mask=hide, tgt_key_padding_mask=tgt_pad, memory_key_padding_mask=src_pad)
    if norm == "pre":
        y = nn.functional.layer_norm(y, (d,), model.decoder_norm.weight, model.decoder_norm.bias, cfg.layer_norm_eps)
    logits = y @ model.generator.weight.T + model.generator.bias
    with torch.no_grad():
        out = model(src, tgt)
    # compare real target positions (padded encoder positions may differ, but they are never attended)
    torch.testing.assert_close(out.logits[~tgt_pad], logits[~tgt_pad].detach(), atol=1e-4, rtol=0)


# ---------------------------------------------------------------------------------------------
# (e) invariants on a real model
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("norm", ["post", "pre"])
def test_attention_invariants(norm):
    model, src, tgt = small_model_and_batch(norm, seed=2)
    with torch.no_grad():
        maps = model(src, tgt, return_attention=True).attention
    B, S = src.shape
    T_ = tgt.shape[1]
    src_pad, tgt_pad = src == 0, tgt == 0
    assert len(maps.encoder_self) == 2 and len(maps.decoder_self) == 2 and len(maps.cross) == 2
    for w in maps.encoder_self:
        assert w.shape == (B, 4, S, S)
        torch.testing.assert_close(w.sum(-1), torch.ones(B, 4, S), atol=ATOL, rtol=0)
        assert torch.all(w.permute(0, 3, 1, 2)[src_pad] == 0.0)  # padded keys exactly 0
        assert torch.all(w >= 0)
    for w in maps.decoder_self:
        assert w.shape == (B, 4, T_, T_)
        torch.testing.assert_close(w.sum(-1), torch.ones(B, 4, T_), atol=ATOL, rtol=0)
        upper = torch.triu(torch.ones(T_, T_, dtype=torch.bool), 1)
        assert torch.all(w[..., upper] == 0.0)
        assert torch.all(w.permute(0, 3, 1, 2)[tgt_pad] == 0.0)
        # the first query can only see itself
        assert torch.all(w[..., 0, 0] == 1.0)
    for w in maps.cross:
        assert w.shape == (B, 4, T_, S)
        torch.testing.assert_close(w.sum(-1), torch.ones(B, 4, T_), atol=ATOL, rtol=0)
        assert torch.all(w.permute(0, 3, 1, 2)[src_pad] == 0.0)
    # sentence 2 has a single real source token: all cross attention goes there
    for w in maps.cross:
        assert torch.all(w[2, ..., 0] == 1.0)


# ---------------------------------------------------------------------------------------------
# (f) KV cache == full recomputation
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "norm,kw",
    [("post", {}), ("pre", {}), ("post", {"share_embeddings": True, "tie_output": True}),
     ("pre", {"tie_output": True})],
)
def test_kv_cache_equals_recomputation(norm, kw):
    model, src, _ = small_model_and_batch(norm, seed=3, **kw)
    steps = 36
    gen = torch.Generator().manual_seed(7)
    tgt = torch.randint(1, 23, (src.shape[0], steps), generator=gen)  # no padding
    with torch.no_grad():
        encoded = model.encode(src)
        state = model.start(encoded)
        assert state.length == 0 and state.self_kv is None
        for t in range(steps):
            step = model.step(tgt[:, t], state, return_attention=True)
            state = step.state
            assert state.length == t + 1
            full = model.decode(tgt[:, : t + 1], encoded, return_attention=True)
            torch.testing.assert_close(step.logits, full.logits[:, -1], atol=ATOL, rtol=0)
            for layer in range(2):
                sa, ca = step.self_attention[layer], step.cross_attention[layer]
                assert sa.shape == (3, 4, 1, t + 1) and ca.shape == (3, 4, 1, src.shape[1])
                torch.testing.assert_close(sa, full.self_attention[layer][:, :, -1:], atol=ATOL, rtol=0)
                torch.testing.assert_close(ca, full.cross_attention[layer][:, :, -1:], atol=ATOL, rtol=0)
                assert state.self_kv[layer][0].shape == (3, 4, t + 1, 4)


def test_step_without_attention_and_immutable_state():
    model, src, _ = small_model_and_batch("post", seed=4)
    with torch.no_grad():
        encoded = model.encode(src)
        s0 = model.start(encoded)
        a = model.step(torch.tensor([1, 1, 1]), s0, return_attention=False)
        assert a.self_attention is None and a.cross_attention is None
        b = model.step(torch.tensor([1, 1, 1]), s0, return_attention=True)
        torch.testing.assert_close(a.logits, b.logits, atol=ATOL, rtol=0)
        assert s0.self_kv is None and s0.length == 0


# ---------------------------------------------------------------------------------------------
# (g) tied weights
# ---------------------------------------------------------------------------------------------
def test_tied_weights():
    model = Transformer(small_config(share_embeddings=True, tie_output=True))
    assert model.src_embed is model.tgt_embed
    assert model.generator.weight is model.tgt_embed.weight
    with torch.no_grad():
        model.tgt_embed.weight[3, 0] = 42.0
    assert model.generator.weight[3, 0].item() == 42.0
    assert model.src_embed.weight[3, 0].item() == 42.0
    # tied tables count once
    n_unique = sum(p.numel() for p in {id(p): p for p in model.parameters()}.values())
    assert model.parameter_count() == n_unique

    untied = Transformer(small_config())
    assert untied.src_embed is not untied.tgt_embed
    assert untied.generator.weight is not untied.tgt_embed.weight

    tie_only = Transformer(small_config(tie_output=True, src_vocab_size=30))
    assert tie_only.generator.weight is tie_only.tgt_embed.weight
    assert tie_only.src_embed is not tie_only.tgt_embed

    # gradient flows into the one shared tensor from both uses
    model.train()
    src = torch.tensor([[3, 4, 5]])
    tgt = torch.tensor([[1, 3]])
    model(src, tgt).logits.sum().backward()
    assert model.tgt_embed.weight.grad is not None


# ---------------------------------------------------------------------------------------------
# (h) hypothesis: shapes and row sums on random padded batches
# ---------------------------------------------------------------------------------------------
_HYP_MODEL = None


def hyp_model() -> Transformer:
    global _HYP_MODEL
    if _HYP_MODEL is None:
        torch.manual_seed(11)
        _HYP_MODEL = Transformer(
            ModelConfig(17, 19, d_model=16, n_heads=2, n_encoder_layers=2, n_decoder_layers=3,
                        d_ff=24, dropout=0.0, max_len=16)
        ).eval()
    return _HYP_MODEL


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_random_batches_shapes_and_rows(data):
    model = hyp_model()
    B = data.draw(st.integers(1, 4))
    S = data.draw(st.integers(1, 10))
    T_ = data.draw(st.integers(1, 10))
    src_lens = data.draw(st.lists(st.integers(1, S), min_size=B, max_size=B))
    tgt_lens = data.draw(st.lists(st.integers(1, T_), min_size=B, max_size=B))
    seed = data.draw(st.integers(0, 2**16))
    g = torch.Generator().manual_seed(seed)
    src = torch.randint(1, 17, (B, S), generator=g)
    tgt = torch.randint(1, 19, (B, T_), generator=g)
    src_real, tgt_real = lengths_to_pad(src_lens, S), lengths_to_pad(tgt_lens, T_)
    src[~src_real] = 0
    tgt[~tgt_real] = 0
    with torch.no_grad():
        out = model(src, tgt, return_attention=True)
    assert out.logits.shape == (B, T_, 19)
    maps = out.attention
    assert len(maps.encoder_self) == 2 and len(maps.decoder_self) == 3 and len(maps.cross) == 3
    for w in maps.encoder_self:
        assert w.shape == (B, 2, S, S)
        rows = w.sum(-1).permute(0, 2, 1)[src_real]  # valid queries
        torch.testing.assert_close(rows, torch.ones_like(rows), atol=ATOL, rtol=0)
        assert torch.all(w.permute(0, 3, 1, 2)[~src_real] == 0)
    for w in maps.decoder_self:
        assert w.shape == (B, 2, T_, T_)
        rows = w.sum(-1).permute(0, 2, 1)[tgt_real]
        torch.testing.assert_close(rows, torch.ones_like(rows), atol=ATOL, rtol=0)
        assert torch.all(torch.triu(w, 1) == 0)
    for w in maps.cross:
        assert w.shape == (B, 2, T_, S)
        rows = w.sum(-1).permute(0, 2, 1)[tgt_real]
        torch.testing.assert_close(rows, torch.ones_like(rows), atol=ATOL, rtol=0)
        assert torch.all(w.permute(0, 3, 1, 2)[~src_real] == 0)
    assert torch.isfinite(out.logits).all()


# ---------------------------------------------------------------------------------------------
# (i) bad inputs and configs
# ---------------------------------------------------------------------------------------------
def test_bad_inputs_raise_input_error():
    model = Transformer(small_config(max_len=8)).eval()
    good = torch.tensor([[3, 4, 5]])
    bad_inputs = [
        torch.tensor([[3.0, 4.0]]),  # float
        torch.tensor([[3, 23]]),  # id == vocab size
        torch.tensor([[-1, 3]]),  # negative id
        torch.zeros(1, 0, dtype=torch.long),  # empty length
        torch.zeros(0, 3, dtype=torch.long),  # empty batch
        torch.ones(1, 9, dtype=torch.long),  # longer than max_len
        torch.tensor([3, 4, 5]),  # 1-D
        torch.tensor([[True, False]]),  # bool
    ]
    for bad in bad_inputs:
        with pytest.raises(InputError):
            model.encode(bad)
        with pytest.raises(InputError):
            model(good, bad)
        with pytest.raises(InputError):
            model(bad, good)
    with pytest.raises(InputError):
        model.encode([[3, 4]])  # not a tensor
    # max_len on the step path
    with torch.no_grad():
        state = model.start(model.encode(good))
        for _ in range(8):
            state = model.step(torch.tensor([3]), state).state
        with pytest.raises(InputError):
            model.step(torch.tensor([3]), state)
        with pytest.raises(InputError):
            model.step(torch.tensor([99]), model.start(model.encode(good)))
    assert issubclass(InputError, ValueError)


@pytest.mark.parametrize(
    "kw",
    [
        {"d_model": 30, "n_heads": 4},
        {"n_encoder_layers": 0},
        {"n_decoder_layers": 0},
        {"dropout": 1.5},
        {"dropout": 1.0},
        {"dropout": -0.1},
        {"d_model": 0},
        {"n_heads": 0},
        {"norm": "middle"},
        {"activation": "tanh"},
        {"share_embeddings": True, "src_vocab_size": 10},
        {"pad_id": 23},
        {"d_ff": True},
    ],
)
def test_bad_configs_raise_config_error(kw):
    with pytest.raises(ConfigError):
        small_config(**kw)


def test_config_from_dict_errors():
    with pytest.raises(ConfigError):
        ModelConfig.from_dict({"src_vocab_size": 5})
    with pytest.raises(ConfigError):
        ModelConfig.from_dict({"src_vocab_size": 5, "tgt_vocab_size": 5, "bogus": 1})
    cfg = small_config()
    assert ModelConfig.from_dict(cfg.to_dict()) == cfg
