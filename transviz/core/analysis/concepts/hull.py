"""Attention as a projection into the convex region of the values (seed 000, "Attention的几种角度"):
weights are non-negative and sum to 1, so every output sum_i a_i V_i lies in the convex hull of
the head's values, a region fixed for all queries. Drawn in 2-D by PCA of the values; projection
is linear, so the projected outputs lie in the hull of the projected values."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...model.bundle import Model
from ..walkthrough import Kind
from .forward import Sentence
from .head import head_attention


@dataclass(frozen=True)
class ValueHull:
    """One head's values and outputs, in the plane of the values' two principal axes. float64.

    Shape:
        ``values`` (K, d_k), ``weights`` (Q, K), ``outputs`` (Q, d_k) = weights @ values;
        ``axes`` (2, d_k) orthonormal; ``points`` (K, 2) the values and ``projected`` (Q, 2) the
        outputs, centred on ``centre`` and projected on ``axes``; ``hull`` the indices of
        ``points`` on their convex hull, counter-clockwise.
    """

    query_tokens: list[str]
    key_tokens: list[str]
    values: np.ndarray
    weights: np.ndarray
    outputs: np.ndarray
    centre: np.ndarray
    axes: np.ndarray
    points: np.ndarray
    projected: np.ndarray
    hull: list[int]
    variance_share: float  # of the values' variance, the share the two axes keep

    @property
    def outputs_inside(self) -> int:
        """How many projected outputs lie in the hull of the points (on an edge counts, to rounding)."""
        return sum(inside(self.points, self.hull, point) for point in self.projected)

    @property
    def current(self) -> int:
        """The current query: the last row (the newest decoder input, or the last source token)."""
        return len(self.query_tokens) - 1


def principal_axes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """The mean of ``values`` (N, d), its two principal axes (2, d; zero rows where there are fewer
    than two) and the share of the variance they keep (1 when there is none)."""
    centre = values.mean(axis=0)
    _, singular, rows = np.linalg.svd(values - centre, full_matrices=False)
    axes = np.zeros((2, values.shape[1]))
    kept = min(2, len(rows))
    axes[:kept] = rows[:kept]
    total = float((singular ** 2).sum())
    return centre, axes, float((singular[:2] ** 2).sum()) / total if total > 0 else 1.0


def convex_hull(points: np.ndarray) -> list[int]:
    """Indices of the corners of the convex hull of ``points`` (N, 2), counter-clockwise (Andrew's
    monotone chain; points on an edge are left out)."""
    order = sorted(range(len(points)), key=lambda i: (points[i, 0], points[i, 1]))
    if len(order) < 3:
        return order

    def cross(o: int, a: int, b: int) -> float:
        (ox, oy), (ax, ay), (bx, by) = points[o], points[a], points[b]
        return float((ax - ox) * (by - oy) - (ay - oy) * (bx - ox))

    def chain(indices: list[int]) -> list[int]:
        kept: list[int] = []
        for i in indices:
            while len(kept) >= 2 and cross(kept[-2], kept[-1], i) <= 0:
                kept.pop()
            kept.append(i)
        return kept[:-1]  # the last is the first of the other chain

    return chain(order) + chain(order[::-1])


def inside(points: np.ndarray, hull: list[int], point: np.ndarray, tolerance: float = 1e-6) -> bool:
    """Whether ``point`` lies in the convex polygon of ``points[hull]`` (counter-clockwise): on the
    left of every edge. A hull of one or two corners is a point or a segment."""
    corners = points[hull]
    scale = tolerance * max(1.0, float(np.abs(points).max()))
    if len(corners) < 3:
        start, end = corners[0], corners[-1]
        span = end - start
        along = float((point - start) @ span / (span @ span)) if span @ span > 0 else 0.0
        return bool(-tolerance <= along <= 1 + tolerance
                    and np.linalg.norm(start + np.clip(along, 0, 1) * span - point) <= scale)
    edges = np.roll(corners, -1, axis=0) - corners
    offsets = point - corners
    return bool((edges[:, 0] * offsets[:, 1] - edges[:, 1] * offsets[:, 0] >= -scale).all())


def value_hull(model: Model, sentence: Sentence, kind: Kind, layer: int, head: int) -> ValueHull:
    """The values and outputs of ``head`` in ``layer`` in 2-D (InputError for a missing layer or head)."""
    walk = head_attention(model, sentence, kind, layer, head)
    values, weights = walk.values.astype(np.float64), walk.weights.astype(np.float64)
    outputs = weights @ values
    centre, axes, share = principal_axes(values)
    points = (values - centre) @ axes.T
    return ValueHull(walk.query_tokens, walk.key_tokens, values, weights, outputs, centre, axes, points,
                     (outputs - centre) @ axes.T, convex_hull(points), share)
