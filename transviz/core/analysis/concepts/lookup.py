"""Attention as a look-up in a key-value store (seed 000, "Attention的几种角度"): the current query
scores every key, and what it retrieves is not one value but a weighted mixture. Keys close to the
best one (in the head's key space) are retrieved with it: retrieval is coupled, not independent."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...model.bundle import Model
from ..walkthrough import Kind
from .forward import Sentence
from .head import head_attention


@dataclass(frozen=True)
class Lookup:
    """The current query's look-up (the last query row: the newest decoder input, or the last
    source token for encoder self-attention). Arrays over keys follow ``order``: the keys the query
    may see, highest scaled score first. float64."""

    query_token: str
    key_tokens: list[str]  # ranked
    order: np.ndarray  # key positions, ranked
    scaled: np.ndarray  # q.k / sqrt(d_k), ranked
    weights: np.ndarray  # softmax of ``scaled``, ranked
    key_cosine: np.ndarray  # cosine of each key to the best-scoring key
    mixture: np.ndarray  # (d_k,) weights @ V: what the head retrieves
    best_value: np.ndarray  # (d_k,) the best-scoring key's value: what a dictionary would return

    @property
    def mixture_cosine(self) -> float:
        return cosine(self.mixture, self.best_value)

    @property
    def mixture_norm(self) -> float:
        return float(np.linalg.norm(self.mixture))

    @property
    def best_norm(self) -> float:
        return float(np.linalg.norm(self.best_value))


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    norms = float(np.linalg.norm(a) * np.linalg.norm(b))
    return float(a @ b) / norms if norms > 0 else 0.0


def lookup(model: Model, sentence: Sentence, kind: Kind, layer: int, head: int) -> Lookup:
    """The look-up of the current query of ``head`` in ``layer`` (InputError for a missing layer or head)."""
    walk = head_attention(model, sentence, kind, layer, head)
    row = len(walk.query_tokens) - 1
    visible = np.flatnonzero(walk.mask[row])
    order = visible[np.argsort(-walk.scaled[row, visible], kind="stable")]
    keys, values = walk.keys.astype(np.float64), walk.values.astype(np.float64)
    weights = walk.weights[row].astype(np.float64)
    best = keys[order[0]]
    return Lookup(walk.query_tokens[row], [walk.key_tokens[i] for i in order], order,
                  walk.scaled[row, order].astype(np.float64), weights[order],
                  np.array([cosine(keys[i], best) for i in order]), weights @ values, values[order[0]])
