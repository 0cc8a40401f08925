"""Figures of a window that keeps answering while work goes on behind it, on worker threads: a
large remembered model loading at start-up, a model training in the training tab. Measured
offscreen, each on the event loop the window runs on."""
from __future__ import annotations

import dataclasses
import gc
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.io.resources import DEFAULT_MODEL, shipped_models
from ..core.model.config import ModelConfig
from . import Unavailable, figure, seconds, size

if TYPE_CHECKING:
    from ..gui.main_window import MainWindow
    from ..gui.panels.training import TrainingPanel

# About 470 MB of float32 weights: a load long enough to watch the window while it goes on.
LARGE = ModelConfig(9, 9, d_model=1024, n_heads=8, n_encoder_layers=4, n_decoder_layers=4, d_ff=4096,
                    dropout=0.0, max_len=32)
TICK_MS = 20  # the timer whose ticks show the event loop turning while the large model loads
TIMER_MS = 10  # the timer that must fire on time while the training tab trains
WAIT_S = 120.0  # the most a figure waits for the window (a load, a run starting or stopping)


def _wait_until(done: Callable[[], bool], what: str) -> None:
    """Run the event loop, as the window would, until ``done()``."""
    from PySide6.QtTest import QTest

    deadline = time.monotonic() + WAIT_S
    while not done():
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what}: not within {WAIT_S:g} s")
        QTest.qWait(5)


# -- a large remembered model loading at start-up --------------------------------------------------

def _large_checkpoint(folder: Path) -> Path:
    from ..core.io.checkpoint import SUFFIX, save
    from .session import _fresh_model

    if DEFAULT_MODEL not in shipped_models():
        raise Unavailable("the shipped default model, which the window shows while the large one loads, "
                          "is not installed")
    return save(_fresh_model(LARGE), folder / f"large{SUFFIX}")


def _start(remembered: Path) -> MainWindow:
    """The main window as `transviz` starts it with ``remembered`` as the last run's model: the
    shipped default shown first, the remembered model loading behind it (1400 x 900). It has no
    settings file: it remembers nothing."""
    from PySide6.QtTest import QTest

    from ..gui.app import application, use_offscreen_platform
    from ..gui.main_window import MainWindow
    from ..gui.services.language import ENGLISH
    from ..gui.services.settings import Preferences, Stored, WindowLayout

    use_offscreen_platform()
    application()
    gc.collect()  # the garbage of what ran before (other figures, other starts) is not this start's pause
    window = MainWindow()
    window.restore(Stored(Preferences(ENGLISH, last_model=str(remembered)), WindowLayout()))
    window.resize(1400, 900)
    window.show()
    QTest.qWaitForWindowExposed(window)
    window.open_initial_model(None)
    return window


def _closing_ms(large: Path) -> float:
    from ..gui.app import dispose
    from ..gui.services.workers import background_work_running

    window = _start(large)
    try:
        _wait_until(lambda: window.workspace.model_source == DEFAULT_MODEL and background_work_running(),
                    "the default model shown, the large one loading")
        took = seconds(window.close)
        if window.isVisible() or not background_work_running():
            raise RuntimeError("the window did not close while the model was still loading")
        return 1000 * took
    finally:
        window.shutdown()  # as gui.app does once the event loop has ended: waits for the load
        dispose(window)


@figure("gui_close_ms_loading", "ms", 100.0, "lower")
def close_while_loading() -> float:
    """From Close to the window gone while the model remembered from the last run (about 470 MB)
    still loads behind the shipped default (the load goes on, nobody waits for it); with no
    settings file to write (the bench never touches the user's); median of 3 starts."""
    with tempfile.TemporaryDirectory() as folder:
        large = _large_checkpoint(Path(folder))
        return statistics.median(_closing_ms(large) for _ in range(size(3)))


def _longest_stall_ms(large: Path) -> float:
    from PySide6.QtCore import QTimer

    from ..gui.app import dispose

    window = _start(large)
    ticks: list[float] = []
    timer = QTimer()
    timer.setInterval(TICK_MS)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    try:
        timer.start()
        _wait_until(lambda: window.workspace.model_source == str(large), "the large model shown")
        timer.stop()
        if len(ticks) < 2:
            raise RuntimeError("the timer never ticked twice while the model loaded")
        return 1000 * max(b - a for a, b in zip(ticks, ticks[1:], strict=False))
    finally:
        window.shutdown()
        dispose(window)


@figure("gui_stall_ms_loading", "ms", 100.0, "lower")
def stall_while_loading() -> float:
    """The longest the event loop stood still (the longest gap between ticks of a 20 ms timer)
    from start-up until the model remembered from the last run (about 470 MB) replaces the shipped
    default: its load and decoding copy happen on a worker; median of 5 starts."""
    with tempfile.TemporaryDirectory() as folder:
        large = _large_checkpoint(Path(folder))
        return statistics.median(_longest_stall_ms(large) for _ in range(size(5)))


# -- a model training in the training tab ----------------------------------------------------------

def _busiest_run(panel: TrainingPanel) -> None:
    """A tiny model on the reverse task, on the CPU, with a snapshot every 2 steps and a validation
    every 20: the most the worker sends the window."""
    from ..core.model.config import TrainConfig

    form = panel.form
    form.set_task("reverse")
    tiny = dict(n_encoder_layers=1, n_decoder_layers=1, n_heads=2, d_model=16, d_ff=32, dropout=0.0)
    form.set_settings({**dataclasses.asdict(ModelConfig(1, 1)), **tiny},
                      TrainConfig(steps=100_000, batch_size=16, lr=3e-3, warmup_steps=5, snapshot_every=2,
                                  eval_every=20, device="cpu"))
    if not form.valid:
        raise RuntimeError(f"the training tab refused the settings: {form.error.text()}")


def _late_ms(panel: TrainingPanel, fires: int, validations: int) -> list[float]:
    """How late (ms) each of ``fires`` single-shot 10 ms timers fired while the run trains, over
    ``validations`` validations at least."""
    from PySide6.QtCore import QElapsedTimer, Qt, QTimer

    gc.collect()  # the garbage of figures measured before is not this run's pause
    steps: list[object] = []
    validated: list[int] = []
    panel.worker.stepped.connect(steps.extend)
    panel.worker.validated.connect(lambda step, _evaluation: validated.append(step))
    panel.start()
    _wait_until(lambda: len(steps) >= 3, "the run training")
    late: list[float] = []
    clock, timer = QElapsedTimer(), QTimer()
    timer.setSingleShot(True)
    timer.setTimerType(Qt.TimerType.PreciseTimer)

    def fire() -> None:
        late.append(clock.elapsed() - TIMER_MS)
        if len(late) < fires or len(validated) < validations:
            clock.restart()
            timer.start(TIMER_MS)

    timer.timeout.connect(fire)
    clock.start()
    timer.start(TIMER_MS)
    _wait_until(lambda: not timer.isActive() and len(late) >= fires, "the timer's fires")
    panel.stop()
    _wait_until(lambda: not panel.is_running(), "the run stopped")
    return late


@figure("gui_timer_late_ms_training", "ms", 100.0, "lower")
def timer_late_while_training() -> float:
    """The most a 10 ms timer fires late while the training tab trains (1400 x 900): a tiny model
    on the reverse task with a snapshot every 2 steps and a validation every 20, over 200 fires
    and 3 validations at least."""
    from ..core.teaching.workspace import Workspace
    from ..gui.app import application, dispose, use_offscreen_platform
    from ..gui.panels.training import TrainingPanel

    use_offscreen_platform()
    application()
    with tempfile.TemporaryDirectory() as folder:
        panel = TrainingPanel(Workspace(), runs_dir=Path(folder))
        try:
            panel.resize(1400, 900)
            panel.show()
            _busiest_run(panel)
            return max(_late_ms(panel, size(200, 10), size(3, 1)))
        finally:
            panel.shutdown()
            dispose(panel)
