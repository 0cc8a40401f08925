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


def hidden_positions(mask: torch.Tensor) -> torch.Tensor:
    """The complement of a mask: ``True`` where attention is blocked (the seed's 0/1 picture)."""
    return ~mask


def additive(mask: torch.Tensor, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """Boolean mask -> additive form: 0 where visible, ``-inf`` where blocked (added to the scores)."""
    zeros = torch.zeros(mask.shape, dtype=dtype, device=mask.device)
    return zeros.masked_fill(~mask, float("-inf"))
