"""Shrinking a map to fewer pixels than it has cells, by averaging the area each pixel covers.

Drawn as it is, a 200-column map in 80 pixels would show some columns and drop the others, and
a map's alternating values would turn into moiré stripes. Averaging keeps every cell's share:
a pixel's value is the mean of the cells under it, weighted by how much of each it covers.
Pure numpy; the GUI chooses the pixel counts.
"""
from __future__ import annotations

import numpy as np


def area_weights(cells: int, pixels: int) -> np.ndarray:
    """``(pixels, cells)``: the share of pixel ``j`` that cell ``i`` covers; each row sums to 1.

    Pixel ``j`` spans cells ``[j * cells / pixels, (j + 1) * cells / pixels)``.
    """
    if not 1 <= pixels <= cells:
        raise ValueError(f"cannot average {cells} cells into {pixels} pixels")
    edges = np.arange(pixels + 1) * cells / pixels  # pixel j covers [edges[j], edges[j + 1])
    starts = np.arange(cells)
    overlap = np.minimum(edges[1:, None], starts + 1) - np.maximum(edges[:-1, None], starts)
    weights: np.ndarray = (np.clip(overlap, 0.0, None) * pixels / cells).astype(np.float32)
    return weights


def shrunk_columns(values: np.ndarray, columns: int) -> np.ndarray:
    """``values`` ``(..., C)`` averaged along its last axis down to ``columns``: one matrix
    product over all leading axes at once (numpy's stacked product with the weights on the
    right is many times slower)."""
    *lead, cells = values.shape
    weights = area_weights(cells, columns).T  # (C, columns)
    shrunk: np.ndarray = (values.reshape(-1, cells) @ weights).reshape(*lead, columns)
    return shrunk


def area_average(maps: np.ndarray, rows: int, columns: int) -> np.ndarray:
    """``maps`` ``(..., R, C)`` averaged down to ``(..., rows, columns)`` (an axis asked to
    grow keeps its cells: this only shrinks).

    NaN cells (masked keys, a hidden row) are left out of the averages; a pixel over NaN cells
    only stays NaN.
    """
    maps = np.asarray(maps, dtype=np.float32)
    rows, columns = min(rows, maps.shape[-2]), min(columns, maps.shape[-1])
    if (rows, columns) == maps.shape[-2:]:
        return maps

    def shrunk(values: np.ndarray) -> np.ndarray:
        if columns < values.shape[-1]:  # keys first: usually the longer axis, so less work after
            values = shrunk_columns(values, columns)
        if rows < values.shape[-2]:  # a stacked product is fast with the small matrix on the left
            values = np.matmul(area_weights(values.shape[-2], rows), values)
        return values

    finite = np.isfinite(maps)
    if finite.all():  # the usual case: half the work
        return np.ascontiguousarray(shrunk(maps))
    total, weight = shrunk(np.where(finite, maps, np.float32(0.0))), shrunk(finite.astype(np.float32))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(weight > 1e-6, total / weight, np.nan).astype(np.float32)
