"""File > Export animation: a decoding run of one of the tab's plots (the grid, the large head, a
concept view), chosen by a plain name, or of the whole window, a frame per step, each under a caption
with the step and the token written, as GIF or MP4 (:mod:`transviz.core.teaching.animation`).

Frames are taken by going back from the last step to the first on the window's own session inside
:meth:`~transviz.core.decoding.session.DecodingSession.excursion`, which then puts every record back as it
was: forced tokens and sampled words are never decoded again, and nothing the user did is lost.
"""
from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path

import numpy as np
from PySide6.QtCore import QCoreApplication, QObject, QRect, Qt, Signal
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QProgressDialog,
    QSpinBox,
    QTabWidget,
    QWidget,
)

from ..core.base.errors import InputError, TransvizError
from ..core.decoding.session import DecodingSession
from ..core.teaching.animation import FORMATS, Timing, check_name, write_animation
from ..core.teaching.workspace import Workspace
from .panels.base import PlotPanel
from .panels.lazy_tabs import LazyPanels
from .services.core_messages import translated

Progress = Callable[[int, int], bool]  # (frames taken, frames in all) -> go on


def grab_rgb(widget: QWidget, caption: str = "") -> np.ndarray:
    """``widget`` as it looks now, under a line of ``caption`` if given: (height, width, 3) uint8."""
    QApplication.processEvents()  # a view that draws on its next turn of the event loop
    image = widget.grab().toImage().convertToFormat(QImage.Format.Format_RGB888)
    if caption:
        image = _captioned(image, caption, widget)
    rows = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.bytesPerLine())
    return rows[:, : image.width() * 3].reshape(image.height(), image.width(), 3).copy()


def _captioned(image: QImage, caption: str, widget: QWidget) -> QImage:
    """``image`` under a band holding ``caption`` in the widget's font and colours."""
    metrics = widget.fontMetrics()
    band = metrics.height() * 2
    framed = QImage(image.width(), image.height() + band, QImage.Format.Format_RGB888)
    palette = widget.palette()
    framed.fill(palette.window().color())
    painter = QPainter(framed)
    try:
        painter.drawImage(0, band, image)
        painter.setFont(widget.font())
        painter.setPen(QColor(palette.windowText().color()))
        painter.drawText(QRect(8, 0, image.width() - 16, band), int(Qt.AlignmentFlag.AlignVCenter),
                         metrics.elidedText(caption, Qt.TextElideMode.ElideRight, image.width() - 16))
    finally:
        painter.end()
    return framed


def step_caption(session: DecodingSession, total: int) -> str:
    """What a frame shows: its step of ``total`` and the token written there."""
    position = session.position
    if position == 0:
        return QCoreApplication.translate("AnimationExport", "Step 0 of {0}: before the first token").format(total)
    return QCoreApplication.translate("AnimationExport", "Step {0} of {1}: wrote '{2}'").format(
        position, total, session.output_tokens[position - 1])


def record_run(session: DecodingSession, grab: Callable[[], np.ndarray], to_end: bool = False,
               progress: Progress | None = None) -> list[np.ndarray] | None:
    """A frame per position of ``session`` from 0 to the current step, or to where decoding stops
    when ``to_end``; the session is left as it was. None when ``progress`` says stop."""
    with session.excursion():
        while to_end and session.cant_step() is None:
            session.step()
        total = session.position + 1
        frames = [grab()]
        while session.position > 0:
            if progress is not None and not progress(len(frames), total):
                return None
            session.back()
            frames.append(grab())
    return frames[::-1]


class AnimationOptions(QDialog):
    """What to animate (one of ``plots``, by plain names, or the whole window), how far, and how fast."""

    def __init__(self, plots: list[tuple[QWidget, str]], current: QWidget | None, position: int,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Export animation"))
        self.picture = QComboBox()
        for plot, name in plots:
            self.picture.addItem(name, plot)
        self.picture.addItem(self.tr("the whole window"), None)
        self.picture.setCurrentIndex(next((i for i, (plot, _) in enumerate(plots) if plot is current), 0))
        self.steps = QComboBox()
        self.steps.addItems([self.tr("From the first step to this one ({0})").format(position),
                             self.tr("From the first step to the end")])
        self.frame_ms = _milliseconds(Timing.frame_ms, 20, 60_000)
        self.hold_ms = _milliseconds(Timing.hold_ms, 0, 600_000)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        form.addRow(self.tr("Picture:"), self.picture)
        form.addRow(self.tr("Steps:"), self.steps)
        form.addRow(self.tr("Each step shows for:"), self.frame_ms)
        form.addRow(self.tr("The last step stays for another:"), self.hold_ms)
        form.addRow(buttons)

    def whole_window(self) -> bool:
        return self.picture.currentData() is None

    def plot(self) -> QWidget | None:
        """The plot chosen (None: the whole window)."""
        plot: QWidget | None = self.picture.currentData()
        return plot

    def to_end(self) -> bool:
        return self.steps.currentIndex() == 1

    def timing(self) -> Timing:
        return Timing(self.frame_ms.value(), self.hold_ms.value())


def _milliseconds(value: int, low: int, high: int) -> QSpinBox:
    box = QSpinBox()
    box.setRange(low, high)
    box.setSingleStep(100)
    box.setValue(value)
    box.setSuffix(" ms")
    return box


class AnimationExport(QObject):
    """Exports the window's decoding run as an animation.

    Signals:
        status(str): a message for the status bar.
        error(str, str): the title and the message of an error box.
    """

    status = Signal(str)
    error = Signal(str, str)

    def __init__(self, workspace: Workspace, tabs: QTabWidget, panels: LazyPanels, window: QWidget) -> None:
        super().__init__(window)
        self.workspace, self.tabs, self.panels, self.window = workspace, tabs, panels, window

    def _panel(self) -> PlotPanel:
        panel = self.tabs.currentWidget()
        assert isinstance(panel, PlotPanel)
        return panel

    def record(self, whole_window: bool = False, to_end: bool = False,
               progress: Progress | None = None, plot: QWidget | None = None) -> list[np.ndarray] | None:
        """The frames of the run: ``plot`` (default: the current tab's current plot), or the whole
        window, at each step, each under a caption with its step and token."""
        session = self.workspace.session
        refusal = self.refusal()
        if session is None or refusal:
            raise InputError(refusal or self.tr("there is no run to animate: type a sentence first"))
        widget = self.window if whole_window else plot or self._panel().current_plot()
        with ExitStack() as every_tab:
            for panel in self.panels.built():  # a tab not built yet draws nothing
                every_tab.enter_context(panel.drawn_at_once())
            total = self._last_position(session, to_end)
            return record_run(session, lambda: grab_rgb(widget, step_caption(session, total)), to_end, progress)

    @staticmethod
    def _last_position(session: DecodingSession, to_end: bool) -> int:
        """The step the frames end at: the session's, or where decoding stops."""
        if not to_end:
            return session.position
        with session.excursion():
            while session.cant_step() is None:
                session.step()
            return session.position

    def refusal(self) -> str | None:
        """Why a tab cannot let the run be stepped through now (None: none objects)."""
        return next(filter(None, (panel.refuses_animation() for panel in self.panels.built())), None)

    def export(self, path: str | Path, whole_window: bool = False, to_end: bool = False,
               timing: Timing = Timing(), progress: Progress | None = None,
               plot: QWidget | None = None) -> Path | None:
        """Write the run to ``path`` (.gif or .mp4); None when ``progress`` stopped it."""
        check_name(path)
        frames = self.record(whole_window, to_end, progress, plot)
        return None if frames is None else write_animation(frames, path, timing)

    def export_with_dialog(self) -> None:
        session, refusal = self.workspace.session, self.refusal()
        if session is None or refusal:
            self.error.emit(self.tr("Nothing to animate"), refusal or self.tr(
                "Type a sentence first: an animation shows its decoding, a frame per step."))
            return
        panel = self._panel()
        plots = [(plot, panel.plot_name(plot)) for plot in panel.shown_plots()]
        options = AnimationOptions(plots, panel.current_plot(), session.position, self.window)
        if options.exec() != QDialog.DialogCode.Accepted:
            return
        path, chosen = QFileDialog.getSaveFileName(self.window, self.tr("Export animation"), "run.gif",
                                                   self.tr("GIF animation (*.gif);;MP4 video (*.mp4)"))
        if not path:
            return
        if Path(path).suffix.lower() not in FORMATS:
            path += ".mp4" if "mp4" in chosen else ".gif"
        self._export_with_progress(path, options)

    def _export_with_progress(self, path: str, options: AnimationOptions) -> None:
        dialog = QProgressDialog(self.tr("Taking a picture of every step..."), self.tr("Cancel"), 0, 0, self.window)
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.setMinimumDuration(300)

        def progress(done: int, total: int) -> bool:
            dialog.setMaximum(total)
            dialog.setValue(done)
            return not dialog.wasCanceled()

        try:
            written = self.export(path, options.whole_window(), options.to_end(), options.timing(), progress,
                                  options.plot())
        except (OSError, TransvizError) as exc:
            self.error.emit(self.tr("Could not export the animation"), translated(exc))
            return
        finally:
            dialog.close()
        if written is not None:
            self.status.emit(self.tr("Saved {0}").format(written))
