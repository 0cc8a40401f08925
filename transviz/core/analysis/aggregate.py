"""Summaries of many attention maps: mean or max over heads, and attention rollout.

Every function takes the arrays the core hands the views, ``(layers, heads, query_len, key_len)``
float32 with rows = queries, and returns float32 ``(layers, query_len, key_len)``.

Attention rollout (Abnar & Zuidema 2020, "Quantifying Attention Flow in Transformers") follows
information through the residual stream: each layer's head-averaged map A becomes
``0.5 * A + 0.5 * I`` (half the signal bypasses attention through the residual connection),
its rows are renormalised to sum to 1, and the layers are multiplied from the bottom up:
``R_0 = Â_0``, ``R_l = Â_l R_{l-1}``. It needs square maps (self-attention): cross-attention's
queries and keys live in different sequences, so it has no identity to add; :func:`cross_rollout`
follows the decoder instead, through its self-attention and its cross-attention into the encoder.
"""
from __future__ import annotations

from typing import Literal, get_args

import numpy as np

from ..base.errors import InputError
from ..base.messages import translate_noop

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


NOT_ONE_SENTENCE = translate_noop("CoreMessages", "decoder rollout needs maps of one sentence: decoder {0}, "
                                                   "cross {1}, encoder {2}")


def cross_rollout(decoder_self: np.ndarray, cross: np.ndarray, encoder_self: np.ndarray) -> np.ndarray:
    """Rollout through the decoder to the source tokens: ``(L, H, T, T)`` decoder self-attention,
    ``(L, H, T, S)`` cross-attention and ``(L_enc, H, S, S)`` encoder self-attention ->
    ``(L, T, S)``; entry ``l`` follows the decoder through layers ``0..l``.

    The state of decoder position ``t`` is tracked as a mixture of the decoder's input tokens
    (``D``, T x T) and of the source tokens (``X``, T x S); the encoder's output memory is the
    mixture ``R_enc`` = :func:`rollout` of the encoder, last layer. Starting from ``D = I``,
    ``X = 0``, each decoder layer applies

    * masked self-attention with its residual, as in :func:`rollout`: ``Â = norm(0.5 mean_h(A) + 0.5 I)``,
      ``D <- Â D``, ``X <- Â X``;
    * cross-attention with its residual: half the state stays, half is the head-averaged
      cross map ``C̄`` applied to the memory: ``D <- 0.5 D``, ``X <- 0.5 X + 0.5 C̄ R_enc``.

    Each row of ``[D X]`` sums to 1 throughout. Entry ``l`` is ``X`` after layer ``l`` with
    its rows renormalised to 1: of what reached query ``t`` from the source, the share of each
    source token. Raises InputError for maps whose shapes do not fit together.
    """
    decoder_self, cross, encoder_self = _check(decoder_self), _check(cross), _check(encoder_self)
    layers, _, targets, sources = cross.shape
    if decoder_self.shape[0] != layers or decoder_self.shape[2:] != (targets, targets) \
            or encoder_self.shape[2:] != (sources, sources):
        raise InputError(NOT_ONE_SENTENCE,
                         str(decoder_self.shape), str(cross.shape), str(encoder_self.shape))
    memory = rollout(encoder_self)[-1].astype(np.float64)  # (S, S): source tokens in each memory row
    identity = np.eye(targets)
    from_targets, from_source = identity, np.zeros((targets, sources))
    out = np.empty((layers, targets, sources), dtype=np.float32)
    for layer in range(layers):
        a = (1 - RESIDUAL_WEIGHT) * decoder_self[layer].astype(np.float64).mean(axis=0) \
            + RESIDUAL_WEIGHT * identity  # (T, T)
        a /= a.sum(axis=-1, keepdims=True)
        from_targets, from_source = a @ from_targets, a @ from_source
        mixed = cross[layer].astype(np.float64).mean(axis=0) @ memory  # (T, S)
        from_targets = RESIDUAL_WEIGHT * from_targets
        from_source = RESIDUAL_WEIGHT * from_source + (1 - RESIDUAL_WEIGHT) * mixed
        out[layer] = from_source / from_source.sum(axis=-1, keepdims=True)
    return out


def stream_rollout(encoder_self: np.ndarray, decoder_self: np.ndarray, cross: np.ndarray) -> np.ndarray:
    """A decoder-only model's rollout through its one stream (source, then output): the three views
    of each layer's one map, ``(L, H, S, S)``, ``(L, H, T, T)`` and ``(L, H, T, S)``, put back together
    (a source row sees no output) -> ``(L, S+T, S+T)``, each entry :func:`rollout` through layers 0..l."""
    encoder_self, decoder_self, cross = _check(encoder_self), _check(decoder_self), _check(cross)
    layers, heads, sources, _ = encoder_self.shape
    targets = decoder_self.shape[2]
    if decoder_self.shape[:2] != (layers, heads) or cross.shape != (layers, heads, targets, sources):
        raise InputError(NOT_ONE_SENTENCE,
                         str(decoder_self.shape), str(cross.shape), str(encoder_self.shape))
    stream = np.zeros((layers, heads, sources + targets, sources + targets))
    stream[:, :, :sources, :sources] = encoder_self
    stream[:, :, sources:, :sources] = cross
    stream[:, :, sources:, sources:] = decoder_self
    return rollout(stream)


def stream_part(rolled: np.ndarray, kind: str, sources: int) -> np.ndarray:
    """The ``kind`` view of a :func:`stream_rollout`, ``(L, Q, K)``: an output row's part renormalised
    to 1, as :func:`cross_rollout` does (of what reached the query from that side, each token's share)."""
    rows = slice(None, sources) if kind == "encoder_self" else slice(sources, None)
    columns = slice(sources, None) if kind == "decoder_self" else slice(None, sources)
    part = rolled[:, rows, columns].astype(np.float64)
    total = part.sum(axis=-1, keepdims=True)
    return (part / np.where(total > 0, total, 1.0)).astype(np.float32)


Summary = Literal["mean", "max", "rollout"]
SUMMARIES: tuple[Summary, ...] = get_args(Summary)


def summarise(summary: str, maps: np.ndarray, decoder_self: np.ndarray | None = None,
              encoder_self: np.ndarray | None = None) -> np.ndarray:
    """``(L, H, Q, K)`` -> ``(L, Q, K)``: the mean, max or rollout of each layer's heads. Give the
    sentence's decoder and encoder self-attention to roll cross-attention out through the decoder
    (:func:`cross_rollout`); self-attention rolls out on its own (:func:`rollout`)."""
    if summary == "rollout" and decoder_self is not None and encoder_self is not None:
        return cross_rollout(decoder_self, maps, encoder_self)
    return {"mean": mean_over_heads, "max": max_over_heads, "rollout": rollout}[summary](maps)


def summarise_view(summary: str, kind: str, encoder_self: np.ndarray, decoder_self: np.ndarray, cross: np.ndarray,
                   one_stream: bool = False) -> np.ndarray:
    """:func:`summarise` of the ``kind`` view of one sentence's maps; a decoder-only model's
    (``one_stream``) rollout follows its one stream (:func:`stream_rollout`)."""
    maps = {"encoder_self": encoder_self, "decoder_self": decoder_self, "cross": cross}[kind]
    if summary != "rollout":
        return summarise(summary, maps)
    if one_stream:
        return stream_part(stream_rollout(encoder_self, decoder_self, cross), kind, encoder_self.shape[2])
    if kind == "cross":
        return cross_rollout(decoder_self, cross, encoder_self)
    return rollout(maps)
