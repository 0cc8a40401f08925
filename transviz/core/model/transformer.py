"""The encoder-decoder Transformer of "Attention Is All You Need", read top-down:
attention -> feed-forward -> encoder layer -> decoder layer -> model.

It shows its work: every attention call can return its weights, per head, as a typed value
(never a stale attribute). Without weights (training) attention runs through
``F.scaled_dot_product_attention``; with weights an explicit path computes
``softmax(Q K^T / sqrt(d_k) + mask) V``. Both give the same output.

Shapes: B batch, S source length, T target length, H heads, d model width, d_k = d / H.
Masks follow :mod:`transviz.core.model.masks` (boolean, ``True`` = may attend).

The values on the way through attention, and each stack's positional term, are named sites
(:mod:`transviz.core.model.sites`): code outside the model sees and changes them only through taps.
Without taps they cost nothing and attention runs as written here.

Every product with a weight is ``nn.Linear`` / ``F.linear``; step-through decoding switches on a
CPU fast path for one-row products (:meth:`Transformer.use_row_blocks`, :mod:`.row_blocks`).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TypeVar, cast

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from ..base.cores import computing
from ..base.errors import InputError
from ..base.messages import Message, translate_noop
from .config import ModelConfig
from .kv_cache import Growing, KeyValue, KVBuffer
from .masks import (
    decoder_self_mask,
    output_rows_mask,
    padding_mask,
    source_rows_mask,
    stream_positions,
    window_mask,
    windowed,
)
from .positional import ROTARY_BASE, alibi_slopes, relative_bucket, rotary_angles, sine_table
from .row_blocks import Linear, linear
from .sites import KINDS, STACKS, Kind, Place, Positions, Site, Sites, Stack, untapped
from .vocab import Vocab

Found = TypeVar("Found")  # what an attention call hands back besides its output
START_ID = Vocab.bos_id  # the decoder's start token in every vocabulary


class Rotary(nn.Module):
    """RoPE: turns a head's queries or keys by angles that grow with their position, so that a score
    depends on the distance between query and key (:func:`.positional.rotary_angles`). One table of
    cosines and sines for every position the model reads, shared by its self-attention modules, laid
    out over the pairs (i, i + d_k/2) so that turning takes three operations."""

    cos: Tensor  # (max_len, d_k): cos of pair i's angle in columns i and i + d_k/2
    sin: Tensor  # (max_len, d_k): -sin in column i, sin in column i + d_k/2

    def __init__(self, max_len: int, d_k: int, base: float = ROTARY_BASE) -> None:
        super().__init__()
        angles = rotary_angles(max_len, d_k, base=base)
        self.register_buffer("cos", angles.cos().repeat(1, 2).float(), persistent=False)
        self.register_buffer("sin", torch.cat([-angles.sin(), angles.sin()], dim=-1).float(), persistent=False)

    def forward(self, x: Tensor, first: int | Tensor, back: bool = False) -> Tensor:
        """``x`` (B, heads, L, d_k) at positions ``first``.. turned (``back``: turned back); ``first``
        may instead be every row's positions, (B or 1, L)."""
        if isinstance(first, Tensor):
            cos, sin = self.cos[first][:, None], self.sin[first][:, None]  # (B, 1, L, d_k)
        else:
            rows = slice(first, first + x.shape[-2])
            cos, sin = self.cos[rows], self.sin[rows]
        first_half, second_half = x.chunk(2, dim=-1)
        swapped = torch.cat([second_half, first_half], dim=-1)  # (x_{i+d_k/2}, x_i) beside (x_i, x_{i+d_k/2})
        return torch.addcmul(x * cos, swapped, -sin if back else sin)


class ALiBi(nn.Module):
    """ALiBi: each head adds -slope x |query position - key position| to its scaled scores, so that
    far keys weigh less, by a slope of its own (:func:`.positional.alibi_slopes`)."""

    slopes: Tensor  # (H,)

    def __init__(self, heads: int) -> None:
        super().__init__()
        self.register_buffer("slopes", alibi_slopes(heads).float(), persistent=False)
        # the last bias made: every layer of a pass asks for the same one
        self._last: tuple[tuple[object, ...], Tensor] | None = None

    def forward(self, first: int, queries: int, keys: int) -> Tensor:
        """The bias of queries at positions ``first``.. over keys at 0.., (H, queries, keys)."""
        slopes = self.slopes
        wanted = (first, queries, keys, slopes.device, slopes.dtype)
        last = self._last
        if last is not None and last[0] == wanted:
            return last[1]
        distance = (torch.arange(first, first + queries, device=slopes.device)[:, None]
                    - torch.arange(keys, device=slopes.device)[None, :]).abs()
        bias = -slopes[:, None, None] * distance
        self._last = wanted, bias
        return bias

    def between(self, queries: Tensor, keys: Tensor) -> Tensor:
        """The bias of queries at positions ``queries`` (B, Lq) over keys at ``keys`` (B, Lk): (B, H, Lq, Lk)."""
        distance = (queries[:, :, None] - keys[:, None, :]).abs()  # (B, Lq, Lk)
        return -self.slopes[None, :, None, None] * distance[:, None]


class RelativeBuckets(nn.Module):
    """T5's relative positions: each head adds a learned bias to its scores, one per bucket of the
    offset between key and query (:func:`.positional.relative_bucket`); one table per stack, shared
    by its layers. The encoder's buckets tell keys before the query from keys after it; the
    decoder's see only keys before."""

    def __init__(self, heads: int, buckets: int, max_distance: int, bidirectional: bool) -> None:
        super().__init__()
        self.buckets, self.max_distance, self.bidirectional = buckets, max_distance, bidirectional
        self.table = nn.Embedding(buckets, heads)  # (buckets, H): each bucket's bias, per head

    def forward(self, first: int, queries: int, keys: int) -> Tensor:
        """The bias of queries at positions ``first``.. over keys at 0.., (H, queries, keys)."""
        device = self.table.weight.device
        queried = torch.arange(first, first + queries, device=device)
        relative = torch.arange(keys, device=device)[None, :] - queried[:, None]  # (Lq, Lk): key - query
        bucket = relative_bucket(relative, self.bidirectional, self.buckets, self.max_distance)  # (Lq, Lk)
        out: Tensor = self.table(bucket).permute(2, 0, 1)
        return out

    def between(self, queries: Tensor, keys: Tensor) -> Tensor:
        """The bias of queries at positions ``queries`` (B, Lq) over keys at ``keys`` (B, Lk): (B, H, Lq, Lk)."""
        bucket = relative_bucket(keys[:, None, :] - queries[:, :, None], self.bidirectional, self.buckets,
                                 self.max_distance)
        out: Tensor = self.table(bucket).permute(0, 3, 1, 2)
        return out


def per_group(a: Tensor, b: Tensor) -> Tensor:
    """``a @ b`` where ``a`` has a head dimension (1) of H query heads and ``b`` of H or of fewer
    shared heads, each serving H / those consecutive query heads: grouped-query attention's
    products, without copying ``b`` for every query head."""
    batch, heads, rows, _ = a.shape
    shared = b.shape[1]
    if heads == shared:
        return torch.matmul(a, b)
    # a group's query heads are consecutive: their rows stacked make one product with their shared head
    stacked = torch.matmul(a.reshape(batch, shared, heads // shared * rows, -1), b)
    return stacked.view(batch, heads, rows, -1)


class MultiHeadAttention(nn.Module):
    """Multi-head scaled dot-product attention, with keys and values shared between query heads
    when ``n_kv_heads`` is below ``n_heads`` (grouped-query; multi-query with one).

    Parameters are laid out like ``torch.nn.MultiheadAttention`` (one packed ``in_proj`` for
    Q, K and V, then ``out_proj``) so that self-attention projects with a single matmul. Each
    value on the way is a named site (:class:`~transviz.core.model.sites.Site`) that taps can see.
    Keys and values are projected (and cached) once per key/value head; the sites, the maps and the
    walkthrough see them repeated for each query head, so there is still one map per query head.
    """

    row_blocks = False  # one-row projections in row blocks (Transformer.use_row_blocks)
    in_proj_bias: nn.Parameter | None  # None without biases (ModelConfig.bias)
    # positions inside attention, set on self-attention modules by the Transformer (ModelConfig.positional):
    # queries and keys turned, or a bias added to the scaled scores (ALiBi's, or T5's learned one)
    rotary: Rotary | None
    position_bias: ALiBi | RelativeBuckets | None
    scale: float  # what Q K^T is multiplied by: 1/sqrt(d_k), or 1 (ModelConfig.scale_scores)

    def __init__(self, d_model: int, n_heads: int, dropout: float, bias: bool = True, n_kv_heads: int = 0) -> None:
        super().__init__()
        self.d_model, self.n_heads, self.d_k = d_model, n_heads, d_model // n_heads
        self.n_kv_heads = n_kv_heads or n_heads
        self.kv_width = self.n_kv_heads * self.d_k  # rows of W_K, and of W_V
        self.dropout = dropout
        rows = d_model + 2 * self.kv_width
        self.in_proj_weight = nn.Parameter(torch.empty(rows, d_model))  # rows: W_Q | W_K | W_V
        self.register_parameter("in_proj_bias", nn.Parameter(torch.zeros(rows)) if bias else None)
        self.out_proj = Linear(d_model, d_model, bias=bias)
        nn.init.xavier_uniform_(self.in_proj_weight)
        if self.out_proj.bias is not None:
            nn.init.zeros_(self.out_proj.bias)
        self.sites = Sites()  # the taps on this module's sites, per thread (transviz.core.model.sites)
        self.rotary = None
        self.set_position_bias(None)
        self.scale = self.d_k ** -0.5

    def set_position_bias(self, bias: ALiBi | RelativeBuckets | None) -> None:
        """Add ``bias``'s (H, Lq, Lk) to the scaled scores from now on. It is shared, not a submodule
        of this one: its owner (the Transformer) keeps one state-dict name for a learned table."""
        self.__dict__["position_bias"] = bias

    def split_heads(self, x: Tensor) -> Tensor:
        """``x`` (B, L, heads x d_k) as each head's slice of the width: (B, heads, L, d_k)."""
        batch, length, width = x.shape
        return x.view(batch, length, width // self.d_k, self.d_k).transpose(1, 2)

    def in_projection(self, x: Tensor, rows: slice) -> Tensor:
        """``x W^T + b`` with ``rows`` of the packed weight (see :meth:`rows`)."""
        product = linear if self.row_blocks else F.linear
        bias = None if self.in_proj_bias is None else self.in_proj_bias[rows]
        return product(x, self.in_proj_weight[rows], bias)

    def rows(self, part: str, head: int | None = None) -> slice:
        """Rows of the packed projection for ``part`` ("q", "k" or "v"): all of them, or those of
        query ``head`` (for keys and values, the key/value head it reads)."""
        d, kv = self.d_model, self.kv_width
        start, width = {"q": (0, d), "k": (d, kv), "v": (d + kv, kv)}[part]
        if head is None:
            return slice(start, start + width)
        if part != "q":
            head //= self.n_heads // self.n_kv_heads
        return slice(start + head * self.d_k, start + (head + 1) * self.d_k)

    def project_qkv(self, x: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """Self-attention projections of ``x`` (B, L, d), one matmul for all three."""
        self.sites.record(Site.QUERY_INPUT, x)
        self.sites.record(Site.KEY_INPUT, x)
        q, k, v = self.in_projection(x, slice(None)).split((self.d_model, self.kv_width, self.kv_width), dim=-1)
        return self.split_heads(q), self.split_heads(k), self.split_heads(v)

    def project_q(self, x: Tensor) -> Tensor:
        self.sites.record(Site.QUERY_INPUT, x)
        return self.split_heads(self.in_projection(x, self.rows("q")))

    def project_kv(self, x: Tensor) -> KeyValue:
        """Keys and values of ``x`` (B, L, d), (B, n_kv_heads, L, d_k) each; cross-attention computes
        these once per sentence."""
        self.sites.record(Site.KEY_INPUT, x)
        k, v = self.in_projection(x, slice(self.d_model, None)).chunk(2, dim=-1)
        return self.split_heads(k), self.split_heads(v)

    def per_query_head(self, x: Tensor) -> Tensor:
        """Keys or values ``x`` (B, n_kv_heads, L, d_k) repeated for the query heads that share
        them: (B, n_heads, L, d_k), query head h reading key/value head h // (n_heads / n_kv_heads)."""
        group = self.n_heads // self.n_kv_heads
        return x if group == 1 else x.repeat_interleave(group, dim=1)

    def attend(
        self, q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None, need_weights: bool, first_query: int = 0,
        positions: Positions | None = None, sites: Sites | None = None,
    ) -> tuple[Tensor, Tensor | None]:
        """``q`` (B, H, Lq, d_k), ``k``/``v`` (B, n_kv_heads, Lk, d_k) -> output (B, Lq, d), weights
        (B, H, Lq, Lk). ``first_query`` is the index of the first query among its pass's (a tap may
        need it); queries stand at positions ``first_query``.. and keys at 0.., unless ``positions``
        gives each row's (a decoder-only model's target, after its source). ``sites``: the taps of
        this pass (a decoder-only model's source has its own)."""
        dropout = self.dropout if self.training else 0.0
        if self.rotary is not None:  # self-attention: every key turned by its position, cached ones included
            q, k = (self.rotary(q, first_query), self.rotary(k, 0)) if positions is None else \
                (self.rotary(q, positions.queries), self.rotary(k, positions.keys))
        bias = None
        if self.position_bias is not None:  # (H or B x H, Lq, Lk)
            bias = self.position_bias(first_query, q.shape[2], k.shape[2]) if positions is None else \
                self.position_bias.between(positions.queries, positions.keys)
        tapped = (sites or self.sites).call(first_query, mask, positions=positions)  # this thread's taps, if any
        at = tapped or untapped
        weights = None
        if tapped is not None:  # taps see (and may change) the keys and values of each query head
            k, v = self.per_query_head(k), self.per_query_head(v)
            tapped.seen.update({Site.QUERIES: q, Site.KEYS: k, Site.VALUES: v})
        elif not need_weights:
            scores_added = bias if mask is None or bias is None else bias.masked_fill(~mask, float("-inf"))
            out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask if bias is None else scores_added,
                                                 dropout_p=dropout, scale=self.scale,
                                                 enable_gqa=self.n_kv_heads != self.n_heads)
        if tapped is not None or need_weights:
            q, k, v = at(Site.QUERIES, q), at(Site.KEYS, k), at(Site.VALUES, v)
            scores = at(Site.SCORES, per_group(q, k.transpose(-2, -1)))  # (B, H, Lq, Lk)
            scores = at(Site.SCALED, scores * self.scale)
            if bias is not None:
                scores = at(Site.BIASED, scores + bias)
            if mask is not None:
                scores = scores.masked_fill(~mask, float("-inf"))
            weights = at(Site.WEIGHTS, torch.softmax(at(Site.MASKED, scores), dim=-1))
            out = at(Site.HEAD_OUTPUT, per_group(F.dropout(weights, dropout, self.training), v))  # (B, H, Lq, d_k)
        batch, _, length, _ = out.shape
        mixed = at(Site.MIXED, out.transpose(1, 2).reshape(batch, length, self.d_model))  # (B, Lq, d)
        return self.out_proj(mixed), weights if need_weights else None


def _gelu_tanh(x: Tensor) -> Tensor:
    return F.gelu(x, approximate="tanh")


class FeedForward(nn.Module):
    """Position-wise FFN: d_model -> d_ff -> d_model (the seed's two 1x1 convolutions); gated (a GLU,
    as T5 v1.1 and Llama), the activated product is multiplied by a second, linear one."""

    linear3: Linear | None

    def __init__(self, d_model: int, d_ff: int, dropout: float, activation: str, bias: bool = True,
                 gated: bool = False) -> None:
        super().__init__()
        self.linear1 = Linear(d_model, d_ff, bias=bias)
        self.linear2 = Linear(d_ff, d_model, bias=bias)
        self.linear3 = Linear(d_model, d_ff, bias=bias) if gated else None
        self.dropout = nn.Dropout(dropout)
        functions: dict[str, Callable[[Tensor], Tensor]] = {"gelu": F.gelu, "silu": F.silu, "relu": F.relu,
                                                            "gelu-tanh": _gelu_tanh}
        self.activation = functions[activation]

    def forward(self, x: Tensor) -> Tensor:
        hidden = self.activation(self.linear1(x))
        if self.linear3 is not None:
            hidden = hidden * self.linear3(x)
        out: Tensor = self.linear2(self.dropout(hidden))
        return out


class StdLayerNorm(nn.Module):
    """The Annotated Transformer's LayerNorm: ``weight * (x - mean) / (std + eps) + bias`` with the
    unbiased standard deviation. It is no ``nn.LayerNorm`` with other weights: that one divides by
    sqrt(biased variance + eps), and the two differ wherever eps is not negligible against the std.
    The operations run in the Annotated Transformer's order, so that its models compute the same numbers."""

    bias: nn.Parameter | None

    def __init__(self, d_model: int, eps: float, bias: bool = True) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))
        self.register_parameter("bias", nn.Parameter(torch.zeros(d_model)) if bias else None)

    def forward(self, x: Tensor) -> Tensor:
        mean, std = x.mean(-1, keepdim=True), x.std(-1, keepdim=True)  # (..., 1): std with Bessel's correction
        out: Tensor = self.weight * (x - mean) / (std + self.eps)
        return out if self.bias is None else out + self.bias


def layer_norm(config: ModelConfig) -> nn.Module:
    """One LayerNorm of the kind ``config.layer_norm`` names, with a bias when ``config.bias`` (never
    for RMSNorm, which has none)."""
    d, eps = config.d_model, config.layer_norm_eps
    if config.layer_norm == "unbiased-std":
        return StdLayerNorm(d, eps, bias=config.bias)
    if config.layer_norm == "rms":
        return nn.RMSNorm(d, eps=eps)
    return nn.LayerNorm(d, eps=eps, bias=config.bias)


class EncoderLayer(nn.Module):
    """Self-attention then FFN, each wrapped in residual + LayerNorm (after, or before with pre-LN)."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        d, bias = config.d_model, config.bias
        self.pre_norm = config.norm == "pre"
        self.self_attn = MultiHeadAttention(d, config.n_heads, config.dropout, bias, config.kv_heads)
        self.ffn = FeedForward(d, config.d_ff, config.dropout, config.activation, bias, config.gated_ffn)
        self.norm1, self.norm2 = layer_norm(config), layer_norm(config)
        self.dropout1, self.dropout2 = nn.Dropout(config.dropout), nn.Dropout(config.dropout)

    def forward(self, x: Tensor, mask: Tensor | None, need_weights: bool = False) -> tuple[Tensor, Tensor | None]:
        return self.around_attention(x, lambda h: self.self_attn.attend(*self.self_attn.project_qkv(h), mask,
                                                                        need_weights))

    def around_attention(self, x: Tensor, attention: Callable[[Tensor], tuple[Tensor, Found]]) -> tuple[Tensor, Found]:
        """``x`` through ``attention`` (of the normed or plain input: its output, and what else it
        found) and the FFN, each in its residual and LayerNorm; the output, and what attention found."""
        h = self.norm1(x) if self.pre_norm else x
        attn, found = attention(h)
        x = x + self.dropout1(attn)
        if not self.pre_norm:
            x = self.norm1(x)
        h = self.norm2(x) if self.pre_norm else x
        x = x + self.dropout2(self.ffn(h))
        if not self.pre_norm:
            x = self.norm2(x)
        return x, found


class StreamLayer(EncoderLayer):
    """A decoder-only layer: self-attention over the stream so far, then FFN. The source passes
    through it once (:meth:`prefix`), leaving its keys and values; the target's positions attend to
    those and to their own with one softmax (:meth:`target`), so a target row's weights over source
    and target keys sum to 1 together."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__(config)
        self.prefix_sites = Sites()  # taps on the source's pass (its "encoder_self" view)

    def prefix(self, x: Tensor, mask: Tensor, need_weights: bool) -> tuple[Tensor, Tensor | None, KeyValue]:
        """The source ``x`` (B, S, d) -> its output, weights (B, H, S, S) and keys and values."""
        def attention(h: Tensor) -> tuple[Tensor, tuple[Tensor | None, KeyValue]]:
            q, k, v = self.self_attn.project_qkv(h)
            out, weights = self.self_attn.attend(q, k, v, mask, need_weights, sites=self.prefix_sites)
            return out, (weights, (k, v))

        x, (weights, kv) = self.around_attention(x, attention)
        return x, weights, kv

    def target(self, x: Tensor, source_kv: KeyValue, mask: Tensor | None, positions: Positions, need_weights: bool,
               growing: Growing | None = None) -> DecoderLayerOutput:
        """The target ``x`` (B, T, d) after the source's keys and values (B, n_kv_heads, S, d_k); the
        weights come split at the source's end: over the target keys, and over the source's."""
        def attention(h: Tensor) -> tuple[Tensor, tuple[Tensor | None, KeyValue]]:
            q, k, v = self.self_attn.project_qkv(h)
            if growing is not None:
                k, v = growing.grow(k, v)
            # (B, n_kv_heads, S + t, d_k): the source's keys, then the target's
            keys, values = torch.cat([source_kv[0], k], dim=2), torch.cat([source_kv[1], v], dim=2)
            out, weights = self.self_attn.attend(q, keys, values, mask, need_weights, k.shape[2] - q.shape[2],
                                                 positions)
            return out, (weights, (k, v))

        x, (weights, kv) = self.around_attention(x, attention)
        source = source_kv[0].shape[2]
        if weights is None:
            return DecoderLayerOutput(x, kv, None, None)
        return DecoderLayerOutput(x, kv, weights[..., source:], weights[..., :source])


@dataclass(frozen=True)
class DecoderLayerOutput:
    x: Tensor  # (B, T, d)
    self_kv: KeyValue  # all self-attention keys/values so far: the cache for the next step
    self_weights: Tensor | None  # (B, H, T, T_total)
    cross_weights: Tensor | None  # (B, H, T, S)


class DecoderLayer(nn.Module):
    """Masked self-attention, cross-attention over the encoder output, FFN."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        d, bias = config.d_model, config.bias
        self.pre_norm = config.norm == "pre"
        self.self_attn = MultiHeadAttention(d, config.n_heads, config.dropout, bias, config.kv_heads)
        self.cross_attn = MultiHeadAttention(d, config.n_heads, config.dropout, bias, config.kv_heads)
        self.ffn = FeedForward(d, config.d_ff, config.dropout, config.activation, bias, config.gated_ffn)
        self.norm1, self.norm2, self.norm3 = (layer_norm(config) for _ in range(3))
        self.dropout1, self.dropout2, self.dropout3 = (nn.Dropout(config.dropout) for _ in range(3))

    def forward(
        self,
        x: Tensor,
        memory_kv: KeyValue,
        self_mask: Tensor | None,
        memory_mask: Tensor | None,
        need_weights: bool = False,
        growing: Growing | None = None,
    ) -> DecoderLayerOutput:
        """With ``growing`` (incremental decoding) the new keys/values join the cached ones of
        earlier positions; then ``self_mask`` may be ``None``, since new queries come last and may
        see every cached key."""
        h = self.norm1(x) if self.pre_norm else x
        q, k, v = self.self_attn.project_qkv(h)
        if growing is not None:
            k, v = growing.grow(k, v)  # (B, n_kv_heads, t, d_k)
        first = k.shape[2] - q.shape[2]  # the new queries come last
        attn, self_weights = self.self_attn.attend(q, k, v, self_mask, need_weights, first)
        x = x + self.dropout1(attn)
        if not self.pre_norm:
            x = self.norm1(x)

        h = self.norm2(x) if self.pre_norm else x
        query = self.cross_attn.project_q(h)
        attn, cross_weights = self.cross_attn.attend(query, *memory_kv, memory_mask, need_weights, first)
        x = x + self.dropout2(attn)
        if not self.pre_norm:
            x = self.norm2(x)

        h = self.norm3(x) if self.pre_norm else x
        x = x + self.dropout3(self.ffn(h))
        if not self.pre_norm:
            x = self.norm3(x)
        return DecoderLayerOutput(x, (k, v), self_weights, cross_weights)


@dataclass(frozen=True)
class Encoded:
    """What the encoder hands the decoder."""

    memory: Tensor  # (B, S, d)
    mask: Tensor  # (B, 1, 1, S) padding mask of the source keys
    attention: tuple[Tensor, ...] | None  # per layer (B, H, S, S), when asked for
    # decoder-only: each layer's keys and values of the source, what the target attends to besides itself
    source_kv: tuple[KeyValue, ...] | None = None
    # ModelConfig.start_from_prompt: each sentence's first decoder input (B,), its prompt's last token
    first: Tensor | None = None


@dataclass(frozen=True)
class Decoded:
    logits: Tensor  # (B, T, V_tgt)
    self_attention: tuple[Tensor, ...] | None  # per layer (B, H, T, T)
    cross_attention: tuple[Tensor, ...] | None  # per layer (B, H, T, S)


@dataclass(frozen=True)
class AttentionMaps:
    """Every attention map of one forward pass, per layer, each ``(batch, heads, query_len, key_len)``."""

    encoder_self: tuple[Tensor, ...]
    decoder_self: tuple[Tensor, ...]
    cross: tuple[Tensor, ...]


@dataclass(frozen=True)
class ForwardOutput:
    logits: Tensor  # (B, T, V_tgt)
    attention: AttentionMaps | None


@dataclass(frozen=True)
class DecoderState:
    """Immutable key/value cache of incremental decoding: a step returns a new state, so going
    back one step is keeping the previous one."""

    memory_kv: tuple[KeyValue, ...]  # per layer, computed once from the encoder output
    memory_mask: Tensor  # (B, 1, 1, S)
    self_kv: tuple[KeyValue, ...] | None  # per layer (B, n_kv_heads, t, d_k); None before the first step
    length: int  # tokens fed so far = position of the next one
    # where self_kv sits, with room for the next columns (kv_cache); a stale one is never written to
    buffers: tuple[KVBuffer | None, ...] | None = None
    first: Tensor | None = None  # (B,): what the start token stands for (Encoded.first)


@dataclass(frozen=True)
class StepOutput:
    logits: Tensor  # (B, V_tgt) for the next token
    state: DecoderState
    self_attention: tuple[Tensor, ...] | None  # per layer (B, H, 1, t): the new query row
    cross_attention: tuple[Tensor, ...] | None  # per layer (B, H, 1, S)


def split_prompt(src: Tensor, mask: Tensor, pad_id: int) -> tuple[Tensor, Tensor, Tensor]:
    """A prompt ``src`` (B, P) with its padding ``mask`` (B, 1, 1, P) as a source and a first decoder
    input (ModelConfig.start_from_prompt): each row less its last real token, (B, P - 1), that mask,
    and those tokens, (B,). The tokens keep their positions: the first input stands where the prompt
    put it, right after the source. InputError for a prompt of one token (nothing is left to read)."""
    lengths = mask.view(mask.shape[0], -1).sum(dim=-1)  # (B,)
    if int(lengths.min()) < 2:
        raise InputError(translate_noop("CoreMessages", "this model continues a prompt: give it at least two tokens "
                                                        "(its last one is the first input of the output)"))
    last = (lengths - 1)[:, None]  # (B, 1)
    first = src.gather(1, last).view(-1)
    columns = torch.arange(src.shape[1], device=src.device)[None, :]
    source = src.masked_fill(columns == last, pad_id)[:, : int(lengths.max()) - 1]
    return source, padding_mask(source, pad_id), first


def started(tokens: Tensor, first: Tensor | None) -> Tensor:
    """Decoder inputs ``tokens`` (B, T) whose start token at position 0 becomes ``first`` (B,), each
    sentence's own (ModelConfig.start_from_prompt); as they are without one."""
    if first is None:
        return tokens
    column = torch.where(tokens[:, 0] == START_ID, first.to(tokens.device).expand(tokens.shape[0]), tokens[:, 0])
    return torch.cat([column[:, None], tokens[:, 1:]], dim=1)


def _asked(maps: list[Tensor | None]) -> tuple[Tensor, ...]:
    """The maps of a pass that asked for them: every layer returned one."""
    return tuple(cast(Tensor, weights) for weights in maps)


class Transformer(nn.Module):
    """Encoder-decoder Transformer with sinusoidal positions and optional weight sharing.

    Args:
        config: sizes and switches, see :class:`~transviz.core.model.config.ModelConfig`.

    Shape:
        ``forward(src (B, S), tgt (B, T))`` -> logits ``(B, T, V_tgt)``; ``tgt`` starts with the
        start token and the logits at position t predict target token t + 1.

    Example::

        model = Transformer(ModelConfig(src_vocab_size=100, tgt_vocab_size=120))
        out = model(src, tgt, return_attention=True)
        out.attention.cross[0]  # (B, H, T, S), layer 0
    """

    positional: Tensor  # (max_len, d_model), the sinusoidal table added to the embeddings (not when learned)

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.config = config
        d = config.d_model
        self.src_embed = nn.Embedding(config.src_vocab_size, d)
        self.tgt_embed = self.src_embed if config.share_embeddings else nn.Embedding(config.tgt_vocab_size, d)
        if config.positional == "learned":  # BART: one trained table per stack; a decoder-only model's one stream, one
            if not config.decoder_only:
                self.encoder_positions = nn.Parameter(torch.zeros(config.max_len, d))
            self.decoder_positions = nn.Parameter(torch.zeros(config.max_len, d))
        elif config.adds_positions:
            self.register_buffer("positional", sine_table(config.positional, config.max_len, d), persistent=False)
        if config.positional == "t5":  # the encoder's buckets tell before from after; the decoder's see before
            self.encoder_relative_bias, self.decoder_relative_bias = (
                RelativeBuckets(config.n_heads, config.relative_buckets, config.relative_max_distance, both_ways)
                for both_ways in (True, False))
        if config.embedding_norm:  # BART normalises embeddings + positions before the first layer
            self.encoder_embed_norm = layer_norm(config)
            self.decoder_embed_norm = layer_norm(config)
        self.embed_dropout = nn.Dropout(config.dropout)
        self.position_sites = {stack: Sites() for stack in STACKS}  # taps on each stack's positional term
        # taps on each stack's residual stream after each of its layers
        self.residual_sites: dict[Place, Sites] = {
            (stack, i): Sites() for stack in STACKS
            for i in range(config.layer_count("encoder_self" if stack == "encoder" else "cross"))}
        layer = StreamLayer if config.decoder_only else DecoderLayer
        self.encoder_layers = nn.ModuleList(EncoderLayer(config) for _ in range(0 if config.decoder_only
                                                                                else config.n_encoder_layers))
        self.decoder_layers = nn.ModuleList(layer(config) for _ in range(config.n_decoder_layers))
        self._place_positions_in_attention()
        # Pre-LN leaves the residual stream un-normalised, so each stack ends with a LayerNorm
        # (torch.nn.Transformer has one whatever its norm: config.final_norm says so).
        final = config.has_final_norm
        self.encoder_norm = layer_norm(config) if final and not config.decoder_only else nn.Identity()
        self.decoder_norm = layer_norm(config) if final else nn.Identity()
        self.generator = Linear(d, config.tgt_vocab_size)
        for table in {id(self.src_embed): self.src_embed, id(self.tgt_embed): self.tgt_embed}.values():
            # std d^-1/2 so that embedding * sqrt(d) has unit scale, like the positional table
            nn.init.normal_(table.weight, std=d**-0.5)
        if config.tie_output:
            self.generator.weight = self.tgt_embed.weight

    def _place_positions_in_attention(self) -> None:
        """Every attention module's score scale; rotary, ALiBi and T5's positions act in
        self-attention (cross-attention compares positions of two sentences, so it gets none), one
        shared module for every layer (T5's, one per stack)."""
        cfg = self.config
        rotary = Rotary(cfg.max_len, cfg.d_k, cfg.rotary_base) if cfg.positional == "rotary" else None
        if cfg.positional == "alibi":  # owned here, so that it moves with the model
            self.alibi = ALiBi(cfg.n_heads)
        for (kind, _), attention in self.attention_modules().items():
            attention.scale = cfg.d_k ** -0.5 if cfg.scale_scores else 1.0
            if kind == "cross":
                continue
            if rotary is not None:
                attention.rotary = rotary
            if cfg.positional == "t5":
                attention.set_position_bias(self.encoder_relative_bias if kind == "encoder_self"
                                            else self.decoder_relative_bias)
            elif cfg.positional == "alibi":
                attention.set_position_bias(self.alibi)

    # -- inputs -------------------------------------------------------------------------------
    def _check_tokens(self, tokens: Tensor, vocab_size: int, what: Message) -> None:
        if not isinstance(tokens, Tensor) or tokens.dim() != 2:
            raise InputError(translate_noop("CoreMessages", "{0} must be a (batch, length) tensor of token ids"), what)
        if tokens.is_floating_point() or tokens.is_complex() or tokens.dtype == torch.bool:
            raise InputError(translate_noop("CoreMessages", "{0} must hold integer token ids, got {1}"), what,
                             str(tokens.dtype))
        if tokens.shape[0] == 0 or tokens.shape[1] == 0:
            raise InputError(translate_noop("CoreMessages", "{0} is empty"), what)
        if tokens.shape[1] > self.config.max_len:
            raise InputError(translate_noop("CoreMessages", "{0} has {1} tokens; this model reads at most {2}"), what,
                             tokens.shape[1], self.config.max_len)
        low, high = int(tokens.min()), int(tokens.max())
        if low < 0 or high >= vocab_size:
            raise InputError(translate_noop("CoreMessages", "{0} holds token id {1}, outside the vocabulary of {2}"),
                             what, low if low < 0 else high, vocab_size)

    def position_table(self, stack: str) -> Tensor:
        """``(max_len, d_model)``: what the ``stack`` ("encoder" or "decoder") adds to its embeddings
        (InputError for a model that adds none: ModelConfig.adds_positions)."""
        if not self.config.adds_positions:
            raise InputError(translate_noop("CoreMessages", "this model adds no positional table to its embeddings "
                                                            "(its positions: {0})"), self.config.positional)
        if self.config.positional == "learned":
            return self.encoder_positions if stack == "encoder" and not self.config.decoder_only else \
                self.decoder_positions
        return self.positional

    def _embed(self, tokens: Tensor, table: nn.Embedding, stack: Stack, offset: int | Tensor = 0) -> Tensor:
        """Token embeddings plus the positions from ``offset`` on, or at ``offset`` (B, L) per row."""
        length = tokens.shape[1]
        x: Tensor = table(tokens) * self.config.embedding_scale
        if self.config.adds_positions:
            table_rows = self.position_table(stack)
            # (L, d), or (B, L, d) where each row has its own positions
            positions = table_rows[offset] if isinstance(offset, Tensor) else table_rows[offset : offset + length]
            x = x + self.position_sites[stack].through(Site.POSITIONS, positions)
        if self.config.embedding_norm:
            x = (self.encoder_embed_norm if stack == "encoder" else self.decoder_embed_norm)(x)
        out: Tensor = self.embed_dropout(x)
        return out  # (B, L, d)

    def embed(self, tokens: Tensor, stack: Stack, offset: int | Tensor = 0) -> Tensor:
        """What ``stack``'s first layer reads: ``tokens`` (B, L) embedded, with the positions from
        ``offset`` on (or at ``offset``, (B, L) per row) where the model adds them."""
        return self._embed(tokens, self.src_embed if stack == "encoder" else self.tgt_embed, stack, offset)

    def work(self, positions: int) -> int:
        """Multiply-adds per layer for ``positions`` token positions, roughly: what decides how
        many threads they are worth (core.base.cores)."""
        d = self.config.d_model
        return positions * d * (d + self.config.d_ff)

    # -- encoder ------------------------------------------------------------------------------
    def encode(self, src: Tensor, return_attention: bool = False) -> Encoded:
        """``src`` (B, S) token ids -> memory (B, S, d), padding mask and optional maps."""
        self._check_tokens(src, self.config.src_vocab_size, Message(translate_noop("CoreMessages", "source")))
        with computing(self.work(src.numel())):
            mask = padding_mask(src, self.config.pad_id)
            if not bool(mask.any(dim=-1).all()):
                raise InputError(translate_noop("CoreMessages", "a source sentence holds only padding"))
            if self.config.decoder_only:
                if self.config.start_from_prompt:
                    src, mask, first = split_prompt(src, mask, self.config.pad_id)
                    return replace(self._read_source(src, mask, return_attention), first=first)
                return self._read_source(src, mask, return_attention)
            x = self._embed(src, self.src_embed, "encoder")
            self_mask = windowed(mask, src.shape[1], self.config.attention_window)
            maps = []
            for i, layer in enumerate(self.encoder_layers):
                x, weights = layer(x, self_mask, return_attention)
                x = self.residual_sites["encoder", i].through(Site.RESIDUAL, x)
                maps.append(weights)
            return Encoded(self.encoder_norm(x), mask, tuple(maps) if return_attention else None)

    def _read_source(self, src: Tensor, mask: Tensor, return_attention: bool) -> Encoded:
        """A decoder-only model's source through its layers, keeping each layer's keys and values."""
        self_mask = source_rows_mask(mask, self.config.architecture != "prefix-lm", self.config.attention_window)
        x = self._embed(src, self.src_embed, "encoder")
        maps, kvs = [], []
        for i, layer in enumerate(self.decoder_layers):
            x, weights, kv = cast(StreamLayer, layer).prefix(x, self_mask, return_attention)
            x = self.residual_sites["encoder", i].through(Site.RESIDUAL, x)
            maps.append(weights)
            kvs.append(kv)
        return Encoded(self.decoder_norm(x), mask, _asked(maps) if return_attention else None, tuple(kvs))

    # -- decoder, all positions at once (teacher forcing) --------------------------------------
    def memory_kv(self, encoded: Encoded) -> tuple[KeyValue, ...]:
        """What the decoder attends to in the source, per layer: cross-attention's keys and values of
        the encoder output, or a decoder-only model's source keys and values."""
        if encoded.source_kv is not None:
            return encoded.source_kv
        return tuple(cast(DecoderLayer, layer).cross_attn.project_kv(encoded.memory) for layer in self.decoder_layers)

    def _target_positions(self, source_mask: Tensor, first: int, queries: int) -> Positions:
        """A decoder-only model's target queries ``first``.. after each sentence's own source, and its keys."""
        if int(source_mask.sum(dim=-1).max()) + first + queries > self.config.max_len:
            raise InputError(translate_noop("CoreMessages", "source and output together reach this model's limit of "
                                                            "{0} tokens"), self.config.max_len)
        return Positions(*stream_positions(source_mask, first, queries))

    def _stream_mask(self, source_mask: Tensor, target_mask: Tensor | None, positions: Positions) -> Tensor | None:
        """What a decoder-only model's target queries may see (:func:`.masks.output_rows_mask`);
        None where that is every key (``target_mask`` None: every target key), as the fast path takes it."""
        window = self.config.attention_window
        if target_mask is None and not window and bool(source_mask.all()):
            return None
        if target_mask is None:
            target_mask = torch.ones(1, 1, 1, 1, dtype=torch.bool, device=source_mask.device)
        return output_rows_mask(source_mask, target_mask, positions.queries, positions.keys, window)

    def decode(self, tgt: Tensor, encoded: Encoded, return_attention: bool = False) -> Decoded:
        """``tgt`` (B, T) decoder inputs (start token first) -> logits (B, T, V) and optional maps."""
        self._check_tokens(tgt, self.config.tgt_vocab_size, Message(translate_noop("CoreMessages", "target")))
        tgt = started(tgt, encoded.first)
        with computing(self.work(tgt.numel())):
            target_mask = decoder_self_mask(tgt, self.config.pad_id)
            run: Callable[[nn.Module, Tensor, KeyValue], DecoderLayerOutput]
            if self.config.decoder_only:  # the target after its own source, in one stream
                positions = self._target_positions(encoded.mask, 0, tgt.shape[1])
                stream_mask = self._stream_mask(encoded.mask, target_mask, positions)
                x = self._embed(tgt, self.tgt_embed, "decoder", offset=positions.queries)
                run = lambda layer, x, kv: cast(StreamLayer, layer).target(  # noqa: E731
                    x, kv, stream_mask, positions, return_attention)
            else:
                self_mask = windowed(target_mask, tgt.shape[1], self.config.attention_window)
                x = self._embed(tgt, self.tgt_embed, "decoder")
                run = lambda layer, x, kv: layer(  # noqa: E731
                    x, kv, self_mask, encoded.mask, need_weights=return_attention)
            self_maps, cross_maps = [], []
            for i, (layer, kv) in enumerate(zip(self.decoder_layers, self.memory_kv(encoded), strict=True)):
                out = run(layer, x, kv)
                x = self.residual_sites["decoder", i].through(Site.RESIDUAL, out.x)
                self_maps.append(out.self_weights)
                cross_maps.append(out.cross_weights)
            logits = self.generator(self.decoder_norm(x))
            if not return_attention:
                return Decoded(logits, None, None)
            return Decoded(logits, _asked(self_maps), _asked(cross_maps))

    def forward(self, src: Tensor, tgt: Tensor, return_attention: bool = False) -> ForwardOutput:
        encoded = self.encode(src, return_attention)
        decoded = self.decode(tgt, encoded, return_attention)
        if not return_attention:
            return ForwardOutput(decoded.logits, None)
        assert encoded.attention is not None and decoded.self_attention is not None
        assert decoded.cross_attention is not None  # asked for with return_attention
        maps = AttentionMaps(encoded.attention, decoded.self_attention, decoded.cross_attention)
        return ForwardOutput(decoded.logits, maps)

    # -- decoder, one position at a time (inference) --------------------------------------------
    def start(self, encoded: Encoded) -> DecoderState:
        """The empty cache for decoding after :meth:`encode`: cross-attention keys/values once."""
        return DecoderState(self.memory_kv(encoded), encoded.mask, None, 0, first=encoded.first)

    def step(self, tokens: Tensor, state: DecoderState, return_attention: bool = True) -> StepOutput:
        """Feed one token per sentence, ``tokens`` (B,), and get the logits for the next one.

        Only the new position is computed: its keys/values are appended to the cache, and the
        returned attention is the new query row of every head.
        """
        if state.length >= self.config.max_len:
            raise InputError(translate_noop("CoreMessages", "the output reached this model's limit of {0} tokens"),
                             self.config.max_len)
        tokens = tokens.reshape(-1, 1)
        self._check_tokens(tokens, self.config.tgt_vocab_size, Message(translate_noop("CoreMessages", "decoder token")))
        if state.length == 0:
            tokens = started(tokens, state.first)
        with computing(self.work(tokens.numel())):
            layers = len(self.decoder_layers)
            caches = [Growing(past, buffer, self.config.max_len)
                      for past, buffer in zip(state.self_kv or (None,) * layers, state.buffers or (None,) * layers,
                                              strict=True)]
            new_kv, self_rows, cross_rows = [], [], []
            window = self.config.attention_window  # the new query sees every cached key, or the last w
            run: Callable[[nn.Module, Tensor, KeyValue, Growing], DecoderLayerOutput]
            if self.config.decoder_only:
                positions = self._target_positions(state.memory_mask, state.length, 1)
                x = self._embed(tokens, self.tgt_embed, "decoder", offset=positions.queries)  # (B, 1, d)
                stream_mask = self._stream_mask(state.memory_mask, None, positions)
                run = lambda layer, x, kv, cache: cast(StreamLayer, layer).target(  # noqa: E731
                    x, kv, stream_mask, positions, return_attention, cache)
            else:
                x = self._embed(tokens, self.tgt_embed, "decoder", offset=state.length)  # (B, 1, d)
                self_mask = window_mask(1, state.length + 1, window, state.length, x.device) if window else None
                run = lambda layer, x, kv, cache: layer(  # noqa: E731
                    x, kv, self_mask, state.memory_mask, need_weights=return_attention, growing=cache)
            for i, (layer, memory_kv, cache) in enumerate(zip(self.decoder_layers, state.memory_kv, caches,
                                                              strict=True)):
                out = run(layer, x, memory_kv, cache)
                x = self.residual_sites["decoder", i].through(Site.RESIDUAL, out.x, state.length)
                new_kv.append(out.self_kv)
                self_rows.append(out.self_weights)
                cross_rows.append(out.cross_weights)
            logits = self.generator(self.decoder_norm(x))[:, -1]  # (B, V)
            buffers = tuple(cache.buffer for cache in caches)
            new_state = replace(state, self_kv=tuple(new_kv), length=state.length + 1, buffers=buffers)
            if not return_attention:
                return StepOutput(logits, new_state, None, None)
            return StepOutput(logits, new_state, _asked(self_rows), _asked(cross_rows))

    def attention_modules(self) -> dict[tuple[Kind, int], MultiHeadAttention]:
        """Every attention module by (kind, layer), kinds named as in traces."""
        found: dict[tuple[Kind, int], MultiHeadAttention] = {}
        if self.config.decoder_only:  # one module per layer, for the source's pass and the target's
            for i, layer in enumerate(self.decoder_layers):
                for kind in KINDS:
                    found[kind, i] = cast(MultiHeadAttention, layer.self_attn)
            return found
        for i, layer in enumerate(self.encoder_layers):
            found["encoder_self", i] = cast(MultiHeadAttention, layer.self_attn)
        for i, layer in enumerate(self.decoder_layers):
            found["decoder_self", i] = cast(MultiHeadAttention, layer.self_attn)
            found["cross", i] = cast(MultiHeadAttention, layer.cross_attn)
        return found

    def places(self) -> dict[Place, Sites]:
        """Where taps attach (:func:`transviz.core.model.sites.tapping`): each attention module by
        (kind, layer), each stack's positional term by (stack, None), its residual stream after each
        layer by (stack, layer)."""
        found: dict[Place, Sites] = {key: module.sites for key, module in self.attention_modules().items()}
        if self.config.decoder_only:  # the source's pass, and the output's: its cross view is part of that one
            found = {}
            for i, layer in enumerate(self.decoder_layers):
                found["encoder_self", i] = cast(StreamLayer, layer).prefix_sites
                found["decoder_self", i] = found["cross", i] = cast(StreamLayer, layer).self_attn.sites
        found.update(((stack, None), sites) for stack, sites in self.position_sites.items())
        found.update(self.residual_sites)
        return found

    def attention_passes(self) -> list[tuple[Kind, int]]:
        """The (kind, layer) of every distinct pass through attention: all of :meth:`attention_modules`'
        keys, less a decoder-only model's cross views (part of its output's pass)."""
        return [key for key in self.attention_modules() if not (self.config.decoder_only and key[0] == "cross")]

    def use_row_blocks(self) -> Transformer:
        """Compute one-row products in row blocks from now on (:mod:`transviz.core.model.row_blocks`);
        returns the model. Parameters stay as they are; a copy of the model keeps the path."""
        for module in self.modules():
            if isinstance(module, (Linear, MultiHeadAttention)):
                module.row_blocks = True
        return self

    def parameter_count(self) -> int:
        """Distinct trainable parameters (a tied table counts once)."""
        return sum(p.numel() for p in self.parameters())
