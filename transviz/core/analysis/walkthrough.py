"""The attention of one head, step by step, from a model's real weights.

The seed tutorial describes scaled dot-product attention as four steps; this module computes
each of them for one head of one attention layer, for every query of a sentence:

1. raw scores ``Q K^T``,
2. scaled by ``1 / sqrt(d_k)``,
3. masked: ``-inf`` where the query may not see the key (padding, or the future); a model with
   ALiBi positions adds its bias to the scaled scores first,
4. softmax over the keys, then the weighted sum of the values ``V``.

The queries, keys and values are the ones the model itself used: a teacher-forced forward pass
records what reaches the chosen attention layer, so the walkthrough cannot drift from the model.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from ..base.errors import InputError
from ..base.messages import translate_noop
from ..model.bundle import Model, evaluating
from ..model.sites import KINDS as KINDS
from ..model.sites import Address, Call, Positions, Site, Tap, tapping
from ..model.sites import Kind as Kind
from ..model.transformer import MultiHeadAttention
from ..model.vocab import Vocab

# q, k, v (B, H, L, d_k), the mask, and each row's positions where they are not 0.. (a decoder-only model's output)
_Call = tuple[Tensor, Tensor, Tensor, Tensor | None, Positions | None]


@dataclass(frozen=True)
class Walkthrough:
    """Every intermediate value of one head's attention. Rows are queries, columns keys.

    Shape:
        ``queries`` (Q, d_k), ``keys`` and ``values`` (K, d_k); ``scores``, ``scaled``, ``mask``,
        ``masked`` and ``weights`` (Q, K); ``output`` (Q, d_k). Arrays are float32 numpy
        (``mask`` is bool, ``True`` = may attend).
    """

    kind: Kind
    layer: int
    head: int
    query_tokens: list[str]
    key_tokens: list[str]
    d_k: int
    queries: np.ndarray
    keys: np.ndarray
    values: np.ndarray
    scores: np.ndarray  # step 1: Q K^T
    scaled: np.ndarray  # step 2: / sqrt(d_k)
    mask: np.ndarray
    masked: np.ndarray  # step 3: -inf where the mask blocks
    weights: np.ndarray  # step 4: softmax over keys, each row sums to 1
    output: np.ndarray  # step 4: weights @ V, this head's slice of the attention output
    position_bias: np.ndarray | None = None  # ALiBi's -slope x distance, added before the mask; None: no bias


@contextmanager
def _recording(model: Model, kind: Kind, layer: int) -> Iterator[list[_Call]]:
    """The queries, keys, values and mask of every pass through one attention module during the
    block, made by this thread (a tap: another thread running the model meanwhile goes unrecorded)."""
    calls: list[_Call] = []

    def record(values: Tensor, call: Call) -> None:
        calls.append((call.seen[Site.QUERIES], call.seen[Site.KEYS], values, call.mask, call.positions))

    with tapping(model.net, [Tap(Address(kind, layer, Site.VALUES), record)]):
        yield calls


def attention_module(model: Model, kind: Kind, layer: int) -> MultiHeadAttention:
    """The attention module of ``kind`` in ``layer`` (InputError for a kind or layer the model lacks)."""
    if kind not in KINDS:
        raise InputError(translate_noop("CoreMessages", "unknown attention kind {0}; choose one of {1}"), repr(kind),
                         ", ".join(KINDS))
    layers = model.config.layer_count(kind)
    if not 0 <= layer < layers:
        raise InputError(translate_noop("CoreMessages", "layer {0} does not exist: this model's {1} stack has layers "
                                                        "0..{2}"), layer, kind, layers - 1)
    return model.net.attention_modules()[kind, layer]


def decoder_inputs(vocab: Vocab, target_prefix: str, max_len: int | None = None,
                   start: str | None = None) -> tuple[list[str], list[int]]:
    """Tokens (as typed) and ids of the decoder inputs: the start token (named ``start``, the
    sentence's own: :meth:`Model.start_token`), then the prefix (may be empty). InputError if there
    are more than ``max_len`` (the model's limit; None: no limit)."""
    prefix = vocab.encode(target_prefix) if target_prefix.strip() else None
    tokens = [start or vocab.start_token] + (prefix.tokens if prefix else [])  # named as the model names it
    ids = [vocab.bos_id] + (prefix.ids if prefix else [])
    if max_len is not None and len(ids) > max_len:
        raise InputError(
            translate_noop("CoreMessages", "the target has {0} tokens; this model reads at most {1}"),
            len(ids), max_len)
    return tokens, ids


def walkthrough(model: Model, source: str, target_prefix: str, kind: Kind, layer: int, head: int) -> Walkthrough:
    """Compute the four attention steps of ``head`` in ``layer`` for a source sentence and a
    target prefix (the decoder inputs after the start token; may be empty).

    Args:
        kind: ``"encoder_self"`` (queries and keys: source tokens), ``"decoder_self"``
            (both: target tokens) or ``"cross"`` (queries: target tokens, keys: source tokens).
            In a decoder-only model both of the last show the output's rows over its one stream:
            the source's keys, then the output's (their one softmax).

    Raises InputError for an empty or too long sentence, or a layer or head the model lacks.
    """
    attention = attention_module(model, kind, layer)
    if not 0 <= head < attention.n_heads:
        raise InputError(translate_noop("CoreMessages", "head {0} does not exist: this model has heads 0..{1}"), head,
                         attention.n_heads - 1)
    encoding = model.encode_source(source)
    target_tokens, target_ids = decoder_inputs(model.tgt_vocab, target_prefix, model.config.max_len,
                                               model.start_token(encoding))
    stream = model.config.decoder_only and kind != "encoder_self"
    with evaluating(model), torch.no_grad(), _recording(model, "decoder_self" if stream else kind, layer) as calls:
        model.net(model.source_tensor(encoding), torch.tensor([target_ids], device=model.device))
        return _steps(attention, source_tokens=encoding.tokens, target_tokens=target_tokens, stream=stream,
                      kind=kind, layer=layer, head=head, call=calls[0])


def _steps(attention: MultiHeadAttention, source_tokens: list[str], target_tokens: list[str], stream: bool,
           kind: Kind, layer: int, head: int, call: _Call) -> Walkthrough:
    """The walkthrough's steps in ``attention``, from the queries, keys, values and mask one pass recorded."""
    q, k, v = (t[0, head].float() for t in call[:3])  # (L, d_k)
    mask, positions = call[3:]  # mask (1, 1, 1 or Q, K): the same for every head
    scores = q @ k.T  # (Q, K)
    scaled = scores * attention.scale  # 1/sqrt(d_k), or 1 for a model that leaves scores unscaled (T5)
    bias, position_bias = None, attention.position_bias
    if position_bias is not None:
        bias = position_bias(0, *scores.shape)[head] if positions is None else \
            position_bias.between(positions.queries, positions.keys)[0, head]
    visible = torch.ones_like(scores, dtype=torch.bool) if mask is None else mask[0, 0].expand_as(scores)
    masked = (scaled if bias is None else scaled + bias).masked_fill(~visible, float("-inf"))
    weights = torch.softmax(masked, dim=-1)
    query_tokens = source_tokens if kind == "encoder_self" else target_tokens
    key_tokens = target_tokens if kind == "decoder_self" else source_tokens
    if stream:
        key_tokens = source_tokens + target_tokens
    arrays = [t.cpu().numpy() for t in (q, k, v, scores, scaled, visible, masked, weights, weights @ v)]
    return dataclasses.replace(
        Walkthrough(kind, layer, head, list(query_tokens), list(key_tokens), attention.d_k, *arrays),
        position_bias=None if bias is None else bias.cpu().numpy())
