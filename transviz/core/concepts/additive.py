"""Additive (Bahdanau) attention against the dot product: scores v^T tanh(W1 q + W2 k) from one
head's real queries and keys, with W1, W2 and v either fitted to reproduce the head's weights or
drawn at random (what additive scores look like untrained), and the time and memory each kind of
score takes as the sentence grows.

The fit is not least squares: the weights are a softmax of the scores, so no linear solve gives
W1, W2 and v. It is full-batch Adam from a seeded start, minimising the cross-entropy of the
fitted weights to the head's, and it stops once the two maps differ by less than ``TOLERANCE``
(mean total variation per query) or after ``STEPS`` steps. A fit is kept per head and content;
when the explorer steps, the new fit starts from the previous step's parameters, which are
already close, so it takes a few dozen steps rather than hundreds.

The timings use random queries and keys of the head's size and are measured once per size: the
dot product is one matrix product, additive scores need a (Q, K, hidden) tensor before ``v``
sums it. The memory figures are the bytes of those intermediate tensors, from their shapes.
"""
from __future__ import annotations

import math
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, partial
from typing import Literal

import numpy as np
import torch
from torch import Tensor

from ..bundle import Model
from ..model import Transformer
from ..walkthrough import Kind
from .forward import Sentence
from .head import head_attention
from .timing import one_thread

STEPS = 60  # L-BFGS iterations at most per fit
CHUNK = 10  # iterations between checks of the distance
TOLERANCE = 1e-3  # a fit stops once its weights are this close to the head's (mean total variation)
LENGTHS = (8, 32, 128, 512)  # sentence lengths timed
FLOAT_BYTES = torch.finfo(torch.float32).bits // 8

Mode = Literal["fitted", "random"]
MODES: tuple[Mode, ...] = ("fitted", "random")


@dataclass(frozen=True)
class AdditiveParams:
    """W1 (hidden, d), W2 (hidden, d), v (hidden,)."""

    w1: Tensor
    w2: Tensor
    v: Tensor


@dataclass(frozen=True)
class Fit:
    """Fitted parameters, their weights (Q, K) and the Adam steps the fit took."""

    params: AdditiveParams
    weights: Tensor
    steps: int


def dot_scores(queries: Tensor, keys: Tensor) -> Tensor:
    """(Q, d) and (K, d) -> (Q, K) scaled dot products, as a Transformer head scores."""
    return torch.matmul(queries, keys.T) / math.sqrt(queries.shape[1])


def additive_hidden(queries: Tensor, keys: Tensor, params: AdditiveParams) -> Tensor:
    """(Q, d) and (K, d) -> (Q, K, hidden) tanh(W1 q + W2 k): the tensor the dot product never needs."""
    return torch.tanh((queries @ params.w1.T)[:, None, :] + (keys @ params.w2.T)[None, :, :])


def additive_scores(queries: Tensor, keys: Tensor, params: AdditiveParams) -> Tensor:
    """(Q, d) and (K, d) -> (Q, K) scores v^T tanh(W1 q + W2 k)."""
    return additive_hidden(queries, keys, params) @ params.v


def score_bytes(n_queries: int, n_keys: int, hidden: int, element_size: int = FLOAT_BYTES) -> tuple[int, int]:
    """Bytes of the intermediate tensor each way: the (Q, K) scores of the dot product, the
    (Q, K, hidden) tensor of additive scores."""
    return n_queries * n_keys * element_size, n_queries * n_keys * hidden * element_size


def random_params(d: int, hidden: int, seed: int = 0, dtype: torch.dtype = torch.float32) -> AdditiveParams:
    """Untrained parameters, scaled as a linear layer's start: entries N(0, 1 / fan-in)."""
    generator = torch.Generator().manual_seed(seed)
    return AdditiveParams(*(torch.randn(shape, generator=generator, dtype=dtype) / np.sqrt(size)
                            for shape, size in (((hidden, d), d), ((hidden, d), d), ((hidden,), hidden))))


def masked_weights(queries: Tensor, keys: Tensor, params: AdditiveParams, mask: Tensor) -> Tensor:
    """softmax over the keys ``mask`` allows of the additive scores, (Q, K)."""
    return torch.softmax(additive_scores(queries, keys, params).masked_fill(~mask, -torch.inf), dim=-1)


def fit_additive(queries: Tensor, keys: Tensor, weights: Tensor, mask: Tensor, hidden: int,
                 steps: int = STEPS, seed: int = 0, start: AdditiveParams | None = None,
                 tolerance: float = 0.0) -> Fit:
    """Additive parameters whose softmax (over the keys ``mask`` allows) matches ``weights`` (Q, K):
    L-BFGS from ``start`` (default: :func:`random_params` of ``seed``) on the cross-entropy, until the
    mean total variation is below ``tolerance`` or ``steps`` iterations are taken."""
    initial = start or random_params(queries.shape[1], hidden, seed, queries.dtype)
    tensors = [t.detach().clone().requires_grad_(True) for t in (initial.w1, initial.w2, initial.v)]
    params = AdditiveParams(*tensors)
    optimizer = torch.optim.LBFGS(tensors, max_iter=CHUNK, history_size=20, line_search_fn="strong_wolfe",
                                  tolerance_grad=1e-10, tolerance_change=1e-14)

    def closure() -> Tensor:
        optimizer.zero_grad()
        log_fitted = torch.log_softmax(additive_scores(queries, keys, params).masked_fill(~mask, -torch.inf), dim=-1)
        loss = -(weights * log_fitted.masked_fill(~mask, 0.0)).sum(dim=-1).mean()
        loss.backward()
        return loss

    taken = 0
    with torch.no_grad():
        fitted = masked_weights(queries, keys, params, mask)
    # in chunks, so that a fit already close enough (a warm start) stops after a few iterations
    while taken < steps and _distance(fitted, weights) >= tolerance:
        optimizer.param_groups[0]["max_iter"] = min(CHUNK, steps - taken)
        before = optimizer.state[tensors[0]].get("n_iter", 0)
        optimizer.step(closure)  # type: ignore[no-untyped-call]  # torch leaves LBFGS.step untyped
        done = optimizer.state[tensors[0]].get("n_iter", 0) - before
        taken += done
        with torch.no_grad():
            fitted = masked_weights(queries, keys, params, mask)
        if done < optimizer.param_groups[0]["max_iter"]:
            break  # converged: L-BFGS found no direction that lowers the loss
    return Fit(AdditiveParams(*(t.detach() for t in tensors)), fitted, taken)


def _distance(fitted: Tensor, weights: Tensor) -> float:
    """Mean over queries of the total variation distance (0..1)."""
    return float((fitted - weights).abs().sum(dim=-1).mean() / 2)


@dataclass(frozen=True)
class Additive:
    """One head's dot-product weights, the additive weights beside them (fitted or random), how far
    apart the two are, and the time and memory of each kind of score."""

    mode: Mode
    query_tokens: list[str]
    key_tokens: list[str]
    hidden: int  # W1 and W2's rows: the head's d_k
    dot_weights: np.ndarray  # (Q, K), the head's own
    additive_weights: np.ndarray  # (Q, K), the fit's or the random parameters'
    error: float  # mean over rows of the total variation distance between the two (0..1)
    fit_seconds: float  # 0 for random parameters
    fit_steps: int  # Adam steps of the fit; 0 for random parameters
    lengths: tuple[int, ...]
    dot_seconds: tuple[float, ...]
    additive_seconds: tuple[float, ...]
    dot_bytes: tuple[int, ...]  # the (n, n) scores, float32
    additive_bytes: tuple[int, ...]  # the (n, n, hidden) tensor, float32


@dataclass
class _Kept:
    """The last fit of one head: what it was fitted to, and the result."""

    versions: tuple[int, ...]
    content: bytes
    fit: Fit
    seconds: float


# per network: the last fit of each (kind, layer, head); dropped with the network
_fits: weakref.WeakKeyDictionary[Transformer, dict[tuple[Kind, int, int], _Kept]] = weakref.WeakKeyDictionary()


def additive(model: Model, sentence: Sentence, kind: Kind, layer: int, head: int,
             mode: Mode = "fitted") -> Additive:
    """Additive attention beside ``head`` of ``layer`` for ``sentence``: fitted to it, or random."""
    walk = head_attention(model, sentence, kind, layer, head)
    queries, keys = (torch.from_numpy(a.astype(np.float32)) for a in (walk.queries, walk.keys))
    weights, mask = torch.from_numpy(walk.weights.astype(np.float32)), torch.from_numpy(walk.mask)
    seconds, steps = 0.0, 0
    if mode == "random":
        fitted = masked_weights(queries, keys, random_params(walk.d_k, walk.d_k), mask)
    else:
        kept = _fit_kept(model, (kind, layer, head), queries, keys, weights, mask, walk.d_k)
        fitted, seconds, steps = kept.fit.weights, kept.seconds, kept.fit.steps
    dot, add = time_scores(walk.d_k, LENGTHS)
    dot_bytes, add_bytes = zip(*(score_bytes(n, n, walk.d_k) for n in LENGTHS), strict=True)
    return Additive(mode, walk.query_tokens, walk.key_tokens, walk.d_k, walk.weights,
                    fitted.numpy().astype(np.float32), _distance(fitted, weights), seconds, steps, LENGTHS, dot, add,
                    tuple(dot_bytes), tuple(add_bytes))


def _fit_kept(model: Model, head: tuple[Kind, int, int], queries: Tensor, keys: Tensor, weights: Tensor,
              mask: Tensor, hidden: int) -> _Kept:
    """The fit of ``head`` to this content: the kept one if nothing changed, else a new one, started
    from the kept parameters when the weights are the same (a step of the same sentence)."""
    versions = model.weights_version()
    content = b"".join(t.numpy().tobytes() for t in (queries, keys, weights, mask))
    kept_any = any(_fits.values())
    kept = _fits.setdefault(model.net, {})
    previous = kept.get(head)
    if previous is not None and previous.versions == versions and previous.content == content:
        return previous
    start = previous.fit.params if previous is not None and previous.versions == versions else None
    if start is not None and start.w1.shape != (hidden, queries.shape[1]):
        start = None
    with one_thread():
        if not kept_any:
            fit_additive(queries, keys, weights, mask, hidden, steps=1)  # torch's first-use set-up, untimed
        began = time.perf_counter()
        fit = fit_additive(queries, keys, weights, mask, hidden, start=start, tolerance=TOLERANCE)
        seconds = time.perf_counter() - began
    kept[head] = _Kept(versions, content, fit, seconds)
    return kept[head]


@cache
def time_scores(d: int, lengths: tuple[int, ...], repeats: int = 3) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Best-of-``repeats`` seconds of dot-product and of additive scores for n queries x n keys, on
    one thread. Measured once per size in a process: it describes the machine, not the head."""
    generator = torch.Generator().manual_seed(0)
    params = AdditiveParams(*(torch.randn(shape, generator=generator) for shape in ((d, d), (d, d), (d,))))
    dot, add = [], []
    with one_thread():
        for n in lengths:
            q, k = torch.randn(n, d, generator=generator), torch.randn(n, d, generator=generator)
            dot.append(_best(partial(dot_scores, q, k), repeats))
            add.append(_best(partial(additive_scores, q, k, params), repeats))
    return tuple(dot), tuple(add)


def _best(work: Callable[[], object], repeats: int) -> float:
    work()  # torch's first-use set-up, untimed
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return best
