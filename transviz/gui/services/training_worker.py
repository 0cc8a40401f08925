"""Training off the GUI thread: a :class:`~transviz.core.training.train.Trainer` on a worker thread, its
reports forwarded to the GUI thread as Qt signals, with pause, resume and a cooperative stop.

The trainer knows nothing about Qt; :class:`TrainingWorker` builds it on its own thread (a
:class:`~transviz.gui.services.workers.TaskRunner`) and turns the trainer's observer callbacks into
queued signals. The trained model is handed to other views only as a
:func:`~transviz.core.model.bundle.decoding_copy` on the CPU.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from ...core.base.messages import Message
from ...core.data.tasks import Dataset, load_task, load_tsv
from ...core.model.config import TrainConfig
from ...core.training.evaluate import Evaluation
from ...core.training.snapshots import Snapshot
from ...core.training.train import StepMetrics, Trainer, TrainObserver, TrainResult, build_model
from .background import OwnThreadWorker


@dataclass(frozen=True)
class TrainingJob:
    """What the training tab asks for: the data, the model's settings, how to train, where to save.

    ``task`` names a built-in task; ``data``, when given, is a TSV corpus used instead.
    """

    task: str
    model: dict[str, Any] = field(default_factory=dict)  # ModelConfig settings; vocabularies come from the data
    config: TrainConfig = field(default_factory=TrainConfig)
    checkpoint: Path | None = None
    data: str | None = None

    @property
    def data_name(self) -> str:
        return Path(self.data).stem if self.data else self.task


@dataclass(frozen=True)
class RunStart:
    """What the window shows once the data is loaded and the model built."""

    summary: Message  # the dataset's summary: name and split sizes
    parameters: int
    device: str
    probe: str
    gold: str | None  # the probe's target in the data (snapshots are teacher forced on it), or None
    examples: tuple[str, ...]  # source sentences the user may pick as the probe
    steps: int
    checkpoint: Path | None



# Steps are reported in batches, at most this often: every report is a slot call on the GUI
# thread, and each call waits for the Python lock the training thread holds. A tiny model does
# hundreds of steps a second, and one report per step would keep the event loop behind.
# A report per 60 Hz frame at most: the plots (FRAME_RATE) never wait for data.
REPORT_SECONDS = 1 / 60


class _Forward(TrainObserver):
    """The trainer's callbacks (training thread) as the worker's signals (queued to the GUI thread).

    Step metrics are gathered and sent together every :data:`REPORT_SECONDS`; anything else sends
    the steps gathered first, so the GUI thread sees every report in the order it happened.
    """

    def __init__(self, worker: TrainingWorker) -> None:
        self.worker = worker
        self._steps: list[StepMetrics] = []
        self._sent = time.perf_counter()

    def on_step(self, metrics: StepMetrics) -> None:
        self._steps.append(metrics)
        if time.perf_counter() - self._sent >= REPORT_SECONDS:
            self.flush()

    def flush(self) -> None:
        if self._steps:
            self.worker.stepped.emit(self._steps)
            self._steps = []
        self._sent = time.perf_counter()

    def on_validation(self, step: int, evaluation: Evaluation) -> None:
        self.flush()
        self.worker.validated.emit(step, evaluation)

    def on_snapshot(self, snapshot: Snapshot) -> None:
        self.flush()
        self.worker.snapshot_taken.emit(snapshot)

    def on_paused(self, step: int) -> None:
        self.flush()
        self.worker.paused.emit(step)


class TrainingWorker(OwnThreadWorker):
    """Runs one :class:`TrainingJob` at a time on its own thread.

    Signals (all delivered on the GUI thread):
        started(RunStart): the data is loaded and the model built; steps follow.
        stepped(list): the StepMetrics of the updates since the last report (every update is
            reported once, in order; see :data:`REPORT_SECONDS`).
        validated(int, Evaluation): after each validation: the step and the scores.
        snapshot_taken(Snapshot): after each attention snapshot of the probe.
        paused(int): a pause took effect after this many steps.
        finished(TrainResult): the run ended: finished, stopped or diverged.
        failed(Exception): the job could not start or broke (bad data, impossible settings ...).

    :meth:`pause`, :meth:`resume` and :meth:`stop` act between batches; asked for before the
    trainer exists (while the data loads), they take effect as soon as it does.
    Call :meth:`shutdown` before the application quits.
    """

    started = Signal(object)
    stepped = Signal(object)
    validated = Signal(int, object)
    snapshot_taken = Signal(object)
    paused = Signal(int)
    finished = Signal(object)
    failed = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__("transviz-training", parent)
        self._lock = threading.Lock()  # guards the trainer and the requests made before it exists
        self._trainer: Trainer | None = None
        self._stop_asked = self._pause_asked = False
        self._datasets: dict[tuple[str, ...], Dataset] = {}  # worker thread only: reused by the next run

    def start(self, job: TrainingJob) -> None:
        """Train ``job`` on the worker thread; RuntimeError if a run is in progress."""
        if self.is_running():
            raise RuntimeError("a training run is in progress")
        with self._lock:
            self._stop_asked = self._pause_asked = False
        self._runner.start(lambda state: self._run(job), self.finished.emit, self.failed.emit)

    def run_task(self, task: Callable[[], object], on_done: Callable[[Any], None],
                 on_failed: Callable[[Exception], None]) -> None:
        """Other work of the training tab (saving) on the same thread, when no run is in progress."""
        if self.is_running():
            raise RuntimeError("a training run is in progress")
        self._runner.start(lambda state: task(), on_done, on_failed)

    def pause(self) -> None:
        self._control(lambda t: t.pause(), pause=True)

    def resume(self) -> None:
        self._control(lambda t: t.resume(), pause=False)

    def stop(self) -> None:
        """End the run after the current batch; the trainer saves what it has (a paused run wakes to stop)."""
        self._control(lambda t: t.stop(), stop=True)

    def _control(self, act: Callable[[Trainer], None], pause: bool | None = None, stop: bool = False) -> None:
        with self._lock:
            if pause is not None:
                self._pause_asked = pause
            self._stop_asked = self._stop_asked or stop
            if self._trainer is not None:
                act(self._trainer)

    def stop_work(self) -> None:
        self.stop()  # the run saves its checkpoint before the thread stops

    # -- the worker thread ---------------------------------------------------------------------
    def _dataset(self, job: TrainingJob) -> Dataset:
        if job.data:
            path = Path(job.data)
            key: tuple[str, ...] = ("tsv", str(path.resolve()), str(path.stat().st_mtime_ns) if path.exists() else "")
            load: Callable[[], Dataset] = lambda: load_tsv(path)  # noqa: E731
        else:
            key, load = ("task", job.task), lambda: load_task(job.task)
        if key not in self._datasets:
            self._datasets[key] = load()
        return self._datasets[key]

    def _run(self, job: TrainingJob) -> TrainResult:
        dataset = self._dataset(job)
        model = build_model(dataset, job.config, **job.model)
        forward = _Forward(self)
        trainer = Trainer(model, dataset, job.config, forward, job.checkpoint)
        with self._lock:
            self._trainer = trainer
            if self._stop_asked:
                trainer.stop()
            elif self._pause_asked:
                trainer.pause()
        self.started.emit(RunStart(dataset.summary(), model.net.parameter_count(), str(trainer.device),
                                   trainer.probe, trainer.probe_gold, dataset.examples, job.config.steps,
                                   job.checkpoint))
        try:
            return trainer.run()
        finally:
            forward.flush()  # the last steps reach the GUI thread before the result
            with self._lock:
                self._trainer = None
