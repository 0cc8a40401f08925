"""Attention masks as pure functions, with ONE convention.

Convention: a mask is a boolean tensor where ``True`` means "this query may attend to this
key" (the convention of ``torch.nn.functional.scaled_dot_product_attention``). Masks are
shaped to broadcast against attention scores ``(batch, heads, query_len, key_len)``:

* :func:`padding_mask` -> ``(batch, 1, 1, key_len)``: it masks padded **keys** (columns),
  for every head and every query. (Masking along the query axis instead is the bug
  annotated-transformer #137 describes; a padded query row still gets a valid softmax.)
* :func:`causal_mask` -> ``(1, 1, T, T)``: lower triangle including the diagonal, so query
  ``t`` sees keys ``0..t`` and nothing after it (the sequence mask).
* :func:`combine` -> the logical AND, broadcast to ``(batch, 1, T, T)``.
* :func:`window_mask` -> ``(1, 1, Q, K)``: keys fewer than ``w`` positions from the query (a
  sliding window, ``ModelConfig.attention_window``); :func:`windowed` adds it to another mask.

The seed tutorial describes the sequence mask as an upper-triangular matrix of 1s that marks
what to hide; that is the complement of :func:`causal_mask` (see :func:`hidden_positions`).
"""
from __future__ import annotations

import torch


def padding_mask(tokens: torch.Tensor, pad_id: int) -> torch.Tensor:
    """``(batch, seq)`` token ids -> ``(batch, 1, 1, seq)``, ``True`` where the key is not padding."""
    if tokens.dim() != 2:
        raise ValueError(f"tokens must be (batch, seq), got shape {tuple(tokens.shape)}")
    return (tokens != pad_id)[:, None, None, :]


def causal_mask(length: int, device: torch.device | str | None = None) -> torch.Tensor:
    """``(1, 1, length, length)``, ``True`` on and below the diagonal."""
    if length < 0:
        raise ValueError(f"length must be >= 0, got {length}")
    return torch.ones(length, length, dtype=torch.bool, device=device).tril()[None, None]


def combine(*masks: torch.Tensor) -> torch.Tensor:
    """Logical AND of masks that broadcast together (a key is visible only if every mask allows it)."""
    if not masks:
        raise ValueError("combine needs at least one mask")
    out = masks[0]
    for mask in masks[1:]:
        out = out & mask
    return out


def decoder_self_mask(tgt_tokens: torch.Tensor, pad_id: int) -> torch.Tensor:
    """The mask decoder self-attention uses: causal AND target padding, ``(batch, 1, T, T)``."""
    return combine(padding_mask(tgt_tokens, pad_id), causal_mask(tgt_tokens.shape[1], tgt_tokens.device))


def window_mask(queries: int, keys: int, window: int, first_query: int = 0,
                device: torch.device | str | None = None) -> torch.Tensor:
    """``(1, 1, queries, keys)``, ``True`` where the key is fewer than ``window`` positions from the
    query (query ``i`` stands at position ``first_query + i``): a sliding window of attention."""
    if window < 1:
        raise ValueError(f"window must be >= 1, got {window}")
    positions = torch.arange(first_query, first_query + queries, device=device)
    distance = positions[:, None] - torch.arange(keys, device=device)
    return (distance.abs() < window)[None, None]


def windowed(mask: torch.Tensor, queries: int, window: int, first_query: int = 0) -> torch.Tensor:
    """``mask`` AND a sliding window of ``window`` (:func:`window_mask`), ``(batch, 1, queries, keys)``;
    a window of 0 leaves ``mask`` as it is. A padded query whose window holds only padding keeps its
    own key: an empty row would make its softmax NaN, and a NaN value vector spoils every row that
    gives it weight 0 (a padded position's output is never read)."""
    if not window:
        return mask
    keys = mask.shape[-1]
    allowed = mask & window_mask(queries, keys, window, first_query, mask.device)
    own = window_mask(queries, keys, 1, first_query, mask.device)
    return allowed | (own & ~allowed.any(dim=-1, keepdim=True))


def within_window(mask: torch.Tensor, queries: torch.Tensor, keys: torch.Tensor, window: int) -> torch.Tensor:
    """``mask`` (B, 1, Lq, Lk) AND a sliding window of ``window`` between queries and keys standing at
    the positions ``queries`` (B, Lq) and ``keys`` (B, Lk) of each row (a decoder-only model's target
    after its source). A row whose window holds none of its keys keeps ``mask``'s, as in :func:`windowed`."""
    if window < 1:
        raise ValueError(f"window must be >= 1, got {window}")
    allowed = mask & ((queries[:, :, None] - keys[:, None, :]).abs() < window)[:, None]
    return allowed | (mask & ~allowed.any(dim=-1, keepdim=True))


def source_rows_mask(padding: torch.Tensor, causal: bool, window: int = 0) -> torch.Tensor:
    """What a decoder-only model's source positions may see, ``(batch, 1, 1 or S, S)``: every source
    token (a prefix LM) or those up to their own (``causal``), within the window if there is one."""
    length = padding.shape[-1]
    mask = combine(padding, causal_mask(length, padding.device)) if causal else padding
    return windowed(mask, length, window)


def output_rows_mask(padding: torch.Tensor, target_mask: torch.Tensor, queries: torch.Tensor, keys: torch.Tensor,
                     window: int = 0) -> torch.Tensor:
    """What a decoder-only model's output positions may see, ``(batch, 1, Lq, S + t)``: the source's
    tokens (``padding`` (B, 1, 1, S)), then the output's as ``target_mask`` (B or 1, 1, 1 or Lq, t)
    allows, within the window between the positions ``queries`` (B, Lq) and ``keys`` (B, S + t)."""
    batch, rows = padding.shape[0], queries.shape[1]
    mask = torch.cat([padding.expand(batch, 1, rows, -1),
                      target_mask.expand(batch, 1, rows, keys.shape[1] - padding.shape[-1])], dim=-1)
    return within_window(mask, queries, keys, window) if window else mask


def stream_positions(padding: torch.Tensor, first: int, queries: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Where a decoder-only model's output queries ``first``.. stand, (B, queries), each sentence's
    right after its own source, and where the keys stand, (B, S + first + queries): the source's at
    0.., then the output's so far."""
    lengths = padding.sum(dim=-1).view(-1, 1)  # (B, 1): each sentence's source tokens
    source = torch.arange(padding.shape[-1], device=padding.device).expand(lengths.shape[0], -1)
    target = lengths + torch.arange(first + queries, device=padding.device)  # (B, first + queries)
    return target[:, first:], torch.cat([source, target], dim=1)


def stream_mask(source: torch.Tensor, target: torch.Tensor, pad_id: int, causal_source: bool,
                window: int = 0) -> torch.Tensor:
    """A decoder-only model's one mask over its stream, ``(batch, 1, S + T, S + T)``: ``source``
    (B, S) and ``target`` (B, T) token ids, rows and columns the source's positions, then the
    output's. Source rows see no output; the model itself builds the two halves apart
    (:func:`source_rows_mask`, :func:`output_rows_mask`)."""
    padding = padding_mask(source, pad_id)
    length, batch = source.shape[1], source.shape[0]
    top = source_rows_mask(padding, causal_source, window).expand(batch, 1, length, length)
    queries, keys = stream_positions(padding, 0, target.shape[1])
    bottom = output_rows_mask(padding, decoder_self_mask(target, pad_id), queries, keys, window)
    hidden = torch.zeros(batch, 1, length, target.shape[1], dtype=torch.bool, device=source.device)
    return torch.cat([torch.cat([top, hidden], dim=-1), bottom], dim=2)


def hidden_positions(mask: torch.Tensor) -> torch.Tensor:
    """The complement of a mask: ``True`` where attention is blocked (the seed's 0/1 picture)."""
    return ~mask


def additive(mask: torch.Tensor, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """Boolean mask -> additive form: 0 where visible, ``-inf`` where blocked (added to the scores)."""
    zeros = torch.zeros(mask.shape, dtype=dtype, device=mask.device)
    return zeros.masked_fill(~mask, float("-inf"))
