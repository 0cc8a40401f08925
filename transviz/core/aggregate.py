"""Summaries of many attention maps: mean or max over heads, and attention rollout.

Every function takes the arrays the core hands the views, ``(layers, heads, query_len, key_len)``
float32 with rows = queries, and returns float32 ``(layers, query_len, key_len)``.

Attention rollout (Abnar & Zuidema 2020, "Quantifying Attention Flow in Transformers") follows
information through the residual stream: each layer's head-averaged map A becomes
``0.5 * A + 0.5 * I`` (half the signal bypasses attention through the residual connection),
its rows are renormalised to sum to 1, and the layers are multiplied from the bottom up:
``R_0 = Â_0``, ``R_l = Â_l R_{l-1}``. It needs square maps (self-attention): cross-attention's
queries and keys live in different sequences, so it has no identity to add.
"""
from __future__ import annotations

import numpy as np

from .errors import InputError
from .messages import translate_noop

RESIDUAL_WEIGHT = 0.5  # Abnar & Zuidema's share of the identity (the residual connection)


def _check(maps: np.ndarray) -> np.ndarray:
    maps = np.asarray(maps)
    if maps.ndim != 4:
        raise InputError(
            translate_noop("CoreMessages", "attention maps must be (layers, heads, queries, keys), got shape {0}"),
            str(maps.shape))
    if 0 in maps.shape:
        raise InputError(translate_noop("CoreMessages", "attention maps are empty: shape {0}"), str(maps.shape))
    return maps


def mean_over_heads(maps: np.ndarray) -> np.ndarray:
    """``(L, H, Q, K)`` -> ``(L, Q, K)``: the average head of each layer (rows still sum to 1)."""
    return np.asarray(_check(maps).mean(axis=1, dtype=np.float64), dtype=np.float32)


def max_over_heads(maps: np.ndarray) -> np.ndarray:
    """``(L, H, Q, K)`` -> ``(L, Q, K)``: for each query and key, the strongest head's weight."""
    return np.asarray(_check(maps).max(axis=1), dtype=np.float32)


def rollout(maps: np.ndarray) -> np.ndarray:
    """``(L, H, T, T)`` -> ``(L, T, T)``: entry ``l`` is the rollout through layers ``0..l``.

    Row ``q`` of the last entry says how much of each input token reaches query ``q`` at the
    top of the stack, counting the residual paths. Raises InputError for non-square maps.
    """
    maps = _check(maps)
    if maps.shape[2] != maps.shape[3]:
        raise InputError(translate_noop("CoreMessages", "rollout needs self-attention maps (queries = keys); these are "
                                                        "{0} x {1}"), maps.shape[2], maps.shape[3])
    size = maps.shape[2]
    identity = np.eye(size)
    joint = identity
    out = np.empty((maps.shape[0], size, size), dtype=np.float32)
    for layer, heads in enumerate(maps.astype(np.float64)):
        a = (1 - RESIDUAL_WEIGHT) * heads.mean(axis=0) + RESIDUAL_WEIGHT * identity  # (T, T)
        a /= a.sum(axis=-1, keepdims=True)
        joint = a @ joint
        out[layer] = joint
    return out
