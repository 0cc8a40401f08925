"""FlashAttention's trick on the real head: one query row's output computed block by block of keys
with the online softmax (Milakov & Gimelshein 2018; Dao et al. 2022). Only a running maximum ``m``,
a running sum ``l`` of exp(score - m) and a running weighted sum of values are kept; each new block
rescales them by exp(m_old - m_new). The row of weights is never held, yet after the last block the
output equals softmax(row) @ V, to float rounding."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...base.errors import InputError
from ...base.messages import translate_noop
from ...model.bundle import Model
from ..walkthrough import Kind
from .forward import Sentence
from .head import head_attention

MAX_BLOCK = 64  # keys per block at most (a sentence is shorter)


@dataclass(frozen=True)
class OnlineSoftmax:
    """One query row through the online softmax, after each block of keys. float32, as a fused
    kernel computes.

    Shape:
        ``scores`` (K,) as softmax takes them (scaled, any position bias added, -inf where masked);
        ``values`` (K, d_k); ``running_max``, ``running_sum`` (blocks,); ``partial`` (blocks, d_k):
        the output of the keys so far, the running weighted sum / ``running_sum``; ``weights`` (K,)
        and ``reference`` (d_k,): softmax(scores) and softmax(scores) @ V computed the ordinary way.
    """

    query_token: str
    key_tokens: list[str]
    block: int
    scores: np.ndarray
    values: np.ndarray
    running_max: np.ndarray
    running_sum: np.ndarray
    partial: np.ndarray
    weights: np.ndarray
    reference: np.ndarray

    @property
    def ends(self) -> list[int]:
        """The index after each block's last key."""
        return [min(start + self.block, len(self.scores)) for start in range(0, len(self.scores), self.block)]

    @property
    def error(self) -> float:
        """Largest difference between the last block's output and the ordinary softmax's."""
        return float(np.abs(self.partial[-1] - self.reference).max())


def online_softmax(scores: np.ndarray, values: np.ndarray, block: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The running maximum, running sum and output after each ``block`` keys of one row: ``scores``
    (K,), ``values`` (K, d_k), float32. A block of masked keys only (-inf) changes nothing."""
    scores, values = scores.astype(np.float32), values.astype(np.float32)
    peak, total = np.float32(-np.inf), np.float32(0.0)
    mixed = np.zeros(values.shape[1], dtype=np.float32)
    peaks, totals, partials = [], [], []
    for start in range(0, len(scores), block):
        chunk = scores[start : start + block]
        new_peak = max(peak, chunk.max())
        if new_peak > -np.inf:  # rescale what came before to the new maximum, then add this block
            shift = np.exp(peak - new_peak) if peak > -np.inf else np.float32(0.0)
            exps = np.exp(chunk - new_peak)
            total = total * shift + exps.sum()
            mixed = mixed * shift + exps @ values[start : start + block]
            peak = new_peak
        peaks.append(peak)
        totals.append(total)
        partials.append(mixed / total if total > 0 else np.full_like(mixed, np.nan))
    return np.array(peaks, np.float32), np.array(totals, np.float32), np.array(partials, np.float32)


def flash_row(model: Model, sentence: Sentence, kind: Kind, layer: int, head: int, block: int = 2) -> OnlineSoftmax:
    """The current query row of ``head`` (the last: the newest decoder input, or the last source
    token) through the online softmax, ``block`` keys at a time."""
    if not isinstance(block, int) or isinstance(block, bool) or not 1 <= block <= MAX_BLOCK:
        raise InputError(translate_noop("CoreMessages", "a block holds 1 to {0} keys, got {1}"), MAX_BLOCK,
                         repr(block))
    walk = head_attention(model, sentence, kind, layer, head)
    row = len(walk.query_tokens) - 1
    scores, values = walk.masked[row], walk.values
    peaks, totals, partial = online_softmax(scores, values, block)
    weights = walk.weights[row].astype(np.float32)
    return OnlineSoftmax(walk.query_tokens[row], list(walk.key_tokens), block, scores.astype(np.float32),
                         values.astype(np.float32), peaks, totals, partial, weights, weights @ values)
