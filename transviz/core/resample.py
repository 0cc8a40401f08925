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
    if cells < 1 or pixels < 1:
        raise ValueError(f"cannot resample {cells} cells to {pixels} pixels")
    edges = np.arange(pixels + 1) * cells / pixels  # pixel j covers [edges[j], edges[j + 1])
    starts = np.arange(cells)
    overlap = np.minimum(edges[1:, None], starts + 1) - np.maximum(edges[:-1, None], starts)
    weights: np.ndarray = (np.clip(overlap, 0.0, None) * pixels / cells).astype(np.float32)
    return weights


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
    row_weights = area_weights(maps.shape[-2], rows)  # (rows, R)
    column_weights = area_weights(maps.shape[-1], columns).T  # (C, columns)
    finite = np.isfinite(maps)
    if finite.all():  # the usual case: half the work
        return np.ascontiguousarray(row_weights @ maps @ column_weights)
    total = row_weights @ np.where(finite, maps, np.float32(0.0)) @ column_weights
    weight = row_weights @ finite.astype(np.float32) @ column_weights
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(weight > 0, total / weight, np.nan).astype(np.float32)
