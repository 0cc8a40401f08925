"""Positions inside attention (``ModelConfig.positional`` "rotary", "alibi", "none") against
independent references: RoPE written as complex multiplication in numpy and transformers' Llama
rotation, ALiBi's slopes from the paper and from transformers' BLOOM, attention computed by torch's
``scaled_dot_product_attention`` on inputs turned or biased here, the KV cache against a full
recomputation, and "no positions" against a model built without them."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from test_model_reference import randomize_, small_model_and_batch

import transviz
from transviz.core.analysis.walkthrough import walkthrough
from transviz.core.base.errors import ConfigError, InputError
from transviz.core.decoding.interventions import NoPositions, intervening
from transviz.core.io import checkpoint
from transviz.core.model.config import ModelConfig
from transviz.core.model.layout import tensor_layout
from transviz.core.model.positional import alibi_slopes, relative_bucket, rotary_angles
from transviz.core.model.transformer import ALiBi, MultiHeadAttention, Rotary, Transformer

D, H = 24, 4
D_K = D // H


def rope_numpy(x: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """RoFormer's rotation as complex numbers: dimension i and i + d/2 are the real and imaginary part
    of one number, multiplied by e^(i pos theta_i) with theta_i = 10000^(-2i/d)."""
    d = x.shape[-1]
    theta = 10000.0 ** (-np.arange(0, d, 2) / d)
    z = (x[..., : d // 2] + 1j * x[..., d // 2:]) * np.exp(1j * positions[:, None] * theta[None, :])
    return np.concatenate([z.real, z.imag], axis=-1)


def test_the_rotation_is_ropes_complex_multiplication():
    x = torch.randn(2, 3, 7, 8, dtype=torch.float64)
    expected = rope_numpy(x.numpy(), np.arange(5, 12, dtype=np.float64))
    np.testing.assert_allclose(rotary_angles(7, 8, first=5).numpy(),
                               np.arange(5, 12)[:, None] * 10000.0 ** (-np.arange(0, 8, 2) / 8)[None], rtol=1e-12)
    turned = Rotary(32, 8)(x.float(), 5)
    np.testing.assert_allclose(turned.numpy(), expected, atol=1e-5)
    torch.testing.assert_close(Rotary(32, 8)(turned, 5, back=True), x.float(), atol=1e-5, rtol=0)


def test_the_rotation_is_transformers_llama_rotation():
    llama = pytest.importorskip("transformers.models.llama.modeling_llama")
    from transformers import LlamaConfig
    config = LlamaConfig(hidden_size=D, num_attention_heads=H, max_position_embeddings=64, rope_theta=10000.0)
    q, k = torch.randn(2, H, 9, D_K), torch.randn(2, H, 9, D_K)
    positions = torch.arange(3, 12)[None].expand(2, -1)
    cos, sin = llama.LlamaRotaryEmbedding(config)(q, positions)
    q_ref, k_ref = llama.apply_rotary_pos_emb(q, k, cos, sin)
    rotary = Rotary(64, D_K)
    torch.testing.assert_close(rotary(q, 3), q_ref, atol=2e-6, rtol=0)
    torch.testing.assert_close(rotary(k, 3), k_ref, atol=2e-6, rtol=0)


def test_a_score_depends_only_on_the_distance():
    rotary = Rotary(64, D_K)
    q, k = torch.randn(1, 1, 1, D_K), torch.randn(1, 1, 1, D_K)

    def score(m: int, n: int) -> float:
        return float((rotary(q, m) * rotary(k, n)).sum())
    scores = [score(m, n) for m, n in ((7, 3), (17, 13), (40, 36))]
    assert scores == pytest.approx([scores[0]] * 3, abs=1e-5)
    assert score(7, 2) != pytest.approx(scores[0], abs=1e-3)


def test_alibi_slopes_are_the_papers_and_transformers_blooms():
    assert alibi_slopes(8).tolist() == [2.0 ** -h for h in range(1, 9)]  # the paper's 1/2, 1/4, ..., 1/256
    bloom = pytest.importorskip("transformers.models.bloom.modeling_bloom")
    for heads in (1, 3, 6, 12, 16):
        alibi = bloom.build_alibi_tensor(torch.ones(1, 5), heads, torch.float64)  # (heads, 1, 5): slope x position
        np.testing.assert_allclose(alibi_slopes(heads).numpy(), alibi[:, 0, 1].numpy(), rtol=1e-6)


@pytest.mark.parametrize("positional", ["rotary", "alibi"])
@pytest.mark.parametrize("need_weights", [False, True])
def test_self_attention_is_sdpa_on_turned_or_biased_inputs(positional, need_weights):
    module = MultiHeadAttention(D, H, 0.0)
    randomize_(module, 3)
    if positional == "rotary":
        module.rotary = Rotary(32, D_K)
    else:
        module.set_position_bias(ALiBi(H))
    module.eval()
    x = torch.randn(2, 6, D)
    mask = torch.ones(2, 1, 1, 6, dtype=torch.bool)
    mask[1, ..., 4:] = False  # padding
    first = 3  # queries at positions 3..8 over keys at 0..5 (as after cached steps)
    w, b = module.in_proj_weight.detach(), module.in_proj_bias.detach()
    q, k, v = (F.linear(x, w[i * D:(i + 1) * D], b[i * D:(i + 1) * D]).unflatten(-1, (H, D_K)).transpose(1, 2)
               for i in range(3))
    bias = None
    if positional == "rotary":
        q = torch.from_numpy(rope_numpy(q.double().numpy(), np.arange(first, first + 6.0))).float()
        k = torch.from_numpy(rope_numpy(k.double().numpy(), np.arange(6.0))).float()
    else:
        distance = np.abs(np.arange(first, first + 6)[:, None] - np.arange(6)[None, :])
        bias = torch.from_numpy(-np.array([2.0 ** (-2 * h) for h in range(1, 5)])[:, None, None] * distance).float()
    attn_mask = mask if bias is None else bias.masked_fill(~mask, float("-inf"))
    expected = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask)
    expected = F.linear(expected.transpose(1, 2).flatten(2), module.out_proj.weight.detach(),
                        module.out_proj.bias.detach())
    out, weights = module.attend(*module.project_qkv(x), mask, need_weights, first)
    torch.testing.assert_close(out, expected, atol=1e-5, rtol=0)
    if need_weights:
        torch.testing.assert_close(weights.sum(-1), torch.ones(2, H, 6), atol=1e-6, rtol=0)
        assert (weights[1, ..., 4:] == 0).all()


@pytest.mark.parametrize("positional", ["rotary", "alibi", "none"])
@pytest.mark.parametrize("kv_heads", [0, 2])
def test_cached_steps_equal_the_full_recomputation(positional, kv_heads):
    model, src, _ = small_model_and_batch("pre", seed=4, positional=positional, n_kv_heads=kv_heads)
    tgt = torch.randint(1, 23, (src.shape[0], 8), generator=torch.Generator().manual_seed(4))
    with torch.no_grad():
        encoded = model.encode(src)
        state = model.start(encoded)
        for t in range(8):
            step = model.step(tgt[:, t], state)
            state = step.state
            full = model.decode(tgt[:, :t + 1], encoded, return_attention=True)
            torch.testing.assert_close(step.logits, full.logits[:, -1], atol=1e-5, rtol=0)
            for row, whole in zip(step.self_attention, full.self_attention, strict=True):
                torch.testing.assert_close(row[:, :, -1], whole[:, :, -1], atol=1e-6, rtol=0)


def test_without_positions_the_encoder_cannot_tell_the_order():
    model, src, _ = small_model_and_batch("post", seed=6, positional="none")
    order = torch.tensor([4, 2, 0, 3, 1])
    with torch.no_grad():
        memory = model.encode(src[:1]).memory
        shuffled = model.encode(src[:1, order]).memory
    torch.testing.assert_close(shuffled, memory[:, order], atol=1e-5, rtol=0)  # rows permuted, nothing else


@pytest.mark.parametrize("positional", ["rotary", "alibi"])
def test_leaving_the_positions_out_is_the_same_weights_without_them(positional, tmp_path):
    shipped = transviz.load_model("default")
    config = dataclasses.replace(shipped.config, positional=positional, dropout=0.0)
    net = Transformer(config)
    randomize_(net, 7)
    model = transviz.Model(net.eval(), shipped.src_vocab, shipped.tgt_vocab)
    plain = Transformer(dataclasses.replace(config, positional="none")).eval()
    plain.load_state_dict(net.state_dict())
    src, tgt = torch.tensor([[4, 5, 6, 7]]), torch.tensor([[1, 7, 8, 9]])
    with torch.no_grad():
        with intervening(model, [NoPositions("both")]):
            left_out = net(src, tgt, return_attention=True)
        reference = plain(src, tgt, return_attention=True)
        kept = net(src, tgt).logits
    torch.testing.assert_close(left_out.logits, reference.logits, atol=1e-5, rtol=0)
    torch.testing.assert_close(left_out.attention.decoder_self[1], reference.attention.decoder_self[1], atol=1e-6,
                               rtol=0)
    assert not torch.allclose(kept, reference.logits, atol=1e-3)  # the positions mattered
    with pytest.raises(InputError, match="no positions to leave out"):
        NoPositions("both").taps(transviz.Model(plain, shipped.src_vocab, shipped.tgt_vocab))


@pytest.mark.parametrize("positional", ["rotary", "alibi", "none"])
def test_a_checkpoint_keeps_the_positions_and_holds_no_table(positional, tmp_path):
    shipped = transviz.load_model("default")
    net = Transformer(dataclasses.replace(shipped.config, positional=positional))
    randomize_(net, 8)
    assert sorted(tensor_layout(net.config)) == sorted(
        (tuple(g), tuple(net.state_dict()[g[0]].shape)) for g in checkpoint._tied_groups(net))
    assert not [name for name in net.state_dict() if "position" in name or "rotary" in name or "alibi" in name]
    path = tmp_path / "p.safetensors"
    checkpoint.save(transviz.Model(net, shipped.src_vocab, shipped.tgt_vocab), path)
    loaded = transviz.load_model(str(path))
    assert loaded.config.positional == positional
    src, tgt = torch.tensor([[4, 5, 6]]), torch.tensor([[1, 7, 8]])
    with torch.no_grad():
        torch.testing.assert_close(loaded.net(src, tgt).logits, net.eval()(src, tgt).logits, atol=0, rtol=0)
    with pytest.raises(InputError, match="adds no positional table"):
        loaded.net.position_table("encoder")


def test_rotary_positions_need_an_even_head_width():
    with pytest.raises(ConfigError, match="even number of dimensions per head"):
        ModelConfig(20, 20, d_model=12, n_heads=4, positional="rotary")
    assert ModelConfig(20, 20, d_model=16, n_heads=4, positional="rotary").to_dict()["positional"] == "rotary"


@pytest.mark.parametrize("positional", ["rotary", "alibi", "t5"])
def test_the_walkthrough_ends_in_the_models_own_maps(positional):
    shipped = transviz.load_model("default")
    unscaled = positional == "t5"  # T5's scores are not scaled: the walkthrough's step 2 multiplies by 1
    net = Transformer(dataclasses.replace(shipped.config, positional=positional, dropout=0.0,
                                          scale_scores=not unscaled))
    randomize_(net, 9)
    model = transviz.Model(net.eval(), shipped.src_vocab, shipped.tgt_vocab)
    trace = transviz.teacher_force(model, "ich mochte ein bier", "i want a beer")
    for kind, maps in (("encoder_self", trace.encoder_self_attention), ("decoder_self", trace.decoder_self_attention)):
        walk = walkthrough(model, "ich mochte ein bier", "i want a beer", kind, 1, 2)
        np.testing.assert_allclose(walk.weights, maps[1, 2], atol=1e-6)
        if positional == "alibi":  # the bias shown is the formula's: -slope x |i - j|, slope 2^(-8 x 3/4) for head 2
            distance = np.abs(np.arange(len(walk.query_tokens))[:, None] - np.arange(len(walk.key_tokens))[None])
            np.testing.assert_allclose(walk.position_bias, -(2.0 ** -6) * distance, rtol=1e-6)
        elif unscaled:  # T5's bias of each (query, key) is its bucket's learned value for this head
            table = (net.encoder_relative_bias if kind == "encoder_self" else net.decoder_relative_bias)
            offsets = np.arange(len(walk.key_tokens))[None] - np.arange(len(walk.query_tokens))[:, None]
            buckets = relative_bucket(torch.from_numpy(offsets), kind == "encoder_self", 32, 128)
            np.testing.assert_allclose(walk.position_bias, table.table.weight.detach()[buckets, 2].numpy(), rtol=1e-6)
            np.testing.assert_allclose(walk.scaled, walk.scores, rtol=0)
        else:
            assert walk.position_bias is None
