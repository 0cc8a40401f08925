"""The lab tab's runs: which configurations (a seed table or a custom sweep), running them one
after another on a worker thread with cancel, and writing the results as CSV.
"""
from __future__ import annotations

import csv
import io
import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, Signal

from ...core.base.errors import ConfigError
from ...core.base.files import write_atomically
from ...core.base.messages import Message
from ...core.model.init import InitScheme
from ...core.training.lab import SWEEPS, LabResult, LabSettings, calibrate, published, run_lab, sweep_settings
from .background import OwnThreadWorker
from .core_messages import translated

VARIED = ("lr", "warmup", "init", "layers", "batch")  # what a custom sweep may vary (LabSettings fields)
CSV_COLUMNS = ("setting", "lr", "warmup", "init", "layers", "batch", "steps", "test_batches", "test_mse",
               "seed_mse", "seconds", "status")


@dataclass(frozen=True)
class LabRow:
    """One configuration to run, with the seed's published test MSE for it (None: the seed has none)."""

    label: str
    settings: LabSettings
    published: float | None


def row_label(label: str) -> str:
    """A row's label in the language in use (the tutorial's rows are core templates; a custom
    sweep's ``name=value`` stays as typed)."""
    return translated(Message(label))


def seed_rows(table: str, base: LabSettings) -> list[LabRow]:
    """The rows of one of the seed's tables, run with ``base``'s length, device and seed."""
    return [LabRow(row.label, sweep_settings(row, base), row.published) for row in SWEEPS[table]]


def _value(name: str, text: str) -> float | int | str:
    if name == "init":
        return str(InitScheme.parse(text))  # ConfigError naming the schemes
    try:
        return int(text) if name in ("layers", "batch") else float(text)
    except ValueError:
        kind = QCoreApplication.translate("LabPanel", "a whole number") if name in ("layers", "batch") else \
            QCoreApplication.translate("LabPanel", "a number")
        raise ConfigError(QCoreApplication.translate("LabPanel", "{0}: '{1}' is not {2}").format(name, text, kind)) \
            from None


def custom_rows(vary: str, values: str, base: LabSettings) -> list[LabRow]:
    """``base`` once per value of ``vary`` (values separated by commas); ConfigError naming what is wrong."""
    if vary not in VARIED:
        raise ConfigError(f"a sweep varies one of {', '.join(VARIED)}, not {vary!r}")
    texts = [t.strip() for t in values.split(",") if t.strip()]
    if not texts:
        raise ConfigError(QCoreApplication.translate("LabPanel", "list the values to try, separated by commas"))
    rows = []
    for text in texts:
        change: dict[str, Any] = {vary: _value(vary, text)}  # a field named at run time
        settings = replace(base, **change)  # LabSettings checks the value
        rows.append(LabRow(f"{vary}={text}", settings, published(settings)))
    return rows


def csv_text(results: Sequence[tuple[LabRow, LabResult]]) -> str:
    """The results as CSV: one line per run, the seed's value beside the measured one."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row, result in results:
        s = row.settings
        mse = "" if math.isnan(result.test_mse) else f"{result.test_mse:.6g}"
        seed = "" if row.published is None else f"{row.published:g}"
        writer.writerow([row.label, f"{s.lr:g}", f"{s.warmup:g}", s.init, s.layers, s.batch, s.steps, s.test_batches,
                         mse, seed, f"{result.seconds:.2f}", result.status])
    return out.getvalue()


def write_csv(path: str | Path, results: Sequence[tuple[LabRow, LabResult]]) -> Path:
    data = csv_text(results).encode("utf-8")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_atomically(path, data)


class LabWorker(OwnThreadWorker):
    """Runs lab rows one after another on its own thread; :meth:`cancel` stops between batches.

    Signals (delivered on the GUI thread):
        stepped(int, int, float): row index, step, training loss.
        row_done(int, LabResult): a row ended (finished, diverged, or stopped by cancel).
        all_done(bool): the run ended; True if it was cancelled before the last row finished.
        failed(Exception): a row could not run (e.g. a device that is not there).
        calibrated(str, float): a device and its seconds per cost unit (:func:`~transviz.core.training.lab.calibrate`).

    A calibration runs on the same thread as the rows, so it never shares torch's random
    state with a run; starting rows drops a calibration still running (it ends first).
    """

    stepped = Signal(int, int, float)
    row_done = Signal(int, object)
    all_done = Signal(bool)
    failed = Signal(object)
    calibrated = Signal(str, float)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__("transviz-lab", parent)
        self._stop = threading.Event()
        self._calibrating = False

    def is_running(self) -> bool:
        """Rows are running (a calibration alone does not count)."""
        return super().is_running() and not self._calibrating

    def calibrate(self, device: str) -> None:
        """Time a short run on ``device`` unless rows are running; reported by ``calibrated``."""
        if super().is_running():
            return

        def done(seconds_per_unit: float) -> None:
            self._calibrating = False
            self.calibrated.emit(device, seconds_per_unit)

        def failed(exc: Exception) -> None:  # a device that is not there: no estimate
            self._calibrating = False

        self._calibrating = True
        self._runner.start(lambda state: calibrate(device), done, failed)

    def start(self, rows: Sequence[LabRow]) -> None:
        if self.is_running():
            raise RuntimeError("a lab run is in progress")
        self._calibrating = False
        self._stop = threading.Event()
        stop, rows = self._stop, list(rows)
        self._runner.start(lambda state: self._run(rows, stop), lambda done: self.all_done.emit(not done),
                           self.failed.emit)

    def cancel(self) -> None:
        """Stop after the current batch; rows already finished keep their results."""
        self._stop.set()

    def stop_work(self) -> None:
        self.cancel()

    def _run(self, rows: list[LabRow], stop: threading.Event) -> bool:
        """Worker thread: every row in turn; True when all finished, False when cancelled."""
        for index, row in enumerate(rows):

            def on_step(step: int, loss: float, lr: float, index: int = index) -> None:
                self.stepped.emit(index, step, loss)

            result = run_lab(row.settings, on_step, stop)
            self.row_done.emit(index, result)
            if result.status == "stopped":
                return False
        return True
