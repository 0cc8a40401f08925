"""Figures of the training studio: how much the window (worker thread, live plots, snapshots)
slows training down against the same recipe run headless, as ``transviz train`` runs it."""
from __future__ import annotations

import dataclasses
import tempfile
from pathlib import Path

from ..core.base.cores import computing
from ..core.data.tasks import load_task
from ..core.io.checkpoint import SUFFIX
from ..core.model.config import TrainConfig
from ..core.training.recipes import Recipe, recipe
from ..core.training.train import StepMetrics, Trainer, TrainObserver, build_model
from . import figure, median_ratio

RECIPE = "toy-de-en"
STEPS = 30  # per run: a few seconds on 2 CPU cores
SNAPSHOT_EVERY = 10  # the live attention is part of what the window costs


def studio_settings() -> tuple[Recipe, TrainConfig]:
    """The recipe, shortened, on the CPU; validation only at the end (outside the time compared)."""
    shipped = recipe(RECIPE)
    config = dataclasses.replace(shipped.train, steps=STEPS, snapshot_every=SNAPSHOT_EVERY, eval_every=0, device="cpu")
    return shipped, config


class _Steps(TrainObserver):
    def __init__(self) -> None:
        self.steps: list[StepMetrics] = []

    def on_step(self, metrics: StepMetrics) -> None:
        self.steps.append(metrics)


def _seconds_to_last_step(steps: list[StepMetrics]) -> float:
    """The trainer's own clock at the last update: both runs train the same batches (same seed),
    so the ratio of these times is the ratio of their tokens/s; the final evaluation is left out."""
    if not steps or steps[-1].step != STEPS:
        raise RuntimeError(f"the run did not reach step {STEPS}")
    return steps[-1].elapsed_s


class Headless:
    """The recipe trained on this thread with a checkpoint at the end, as ``transviz train`` does."""

    def __init__(self, folder: Path) -> None:
        self.shipped, self.config = studio_settings()
        self.dataset = load_task(self.shipped.task)
        self.checkpoint = folder / f"headless{SUFFIX}"

    def __call__(self) -> float:
        steps = _Steps()
        model = build_model(self.dataset, self.config, **self.shipped.model)
        Trainer(model, self.dataset, self.config, steps, self.checkpoint).run()
        return _seconds_to_last_step(steps.steps)


class InApp:
    """The recipe trained from the training tab of a (offscreen) main window, as a user would:
    Start, then the worker thread runs it while the plots, progress and timeline update."""

    def __init__(self, folder: Path) -> None:
        from ..gui.app import application, use_offscreen_platform
        from ..gui.main_window import MainWindow
        from ..gui.panels.training import TrainingPanel

        use_offscreen_platform()
        self.app = application()
        self.window = MainWindow(on_screen=False)  # headless, at the size below
        self.window.resize(1400, 900)
        self.window.show()
        panel = self.window.panels["training"]
        assert isinstance(panel, TrainingPanel)
        self.panel = panel
        self.panel.runs_dir = folder
        self.window.tabs.setCurrentWidget(self.panel)
        form = self.panel.form
        form.reset_to_recipe(RECIPE)
        _, config = studio_settings()
        form.steps.setValue(config.steps)
        form.snapshot_every.setValue(config.snapshot_every)
        form.eval_every.setValue(config.eval_every)
        form.device.setCurrentIndex(form.device.findData(config.device))
        if form.train_config() != config or form.model_settings() != {**form.model_settings(), **recipe(RECIPE).model}:
            raise RuntimeError("the training tab's settings differ from the headless run's")

    def __call__(self) -> float:
        from PySide6.QtCore import QEventLoop

        steps: list[StepMetrics] = []
        loop = QEventLoop()
        self.panel.worker.stepped.connect(steps.extend)
        self.panel.running_changed.connect(loop.quit)  # False at the end (True arrives before exec)
        try:
            self.panel.start()
            while self.panel.is_running():
                loop.exec()
        finally:
            self.panel.worker.stepped.disconnect(steps.extend)
            self.panel.running_changed.disconnect(loop.quit)
        if self.panel.result is None:
            raise RuntimeError(f"training in the window failed: {self.panel.error.text()}")
        return _seconds_to_last_step(steps)

    def close(self) -> None:
        from ..gui.app import dispose

        self.window.shutdown()
        dispose(self.window)


@figure("gui_train_throughput_ratio", "ratio", 0.9, "higher")
def gui_train_throughput_ratio() -> float:
    """Training tokens/s in the window (worker, live plots, snapshots) over headless, toy-de-en recipe, CPU."""
    # the headless run leaves a core as the window's worker does
    with computing(spare=1), tempfile.TemporaryDirectory() as folder:
        in_app, headless = InApp(Path(folder)), Headless(Path(folder))
        try:
            # time(headless) / time(in app) = in-app tokens/s over headless tokens/s
            return median_ratio(in_app, headless, rounds=5, warmup=1, timer=lambda run: run())
        finally:
            in_app.close()
