"""Sliding-window self-attention (``ModelConfig.attention_window``) against independent references:
torch.nn's Transformer layers with copied weights and masks built here cell by cell, the KV cache
against a full recomputation, and the window's invariants on the maps."""
from __future__ import annotations

import math

import pytest
import torch
from test_model_reference import copy_linear_norm, copy_mha, small_model_and_batch
from torch import nn

from transviz.core.base.errors import ConfigError
from transviz.core.model.config import ModelConfig
from transviz.core.model.transformer import Transformer

SRC = torch.tensor([[3, 4, 5, 6, 7, 8], [8, 9, 2, 0, 0, 0], [5, 0, 0, 0, 0, 0]])
TGT = torch.tensor([[1, 4, 6, 8, 9], [1, 3, 0, 0, 0], [1, 5, 7, 6, 0]])


def blocked(real: list[bool], window: int, causal: bool, heads: int) -> torch.Tensor:
    """torch's float attention mask (heads of a sentence, L, L): -inf where query i may not see key
    j: j is padding, or |i - j| >= window, or j > i in the decoder; a query that would see no key
    (padding, among padding) keeps its own."""
    length = len(real)
    rows = []
    for i in range(length):
        seen = [real[j] and abs(i - j) < window and (j <= i or not causal) for j in range(length)]
        rows.append([0.0 if seen[j] or (j == i and not any(seen)) else -math.inf for j in range(length)])
    return torch.tensor(rows).expand(heads, length, length)


def torch_reference(model: Transformer, src: torch.Tensor, tgt: torch.Tensor, window: int) -> torch.Tensor:
    """The model's logits computed by torch.nn's encoder and decoder layers with its weights."""
    cfg, d = model.config, model.config.d_model
    pe = torch.tensor([[math.sin(p / 10000 ** ((c - c % 2) / d)) if c % 2 == 0 else
                        math.cos(p / 10000 ** ((c - c % 2) / d)) for c in range(d)] for p in range(cfg.max_len)])
    heads = cfg.n_heads
    src_masks = torch.cat([blocked((row != 0).tolist(), window, False, heads) for row in src])
    tgt_masks = torch.cat([blocked((row != 0).tolist(), window, True, heads) for row in tgt])
    x = model.src_embed.weight[src] * math.sqrt(d) + pe[: src.shape[1]]
    for ours in model.encoder_layers:
        ref = nn.TransformerEncoderLayer(d, heads, cfg.d_ff, 0.0, batch_first=True, norm_first=cfg.norm == "pre")
        copy_mha(ours.self_attn, ref.self_attn)
        for name, part in (("linear1", ours.ffn.linear1), ("linear2", ours.ffn.linear2), ("norm1", ours.norm1),
                           ("norm2", ours.norm2)):
            copy_linear_norm(getattr(ref, name), part)
        x = ref.train()(x, src_mask=src_masks)
    if cfg.norm == "pre":
        x = nn.functional.layer_norm(x, (d,), model.encoder_norm.weight, model.encoder_norm.bias, cfg.layer_norm_eps)
    y = model.tgt_embed.weight[tgt] * math.sqrt(d) + pe[: tgt.shape[1]]
    for ours in model.decoder_layers:
        ref = nn.TransformerDecoderLayer(d, heads, cfg.d_ff, 0.0, batch_first=True, norm_first=cfg.norm == "pre")
        copy_mha(ours.self_attn, ref.self_attn)
        copy_mha(ours.cross_attn, ref.multihead_attn)
        for name, part in (("linear1", ours.ffn.linear1), ("linear2", ours.ffn.linear2), ("norm1", ours.norm1),
                           ("norm2", ours.norm2), ("norm3", ours.norm3)):
            copy_linear_norm(getattr(ref, name), part)
        y = ref.train()(y, x, tgt_mask=tgt_masks, memory_key_padding_mask=src == 0)
    if cfg.norm == "pre":
        y = nn.functional.layer_norm(y, (d,), model.decoder_norm.weight, model.decoder_norm.bias, cfg.layer_norm_eps)
    return (y @ model.generator.weight.T + model.generator.bias).detach()


@pytest.mark.parametrize("norm", ["post", "pre"])
@pytest.mark.parametrize("window", [1, 2, 3])
def test_a_windowed_model_computes_what_torchs_layers_compute_with_banded_masks(norm, window):
    model, _, _ = small_model_and_batch(norm, seed=5, attention_window=window)
    with torch.no_grad():
        ours = model(SRC, TGT).logits
    real = TGT != 0  # padded positions' logits are never read
    torch.testing.assert_close(ours[real], torch_reference(model, SRC, TGT, window)[real], atol=1e-4, rtol=0)


def test_a_window_as_long_as_the_sentences_changes_nothing():
    model, _, _ = small_model_and_batch("post", seed=6, attention_window=SRC.shape[1])
    full, _, _ = small_model_and_batch("post", seed=6)
    with torch.no_grad():
        torch.testing.assert_close(model(SRC, TGT).logits, full(SRC, TGT).logits, atol=1e-6, rtol=0)


@pytest.mark.parametrize("window", [1, 2, 4])
def test_the_maps_keep_to_the_window_and_rows_sum_to_1(window):
    model, _, _ = small_model_and_batch("post", seed=7, attention_window=window)
    with torch.no_grad():
        maps = model(SRC, TGT, return_attention=True).attention
    for kind, weights, tokens in (("encoder", maps.encoder_self, SRC), ("decoder", maps.decoder_self, TGT)):
        length = tokens.shape[1]
        far = torch.tensor([[abs(i - j) >= window for j in range(length)] for i in range(length)])
        for w in weights:
            assert torch.all(w[..., far] == 0.0), kind
            torch.testing.assert_close(w.sum(-1), torch.ones_like(w.sum(-1)), atol=1e-5, rtol=0)
            assert not torch.isnan(w).any()


@pytest.mark.parametrize("window", [1, 2, 3])
def test_cached_steps_equal_the_full_recomputation(window):
    model, _, _ = small_model_and_batch("pre", seed=8, attention_window=window)
    src = SRC[:1]
    with torch.no_grad():
        encoded = model.encode(src, return_attention=False)
        state = model.start(encoded)
        tokens = [1]
        for _ in range(7):
            step = model.step(torch.tensor([tokens[-1]]), state)
            full = model.decode(torch.tensor([tokens]), encoded, return_attention=True)
            torch.testing.assert_close(step.logits, full.logits[:, -1], atol=1e-5, rtol=0)
            for row, whole in zip(step.self_attention, full.self_attention, strict=True):
                torch.testing.assert_close(row[:, :, -1], whole[:, :, -1], atol=1e-6, rtol=0)
            state = step.state
            tokens.append(int(step.logits.argmax()))


def test_a_checkpoint_records_the_window_only_when_it_has_one():
    assert "attention_window" not in ModelConfig(20, 20).to_dict()
    assert ModelConfig(20, 20, attention_window=3).to_dict()["attention_window"] == 3
    assert ModelConfig.from_dict(ModelConfig(20, 20).to_dict()).attention_window == 0  # older checkpoints
    for bad in (-1, 1.5, True, "3", 10**6):
        with pytest.raises(ConfigError, match="attention_window"):
            ModelConfig(20, 20, attention_window=bad)
