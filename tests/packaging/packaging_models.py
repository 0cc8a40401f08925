"""Tiny models whose translation is known without running the decoder: the output layer's weights
are zero and its bias singles out one token, so every step's logits are that bias."""
from __future__ import annotations

import torch

import transviz
from transviz.core.model.transformer import Transformer
from transviz.core.model.vocab import Vocab

SOURCE_WORDS = "ich mochte ein bier bitte".split()
TARGET_WORDS = "i want a beer please".split()
MAX_LEN = 12


def tiny_model(seed: int = 0) -> transviz.Model:
    torch.manual_seed(seed)
    source, target = Vocab(SOURCE_WORDS), Vocab(TARGET_WORDS)
    config = transviz.ModelConfig(len(source), len(target), d_model=16, n_heads=2, n_encoder_layers=2,
                                  n_decoder_layers=2, d_ff=32, dropout=0.0, max_len=MAX_LEN)
    return transviz.Model(Transformer(config).eval(), source, target, {"task": "packaging-test"})


def always_saying(token: str, seed: int = 0) -> transviz.Model:
    """A model whose every step picks ``token`` (a target word or a special such as ``</s>``)."""
    model = tiny_model(seed)
    generator = model.net.generator
    with torch.no_grad():
        generator.weight.zero_()
        generator.bias.fill_(-10.0)
        generator.bias[model.tgt_vocab.stoi[token]] = 10.0
    return model
