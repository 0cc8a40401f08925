"""Tiny real models and independent references for the decoding tests (imported by them; no tests here).

The references never touch the key/value cache or the session: each distribution comes from a
fresh full forward pass over the whole prefix (teacher forcing), the way training sees the model.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
import torch

import transviz
from transviz.core.model.transformer import Transformer
from transviz.core.model.vocab import Vocab

SOURCE = "ich mochte ein bier"
SOURCE_WORDS = "ich mochte ein bier trinken das ist gut".split()
TARGET_WORDS = "i want a beer to drink that is good".split()


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    """Tiny models gain nothing from threads, and on a busy machine spinning threads slow every
    small op many times over; import this fixture into a test module to run it single-threaded."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def tiny_model(seed: int = 3, layers: int = 2, max_len: int = 40, eos_bias: float = 0.0,
               decoder_layers: int | None = None) -> transviz.Model:
    """An untrained model that behaves like a trained one in one way: it never writes <pad>, <s> or <unk>.
    ``layers`` is the encoder's depth, and the decoder's unless ``decoder_layers`` differs."""
    torch.manual_seed(seed)
    src, tgt = Vocab(SOURCE_WORDS), Vocab(TARGET_WORDS)
    config = transviz.ModelConfig(len(src), len(tgt), d_model=32, n_heads=4, d_ff=64, dropout=0.1, max_len=max_len,
                                  n_encoder_layers=layers, n_decoder_layers=decoder_layers or layers)
    net = Transformer(config)  # left in training mode: the session must switch dropout off itself
    with torch.no_grad():
        net.generator.bias[[0, 1, 3]] = -1e4
        net.generator.bias[2] += eos_bias
    return transviz.Model(net, src, tgt)


@dataclass(frozen=True)
class Forward:
    """A full forward pass over decoder inputs (start token first), T = len(inputs)."""

    probs: np.ndarray  # (T, V) float64
    log_probs: np.ndarray  # (T, V) float64
    decoder_self: np.ndarray  # (L, H, T, T)
    cross: np.ndarray  # (L, H, T, S)


def forward(model: transviz.Model, source: str, output_ids: list[int]) -> Forward:
    """Teacher-force ``output_ids``: row t is the distribution that chose output t, and the last row
    (T = len(output_ids) + 1) the distribution of the token after them."""
    vocab = model.tgt_vocab
    src = torch.tensor([model.src_vocab.encode(source).ids])
    tgt = torch.tensor([[vocab.bos_id] + list(output_ids)])
    was_training = model.net.training
    model.net.eval()
    with torch.no_grad():
        out = model.net(src, tgt, return_attention=True)
    model.net.train(was_training)
    logits = out.logits[0].double()
    maps = out.attention
    return Forward(
        probs=torch.softmax(logits, -1).numpy(),
        log_probs=torch.log_softmax(logits, -1).numpy(),
        decoder_self=torch.stack([m[0] for m in maps.decoder_self]).numpy(),
        cross=torch.stack([m[0] for m in maps.cross]).numpy(),
    )


def greedy_reference(model: transviz.Model, source: str, max_len: int) -> list[int]:
    """Greedy decoding by recomputing the whole prefix at every step."""
    ids: list[int] = []
    while len(ids) < max_len and (not ids or ids[-1] != model.tgt_vocab.eos_id):
        ids.append(int(forward(model, source, ids).probs[-1].argmax()))
    return ids


def beam_reference(model: transviz.Model, source: str, width: int, alpha: float,
                   max_len: int) -> list[tuple[list[int], float]]:
    """Beam search as specified, by full recomputation: each step, the ``width`` best (by
    score / length ** alpha) among the extensions of every unfinished hypothesis and the finished
    ones; stop when all have ended or after ``max_len`` steps. Returns (ids, score), best first."""
    eos = model.tgt_vocab.eos_id
    beam: list[tuple[list[int], float]] = [([], 0.0)]
    for _ in range(max_len):
        if all(ids and ids[-1] == eos for ids, _ in beam):
            break
        pool = []
        for ids, score in beam:
            if ids and ids[-1] == eos:
                pool.append((ids, score))
                continue
            log_probs = forward(model, source, ids).log_probs[-1]
            pool += [(ids + [v], score + float(log_probs[v])) for v in range(len(log_probs))]
        pool.sort(key=lambda h: -h[1] / len(h[0]) ** alpha)
        beam = pool[:width]
    return beam
