"""Area averaging against references built here independently: a block mean where the sizes
divide, a brute-force supersampled average and a hand-written overlap matrix where they don't,
and what averaging must keep (row sums of attention, the mean)."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from transviz.core.analysis.resample import area_average, area_weights


def softmax_rows(shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    logits = np.random.default_rng(seed).normal(size=shape) * 3
    return (np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)).astype(np.float32)


def supersampled(image: np.ndarray, rows: int, columns: int, factor: int = 1) -> np.ndarray:
    """Each pixel's value as the mean over a fine sub-grid: every cell repeated ``rows * columns``
    times along each axis makes every pixel boundary fall on a sub-cell boundary, so the mean of
    each pixel's sub-cells is exactly its area average."""
    big = np.repeat(np.repeat(image.astype(np.float64), rows * factor, axis=0), columns * factor, axis=1)
    r, c = image.shape
    return big.reshape(rows, r * factor, columns, c * factor).mean(axis=(1, 3))  # (rows, sub, columns, sub)


def overlap_matrix(cells: int, pixels: int) -> np.ndarray:
    """By hand, with exact fractions: pixel j spans [j*cells/pixels, (j+1)*cells/pixels); its
    weight on cell i is the length of [i, i+1) inside that span, over the span's length."""
    matrix = np.zeros((pixels, cells))
    width = Fraction(cells, pixels)
    for j in range(pixels):
        left, right = j * width, (j + 1) * width
        for i in range(cells):
            inside = min(right, Fraction(i + 1)) - max(left, Fraction(i))
            if inside > 0:
                matrix[j, i] = float(inside / width)
    return matrix


@pytest.mark.parametrize(("shape", "target"), [((12, 20), (4, 5)), ((200, 200), (50, 100)), ((6, 9), (6, 3))])
def test_sizes_that_divide_are_block_means(shape, target):
    image = softmax_rows(shape)
    rows, columns = target
    blocks = image.reshape(rows, shape[0] // rows, columns, shape[1] // columns).mean(axis=(1, 3))
    np.testing.assert_allclose(area_average(image, rows, columns), blocks, atol=1e-6)


@pytest.mark.parametrize(("shape", "target"), [((7, 200), (3, 87)), ((100, 201), (41, 64)), ((5, 13), (5, 4))])
def test_other_sizes_average_the_area_under_each_pixel(shape, target):
    image = softmax_rows(shape, seed=1)
    np.testing.assert_allclose(area_average(image, *target), supersampled(image, *target), atol=1e-6)


@pytest.mark.parametrize(("cells", "pixels"), [(200, 87), (13, 4), (7, 3), (9, 9), (201, 64)])
def test_weights_are_the_overlap_of_cells_and_pixels(cells, pixels):
    np.testing.assert_allclose(area_weights(cells, pixels), overlap_matrix(cells, pixels), atol=1e-6)


def test_rows_still_sum_to_one_and_the_mean_is_kept():
    maps = softmax_rows((6, 9, 100, 201), seed=2)  # (layers, heads, queries, keys), rows sum to 1
    columns_only = area_average(maps, 100, 64)
    # averaging C cells into P pixels: each pixel is a mean, so a row's pixels sum to P/C of its cells' sum
    np.testing.assert_allclose(columns_only.sum(-1) * 201 / 64, 1.0, atol=1e-5)
    both = area_average(maps, 41, 64)
    np.testing.assert_allclose(both.mean(axis=(-2, -1)), maps.mean(axis=(-2, -1)), atol=1e-6)
    assert both.shape == (6, 9, 41, 64)


def test_every_cell_counts_none_is_dropped():
    # one bright cell anywhere shows whole: its pixels hold its weight times their share of it
    for column in range(200):
        image = np.zeros((1, 200), np.float32)
        image[0, column] = 1.0
        shrunk = area_average(image, 1, 87)
        assert shrunk.sum() * 200 / 87 == pytest.approx(1.0, abs=1e-5)
        assert np.count_nonzero(shrunk) in (1, 2)  # in the one or two pixels over it


def test_nan_cells_are_left_out_and_all_nan_pixels_stay_nan():
    image = softmax_rows((10, 10), seed=3)
    image[:, 6:] = np.nan  # masked keys
    shrunk = area_average(image, 5, 4)  # pixel columns span 2.5 cells: [0, 2.5), [2.5, 5), [5, 7.5), [7.5, 10)
    pairs = image.reshape(5, 2, 10).mean(axis=1)  # two rows a pixel, all finite along the rows
    np.testing.assert_allclose(shrunk[:, 0], (pairs[:, 0] + pairs[:, 1] + 0.5 * pairs[:, 2]) / 2.5, atol=1e-6)
    np.testing.assert_allclose(shrunk[:, 1], (0.5 * pairs[:, 2] + pairs[:, 3] + pairs[:, 4]) / 2.5, atol=1e-6)
    np.testing.assert_allclose(shrunk[:, 2], pairs[:, 5], atol=1e-6)  # cells 6 and half of 7 are masked
    assert np.isnan(shrunk[:, 3]).all()


def test_nothing_is_resampled_when_every_cell_has_a_pixel():
    image = softmax_rows((12, 12))
    assert area_average(image, 40, 40) is image
    np.testing.assert_array_equal(area_average(image, 12, 40), image)
