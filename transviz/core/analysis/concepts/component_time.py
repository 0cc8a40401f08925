"""Where the time of one forward pass goes, measured: the loaded model's own modules run piece by
piece in the order :meth:`Transformer.forward` runs them, each piece timed with a wall clock.

The pieces are the components of :mod:`.cost` plus ``other`` (LayerNorm, residual additions and
the masks, which multiply no matrices and so count no FLOPs but still take time). Attention runs
its explicit path (scores, softmax, weights x V as three products), the one the model takes when
it returns its weights: the fused path of ``scaled_dot_product_attention`` cannot be split.

Times are medians over repeats on one thread; they vary from run to run. What does not vary is
that the pieces compute the model's own logits (:func:`timed_forward`), so what was timed is the
real computation. At this tiny size each piece is a few microseconds of arithmetic and as many of
Python and dispatch overhead, so time is not where the FLOPs are.
"""
from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar, cast

import torch
from torch import Tensor

from ...model.bundle import Model, evaluating
from ...model.masks import decoder_self_mask, padding_mask, windowed
from ...model.transformer import DecoderLayer, EncoderLayer, MultiHeadAttention, Transformer, per_group
from .cost import COMPONENTS
from .forward import Inputs
from .timing import one_thread

PARTS = (*COMPONENTS, "other")  # "other": LayerNorm, residual additions, masks
REPEATS = 15  # passes timed; a shipped-model pass is a few milliseconds
WARM_UP = 2  # passes run first and not counted (first calls allocate)

T = TypeVar("T")


class Clock:
    """Adds the wall-clock seconds of each call it runs to the part it names."""

    def __init__(self) -> None:
        self.spent = dict.fromkeys(PARTS, 0.0)

    def __call__(self, part: str, fn: Callable[..., T], *args: Any) -> T:
        start = time.perf_counter()
        out = fn(*args)
        self.spent[part] += time.perf_counter() - start
        return out


@dataclass(frozen=True)
class ComponentTimes:
    """Median seconds of each part (:data:`PARTS`) over ``repeats`` piecewise passes, and the
    median of the model's own forward pass (with its attention maps, the same arithmetic)
    timed between them."""

    seconds: dict[str, float]
    whole: float
    source_len: int
    target_len: int
    repeats: int

    @property
    def total(self) -> float:
        """The parts' medians added up."""
        return sum(self.seconds.values())

    def share(self, part: str) -> float:
        return self.seconds[part] / self.total


def timed_forward(net: Transformer, src: Tensor, tgt: Tensor, clock: Clock) -> Tensor:
    """The logits of ``net(src, tgt)`` (B, T, V), computed piece by piece, each piece timed by
    ``clock``. Call in eval mode without autograd (dropout is skipped as eval mode skips it)."""
    pad, window = net.config.pad_id, net.config.attention_window
    memory_mask = clock("other", padding_mask, src, pad)
    source_mask = clock("other", windowed, memory_mask, src.shape[1], window)
    x = clock("embeddings", net._embed, src, net.src_embed, "encoder")
    for layer in net.encoder_layers:
        x = _encoder_layer(cast(EncoderLayer, layer), x, source_mask, clock)
    memory = clock("other", net.encoder_norm, x)
    self_mask = clock("other", windowed, clock("other", decoder_self_mask, tgt, pad), tgt.shape[1], window)
    y = clock("embeddings", net._embed, tgt, net.tgt_embed, "decoder")
    for layer in net.decoder_layers:
        y = _decoder_layer(cast(DecoderLayer, layer), y, memory, self_mask, memory_mask, clock)
    logits: Tensor = clock("output", net.generator, clock("other", net.decoder_norm, y))
    return logits


def _attend(attn: MultiHeadAttention, q: Tensor, kv: tuple[Tensor, Tensor], mask: Tensor, clock: Clock) -> Tensor:
    """:meth:`MultiHeadAttention.attend`'s explicit path, one timed piece per product; turning
    queries and keys by their positions (rotary) counts as "other", as it multiplies no matrices."""
    k, v = kv
    if attn.rotary is not None:
        q, k = clock("other", attn.rotary, q, 0), clock("other", attn.rotary, k, 0)
    scores = clock("scores", _scores, attn, q, k, mask)
    weights = clock("softmax", torch.softmax, scores, -1)
    out = clock("weights_v", per_group, weights, v)  # (B, H, Lq, d_k)
    return clock("out_proj", _merged, attn, out)


def _scores(attn: MultiHeadAttention, q: Tensor, k: Tensor, mask: Tensor) -> Tensor:
    scores = per_group(q, k.transpose(-2, -1)) * attn.scale  # (B, H, Lq, Lk)
    if attn.position_bias is not None:
        scores = scores + attn.position_bias(0, q.shape[2], k.shape[2])
    return scores.masked_fill(~mask, float("-inf"))


def _merged(attn: MultiHeadAttention, out: Tensor) -> Tensor:
    batch, _, length, _ = out.shape
    out = out.transpose(1, 2).reshape(batch, length, attn.d_model)  # (B, Lq, d)
    merged: Tensor = attn.out_proj(out)
    return merged


def _sublayer(x: Tensor, norm: torch.nn.Module, pre_norm: bool, clock: Clock,
              body: Callable[[Tensor], Tensor]) -> Tensor:
    """``x`` plus ``body`` of it, LayerNorm before (pre-LN) or after, as the model's layers do."""
    h = clock("other", norm, x) if pre_norm else x
    x = clock("other", torch.add, x, body(h))
    return x if pre_norm else clock("other", norm, x)


def _encoder_layer(layer: EncoderLayer, x: Tensor, mask: Tensor, clock: Clock) -> Tensor:
    attn = layer.self_attn

    def attention(h: Tensor) -> Tensor:
        q, k, v = clock("qkv", attn.project_qkv, h)
        return _attend(attn, q, (k, v), mask, clock)

    x = _sublayer(x, layer.norm1, layer.pre_norm, clock, attention)
    return _sublayer(x, layer.norm2, layer.pre_norm, clock, lambda h: clock("ffn", layer.ffn, h))


def _decoder_layer(layer: DecoderLayer, y: Tensor, memory: Tensor, self_mask: Tensor, memory_mask: Tensor,
                   clock: Clock) -> Tensor:
    own, cross = layer.self_attn, layer.cross_attn

    def self_attention(h: Tensor) -> Tensor:
        q, k, v = clock("qkv", own.project_qkv, h)
        return _attend(own, q, (k, v), self_mask, clock)

    def cross_attention(h: Tensor) -> Tensor:
        kv = clock("qkv", cross.project_kv, memory)  # the model projects the memory once per layer too
        return _attend(cross, clock("qkv", cross.project_q, h), kv, memory_mask, clock)

    y = _sublayer(y, layer.norm1, layer.pre_norm, clock, self_attention)
    y = _sublayer(y, layer.norm2, layer.pre_norm, clock, cross_attention)
    return _sublayer(y, layer.norm3, layer.pre_norm, clock, lambda h: clock("ffn", layer.ffn, h))


def component_times(model: Model, inputs: Inputs, repeats: int = REPEATS,
                    cancelled: Callable[[], bool] = lambda: False,
                    progress: Callable[[int, int], None] = lambda done, total: None) -> ComponentTimes | None:
    """Median seconds per part of one teacher-forced pass of ``inputs`` through ``model``, on
    one thread; the model's own pass is timed between the piecewise ones, so both see the same
    machine. ``progress(passes done, passes)`` after each; None if ``cancelled()`` turns true
    between passes."""
    with evaluating(model):
        return net_times(model.net, inputs.source_ids, inputs.target_ids, repeats, cancelled, progress)


def net_times(net: Transformer, src: Tensor, tgt: Tensor, repeats: int = REPEATS,
              cancelled: Callable[[], bool] = lambda: False,
              progress: Callable[[int, int], None] = lambda done, total: None) -> ComponentTimes | None:
    """:func:`component_times` of a bare network (one with no vocabularies: a freshly built one
    of the sizes a user sets). Call in eval mode without autograd."""
    parts: list[dict[str, float]] = []
    whole: list[float] = []
    with one_thread():
        for index in range(WARM_UP + repeats):
            if cancelled():
                return None
            clock = Clock()
            timed_forward(net, src, tgt, clock)
            start = time.perf_counter()
            net(src, tgt, return_attention=True)
            if index >= WARM_UP:
                whole.append(time.perf_counter() - start)
                parts.append(clock.spent)
            progress(index + 1, WARM_UP + repeats)
    medians = {part: statistics.median(spent[part] for spent in parts) for part in PARTS}
    return ComponentTimes(medians, statistics.median(whole), src.shape[1], tgt.shape[1], repeats)
