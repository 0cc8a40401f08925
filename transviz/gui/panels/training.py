"""The training tab: settings, Start / Pause / Stop, progress with ETA and tokens/s, live plots
of loss, learning rate, accuracy and exact match, and the probe sentence's attention on a
timeline of snapshots. When a run ends, one click hands (a copy of) the model to the explorer.

Training runs on :class:`~transviz.gui.services.training_worker.TrainingWorker`'s thread; this panel
only collects what it reports and redraws at a fixed frame rate.
"""
from __future__ import annotations

import statistics
from collections import deque
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path

import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Signal, Slot
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from ...core.base.errors import TransvizError
from ...core.io.checkpoint import SUFFIX as CHECKPOINT_SUFFIX
from ...core.model.bundle import Model, decoding_copy
from ...core.model.config import TrainConfig
from ...core.teaching.workspace import Workspace
from ...core.training.curves import Curves, load_curves
from ...core.training.evaluate import Evaluation
from ...core.training.schedules import trainer_rate
from ...core.training.snapshots import Snapshot, load_snapshots, save_with_snapshots
from ...core.training.train import StepMetrics, TrainResult
from ..services.core_messages import translated
from ..services.drops import dropped_file
from ..services.language import Retranslated
from ..services.settings import data_dir
from ..services.training_worker import RunStart, TrainingJob, TrainingWorker
from ..style import BLUE, GREEN, PALETTE, VERMILLION
from ..widgets.labels import NoticeLabel, duration_text, error_label, plain_label, show_error
from ..widgets.plots import FrameClock, LivePlot, Series
from ..widgets.timeline import SnapshotTimeline
from ..widgets.training_form import TSV_SUFFIXES, TrainingForm
from .base import PlotPanel

RATE_WINDOW = 50  # steps the ETA and tokens/s average over
NOTICE_ACCENT = {"diverged": VERMILLION, "finished": GREEN, "stopped": BLUE}
PLOT_LINES = 14  # lines of text the plot row keeps: about 8 for the curves, the rest title, axes, legend


def default_runs_dir() -> Path:
    """Where runs save their checkpoints unless told otherwise: ``runs`` in the app's data folder."""
    return data_dir() / "runs"


class TrainingPanel(Retranslated, PlotPanel):
    """Train a model in the window and watch it learn.

    "Use in explorer" makes a CPU copy of the trained model, sharing nothing with it, the
    workspace's model.

    Signals:
        running_changed(bool): a run started, or ended.
        run_finished(TrainResult): a run ended (finished, stopped or diverged) and is shown.
        run_failed(str): a run could not start or broke; the message shown inline.
    """

    running_changed = Signal(bool)
    run_finished = Signal(object)
    run_failed = Signal(str)

    def __init__(self, workspace: Workspace, parent: QWidget | None = None, runs_dir: Path | None = None) -> None:
        super().__init__(workspace, parent)
        self.runs_dir = runs_dir or default_runs_dir()
        self.worker = TrainingWorker(self)
        self.result: TrainResult | None = None
        self.checkpoint: Path | None = None  # where the current (or last) run saves
        self._total_steps = 0
        self._step: StepMetrics | None = None
        self._recent: deque[StepMetrics] = deque(maxlen=RATE_WINDOW)
        self._handed: Model | None = None  # the last copy given to the explorer
        self._pausing = False  # Pause pressed and not yet Resume
        self._run_text = ""  # the data, the model's size and the device of the run
        self._timeline_origin: Callable[[], str] = str  # where the timeline's snapshots come from
        self._failure: tuple[Exception, str] | None = None  # why the last run could not train; the text shown
        self._build()
        self.clock = FrameClock(self._redraw, parent=self)
        self.worker.started.connect(self._on_started)
        self.worker.stepped.connect(self._on_steps)
        self.worker.validated.connect(self._on_validation)
        self.worker.snapshot_taken.connect(self._on_snapshot)
        self.worker.paused.connect(self._on_paused)
        self.worker.finished.connect(self._on_finished)
        self.worker.failed.connect(self._on_failed)
        self._close_after_training: Callable[[], object] | None = None
        self.running_changed.connect(self._close_if_asked)
        self.watch_model()
        self.form.validity_changed.connect(lambda _: self._update_buttons())
        self.setAcceptDrops(True)
        self._update_buttons()

    # -- construction --------------------------------------------------------------------------
    def _build(self) -> None:
        self.start_button, self.pause_button, self.stop_button = QPushButton(), QPushButton(), QPushButton()
        self.explore_button, self.save_button, self.timeline_button = QPushButton(), QPushButton(), QPushButton()
        for button, text in ((self.start_button, lambda: self.tr("Start")), (self.stop_button, lambda: self.tr("Stop")),
                             (self.explore_button, lambda: self.tr("Use in explorer")),
                             (self.save_button, lambda: self.tr("Save as...")),
                             (self.timeline_button, lambda: self.tr("Open timeline..."))):
            self.bind_text(button.setText, text)
        self._name_pause_button()
        self.bind_text(self.explore_button.setToolTip,
                       lambda: self.tr("Make the trained model the explorer's model (a copy)"))
        self.bind_text(self.timeline_button.setToolTip,
                       lambda: self.tr("Scrub the attention snapshots saved in a checkpoint"))
        self.start_button.clicked.connect(self.start)
        self.pause_button.clicked.connect(self.toggle_pause)
        self.stop_button.clicked.connect(self.stop)
        self.explore_button.clicked.connect(self.explore)
        self.save_button.clicked.connect(self._save_with_dialog)
        self.timeline_button.clicked.connect(self._open_timeline_with_dialog)
        # The bar carries the per-frame text (step, tokens/s, ETA): a new label text re-lays out the
        # whole tab (time taken from the training thread at every frame); a bar format only repaints.
        self.progress = QProgressBar()
        self.progress_text = plain_label()  # what the run is doing: loading, paused, finished ...
        self.progress_text.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.notice = NoticeLabel()  # how the run ended; after divergence, the explanation
        # the bar gets a row of its own: beside the buttons its text (step, tokens/s, ETA) was cut
        row, progress_row = QHBoxLayout(), QHBoxLayout()
        for button in (self.start_button, self.pause_button, self.stop_button):
            row.addWidget(button)
        row.addStretch(1)
        for button in (self.explore_button, self.save_button, self.timeline_button):
            row.addWidget(button)
        progress_row.addWidget(self.progress, 3)
        progress_row.addWidget(self.progress_text, 2)
        controls = QVBoxLayout()
        controls.addLayout(row)
        controls.addLayout(progress_row)
        controls.addWidget(self.notice)

        self.form = TrainingForm()
        self.form_scroll = scroll = QScrollArea()
        scroll.setWidget(self.form)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.restyle()
        self.error = error_label()
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(scroll)
        splitter.addWidget(self._build_watch())
        splitter.setStretchFactor(1, 1)
        self.arrange(controls, self.error, splitter)

    def _build_watch(self) -> QWidget:
        self.train_loss, self.valid_loss = Series(""), Series("")  # named by _name_plots
        self.token_accuracy, self.exact_match, self.learning_rate = Series(""), Series(""), Series("")
        self.loss_plot = LivePlot("", "", "", top=1.0)
        self.loss_plot.add_series(self.train_loss, PALETTE[0], width=1.5)
        self.loss_plot.add_series(self.valid_loss, PALETTE[1], symbol="o")
        self.accuracy_plot = LivePlot("", "", "", top=1.0)
        self.accuracy_plot.add_series(self.token_accuracy, PALETTE[2], width=1.5)
        self.accuracy_plot.add_series(self.exact_match, PALETTE[3], symbol="o")
        self.lr_plot = LivePlot("", "", "", legend=None, top=1.0)
        self.lr_plot.add_series(self.learning_rate, PALETTE[4])
        self.plots = (self.loss_plot, self.accuracy_plot, self.lr_plot)
        self._name_plots()
        self.timeline = SnapshotTimeline()
        self.step_marker = self.loss_plot.addLine(x=0, pen=pg.mkPen("#888888", width=1, style=Qt.PenStyle.DashLine))
        self.step_marker.setVisible(False)
        self.timeline.shown.connect(self._mark_snapshot_step)
        self.track(*self.plots, self.timeline.grid, self.timeline.head_view)
        self.plot_row = QWidget()
        row = QHBoxLayout(self.plot_row)
        row.setContentsMargins(0, 0, 0, 0)
        for plot in self.plots:
            row.addWidget(plot)
        self._fit_plots()
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.plot_row)
        splitter.addWidget(self.timeline)
        splitter.setSizes([1, 1])  # halves: on a small screen a third left the curves about 80 px tall
        return splitter

    def _fit_plots(self) -> None:
        """Room for the curves beside their titles, axes and legends, in the font in use."""
        self.plot_row.setMinimumHeight(PLOT_LINES * self.fontMetrics().height())

    def restyle(self) -> None:
        """The form keeps its full width in any font (presentation mode's is larger), measured once
        the new font has reached it."""
        QTimer.singleShot(0, self, self._fit_form)  # dropped if the panel is gone by then

    def _fit_form(self) -> None:
        self.form_scroll.setMinimumWidth(self.form.sizeHint().width() + 24)
        self._fit_plots()

    def _name_plots(self) -> None:
        step = self.tr("step")
        self.loss_plot.set_texts(self.tr("Loss"), self.tr("cross-entropy"), step)
        self.accuracy_plot.set_texts(self.tr("Accuracy"), self.tr("fraction right"), step)
        self.lr_plot.set_texts(self.tr("Learning rate"), self.tr("lr"), step)
        for plot, series, name in ((self.loss_plot, self.train_loss, self.tr("training loss")),
                                   (self.loss_plot, self.valid_loss, self.tr("validation loss")),
                                   (self.accuracy_plot, self.token_accuracy, self.tr("token accuracy (batch)")),
                                   (self.accuracy_plot, self.exact_match, self.tr("exact match (validation)")),
                                   (self.lr_plot, self.learning_rate, self.tr("learning rate"))):
            plot.rename(series, name)

    def _show_timeline(self, snapshots: Sequence[Snapshot], origin: Callable[[], str]) -> None:
        """Show ``snapshots``; ``origin()`` says where they come from, in the language of the moment."""
        self._timeline_origin = origin
        self.timeline.set_snapshots(snapshots, origin())
        self._mark_snapshot_step(self.timeline.index)

    def _mark_snapshot_step(self, index: int) -> None:
        """The scrubbed snapshot's step as a vertical line on the loss plot."""
        snapshots = self.timeline.snapshots
        self.step_marker.setVisible(0 <= index < len(snapshots))
        if self.step_marker.isVisible():
            self.step_marker.setValue(snapshots[index].step)

    def _clear_plots(self) -> None:
        for series in (self.train_loss, self.valid_loss, self.token_accuracy, self.exact_match, self.learning_rate):
            series.clear()
        for plot in self.plots:
            plot.redraw()

    def _plot_curves(self, curves: Curves) -> None:
        """Draw the curves a checkpoint recorded, on axes that hold the whole run."""
        self._clear_plots()
        for step, loss, lr, accuracy in zip(curves.steps, curves.loss, curves.lr, curves.token_accuracy, strict=True):
            self.train_loss.append(step, loss)
            self.learning_rate.append(step, lr)
            self.token_accuracy.append(step, accuracy)
        for step, loss, match in zip(curves.valid_steps, curves.valid_loss, curves.exact_match, strict=True):
            self.valid_loss.append(step, loss)
            self.exact_match.append(step, match)
        last = max(curves.steps[-1:] + curves.valid_steps[-1:] + [1])
        for plot in self.plots:
            plot.reset_axes(last, 1.1 * max(curves.lr) if plot is self.lr_plot and curves.lr else None)
            plot.redraw()

    def retranslate(self) -> None:
        super().retranslate()
        self.timeline.set_origin(self._timeline_origin())
        self._name_plots()
        self._name_pause_button()
        if self.result is not None and not self.is_running():
            self._describe_result(self.result)  # a run in progress says it anew at its next report
        if self._failure is not None and self.error.text() == self._failure[1]:  # still shown
            self._show_failure(self._failure[0])

    def _name_pause_button(self) -> None:
        self.pause_button.setText(self.tr("Resume") if self._pausing else self.tr("Pause"))

    # -- running -------------------------------------------------------------------------------
    def is_running(self) -> bool:
        return self.worker.is_running()

    def start(self) -> None:
        """Start a run with the form's settings (if they are valid and none is running)."""
        if self.is_running() or not self.form.validate():
            return
        task, data = self.form.data()
        name = Path(data).stem if data else task
        self.checkpoint = self.runs_dir / f"{name}-{datetime.now():%Y%m%d-%H%M%S}{CHECKPOINT_SUFFIX}"
        job = TrainingJob(task, self.form.model_settings(), self.form.train_config(), self.checkpoint, data)
        self._reset(job.config, job.model["d_model"])
        self.progress_text.setText(self.tr("loading the data and building the model..."))
        self.worker.start(job)
        self._update_buttons()
        self.running_changed.emit(True)

    def toggle_pause(self) -> None:
        if not self.is_running():
            return
        self._pausing = not self._pausing
        self._name_pause_button()
        if self._pausing:
            self.worker.pause()
            self.progress_text.setText(self.tr("pausing after this batch..."))
        else:
            self.worker.resume()
            self.progress_text.setText(self._run_text)
            self._show_progress()

    def stop(self) -> None:
        """Stop after the current batch; the run saves its checkpoint and reports as stopped."""
        if self.is_running():
            self.worker.stop()
            self.progress_text.setText(self.tr("stopping after this batch and saving..."))
            self.stop_button.setEnabled(False)
            self.pause_button.setEnabled(False)

    def shutdown(self) -> None:
        """Stop a run (it saves) and the worker thread (quit + wait); before the window goes."""
        self.clock.flush()
        self.worker.shutdown()

    def _reset(self, config: TrainConfig, d_model: int) -> None:
        steps = config.steps
        self.result, self._step, self._total_steps = None, None, steps
        self._recent.clear()
        self._clear_plots()
        self._show_timeline([], lambda: self.tr("this run"))
        self.progress.setRange(0, steps)
        self.progress.setValue(0)
        self.progress.setFormat(self.tr("step {0:,} of {1:,}").format(0, steps))
        # every schedule peaks at the end of its warm-up (or at step 1): the lr axis is known in advance
        peak = max(trainer_rate(config, step, d_model) for step in (1, max(1, min(config.warmup_steps, steps))))
        for plot in self.plots:
            plot.reset_axes(steps, 1.1 * peak if plot is self.lr_plot else None)
        show_error(self.error, None)
        self.notice.setVisible(False)
        self._pausing = False
        self._name_pause_button()
        self._redraw()

    def _update_buttons(self) -> None:
        running = self.is_running()
        self.start_button.setEnabled(not running and self.form.valid)
        self.pause_button.setEnabled(running)
        self.stop_button.setEnabled(running)
        self.form.setEnabled(not running)
        done = not running and self.result is not None
        self.explore_button.setEnabled(done)
        self.save_button.setEnabled(done)
        self.timeline_button.setEnabled(not running)

    # -- reports from the worker (GUI thread) ----------------------------------------------------
    @Slot(object)
    def _on_started(self, start: RunStart) -> None:
        self.form.set_examples(start.examples)

        def origin() -> str:
            if start.gold is not None:
                return self.tr("probe: {0} (teacher forced on its translation in the data: {1})").format(
                    start.probe, start.gold)
            return self.tr("probe: {0} (not in the data: the model's own output is shown)").format(start.probe)

        self._show_timeline(self.timeline.snapshots, origin)
        self._run_text = self.tr("{0}; {1:,} parameters on {2}").format(translated(start.summary), start.parameters,
                                                                        start.device)
        self.progress_text.setText(self._run_text)

    @Slot(object)
    def _on_steps(self, steps: list[StepMetrics]) -> None:
        for metrics in steps:
            self.train_loss.append(metrics.step, metrics.loss)
            self.token_accuracy.append(metrics.step, metrics.token_accuracy)
            self.learning_rate.append(metrics.step, metrics.lr)
        self._recent.extend(steps)
        self._step = steps[-1]
        self.clock.mark()

    @Slot(int, object)
    def _on_validation(self, step: int, evaluation: Evaluation) -> None:
        self.valid_loss.append(step, evaluation.loss)
        self.exact_match.append(step, evaluation.exact_match)
        self.clock.mark()

    @Slot(object)
    def _on_snapshot(self, snapshot: Snapshot) -> None:
        self.timeline.add(snapshot)
        self.clock.mark()

    @Slot(int)
    def _on_paused(self, step: int) -> None:
        if self._pausing:  # not resumed in the meantime
            self.progress_text.setText(self.tr("paused at step {0:,} of {1:,}").format(step, self._total_steps))

    def _redraw(self) -> None:
        """One frame: the plots, the newest snapshot, the progress line."""
        for plot in self.plots:
            plot.redraw()
        self.timeline.redraw()
        if not self._pausing:
            self._show_progress()

    def _show_progress(self) -> None:
        metrics = self._step
        if metrics is None:
            return
        first = self._recent[0]
        per_step = (metrics.elapsed_s - first.elapsed_s) / max(1, metrics.step - first.step)
        if metrics.step == first.step:
            per_step = metrics.elapsed_s / metrics.step
        rate = statistics.median(m.tokens_per_s for m in self._recent)
        text = self.tr("step {0:,} of {1:,} · {2:,.0f} tokens/s · ETA {3}").format(
            metrics.step, self._total_steps, rate, duration_text(per_step * (self._total_steps - metrics.step)))
        self.progress.setFormat(text.replace("%", "%%"))  # % starts the bar's own placeholders
        self.progress.setValue(metrics.step)

    @Slot(object)
    def _on_finished(self, result: TrainResult) -> None:
        self.result = result
        if [s.step for s in result.snapshots] != [s.step for s in self.timeline.snapshots]:
            # after divergence the trainer drops the snapshots of the weights it threw away
            self._show_timeline(result.snapshots, self._timeline_origin)
        self.clock.flush()
        self.progress.setValue(result.steps)  # after divergence: the step of the weights kept
        self._describe_result(result)
        self._update_buttons()
        self.running_changed.emit(False)
        self.run_finished.emit(result)

    def _describe_result(self, result: TrainResult) -> None:
        """The progress line and the notice of a run that ended."""
        self.progress.setFormat(self.tr("step {0:,} of {1:,}").format(result.steps, self._total_steps))
        self.progress_text.setText(self.tr("{0} after {1:,} steps in {2} on {3}").format(
            self._status_name(result.status), result.steps, duration_text(result.seconds), result.device))
        self._show_notice(result)

    def _status_name(self, status: str) -> str:
        return {"finished": self.tr("finished"), "stopped": self.tr("stopped"),
                "diverged": self.tr("diverged")}.get(status, status)

    def _show_notice(self, result: TrainResult) -> None:
        lines = []
        if result.status == "diverged":
            message = translated(result.message)  # what happened, and what to try
            lines.append(message[:1].upper() + message[1:])
        elif result.status == "stopped":
            lines.append(self.tr("Stopped after {0:,} of {1:,} steps.").format(result.steps, self._total_steps))
        else:
            lines.append(self.tr("Finished {0:,} steps.").format(result.steps))
        if result.test is not None:
            bleu = self.tr(", BLEU {0:.1f}").format(result.test.bleu) if result.test.bleu is not None else ""
            lines.append(self.tr("Test: exact match {0:.1%} of {1} pairs{2}.").format(
                result.test.exact_match, result.test.count, bleu))
        elif result.validation is not None:
            lines.append(self.tr("Last validation: exact match {0:.1%}.").format(result.validation.exact_match))
        lines.append(self.tr("Saved to {0}").format(result.checkpoint) if result.checkpoint is not None
                     else self.tr("Nothing was saved."))
        self.notice.show_notice("\n".join(lines), NOTICE_ACCENT.get(result.status, NOTICE_ACCENT["stopped"]))

    @Slot(object)
    def _on_failed(self, exc: Exception) -> None:
        message = self._show_failure(exc)
        self._update_buttons()
        self.running_changed.emit(False)
        self.run_failed.emit(message)

    def _show_failure(self, exc: Exception) -> str:
        """Say inline why the run could not train (a corpus' bad line, ...); returns the reason."""
        message = translated(exc) if isinstance(exc, (TransvizError, OSError)) else \
            self.tr("unexpected error: {0}").format(exc)
        self.progress_text.setText(self.tr("could not train"))
        shown = self.tr("Training: {0}").format(message)
        show_error(self.error, shown)
        self._failure = (exc, shown)
        return message

    # -- the trained model ---------------------------------------------------------------------
    def explore(self) -> Model | None:
        """Make a copy of the trained model the workspace's model, and show the explorer; returns the copy."""
        if self.result is None or self.is_running():
            return None
        model = decoding_copy(self.result.model, "cpu")  # shares no tensor with the model trained on
        model.path = str(self.result.checkpoint) if self.result.checkpoint else None
        self._handed = model
        typed = self.workspace.sentence  # the teacher's sentence stays when the new model knows its words
        self.workspace.set_model(model, model.path, sentence=typed if typed and knows_words(model, typed) else None)
        self.show_panel.emit("explorer")
        self.status.emit(self.tr("The trained model is now the explorer's model"))
        return model

    def save_as(self, path: str | Path) -> None:
        """Write the trained model and its snapshots to ``path`` (off the GUI thread)."""
        if self.result is None or self.is_running():
            return
        model, snapshots, path = self.result.model, self.result.snapshots, Path(path)
        curves = self.result.curves
        self.worker.run_task(
            lambda: save_with_snapshots(model, path, snapshots, curves),
            lambda saved: self.progress_text.setText(self.tr("saved to {0}").format(saved)),
            lambda exc: show_error(self.error, self.tr("Could not save: {0}").format(translated(exc))))

    def _save_with_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Save the trained model"),
                                              str(self.checkpoint or f"model{CHECKPOINT_SUFFIX}"),
                                              self.tr("transviz checkpoints (*.safetensors)"))
        if path:
            self.save_as(path if path.endswith(CHECKPOINT_SUFFIX) else path + CHECKPOINT_SUFFIX)

    # -- timelines of saved checkpoints ----------------------------------------------------------
    def open_timeline(self, path: str | Path) -> bool:
        """Show the snapshots saved in a checkpoint, with its curves when it recorded them; False
        (and an inline message) if it has no snapshots."""
        try:
            snapshots, curves = load_snapshots(path), load_curves(path)
        except TransvizError as exc:
            show_error(self.error, self.tr("Timeline: {0}").format(translated(exc)))
            return False
        if not snapshots:
            show_error(self.error, self.tr("Timeline: {0} holds no attention snapshots").format(Path(path).name))
            return False
        self._show_saved_timeline(snapshots, curves, path)
        return True

    def _show_saved_timeline(self, snapshots: list[Snapshot], curves: Curves | None, path: str | Path) -> None:
        show_error(self.error, None)
        name = Path(path).name
        if curves is not None:
            self._plot_curves(curves)
            self._show_timeline(snapshots, lambda: self.tr("saved in {0}").format(name))
            return
        self._clear_plots()  # a previous run's curves do not belong to these snapshots
        for plot in self.plots:  # empty, but over the run's steps: the scrubbed step's line stands in place
            plot.reset_axes(max(snapshots[-1].step, 1))
            plot.redraw()
        self._show_timeline(snapshots, lambda: self.tr(
            "saved in {0}, which recorded no training curves").format(name))

    def _open_timeline_with_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Open a checkpoint's timeline"), str(self.runs_dir),
                                              self.tr("transviz checkpoints (*.safetensors)"))
        if path:
            self.open_timeline(path)

    def set_model(self, model: Model | None) -> None:
        """A model the window loaded: show its saved timeline, if it has one and no run is on."""
        if model is None or model is self._handed or not model.path or self.is_running():
            return
        try:
            snapshots, curves = load_snapshots(model.path), load_curves(model.path)
        except TransvizError:
            return  # the window reports unreadable files
        if snapshots and curves is not None:  # a timeline is shown with the curves of its run, or not at all
            self._show_saved_timeline(snapshots, curves, model.path)
        elif snapshots:
            self._clear_plots()
            name = Path(model.path).name
            self._show_timeline([], lambda: self.tr(
                "{0} recorded no training curves: its snapshots are not shown without them").format(name))

    # -- closing the window during a run -------------------------------------------------------------
    def confirm_close(self, close_again: Callable[[], object]) -> bool:
        """Closing while a model trains asks first; "Stop and close" stops the run, which saves,
        then calls ``close_again``."""
        if not self.is_running():
            return True
        box = QMessageBox(QMessageBox.Icon.Question, self.tr("Training is running"), self.tr(
            "A model is being trained. Stop the training and close transviz?\n\nThe model trained so far will "
            "be saved to:\n{0}").format(self.checkpoint), QMessageBox.StandardButton.Cancel, self)
        box.setObjectName("stop_training_question")
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        stop = box.addButton(self.tr("Stop training and close"), QMessageBox.ButtonRole.AcceptRole)
        stop.clicked.connect(lambda: self._stop_and_close(close_again))
        box.open()
        return False

    def _stop_and_close(self, close_again: Callable[[], object]) -> None:
        self._close_after_training = close_again
        if not self.is_running():  # it ended while the question was open
            close_again()
            return
        self.status.emit(self.tr("Stopping the training and saving to {0}...").format(self.checkpoint))
        self.stop()

    def _close_if_asked(self, running: bool) -> None:
        if not running and self._close_after_training is not None:
            self._close_after_training()

    # -- drag and drop of corpora ------------------------------------------------------------------
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if dropped_file(event, TSV_SUFFIXES) and not self.is_running():
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:
        path = dropped_file(event, TSV_SUFFIXES)
        if path and not self.is_running():
            event.acceptProposedAction()
            self.form.set_tsv(path)


def knows_words(model: Model, sentence: str) -> bool:
    """Whether ``model`` reads every word of ``sentence`` (none unknown, none too many)."""
    try:
        return not model.encode_source(sentence).unknown
    except TransvizError:
        return False
