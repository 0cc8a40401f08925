"""The lab tab: the warm-up / initialisation experiment of the tutorial "Transformer简述"
(000_d44500b147c75d2f.txt), whose tables the tab reruns.

Pick one of its tables (or build a sweep), Run, and the results table fills row by row with the
test loss (half the MSE, the tutorial's figure), the time and a mark for runs that were stuck or
diverged, the seed's published value beside each; every run's training loss is overlaid in one
log-scale plot, so the run at lr=1e-3 without warm-up stands out, stuck at the mean predictor's 3.5.
Runs can be cancelled (finished rows stay); results export to CSV and the plot to PNG or SVG.
"""
from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import Qt, Slot
from PySide6.QtGui import QBrush, QColor, QIcon, QPixmap, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ...core.base.errors import TransvizError
from ...core.teaching.workspace import Workspace
from ...core.training.lab import MEAN_PREDICTOR_MSE, QUICK, SEED, LabResult, LabSettings, cost_units, estimate_seconds
from ..services.core_messages import translated
from ..services.export import export_with_dialog, save_picture
from ..services.lab_runs import LabRow, LabWorker, custom_rows, row_label, seed_rows, write_csv
from ..services.language import Retranslated
from ..style import PALETTE, plot_style
from ..widgets.labels import bound_label, duration_text, error_label, plain_label, show_error
from ..widgets.plots import BELOW, FrameClock, LivePlot, Series
from ..widgets.training_form import device_combo, name_devices
from .base import PlotPanel

CUSTOM = "custom"
COLUMNS = 5  # setting, test MSE, seed's MSE, time, mark
FAILED_FILL = QColor("#FCE8D5")  # runs that were stuck or diverged
LOG_SPAN = (0.05, 10.0)  # the loss axis covers the tutorial's results (0.037 to 3.5) from the start


def _curve_colour(index: int) -> str:
    return PALETTE[index % len(PALETTE)]


class LabPanel(Retranslated, PlotPanel):
    """Run the seed's lab tables (or a custom sweep) and compare with its published numbers."""

    plot: LivePlot  # built in _build(), after the buttons that export it

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(workspace, parent)
        self.rows: list[LabRow] = []  # of the current (or last) run
        self.results: list[tuple[LabRow, LabResult]] = []
        self.curves: list[Series] = []
        self._valid = True  # the custom sweep's settings
        self._latest: tuple[int, int] | None = None  # (row, step) last reported
        self._started = 0.0  # when the run started (time.monotonic), for the time left
        self.worker = LabWorker(self)
        self._seconds_per_unit: dict[str, float] = {}  # by device, measured on this machine
        self.worker.calibrated.connect(self._on_calibrated)
        self._build()
        self.clock = FrameClock(self._redraw, parent=self)
        self.worker.stepped.connect(self._on_step)
        self.worker.row_done.connect(self._on_row_done)
        self.worker.all_done.connect(self._on_all_done)
        self.worker.failed.connect(self._on_failed)
        self.set_length(SEED.steps, SEED.test_batches)
        self._on_table_changed()

    # -- construction --------------------------------------------------------------------------
    def _build(self) -> None:
        self.table_choice = self.choice_box(lambda: {
            "lr": self.tr("learning rate x warm-up (the tutorial's first table)"),
            "init": self.tr("initialisation (6 layers, 1% warm-up)"), "depth": self.tr("depth: 2 layers"),
            "batch": self.tr("batch size 64"),
            "norm": self.tr("post-LN or pre-LN, with and without warm-up (beyond the tutorial)"),
            CUSTOM: self.tr("custom sweep")})
        self.table_choice.currentIndexChanged.connect(self._on_table_changed)
        self.run_button, self.cancel_button, self.csv_button = QPushButton(), QPushButton(), QPushButton()
        self.png_button, self.svg_button = QPushButton(), QPushButton()
        for button, text in ((self.run_button, lambda: self.tr("Run")), (self.cancel_button, lambda: self.tr("Cancel")),
                             (self.csv_button, lambda: self.tr("Export CSV...")),
                             (self.png_button, lambda: self.tr("Plot as PNG...")),
                             (self.svg_button, lambda: self.tr("Plot as SVG..."))):
            self.bind_text(button.setText, text)
        self.run_button.clicked.connect(self.run)
        self.cancel_button.clicked.connect(self.cancel)
        self.csv_button.clicked.connect(self._export_csv_with_dialog)
        self.png_button.clicked.connect(lambda: export_with_dialog(self.plot, ".png", self.plot.title, self))
        self.svg_button.clicked.connect(lambda: export_with_dialog(self.plot, ".svg", self.plot.title, self))
        self.progress = QProgressBar()
        self.progress_text = plain_label()
        self.progress_text.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self._progress_message: Callable[[], str] = str  # said again after a language change
        self.about = bound_label(self, self._about_text, wrap=True)
        self.about.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        top = QHBoxLayout()
        top.addWidget(bound_label(self, lambda: self.tr("Experiment")))
        top.addWidget(self.table_choice, 1)
        for widget in (self.run_button, self.cancel_button):
            top.addWidget(widget)
        top.addWidget(self.progress, 1)
        top.addWidget(self.progress_text, 1)
        for widget in (self.csv_button, self.png_button, self.svg_button):
            top.addWidget(widget)

        self.steps, self.test_batches = QSpinBox(), QSpinBox()
        self.steps.setRange(1, 1_000_000)
        self.test_batches.setRange(1, 1_000_000)
        self.seed_button, self.quick_button = QPushButton(), QPushButton()
        self.bind_text(self.seed_button.setText, lambda: self.tr("The tutorial's setting"))
        self.bind_text(self.quick_button.setText, lambda: self.tr("Quick preset"))
        self.bind_text(self.quick_button.setToolTip, lambda: self.tr(
            "{0} steps and {1} test batches: fast on a classroom CPU, but not the tutorial's setting").format(
            QUICK.steps, QUICK.test_batches))
        self.seed_button.clicked.connect(lambda: self.set_length(SEED.steps, SEED.test_batches))
        self.quick_button.clicked.connect(lambda: self.set_length(QUICK.steps, QUICK.test_batches))
        self.length_note = plain_label(wrap=True)  # a long note wraps instead of widening the window
        self.length_note.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.estimate = plain_label(wrap=True)
        self.device = device_combo()
        for spin in (self.steps, self.test_batches):
            spin.valueChanged.connect(self._show_length_note)
            spin.valueChanged.connect(self._show_planned)
        length = QHBoxLayout()
        for text, spin in ((lambda: self.tr("Training steps"), self.steps),
                           (lambda: self.tr("test batches"), self.test_batches)):
            length.addWidget(bound_label(self, text))
            length.addWidget(spin)
        length.addWidget(self.seed_button)
        length.addWidget(self.quick_button)
        length.addWidget(self.length_note, 1)
        length.addWidget(bound_label(self, lambda: self.tr("Device")))
        length.addWidget(self.device)
        self.device.currentIndexChanged.connect(self._show_planned)
        controls = QVBoxLayout()
        controls.addWidget(self.about)
        controls.addLayout(top)
        controls.addLayout(length)
        controls.addWidget(self.estimate)
        controls.addWidget(self._build_custom())

        self.error = error_label()
        self.table = QTableWidget(0, COLUMNS)
        self.bind_text(self.table.setHorizontalHeaderLabels, lambda: [
            self.tr("Setting"), self.tr("test loss (½ MSE)"), self.tr("tutorial's value"), self.tr("time"),
            self.tr("note")])
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.table.setWordWrap(True)
        # the legend below the plot: inside it, it covered the curves (the table's swatches name them too)
        self.plot = LivePlot("", "", "", log_y=True, legend=BELOW, legend_columns=3, log_span=LOG_SPAN)
        self.bind_text(lambda texts: self.plot.set_texts(*texts), lambda: (
            self.tr("Training loss of each run (log scale)"), self.tr("loss (half the MSE)"), self.tr("step")))
        level = self.plot.add_level(MEAN_PREDICTOR_MSE, "")
        self.bind_text(level.label.setFormat, lambda: self.tr("predicting the mean: 3.5"))
        self.track(self.plot)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.table)
        splitter.addWidget(self.plot)
        splitter.setSizes([560, 840])
        self.arrange(controls, self.error, splitter)
        self._update_buttons()

    def _about_text(self) -> str:
        return self.tr(
            "The tables of the tutorial \"Transformer简述\" (Fudan, 2022-09-27), section \"预训练的意义\": "
            "without pre-training a Transformer is hard to train. A stack of encoder layers learns "
            "y = (a+1)² + b element by element from x = [a, b] (a and b standard normal, 10 x 50 values each). "
            "Each run is scored by its test loss, the tutorial's loss 0.5·(y − prediction)² averaged over fresh "
            "batches without updates: half the mean squared error (the tutorial's tables head it \"MSE\"). "
            "Predicting the mean of y for every input scores 3.5 (half the variance of y: 0.5 x (6 + 1)), so a run "
            "that ends near 3.5 is stuck: it learned nothing. As in the tutorial's script, attention runs across "
            "the batch dimension, not the sequence: each sample attends to the other samples of its batch. The "
            "target is computed element by element, so the task needs no attention at all; what the tables show "
            "is how hard the stack is to optimise.")

    def _build_custom(self) -> QGroupBox:
        self.vary = self.choice_box(lambda: {
            "lr": self.tr("learning rate"), "warmup": self.tr("warm-up (share of lr added per step)"),
            "init": self.tr("initialisation"), "layers": self.tr("layers"), "batch": self.tr("batch size")})
        self.values = QLineEdit("1e-3, 1e-4")
        self.bind_text(self.values.setToolTip, lambda: self.tr(
            "Values separated by commas; initialisations as default, xavier_uniform, normal:0.02, uniform:0.01 ..."))
        self.base_lr, self.base_warmup, self.base_init = QLineEdit(f"{SEED.lr:g}"), QLineEdit("0"), QLineEdit("default")
        self.base_layers, self.base_batch = QSpinBox(), QSpinBox()
        self.base_layers.setRange(1, 24)
        self.base_layers.setValue(SEED.layers)
        self.base_batch.setRange(1, 4096)
        self.base_batch.setValue(SEED.batch)
        self.custom = QGroupBox()
        self.bind_text(self.custom.setTitle, lambda: self.tr("Custom sweep: vary one setting, keep the others"))
        form = QFormLayout(self.custom)
        varied = QHBoxLayout()
        varied.addWidget(self.vary)
        varied.addWidget(bound_label(self, lambda: self.tr("values")))
        varied.addWidget(self.values, 1)
        form.addRow(bound_label(self, lambda: self.tr("Vary")), varied)
        base = QHBoxLayout()
        for text, widget in ((lambda: self.tr("lr"), self.base_lr), (lambda: self.tr("warm-up"), self.base_warmup),
                             (lambda: self.tr("init"), self.base_init), (lambda: self.tr("layers"), self.base_layers),
                             (lambda: self.tr("batch"), self.base_batch)):
            base.addWidget(bound_label(self, text))
            base.addWidget(widget)
        form.addRow(bound_label(self, lambda: self.tr("Others")), base)
        self.vary.currentIndexChanged.connect(self.check)
        for edit in (self.values, self.base_lr, self.base_warmup, self.base_init):
            edit.textChanged.connect(self.check)
        for spin in (self.base_layers, self.base_batch):
            spin.valueChanged.connect(self.check)
        return self.custom

    def _say(self, text: Callable[[], str]) -> None:
        """Show ``text()`` on the progress line, and again after a language change."""
        self._progress_message = text
        self.progress_text.setText(text())

    def retranslate(self) -> None:
        super().retranslate()
        self.progress_text.setText(self._progress_message())
        for line, row in enumerate(self.rows[: self.table.rowCount()]):
            item = self.table.item(line, 0)
            if item is not None:
                item.setText(row_label(row.label))
        for series, row in zip(self.curves, self.rows, strict=False):
            self.plot.rename(series, row_label(row.label))
        self._show_estimate()
        name_devices(self.device)
        self._show_length_note()
        self.check()  # the custom sweep's message
        for line, (_row, result) in enumerate(self.results):
            item = self.table.item(line, COLUMNS - 1)
            assert item is not None  # every result has its row
            item.setText(self.mark(result))

    # -- settings ------------------------------------------------------------------------------
    def set_length(self, steps: int, test_batches: int) -> None:
        self.steps.setValue(steps)
        self.test_batches.setValue(test_batches)

    def is_seed_length(self) -> bool:
        return (self.steps.value(), self.test_batches.value()) == (SEED.steps, SEED.test_batches)

    def _show_length_note(self) -> None:
        seed = self.is_seed_length()
        if seed:
            text = self.tr("the tutorial's setting: its numbers are comparable")
        elif (self.steps.value(), self.test_batches.value()) == (QUICK.steps, QUICK.test_batches):
            text = self.tr("quick preset: NOT the tutorial's setting ({0} steps, {1} test batches); "
                           "expect other numbers")
            text = text.format(SEED.steps, SEED.test_batches)
        else:
            text = self.tr("NOT the tutorial's setting ({0} steps, {1} test batches); expect other numbers").format(
                SEED.steps, SEED.test_batches)
        self.length_note.setText(text)
        # the seed's setting reads as plain text; any other as a warning in the theme's error colour
        self.length_note.setStyleSheet("" if seed else f"color: {plot_style().error}; font-weight: bold;")

    def restyle(self) -> None:
        self._show_length_note()

    def _on_table_changed(self) -> None:
        self.custom.setVisible(self.table_choice.currentData() == CUSTOM)
        self.check()
        self._show_planned()

    def _show_planned(self) -> None:
        """Before a run: the rows it would run with the tutorial's published values, and how long it may take."""
        if self.is_running():
            return
        try:
            rows = self.planned_rows()
        except TransvizError:
            rows = []
        self.rows, self.results = rows, []
        self.table.setRowCount(0)
        for index, row in enumerate(rows):
            self._add_table_row(index, row, None)
        self._show_estimate()

    def _show_estimate(self) -> None:
        device = self.device.currentData()
        per_unit = self._seconds_per_unit.get(device)
        if per_unit is None:
            self.estimate.setText(self.tr("estimated run time: measuring this machine..."))
            if self.isVisible():
                self.worker.calibrate(device)
            return
        settings = [row.settings for row in self.rows]
        seconds = estimate_seconds(settings, per_unit)
        duration = self.tr("{0} min").format(round(seconds / 60)) if seconds >= 90 else \
            self.tr("{0} s").format(round(seconds))
        self.estimate.setText(self.tr("estimated run time: about {0} for {1} runs (from runs timed on this machine)")
                              .format(duration, len(settings)))

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self.device.currentData() not in self._seconds_per_unit:
            self.worker.calibrate(self.device.currentData())  # the estimate needs this machine's speed

    @Slot(str, float)
    def _on_calibrated(self, device: str, seconds_per_unit: float) -> None:
        self._seconds_per_unit.setdefault(device, seconds_per_unit)  # a real run's timing stays
        self._show_estimate()

    def base_settings(self) -> LabSettings:
        """The run length and device chosen, on the seed's configuration."""
        return replace(SEED, steps=self.steps.value(), test_batches=self.test_batches.value(),
                       device=self.device.currentData())

    def planned_rows(self) -> list[LabRow]:
        """What Run would run; ConfigError (plain words) if the custom sweep is not valid."""
        base = self.base_settings()
        table = self.table_choice.currentData()
        if table != CUSTOM:
            return seed_rows(table, base)
        try:
            others = replace(base, lr=float(self.base_lr.text()), warmup=float(self.base_warmup.text()),
                             init=self.base_init.text().strip(), layers=self.base_layers.value(),
                             batch=self.base_batch.value())
        except ValueError:
            raise TransvizError(self.tr("lr and warm-up must be numbers (like 1e-3 and 0.01)")) from None
        return custom_rows(self.vary.currentData(), self.values.text(), others)

    def check(self) -> bool:
        try:
            self.planned_rows()
        except TransvizError as exc:
            show_error(self.error, self.tr("Custom sweep: {0}").format(translated(exc)))
            self._valid = False
        else:
            show_error(self.error, None)
            self._valid = True
        self._update_buttons()
        return self._valid

    # -- running -------------------------------------------------------------------------------
    def is_running(self) -> bool:
        return self.worker.is_running()

    def run(self) -> None:
        """Run the chosen table or sweep; the results table and the plot start afresh."""
        if self.is_running() or not self.check():
            return
        self._show_planned()
        self.plot.remove_all()
        self.curves = []
        for index, row in enumerate(self.rows):
            series = Series(row_label(row.label))
            self.plot.add_series(series, _curve_colour(index), width=1.5, dashed=index >= len(PALETTE))
            self.curves.append(series)
        self.plot.reset_axes(self.steps.value())
        self.progress.setRange(0, len(self.rows) * self.steps.value())
        self.progress.setValue(0)
        self._latest = None
        self._started = time.monotonic()
        self._say(lambda: self.tr("starting..."))
        self.worker.start(self.rows)
        self._update_buttons()

    def cancel(self) -> None:
        if self.is_running():
            self.worker.cancel()
            self._say(lambda: self.tr("cancelling after this batch..."))
            self.cancel_button.setEnabled(False)

    def shutdown(self) -> None:
        """Cancel a run and stop the worker thread (quit + wait); before the window goes."""
        self.worker.shutdown()

    def _update_buttons(self) -> None:
        running = self.is_running()
        self.run_button.setEnabled(not running and self._valid)
        self.cancel_button.setEnabled(running)
        for widget in (self.table_choice, self.steps, self.test_batches, self.seed_button, self.quick_button,
                       self.device, self.custom):
            widget.setEnabled(not running)
        has_results = bool(self.results)
        for button in (self.csv_button, self.png_button, self.svg_button):
            button.setEnabled(has_results)

    @Slot(int, int, float)
    def _on_step(self, index: int, step: int, loss: float) -> None:
        self.curves[index].append(step, loss)
        self._latest = (index, step)
        self.clock.mark()

    def _redraw(self) -> None:
        """One frame: the curves and the progress line."""
        self.plot.redraw()
        if self._latest is not None and self.is_running():
            index, step = self._latest
            self.progress.setValue(index * self.steps.value() + step)
            text = self.tr("run {0} of {1}: {2}, step {3}").format(
                index + 1, len(self.rows), row_label(self.rows[index].label), step)
            left = self._seconds_left(index, step)
            if left is not None:
                # first: the line is cut at its end where the tab is narrow
                text = self.tr("about {0} left · {1}").format(duration_text(left), text)
            self.progress_text.setText(text)
            self.progress_text.setToolTip(text)  # the line is cut where the tab is narrow

    def _seconds_left(self, index: int, step: int) -> float | None:
        """The run's time left at the pace measured since it started, on this machine as it is
        loaded now (a short calibration misses what runs beside it); None before a few steps."""
        if step < 3:
            return None
        costs = [cost_units(row.settings) for row in self.rows]
        now = self.rows[index].settings
        done = sum(costs[:index]) + now.layers * now.batch * 3 * step  # a training step: about 3 forward passes
        return (time.monotonic() - self._started) / done * (sum(costs) - done)

    @Slot(int, object)
    def _on_row_done(self, index: int, result: LabResult) -> None:
        row = self.rows[index]
        self.results.append((row, result))
        self.table.removeRow(index)
        self._add_table_row(index, row, result)
        if result.status != "stopped":  # a finished run times this machine better than the short one
            done = [r for _, r in self.results if r.status != "stopped"]
            self._seconds_per_unit[row.settings.device] = \
                sum(r.seconds for r in done) / sum(cost_units(r.settings) for r in done)
        self.clock.mark()

    def _add_table_row(self, index: int, row: LabRow, result: LabResult | None) -> None:
        """Line ``index``: the row's setting and published value; what the run measured once it ended."""
        self.table.insertRow(index)
        swatch = QPixmap(12, 12)
        swatch.fill(QColor(_curve_colour(index)))
        measured = ["", "", ""] if result is None else [
            "" if math.isnan(result.test_mse) else f"{result.test_mse:.3f}", f"{result.seconds:.0f} s",
            self.mark(result)]
        texts = [row_label(row.label), measured[0], "-" if row.published is None else f"{row.published:.3g}",
                 *measured[1:]]
        for column, text in enumerate(texts):
            item = QTableWidgetItem(text)
            if column in (1, 2, 3):
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            if result is not None and result.status in ("diverged", "stuck"):
                item.setBackground(QBrush(FAILED_FILL))
            if column == 0:
                item.setIcon(QIcon(swatch))  # the row's colour in the plot
            self.table.setItem(index, column, item)
        self.table.resizeRowToContents(index)

    def mark(self, result: LabResult) -> str:
        return {"ok": "", "stopped": self.tr("stopped (cancelled)"),
                "stuck": self.tr("stuck: learned nothing (no better than predicting the mean, 3.5)"),
                "diverged": self.tr("diverged: the loss blew up (NaN, infinite or far above 3.5)")}[result.status]

    @Slot(bool)
    def _on_all_done(self, cancelled: bool) -> None:
        self.clock.flush()
        done, total = sum(r.status != "stopped" for _, r in self.results), len(self.rows)
        self._say(lambda: self.tr("cancelled: {0} of {1} runs finished").format(done, total)
                  if cancelled else self.tr("all {0} runs finished").format(total))
        self._update_buttons()

    @Slot(object)
    def _on_failed(self, exc: Exception) -> None:
        show_error(self.error, self.tr("Lab: {0}").format(translated(exc)))
        self._say(lambda: self.tr("stopped by an error"))
        self._update_buttons()

    # -- export --------------------------------------------------------------------------------
    def export_csv(self, path: str | Path) -> Path:
        return write_csv(path, self.results)

    def export_plot(self, path: str | Path) -> Path:
        return save_picture(self.plot, path, self.plot.title)

    def _export_csv_with_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Export results"), "lab.csv", self.tr("CSV (*.csv)"))
        if not path:
            return
        try:
            self.export_csv(path if path.lower().endswith(".csv") else path + ".csv")
        except OSError as exc:
            show_error(self.error, self.tr("Could not write {0}: {1}").format(path, exc))
