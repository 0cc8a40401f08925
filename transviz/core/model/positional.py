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


# fairseq (M2M100, NLLB, FSMT) counts positions from its padding id + 1, and its padding id is 1
FAIRSEQ_FIRST_POSITION = 2
HALF_LAYOUTS = ("sinusoidal-halves", "sinusoidal-fairseq")  # the kinds whose columns are sin half | cos half


def fairseq_table(length: int, d_model: int) -> torch.Tensor:
    """fairseq's sine table, ``(length, d_model)``: sin half | cos half with the rates
    ``10000^(-i / (d/2 - 1))`` (the formula divides by d/2), row ``p`` at position ``p + 2``."""
    half = d_model // 2
    if half < 2:
        raise ValueError(f"fairseq's table needs d_model >= 4, got {d_model}")
    rate = torch.exp(torch.arange(half, dtype=torch.float64) * -(math.log(10000.0) / (half - 1)))
    position = torch.arange(FAIRSEQ_FIRST_POSITION, FAIRSEQ_FIRST_POSITION + length, dtype=torch.float64)
    angle = position[:, None] * rate[None, :]  # (L, d/2)
    table = torch.cat([torch.sin(angle), torch.cos(angle), torch.zeros(length, d_model % 2)], dim=1)
    return table.float()


def sine_table(positional: str, length: int, d_model: int) -> torch.Tensor:
    """The fixed table of a ``positional`` kind (``sinusoidal``: the formula's interleaved columns,
    ``sinusoidal-halves``: Marian's and Pegasus's sin half | cos half, ``sinusoidal-fairseq``:
    :func:`fairseq_table`), ``(length, d_model)``."""
    if positional == "sinusoidal-fairseq":
        return fairseq_table(length, d_model)
    table = sinusoidal_table(length, d_model)
    return split_halves(table) if positional == "sinusoidal-halves" else table


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


# -- positions inside attention (ModelConfig.positional "rotary" and "alibi") ------------------------
ROTARY_BASE = 10000.0  # RoFormer's, and Llama's default


def rotary_angles(length: int, d_k: int, first: int = 0, base: float = ROTARY_BASE) -> torch.Tensor:
    """RoPE's angles, ``(length, d_k / 2)`` in float64: position ``first + p`` times the rate
    ``base^(-2i/d_k)`` of pair i (``ModelConfig.rotary_base``, Llama's ``rope_theta``), which turns
    dimensions i and i + d_k/2 of a head together (the "rotate half" pairing of GPT-NeoX and Llama):
    (x_i, x_{i+d_k/2}) becomes (x_i cos - x_{i+d_k/2} sin, x_i sin + x_{i+d_k/2} cos)."""
    rate = base ** (-torch.arange(0, d_k, 2, dtype=torch.float64) / d_k)
    return torch.arange(first, first + length, dtype=torch.float64)[:, None] * rate[None, :]


def alibi_slopes(heads: int) -> torch.Tensor:
    """ALiBi's slope of each head (Press et al. 2022): for a power of two n, 2^(-8h/n) for h = 1..n;
    otherwise the slopes of the power of two below, then every other slope of the one above."""
    below = 2 ** math.floor(math.log2(heads))
    slopes = [2 ** (-8 * h / below) for h in range(1, below + 1)]
    slopes += [2 ** (-8 * h / (2 * below)) for h in range(1, 2 * below + 1, 2)][: heads - below]
    return torch.tensor(slopes, dtype=torch.float64)


def relative_bucket(relative: torch.Tensor, bidirectional: bool, buckets: int, max_distance: int) -> torch.Tensor:
    """T5's bucket of each offset ``relative`` = key position - query position (Raffel et al. 2020):
    bidirectional (the encoder) gives half the buckets to keys after the query; a causal stack (the
    decoder) reads only keys before it. Of a side's buckets, offsets below half get one each, the
    rest share buckets whose width grows logarithmically up to ``max_distance``; farther offsets
    fall in the last."""
    bucket = torch.zeros_like(relative)
    if bidirectional:
        buckets //= 2
        bucket = bucket + (relative > 0).long() * buckets
        distance = relative.abs()
    else:
        distance = (-relative).clamp(min=0)
    exact = buckets // 2
    far = exact + (torch.log(distance.float().clamp(min=1) / exact) / math.log(max_distance / exact)
                   * (buckets - exact)).long()
    return bucket + torch.where(distance < exact, distance, far.clamp(max=buckets - 1))
