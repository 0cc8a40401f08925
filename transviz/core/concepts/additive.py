"""Additive (Bahdanau) attention against the dot product: scores v^T tanh(W1 q + W2 k) fitted
with Adam to reproduce one head's real weights from its real queries and keys, and the time each
kind of score takes as the sentence grows.

The fit is a few hundred full-batch Adam steps from a seeded start (about a tenth of a second for a
sentence, on one thread), minimising the cross-entropy of the fitted weights to the head's. The timings use
random queries and keys of the head's size: the dot product is one matrix product, additive
scores need a (Q, K, hidden) tensor before ``v`` sums it.
"""
from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np
import torch
from torch import Tensor

from ..bundle import Model
from ..walkthrough import Kind
from .forward import Sentence
from .head import head_attention
from .timing import one_thread

STEPS = 200
LENGTHS = (8, 32, 128, 512)  # sentence lengths timed


@dataclass(frozen=True)
class AdditiveParams:
    """W1 (hidden, d), W2 (hidden, d), v (hidden,)."""

    w1: Tensor
    w2: Tensor
    v: Tensor


def dot_scores(queries: Tensor, keys: Tensor) -> Tensor:
    """(Q, d) and (K, d) -> (Q, K) scaled dot products, as a Transformer head scores."""
    return torch.matmul(queries, keys.T) / math.sqrt(queries.shape[1])


def additive_scores(queries: Tensor, keys: Tensor, params: AdditiveParams) -> Tensor:
    """(Q, d) and (K, d) -> (Q, K) scores v^T tanh(W1 q + W2 k)."""
    hidden = torch.tanh((queries @ params.w1.T)[:, None, :] + (keys @ params.w2.T)[None, :, :])  # (Q, K, h)
    return hidden @ params.v


def fit_additive(queries: Tensor, keys: Tensor, weights: Tensor, mask: Tensor, hidden: int,
                 steps: int = STEPS, seed: int = 0) -> tuple[AdditiveParams, Tensor]:
    """Additive parameters whose softmax (over the keys ``mask`` allows) matches ``weights`` (Q, K),
    and the fitted weights."""
    generator = torch.Generator().manual_seed(seed)
    d = queries.shape[1]
    params = AdditiveParams(*(torch.randn(shape, generator=generator, dtype=queries.dtype) / np.sqrt(size)
                              for shape, size in (((hidden, d), d), ((hidden, d), d), ((hidden,), hidden))))
    for tensor in (params.w1, params.w2, params.v):
        tensor.requires_grad_(True)
    optimizer = torch.optim.Adam([params.w1, params.w2, params.v], lr=0.05)
    for _ in range(steps):
        optimizer.zero_grad()
        log_fitted = torch.log_softmax(additive_scores(queries, keys, params).masked_fill(~mask, -torch.inf), dim=-1)
        loss = -(weights * log_fitted.masked_fill(~mask, 0.0)).sum(dim=-1).mean()
        loss.backward()
        optimizer.step()
    with torch.no_grad():
        fitted = torch.softmax(additive_scores(queries, keys, params).masked_fill(~mask, -torch.inf), dim=-1)
    return AdditiveParams(*(t.detach() for t in (params.w1, params.w2, params.v))), fitted


@dataclass(frozen=True)
class Additive:
    """One head's dot-product weights, the additive fit of them, its error, and timings."""

    query_tokens: list[str]
    key_tokens: list[str]
    dot_weights: np.ndarray  # (Q, K), the head's own
    additive_weights: np.ndarray  # (Q, K), the fit's
    error: float  # mean over rows of the total variation distance between the two (0..1)
    fit_seconds: float
    lengths: tuple[int, ...]
    dot_seconds: tuple[float, ...]
    additive_seconds: tuple[float, ...]


def additive(model: Model, sentence: Sentence, kind: Kind, layer: int, head: int) -> Additive:
    """Fit additive attention to ``head`` of ``layer`` for ``sentence`` and time both kinds."""
    walk = head_attention(model, sentence, kind, layer, head)
    queries, keys = (torch.from_numpy(a.astype(np.float32)) for a in (walk.queries, walk.keys))
    weights, mask = torch.from_numpy(walk.weights.astype(np.float32)), torch.from_numpy(walk.mask)
    with one_thread():
        fit_additive(queries, keys, weights, mask, hidden=walk.d_k, steps=2)  # torch's first-use set-up, untimed
        start = time.perf_counter()
        _, fitted = fit_additive(queries, keys, weights, mask, hidden=walk.d_k)
        fit_seconds = time.perf_counter() - start
        dot, add = time_scores(walk.d_k, LENGTHS)
    error = float((fitted - weights).abs().sum(dim=-1).mean() / 2)
    return Additive(walk.query_tokens, walk.key_tokens, walk.weights, fitted.numpy().astype(np.float32), error,
                    fit_seconds, LENGTHS, dot, add)


def time_scores(d: int, lengths: tuple[int, ...], repeats: int = 3) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Best-of-``repeats`` seconds of dot-product and of additive scores for n queries x n keys."""
    generator = torch.Generator().manual_seed(0)
    params = AdditiveParams(*(torch.randn(shape, generator=generator) for shape in ((d, d), (d, d), (d,))))
    dot, add = [], []
    for n in lengths:
        q, k = torch.randn(n, d, generator=generator), torch.randn(n, d, generator=generator)
        dot.append(_best(partial(dot_scores, q, k), repeats))
        add.append(_best(partial(additive_scores, q, k, params), repeats))
    return tuple(dot), tuple(add)


def _best(work: Callable[[], object], repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return best
