"""Figures of the desktop window, measured offscreen (no display needed)."""
from __future__ import annotations

import itertools
import json
import logging
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from ..core.model.bundle import Model
from . import LOADED_SLOWDOWN, figure, median_seconds, seconds, size

log = logging.getLogger(__name__)


def _random_maps(seed: int, shape: tuple[int, int, int, int]) -> np.ndarray:
    logits = np.random.default_rng(seed).normal(size=shape) * 2
    return (np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)).astype(np.float32)


@figure("gui_grid_redraw_ms_6x8", "ms", 16.0, "lower")
def grid_redraw_6x8() -> float:
    """One full redraw of a 6-layer x 8-head grid of 12 x 12 maps: new arrays, then a repaint."""
    from ..gui.app import application, dispose, use_offscreen_platform
    from ..gui.widgets.grid import AttentionGrid

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


# -- a decoding step and everything the explorer redraws for it ------------------------------------

STEPS = 20  # steps per sentence before going back to the start (the figures are medians over them)


def _step_redraw_ms(model: Model, rounds: int = 4) -> float:
    """Median time of one explorer step: the session steps, every view redraws, the window is
    painted and the event loop is idle again (cross-attention grid and head shown, 1400 x 900)."""
    from ..gui.app import use_offscreen_platform
    use_offscreen_platform()
    return _explorer_steps_ms(model, rounds)


def _explorer_steps_ms(model: Model, rounds: int) -> float:
    from ..core.teaching.workspace import Workspace
    from ..gui.app import application, dispose
    from ..gui.panels.explorer import ExplorerPanel
    from .session import _sentence

    app = application()
    panel = ExplorerPanel(Workspace())
    panel.resize(1400, 900)
    panel.show()
    panel.workspace.set_model(model, sentence=_sentence(model))
    app.processEvents()
    controller = panel.controller
    assert controller.session is not None, "the bench sentence must open a session"
    controller.session.max_len = size(STEPS, 3)

    def step_and_redraw() -> None:
        controller.step()  # the views update their items
        for _ in range(2):  # what the event loop does next: scenes post their updates, then paint
            app.processEvents()

    session = controller.session
    times: list[list[float]] = []
    try:
        for _ in range(size(rounds) + 1):  # the first round warms up
            controller.reset()
            app.processEvents()
            times.append([])
            while session.cant_step() is None:  # up to STEPS steps, or the end token
                times[-1].append(seconds(step_and_redraw))
        return 1000 * statistics.median(t for round_times in times[1:] for t in round_times)
    finally:
        dispose(panel)


@figure("gui_step_redraw_ms_default", "ms", 16.0, "lower")
def step_redraw_default() -> float:
    """One explorer step with a full redraw, shipped default model (until it ships: a fresh 3x4x128 model)."""
    from .session import _default_model

    return _step_redraw_ms(_default_model())


@figure("gui_step_redraw_ms_6x8", "ms", 10.0, "lower", loaded_limit=LOADED_SLOWDOWN)
def step_redraw_6x8() -> float:
    """One explorer step with a full redraw of 48 heads: a fresh 6-layer x 8-head x 512 model."""
    from .core import BASE
    from .session import _fresh_model

    return _step_redraw_ms(_fresh_model(BASE))


LONG_SOURCE, LONG_STEP = 200, 100  # a long sentence, part-way through its translation


def _long_steps_ms(model: Model, rounds: int = 4) -> float:
    """Median time of one explorer step from step LONG_STEP on, over a LONG_SOURCE-word sentence
    (as :func:`_explorer_steps_ms`; each round rewinds to LONG_STEP rather than stepping there again)."""
    from ..core.teaching.workspace import Workspace
    from ..gui.app import application, dispose, use_offscreen_platform
    from ..gui.panels.explorer import ExplorerPanel
    from .session import _sentence

    use_offscreen_platform()
    app = application()
    panel = ExplorerPanel(Workspace())
    panel.resize(1400, 900)
    panel.show()
    panel.workspace.set_model(model, sentence=_sentence(model, LONG_SOURCE))
    app.processEvents()
    controller = panel.controller
    session = controller.session
    assert session is not None and len(session.source_tokens) >= LONG_SOURCE, "the long sentence must open"
    start, steps = size(LONG_STEP, 10), size(STEPS // 2, 2)
    session.max_len = start + steps

    def step_and_redraw() -> None:
        controller.step()
        for _ in range(2):  # what the event loop does next: scenes post their updates, then paint
            app.processEvents()

    try:
        while session.position < start and controller.step():  # there once, untimed
            pass
        times: list[list[float]] = []
        for _ in range(size(rounds) + 1):  # the first round warms up
            controller.rewind(start)
            app.processEvents()
            times.append([seconds(step_and_redraw) for _ in range(steps) if session.cant_step() is None])
        return 1000 * statistics.median(t for round_times in times[1:] for t in round_times)
    finally:
        dispose(panel)


@figure("gui_step_redraw_ms_6x8_at_200", "ms", 50.0, "lower")
def step_redraw_6x8_at_200() -> float:
    """One explorer step with a full redraw of 48 heads on a long input: a fresh 6-layer x 8-head
    x 512 model, a 200-word sentence, from step 100 on (1400 x 900)."""
    from dataclasses import replace

    from .core import BASE
    from .session import _fresh_model

    return _long_steps_ms(_fresh_model(replace(BASE, max_len=512)))  # positions for 200 words and more


@figure("lesson_next_ms", "ms", 100.0, "lower")
def lesson_next() -> float:
    """From Next to the slide drawn: the window in lesson mode on the shipped data-flow lesson
    (shipped default model), 1400 x 900, median over every slide change of several passes."""
    from ..core.io.resources import shipped_lessons, shipped_models
    from ..core.teaching.lesson import read
    from ..gui.app import application, dispose, use_offscreen_platform
    from ..gui.main_window import MainWindow
    from . import Unavailable

    lessons = shipped_lessons()
    if "01-data-flow" not in lessons or "default" not in shipped_models():
        raise Unavailable("the shipped lesson 01-data-flow or the default model is not installed")
    use_offscreen_platform()
    app = application()
    window = MainWindow(on_screen=False)
    try:
        window.resize(1400, 900)
        window.show()
        mode = window.lesson_mode
        mode.start(read(lessons["01-data-flow"]))
        app.processEvents()

        def next_and_draw() -> None:
            mode.next()
            for _ in range(2):  # what the event loop does next: scenes post their updates, then paint
                app.processEvents()

        times = []
        for _ in range(size(4)):
            mode.go(0)
            app.processEvents()
            times += [seconds(next_and_draw) for _ in range(len(mode.lesson.slides) - 1)] if mode.lesson else []
        return 1000 * statistics.median(times)
    finally:
        mode.stop()
        window.shutdown()
        dispose(window)


# -- cold start ------------------------------------------------------------------------------------

# Runs `transviz gui MODEL` in a fresh process through the program's entry (cli.launch) and prints,
# as JSON, when the window showed and when it was ready (seconds since the launch time given as
# argv[1]); closes the window once it is ready. The script needs Qt's timer before the entry runs:
# it holds full collections back and loads torch before Qt first, as `transviz` itself does (Qt
# loaded before torch makes the process about 35 MiB larger).
_COLD_START = """
import json, sys, time
launched = float(sys.argv[1])
marks = {"python": time.time() - launched}
from transviz.core.base import startup
startup.pause()
import torch; marks["torch"] = time.time() - launched
from PySide6.QtCore import QTimer
from transviz import cli

def poll():
    from transviz.gui.app import application
    from transviz.gui.main_window import MainWindow
    windows = [w for w in application().topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()]
    if windows and "window" not in marks:
        marks["window"] = time.time() - launched
    if windows and windows[0].workspace.model is not None:
        windows[0].repaint()
        marks["ready"] = time.time() - launched
        print(json.dumps(marks), flush=True)
        windows[0].close()
        return
    QTimer.singleShot(5, poll)

QTimer.singleShot(0, poll)
sys.exit(cli.launch(["gui", sys.argv[2]]))
"""


def _cold_start_marks(model: str) -> dict[str, float]:
    from ..gui.services.settings import SETTINGS_VARIABLE

    root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", SETTINGS_VARIABLE: "",  # remember nothing
           "PYTHONPATH": os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)}
    launched = time.time()
    result = subprocess.run([sys.executable, "-c", _COLD_START, repr(launched), model], env=env,
                            capture_output=True, text=True, timeout=120)
    if result.returncode != 0:
        raise RuntimeError(f"the window did not start: {result.stderr.strip()[-500:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


@figure("gui_cold_start_s", "s", 1.5, "lower")
def cold_start() -> float:
    """Launch to an interactive window with the default model (a fresh process, offscreen), median of 5."""
    from ..core.io.checkpoint import SUFFIX, save
    from ..core.io.resources import DEFAULT_MODEL, shipped_models
    from .session import SHIPPED_SIZE, _fresh_model

    with tempfile.TemporaryDirectory() as folder:
        model = DEFAULT_MODEL if DEFAULT_MODEL in shipped_models() else str(save(_fresh_model(SHIPPED_SIZE),
                                                                         Path(folder) / f"fresh{SUFFIX}"))
        runs = [_cold_start_marks(model) for _ in range(size(5))]
    medians = {name: statistics.median(run[name] for run in runs) for name in runs[0]}
    log.info("cold start, median seconds since launch: %s",
             ", ".join(f"{name} {value:.2f}" for name, value in medians.items()))
    return medians["ready"]


ANIMATED = "wir waschen das schaf , weil sie meine tochter abholen möchten"  # 14 steps with the shipped default


@figure("animate_gif_s_10", "s", 5.0, "lower")
def animate_gif_10() -> float:
    """A 10-step GIF of the grid (11 frames, 1600 x 900), from the sentence to the file: the
    widget built and decoded, every frame drawn and grabbed, the GIF encoded and written; median of 3."""
    from ..gui.app import application, use_offscreen_platform
    from ..gui.render import Slide, animate
    from .session import _default_model

    use_offscreen_platform()
    application()
    model = _default_model()
    with tempfile.TemporaryDirectory() as folder:
        slide = Slide("grid", ANIMATED, model, step=10)
        return median_seconds(lambda: animate(slide, Path(folder) / "run.gif"), repeat=3)
