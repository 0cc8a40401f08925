"""The values' hull: outputs are weights @ V (numpy), weights are convex coefficients, and every
projected output lies inside the projected hull, checked here by a ray-casting point-in-polygon
test of our own; the hull itself is checked against brute force."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import transviz
from transviz.core.analysis.concepts.forward import Sentence
from transviz.core.analysis.concepts.hull import convex_hull, value_hull
from transviz.core.analysis.walkthrough import KINDS, walkthrough

SENTENCE = Sentence("ich mochte ein bier", ("i", "want", "a"))


@pytest.fixture(scope="module")
def model():
    return transviz.load_model("default")


def in_polygon(point: np.ndarray, polygon: np.ndarray, tolerance: float = 1e-6) -> bool:
    """Ray casting, plus a distance check so points on an edge count as inside."""
    x, y = point
    crossings = False
    for (x1, y1), (x2, y2) in zip(polygon, np.roll(polygon, -1, axis=0), strict=True):
        edge = np.array([x2 - x1, y2 - y1])
        t = np.clip((point - [x1, y1]) @ edge / max(edge @ edge, 1e-300), 0, 1)
        if np.linalg.norm(np.array([x1, y1]) + t * edge - point) <= tolerance:
            return True
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            crossings = not crossings
    return crossings


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("layer", "head"), [(0, 0), (1, 2), (2, 3)])
def test_every_output_lies_in_the_hull_of_the_values(model, kind, layer, head):
    shown = value_hull(model, SENTENCE, kind, layer, head)
    walk = walkthrough(model, SENTENCE.source, "i want a", kind, layer, head)
    values, weights = walk.values.astype(np.float64), walk.weights.astype(np.float64)
    np.testing.assert_allclose(shown.outputs, weights @ values, atol=1e-5)
    assert (shown.weights >= 0).all()
    np.testing.assert_allclose(shown.weights.sum(axis=1), 1.0, atol=1e-6)
    centred = values - values.mean(axis=0)
    np.testing.assert_allclose(shown.axes @ shown.axes.T, np.eye(2), atol=1e-9)
    np.testing.assert_allclose(shown.points, centred @ shown.axes.T, atol=1e-9)
    singular = np.linalg.svd(centred, compute_uv=False)
    assert shown.variance_share == pytest.approx((singular[:2] ** 2).sum() / (singular ** 2).sum())
    polygon = shown.points[shown.hull]
    for point in shown.projected:
        assert in_polygon(point, polygon)
    assert shown.outputs_inside == len(shown.query_tokens)


def test_the_hull_corners_are_the_points_with_an_edge_leaving_all_others_on_its_left():
    points = np.random.default_rng(7).normal(size=(30, 2))
    hull = convex_hull(points)

    def left(i: int, j: int, k: int) -> float:
        (ax, ay), (bx, by), (cx, cy) = points[i], points[j], points[k]
        return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)

    corners = {i for i, j in itertools.permutations(range(len(points)), 2)
               if all(left(i, j, k) > 0 for k in range(len(points)) if k not in (i, j))}
    assert set(hull) == corners and len(hull) == len(corners)
    polygon = points[hull]
    area = 0.5 * sum(x1 * y2 - x2 * y1 for (x1, y1), (x2, y2) in zip(polygon, np.roll(polygon, -1, axis=0),
                                                                       strict=True))
    assert area > 0  # counter-clockwise
    assert all(in_polygon(point, polygon) for point in points)
