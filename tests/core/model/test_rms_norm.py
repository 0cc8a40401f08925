"""RMSNorm (``ModelConfig(layer_norm="rms")``, today's models' normalisation) against its formula
evaluated here in float64, torch's layers with their LayerNorms swapped for RMSNorms, the layout
a checkpoint is checked against, and a checkpoint's round trip."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch
from test_model_reference import copy_linear_norm, copy_mha, randomize_
from torch import nn

import transviz
from transviz.core.io import checkpoint
from transviz.core.model.config import ModelConfig
from transviz.core.model.layout import tensor_layout
from transviz.core.model.transformer import EncoderLayer, Transformer

D, H, DFF = 24, 3, 40


def rms_config(**settings) -> ModelConfig:
    return ModelConfig(50, 50, d_model=D, n_heads=H, d_ff=DFF, dropout=0.0, layer_norm="rms", **settings)


def test_each_norm_divides_by_the_root_mean_square_and_scales():
    layer = EncoderLayer(rms_config(norm="pre"))
    randomize_(layer, 3)
    x = torch.randn(2, 5, D) * 3 + 1  # a mean far from 0: a LayerNorm would take it away, RMSNorm keeps it
    weight = layer.norm1.weight.detach().double().numpy()
    xs = x.double().numpy()
    expected = xs / np.sqrt((xs ** 2).mean(-1, keepdims=True) + rms_config().layer_norm_eps) * weight
    np.testing.assert_allclose(layer.norm1(x).detach().numpy(), expected, atol=1e-5)
    assert not hasattr(layer.norm1, "bias") or layer.norm1.bias is None


@pytest.mark.parametrize("norm", ["post", "pre"])
def test_an_encoder_layer_computes_what_torchs_computes_with_rms_norms(norm):
    ours = EncoderLayer(rms_config(norm=norm))
    randomize_(ours, 4)
    ours.eval()
    ref = nn.TransformerEncoderLayer(D, H, DFF, dropout=0.0, batch_first=True, norm_first=norm == "pre")
    ref.norm1, ref.norm2 = nn.RMSNorm(D, eps=1e-5), nn.RMSNorm(D, eps=1e-5)
    copy_mha(ours.self_attn, ref.self_attn)
    copy_linear_norm(ref.linear1, ours.ffn.linear1)
    copy_linear_norm(ref.linear2, ours.ffn.linear2)
    with torch.no_grad():
        ref.norm1.weight.copy_(ours.norm1.weight)
        ref.norm2.weight.copy_(ours.norm2.weight)
    x = torch.randn(3, 6, D)
    out, _ = ours(x, None)
    torch.testing.assert_close(out, ref.train()(x), atol=1e-5, rtol=0)


@pytest.mark.parametrize("norm", ["post", "pre"])
def test_the_layout_is_the_networks_and_norms_have_no_bias(norm):
    config = rms_config(norm=norm, n_encoder_layers=2, n_decoder_layers=3)
    net = Transformer(config)
    state = net.state_dict()
    real = sorted((tuple(g), tuple(state[g[0]].shape)) for g in checkpoint._tied_groups(net))
    assert real == sorted(tensor_layout(config))
    assert not [name for name in state if "norm" in name and name.endswith("bias")]
    assert config.parameter_count() == net.parameter_count() == sum(p.numel() for p in net.parameters())
    standard = ModelConfig(50, 50, d_model=D, n_heads=H, d_ff=DFF, norm=norm, n_encoder_layers=2, n_decoder_layers=3)
    norms = 2 * 2 + 3 * 3 + (2 if norm == "pre" else 0)  # every LayerNorm loses its bias of D numbers
    assert standard.parameter_count() - config.parameter_count() == norms * D


def test_a_checkpoint_keeps_the_rms_norm(tmp_path):
    model = transviz.load_model("default")
    net = Transformer(dataclasses.replace(rms_config(norm="pre"), src_vocab_size=model.config.src_vocab_size,
                                          tgt_vocab_size=model.config.tgt_vocab_size))
    randomize_(net, 5)
    path = tmp_path / "rms.safetensors"
    checkpoint.save(transviz.Model(net, model.src_vocab, model.tgt_vocab), path)
    loaded = transviz.load_model(str(path))
    assert loaded.config.layer_norm == "rms" and loaded.config.to_dict()["layer_norm"] == "rms"
    src, tgt = torch.tensor([[4, 5, 6]]), torch.tensor([[1, 7, 8]])
    with torch.no_grad():
        torch.testing.assert_close(loaded.net(src, tgt).logits, net.eval()(src, tgt).logits, atol=0, rtol=0)
