"""Why attention divides its scores by sqrt(d_k), computed live (issue 16).

With q and k of d_k independent N(0, 1) entries, q·k is a sum of d_k products of variance 1: its
spread grows as sqrt(d_k). Unscaled, a row of such scores drives the softmax towards one key (its
entropy falls towards 0 bits) where its Jacobian diag(p) - p pᵀ vanishes: almost no gradient
reaches the scores, the "flat region" the seed tutorial warns of. Divided by sqrt(d_k) the scores
keep a spread of 1 at every d_k, and the row keeps its entropy and its gradient.

:func:`model_rows_under_scale` shows the same on a loaded model: its real rows with the scaling
multiplied by a factor (:class:`~transviz.core.decoding.interventions.ScaleScores`); a factor of sqrt(d_k)
removes the 1/sqrt(d_k) altogether.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..base.errors import InputError
from ..base.messages import translate_noop
from ..decoding.inference import decode, teacher_force
from ..decoding.interventions import Kind, ScaleScores
from ..model.bundle import Model

N_KEYS = 10  # keys in the demonstrated row: few enough to draw as bars
SPREAD_SAMPLES = 4096  # (q, k) pairs whose dot products give the spread: its standard error is about 1%
ROW_SAMPLES = 256  # rows whose entropies and Jacobian norms the curve takes the median of
D_KS = tuple(2**i for i in range(11))  # 1 .. 1024, the slider's values


def softmax(scores: np.ndarray) -> np.ndarray:
    """Softmax over the last axis, shifted by the row's maximum so that large scores do not overflow."""
    shifted = np.exp(scores - scores.max(axis=-1, keepdims=True))
    out: np.ndarray = shifted / shifted.sum(axis=-1, keepdims=True)
    return out


def entropy_bits(p: np.ndarray) -> np.ndarray:
    """Entropy of each distribution on the last axis, in bits (0 log 0 counts as 0)."""
    logs = np.log2(np.where(p > 0, p, 1.0))
    out: np.ndarray = -(p * logs).sum(axis=-1)
    return out


def jacobian_norm(p: np.ndarray) -> np.ndarray:
    """Frobenius norm of the softmax's Jacobian diag(p) - p pᵀ at each distribution on the last axis:
    how much a change of the scores still moves the weights."""
    jacobian = p[..., :, None] * np.eye(p.shape[-1]) - p[..., :, None] * p[..., None, :]  # (..., K, K)
    out: np.ndarray = np.sqrt((jacobian**2).sum(axis=(-2, -1)))
    return out


def _check_d_k(d_k: object) -> int:
    if not isinstance(d_k, (int, np.integer)) or isinstance(d_k, bool) or not 1 <= d_k <= 65536:
        raise InputError(translate_noop("CoreMessages", "d_k must be a whole number from 1 to 65536, got {0}"),
                         repr(d_k))
    return int(d_k)


def _rng(seed: int, d_k: int) -> np.random.Generator:
    """A generator of its own for each (seed, d_k): one d_k's numbers do not depend on which others were drawn."""
    return np.random.default_rng([seed, d_k])


def _spread(rng: np.random.Generator, d_k: int, samples: int) -> float:
    """Standard deviation of q·k over ``samples`` independent pairs of N(0, 1) vectors."""
    q = rng.standard_normal((samples, d_k))
    k = rng.standard_normal((samples, d_k))
    return float(np.einsum("sd,sd->s", q, k).std())


def _rows(rng: np.random.Generator, d_k: int, n_keys: int, rows: int) -> np.ndarray:
    """Raw scores q·k of ``rows`` queries against ``n_keys`` keys each, (rows, n_keys)."""
    q = rng.standard_normal((rows, 1, d_k))
    k = rng.standard_normal((rows, n_keys, d_k))
    out: np.ndarray = (q * k).sum(axis=-1)
    return out


@dataclass(frozen=True)
class ScaleDemo:
    """One d_k: the spread of q·k, and one row of scores with its softmax unscaled and scaled.

    Shape: ``scores``, ``unscaled`` and ``scaled`` (n_keys,), float64.
    """

    d_k: int
    spread: float  # std of q·k over many sampled pairs: close to sqrt(d_k)
    scores: np.ndarray  # one query's raw scores q·k
    unscaled: np.ndarray  # softmax(scores)
    scaled: np.ndarray  # softmax(scores / sqrt(d_k))
    entropy_unscaled: float  # bits
    entropy_scaled: float
    jacobian_unscaled: float  # Frobenius norm of diag(p) - p pᵀ
    jacobian_scaled: float

    @property
    def sqrt_d_k(self) -> float:
        return math.sqrt(self.d_k)


def scale_demo(d_k: int, n_keys: int = N_KEYS, seed: int = 0, samples: int = SPREAD_SAMPLES) -> ScaleDemo:
    """The demonstration at ``d_k``, reproducible from ``seed``."""
    d_k = _check_d_k(d_k)
    rng = _rng(seed, d_k)
    spread = _spread(rng, d_k, samples)
    scores = _rows(rng, d_k, n_keys, 1)[0]
    unscaled, scaled = softmax(scores), softmax(scores / math.sqrt(d_k))
    return ScaleDemo(d_k, spread, scores, unscaled, scaled,
                     float(entropy_bits(unscaled)), float(entropy_bits(scaled)),
                     float(jacobian_norm(unscaled)), float(jacobian_norm(scaled)))


@dataclass(frozen=True)
class ScaleCurve:
    """The statistics of :class:`ScaleDemo` over a range of d_k, each the median over many rows.

    Shape: every array (len(d_ks),), float64.
    """

    d_ks: np.ndarray
    spread: np.ndarray
    entropy_unscaled: np.ndarray
    entropy_scaled: np.ndarray
    jacobian_unscaled: np.ndarray
    jacobian_scaled: np.ndarray


def scale_curve(d_ks: Sequence[int] = D_KS, n_keys: int = N_KEYS, seed: int = 0, rows: int = ROW_SAMPLES,
                samples: int = SPREAD_SAMPLES) -> ScaleCurve:
    """Spread, entropies and Jacobian norms at each of ``d_ks`` (medians over ``rows`` rows)."""
    columns: list[list[float]] = [[] for _ in range(5)]
    for d_k in map(_check_d_k, d_ks):
        rng = _rng(seed, d_k)
        spread = _spread(rng, d_k, samples)
        scores = _rows(rng, d_k, n_keys, rows)
        unscaled, scaled = softmax(scores), softmax(scores / math.sqrt(d_k))
        columns[0].append(spread)
        for column, values in zip(columns[1:], (entropy_bits(unscaled), entropy_bits(scaled),
                                                jacobian_norm(unscaled), jacobian_norm(scaled)), strict=True):
            column.append(float(np.median(values)))
    return ScaleCurve(np.array(d_ks, dtype=np.float64), *(np.array(c) for c in columns))


@dataclass(frozen=True)
class ScaledRows:
    """One head's real attention rows with its scaling multiplied by each factor.

    Shape: ``rows`` (factors, Q, K) float32, rows are queries, columns keys; ``entropy`` (factors, Q) bits.
    """

    kind: Kind
    layer: int
    head: int
    d_k: int
    factors: tuple[float, ...]
    query_labels: list[str]
    key_labels: list[str]
    rows: np.ndarray
    entropy: np.ndarray


def default_factors(d_k: int) -> tuple[float, ...]:
    """Uniform (0), half the scale, the model (1), and sqrt(d_k): the scaling removed."""
    return (0.0, 0.5, 1.0, math.sqrt(d_k))


def model_rows_under_scale(model: Model, sentence: str, kind: Kind, layer: int, head: int,
                           factors: Sequence[float] | None = None) -> ScaledRows:
    """The rows of ``head`` in ``layer`` of the ``kind`` attention for ``sentence``, with
    ``ScaleScores(factor, kind, layer)`` for each factor (default :func:`default_factors`).

    The decoder is fed the model's own greedy translation at every factor (teacher forcing), so
    that all factors see the same inputs; only that one layer is scaled, so its queries and keys
    stay the model's and a row changes only by its softmax's temperature.
    """
    d_k = model.config.d_model // model.config.n_heads
    factors = tuple(default_factors(d_k) if factors is None else factors)
    interventions = [ScaleScores(f, kind, layer) for f in factors]  # checks every factor first
    target = decode(model, sentence).translation
    if not model.tgt_vocab.tokenize(target):
        raise InputError(translate_noop("CoreMessages", "the model writes nothing for this sentence: there are no "
                                                        "decoder rows to show"))
    maps = []
    for intervention in interventions:
        trace = teacher_force(model, sentence, target, interventions=[intervention])
        attention = {"encoder_self": trace.encoder_self_attention, "decoder_self": trace.decoder_self_attention,
                     "cross": trace.cross_attention}[kind]
        if head >= attention.shape[1]:
            raise InputError(translate_noop("CoreMessages", "no head {0}: this model has heads 0 to {1}"), head,
                             attention.shape[1] - 1)
        maps.append(attention[layer, head])
    rows = np.stack(maps).astype(np.float32)  # (factors, Q, K)
    queries = trace.source_tokens if kind == "encoder_self" else trace.query_labels
    keys = trace.target_tokens if kind == "decoder_self" else trace.source_tokens
    return ScaledRows(kind, layer, head, d_k, factors, queries, keys, rows, entropy_bits(rows.astype(np.float64)))
