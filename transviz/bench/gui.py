"""Figures of the desktop window, measured offscreen (no display needed)."""
from __future__ import annotations

import itertools

import numpy as np

from . import figure, median_seconds


def _random_maps(seed: int, shape: tuple[int, int, int, int]) -> np.ndarray:
    logits = np.random.default_rng(seed).normal(size=shape) * 2
    return (np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)).astype(np.float32)


@figure("gui_grid_redraw_ms_6x8", "ms", 16.0, "lower")
def grid_redraw_6x8() -> float:
    """One full redraw of a 6-layer x 8-head grid of 12 x 12 maps: new arrays, then a repaint."""
    from ..gui.app import application, dispose, use_offscreen_platform
    from ..gui.grid import AttentionGrid

    use_offscreen_platform()
    app = application()
    grid = AttentionGrid("cross-attention")
    grid.resize(1280, 800)
    grid.show()
    app.processEvents()  # exposed: from now on a repaint really paints
    tokens = [f"t{i}" for i in range(12)]
    steps = itertools.cycle([_random_maps(seed, (6, 8, 12, 12)) for seed in range(4)])  # new data each redraw
    query = itertools.cycle(range(12))

    def redraw() -> None:
        grid.set_maps(next(steps), tokens, tokens)
        grid.set_query(next(query))
        grid.repaint_now()  # what the event loop would do on its next pass, timed here

    try:
        return 1000 * median_seconds(redraw, repeat=41, warmup=5)
    finally:
        dispose(grid)
