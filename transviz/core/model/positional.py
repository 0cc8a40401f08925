"""Sinusoidal positional encoding (Vaswani et al. 2017, section 3.5).

PE(pos, 2i) = sin(pos / 10000^(2i/d)),  PE(pos, 2i+1) = cos(pos / 10000^(2i/d)).
The formula interleaves sin and cos columns; many figures (the seed's 20 x 512 picture among
them) show the "sin half | cos half" layout instead, which is the same table with its columns
reordered: :func:`split_halves` converts.
"""
from __future__ import annotations

import math

import torch


def sinusoidal_table(length: int, d_model: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """``(length, d_model)`` table in the formula's interleaved layout."""
    if length < 0 or d_model <= 0:
        raise ValueError(f"need length >= 0 and d_model > 0, got {length}, {d_model}")
    position = torch.arange(length, dtype=torch.float64)[:, None]  # (L, 1)
    pair = torch.arange(0, d_model, 2, dtype=torch.float64)  # 2i for each sin/cos pair
    angle = position * torch.exp(-math.log(10000.0) * pair / d_model)  # (L, ceil(d/2))
    table = torch.empty(length, d_model, dtype=torch.float64)
    table[:, 0::2] = torch.sin(angle)
    table[:, 1::2] = torch.cos(angle[:, : d_model // 2])
    return table.to(dtype)


def split_halves(table: torch.Tensor) -> torch.Tensor:
    """Reorder columns to "all sin columns | all cos columns" (display layout only)."""
    return torch.cat([table[..., 0::2], table[..., 1::2]], dim=-1)


def interleave(table: torch.Tensor) -> torch.Tensor:
    """The inverse of :func:`split_halves`: "sin half | cos half" columns back to the formula's order."""
    d_model = table.shape[-1]
    out = torch.empty_like(table)
    out[..., 0::2] = table[..., : (d_model + 1) // 2]
    out[..., 1::2] = table[..., (d_model + 1) // 2 :]
    return out


def similarity(table: torch.Tensor) -> torch.Tensor:
    """``PE @ PE.T``: dot products between positions; each entry depends only on their offset."""
    return table @ table.transpose(-1, -2)
