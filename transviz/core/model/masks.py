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


def hidden_positions(mask: torch.Tensor) -> torch.Tensor:
    """The complement of a mask: ``True`` where attention is blocked (the seed's 0/1 picture)."""
    return ~mask


def additive(mask: torch.Tensor, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """Boolean mask -> additive form: 0 where visible, ``-inf`` where blocked (added to the scores)."""
    zeros = torch.zeros(mask.shape, dtype=dtype, device=mask.device)
    return zeros.masked_fill(~mask, float("-inf"))
