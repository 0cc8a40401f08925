"""Where the arithmetic of one forward pass goes (seed 001, "Transformer 各部分耗时比较": once the
model is large, the FFN costs most of the FLOPs; and the scores of attention cost n x m x l).

Counts follow torch's own FLOP counter (``torch.utils.flop_counter``): a product of an (m, k) and a
(k, n) matrix costs 2*m*n*k FLOPs, and only matrix products count. So the embedding lookup costs 0
(it reads a row, it multiplies nothing), and so do the softmax, LayerNorm, biases, the activation
and the residual additions: they are linear in the tokens and the width, negligible beside the
products (softmax is a few operations per score; see :func:`softmax_operations` for that size).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ...model.config import ModelConfig

# The parts of one teacher-forced pass, in the order a token meets them.
COMPONENTS = ("embeddings", "qkv", "scores", "softmax", "weights_v", "out_proj", "ffn", "output")
ATTENTION = ("qkv", "scores", "softmax", "weights_v", "out_proj")  # everything multi-head attention does
PRODUCTS = ("scores", "weights_v")  # the n x m x l products of attention (seed 001)
PROJECTIONS = ("qkv", "out_proj")  # the rest of attention's FLOPs: linear in the length, not small


def matmul(m: int, k: int, n: int) -> int:
    """FLOPs of an (m, k) @ (k, n) product, as torch counts them: a multiply and an add per term."""
    return 2 * m * k * n


def _attention(d: int, kv: int, queries: int, keys: int, projected_keys: int) -> dict[str, int]:
    """One multi-head attention block: ``queries`` rows attend over ``keys`` rows, and
    ``projected_keys`` rows get keys and values ``kv`` wide projected (cross-attention projects the
    source's; ``kv`` is below d when query heads share keys and values). The heads split d into H
    slices of d/H, so the head count cancels out of every other product."""
    return {"qkv": matmul(queries, d, d) + matmul(projected_keys, d, 2 * kv),
            "scores": matmul(queries, d, keys),  # per head (n, l) @ (l, m), summed over the heads
            "softmax": 0,
            "weights_v": matmul(queries, keys, d),
            "out_proj": matmul(queries, d, d)}


def flops(config: ModelConfig, source_len: int, target_len: int) -> dict[str, int]:
    """FLOPs per component (:data:`COMPONENTS`) of one teacher-forced forward pass of one
    sentence: ``source_len`` source tokens and ``target_len`` decoder inputs (start token included).
    Every decoder query is computed, masked or not, as the model does."""
    return _flops(config, config.kv_heads * config.d_k, source_len, target_len)


def _flops(config: ModelConfig, kv: int, source_len: int, target_len: int) -> dict[str, int]:
    """:func:`flops` with keys and values ``kv`` wide."""
    d, s, t = config.d_model, source_len, target_len
    total = dict.fromkeys(COMPONENTS, 0)
    blocks = ([(s, s, s)] * config.n_encoder_layers  # encoder self-attention
              + [(t, t, t), (t, s, s)] * config.n_decoder_layers)  # decoder self- and cross-attention
    for queries, keys, projected in blocks:
        for part, count in _attention(d, kv, queries, keys, projected).items():
            total[part] += count
    ffn = matmul(1, d, config.d_ff) + matmul(1, config.d_ff, d)  # per token
    total["ffn"] = ffn * (s * config.n_encoder_layers + t * config.n_decoder_layers)
    total["output"] = matmul(t, d, config.tgt_vocab_size)
    return total


def share(counts: dict[str, int], parts: Sequence[str]) -> float:
    """The share of ``parts`` in all the FLOPs of ``counts``."""
    return sum(counts[part] for part in parts) / sum(counts.values())


def ffn_share(config: ModelConfig, source_len: int, target_len: int) -> float:
    """The FFN's share of the pass's FLOPs."""
    return share(flops(config, source_len, target_len), ["ffn"])


def flops_by_width(config: ModelConfig, widths: Sequence[int], source_len: int, target_len: int,
                   ratio: int = 4) -> list[dict[str, int]]:
    """:func:`flops` for ``config`` made ``d_model`` wide for each of ``widths``, d_ff = ``ratio``
    x d_model (layers, vocabularies and the keys' and values' share of the width kept; the head count
    changes no product's size)."""
    return [_flops(replace(config, d_model=width, d_ff=ratio * width, n_heads=1, n_kv_heads=0),
                   width * config.kv_heads // config.n_heads, source_len, target_len) for width in widths]


def flops_by_length(config: ModelConfig, lengths: Sequence[int]) -> list[dict[str, int]]:
    """:func:`flops` for source and target both ``length`` long, for each of ``lengths``."""
    return [flops(config, length, length) for length in lengths]


def softmax_operations(config: ModelConfig, source_len: int, target_len: int) -> int:
    """The scores the softmaxes normalise, per head summed: about five operations each (max,
    subtract, exp, sum, divide), none of them a product, so :func:`flops` counts them as 0."""
    s, t, h = source_len, target_len, config.n_heads
    return h * (s * s * config.n_encoder_layers + (t * t + t * s) * config.n_decoder_layers)
