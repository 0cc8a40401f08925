"""T5's ways (``positional="t5"``, ``scale_scores=False``, ``gated_ffn``, the ``gelu-tanh`` activation)
against independent references: the bucket of every offset from T5's formula written out in numpy
and from transformers' own ``T5Attention``, attention as torch's ``scaled_dot_product_attention`` on
scores biased here, the GLU written out, and a checkpoint read back."""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from test_model_reference import randomize_

import transviz
from transviz.core.base.errors import ConfigError
from transviz.core.io import checkpoint
from transviz.core.model.config import ModelConfig
from transviz.core.model.layout import tensor_layout
from transviz.core.model.positional import relative_bucket
from transviz.core.model.transformer import FeedForward, Transformer

D, H = 24, 4
D_K = D // H
OFFSETS = np.arange(-300, 301)


def bucket_numpy(relative: np.ndarray, bidirectional: bool, buckets: int, max_distance: int) -> np.ndarray:
    """Raffel et al.'s buckets, one offset at a time."""
    out = []
    for offset in relative.tolist():
        n, base = buckets, 0
        if bidirectional:
            n //= 2
            base = n if offset > 0 else 0
            distance = abs(offset)
        else:
            distance = max(-offset, 0)
        exact = n // 2
        if distance < exact:
            out.append(base + distance)
        else:
            far = exact + int(math.log(distance / exact) / math.log(max_distance / exact) * (n - exact))
            out.append(base + min(far, n - 1))
    return np.array(out)


@pytest.mark.parametrize("bidirectional", [True, False])
@pytest.mark.parametrize(("buckets", "max_distance"), [(32, 128), (8, 20)])
def test_the_buckets_are_t5s(bidirectional, buckets, max_distance):
    ours = relative_bucket(torch.from_numpy(OFFSETS), bidirectional, buckets, max_distance).numpy()
    np.testing.assert_array_equal(ours, bucket_numpy(OFFSETS, bidirectional, buckets, max_distance))
    t5 = pytest.importorskip("transformers.models.t5.modeling_t5")
    theirs = t5.T5Attention._relative_position_bucket(torch.from_numpy(OFFSETS), bidirectional, buckets, max_distance)
    np.testing.assert_array_equal(ours, theirs.numpy())


def t5_model(**changes: object) -> Transformer:
    config = ModelConfig(30, 32, d_model=D, n_heads=H, n_encoder_layers=2, n_decoder_layers=2, d_ff=40, dropout=0.0,
                         max_len=40, positional="t5", scale_scores=False, gated_ffn=True, activation="gelu-tanh",
                         norm="pre", layer_norm="rms", bias=False, relative_buckets=8, relative_max_distance=12,
                         **changes)  # type: ignore[arg-type]
    net = Transformer(config)
    randomize_(net, 1)
    return net.eval()


@pytest.mark.parametrize(("kind", "both_ways"), [("encoder_self", True), ("decoder_self", False)])
def test_self_attention_adds_the_learned_bias_of_each_offsets_bucket_to_unscaled_scores(kind, both_ways):
    net = t5_model()
    module = net.attention_modules()[kind, 1]
    table = (net.encoder_relative_bias if both_ways else net.decoder_relative_bias).table.weight.detach()
    x = torch.randn(2, 6, D)
    first = 2  # queries at positions 2..7 over keys at 0..5
    w = module.in_proj_weight.detach()
    q, k, v = (F.linear(x, w[i * D:(i + 1) * D]).unflatten(-1, (H, D_K)).transpose(1, 2) for i in range(3))
    offsets = np.arange(6)[None, :] - np.arange(first, first + 6)[:, None]  # key - query
    buckets = bucket_numpy(offsets.reshape(-1), both_ways, 8, 12).reshape(6, 6)
    bias = table[torch.from_numpy(buckets)].permute(2, 0, 1)  # (H, Lq, Lk)
    expected = F.scaled_dot_product_attention(q, k, v, attn_mask=bias, scale=1.0)
    expected = F.linear(expected.transpose(1, 2).flatten(2), module.out_proj.weight.detach())
    with torch.no_grad():
        for need_weights in (False, True):
            out, _ = module.attend(*module.project_qkv(x), None, need_weights, first)
            torch.testing.assert_close(out, expected, atol=1e-5, rtol=0)
    assert net.attention_modules()["cross", 1].position_bias is None  # cross-attention compares two sentences


def test_the_gated_feed_forward_is_w2_of_act_w1_times_w3():
    ffn = FeedForward(D, 40, 0.0, "gelu-tanh", bias=False, gated=True)
    randomize_(ffn, 2)
    x = torch.randn(3, D, dtype=torch.float64)
    w1, w2, w3 = (layer.weight.detach().double() for layer in (ffn.linear1, ffn.linear2, ffn.linear3))
    h = x @ w1.T
    gelu = 0.5 * h * (1 + torch.tanh(math.sqrt(2 / math.pi) * (h + 0.044715 * h**3)))  # GPT-2's gelu_new
    torch.testing.assert_close(ffn.double()(x), (gelu * (x @ w3.T)) @ w2.T, atol=1e-10, rtol=0)


def test_cached_steps_equal_the_full_pass_and_a_checkpoint_reads_back(tmp_path):
    net = t5_model()
    src = torch.tensor([[5, 6, 7, 8, 2], [9, 10, 2, 0, 0]])
    tgt = torch.randint(3, 32, (2, 7), generator=torch.Generator().manual_seed(3))
    with torch.no_grad():
        encoded = net.encode(src)
        full = net.decode(tgt, encoded, return_attention=True)
        state = net.start(encoded)
        for t in range(tgt.shape[1]):
            step = net.step(tgt[:, t], state)
            state = step.state
            torch.testing.assert_close(step.logits, full.logits[:, t], atol=2e-5, rtol=0)
    assert sorted(tensor_layout(net.config)) == sorted(
        (tuple(g), tuple(net.state_dict()[g[0]].shape)) for g in checkpoint._tied_groups(net))
    assert net.config.parameter_count() == sum(p.numel() for p in net.parameters())
    shipped = transviz.load_model("default")
    config = dataclasses.replace(net.config, src_vocab_size=shipped.config.src_vocab_size,
                                 tgt_vocab_size=shipped.config.tgt_vocab_size)
    big = Transformer(config)
    randomize_(big, 4)
    path = tmp_path / "t5.safetensors"
    checkpoint.save(transviz.Model(big, shipped.src_vocab, shipped.tgt_vocab), path)
    loaded = transviz.load_model(str(path))
    assert loaded.config == config
    with torch.no_grad():
        torch.testing.assert_close(loaded.net(src, tgt).logits, big.eval()(src, tgt).logits, atol=0, rtol=0)


def test_t5_positions_are_refused_where_they_do_not_apply():
    with pytest.raises(ConfigError, match="cannot have t5"):
        ModelConfig(30, 30, positional="t5", architecture="prefix-lm")
    with pytest.raises(ConfigError, match="relative_max_distance"):
        ModelConfig(30, 30, positional="t5", relative_buckets=32, relative_max_distance=16)
