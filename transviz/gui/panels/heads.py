"""The heads tab: how much each attention head of the loaded model matters to its task, and how
many can go. For each kind of attention, a layers x heads map of the score lost when that head
alone is switched off, and the prune curve: heads switched off one after another, least important
first, equally important heads in layer, head order (the line) and in a few random orders (the band
around it, and the spread of how many heads can go).
Measured in the background (:mod:`transviz.core.analysis.head_importance`) on a copy of the model;
clicking a head switches it off in the explorer.
"""
from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QGridLayout, QHBoxLayout, QProgressBar, QPushButton, QWidget

from ...core.analysis.head_importance import Metric, PruneCurve, Stopped, head_importance, prune_curves, tied_heads
from ...core.base.errors import TransvizError
from ...core.decoding.interventions import KINDS, AblateHead, Kind
from ...core.model.bundle import Model, decoding_copy
from ...core.teaching.workspace import Workspace
from ..services.core_messages import translated
from ..services.language import Retranslated
from ..services.workers import TaskRunner, TaskState
from ..style import BLUE, GREEN, VERMILLION, plain_axes
from ..widgets.heatmap import AxisNames, HeatmapWidget
from ..widgets.labels import bound_label, duration_text, error_label, plain_label, show_error
from ..widgets.plots import legend_below
from .base import PlotPanel

COLOURS = {"encoder_self": BLUE, "decoder_self": GREEN, "cross": VERMILLION}
# per kind: the importance, the curve with ties in layer, head order, the curves with ties shuffled
Results = dict[Kind, tuple[np.ndarray, PruneCurve, tuple[PruneCurve, ...]]]


def measure(model: Model, metric: Metric, data: str, state: TaskState) -> Results:
    """Every kind's importance and prune curve on ``data`` (a split or a TSV file): the worker's
    task, on its own copy of the model."""
    own = decoding_copy(model)  # the explorer decodes the workspace's model meanwhile
    found: Results = {}
    for index, kind in enumerate(KINDS):
        importance = head_importance(own, kind, metric, data, _reporter(state, 2 * index), state.is_cancelled)
        curve, *shuffled = prune_curves(own, kind, metric, data, importance,
                                        on_progress=_reporter(state, 2 * index + 1), cancelled=state.is_cancelled)
        found[kind] = (importance, curve, tuple(shuffled))
    return found


def _reporter(state: TaskState, phase: int) -> Callable[[int, int], None]:
    """Progress of one of the six phases (importance, then curve, of each kind) as a share of all."""
    return lambda done, total: state.set_progress(100 * (phase + done / total) / (2 * len(KINDS)))


class HeadsPanel(Retranslated, PlotPanel):
    """Importance maps and prune curves of the loaded model's heads, measured on request."""

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(workspace, parent)
        self.results: Results = {}
        self.data = "test"  # the sentences measured on: a split of the model's task, or a TSV file
        self.runner = TaskRunner(self)
        self.runner.progress.connect(self._on_progress)
        self._started = 0.0  # when Measure was pressed (time.monotonic), for the time left
        self.runner.busy_changed.connect(self._update_buttons)
        self._build()
        self.watch_model()

    # -- construction --------------------------------------------------------------------------
    def _build(self) -> None:
        self.score_choice = self.choice_box(lambda: {
            "exact_match": self.tr("exact match (greedy output = reference)"),
            "logprob": self.tr("log-probability of the reference tokens")})
        self.score_choice.currentIndexChanged.connect(self._forget)
        self.measure_button, self.cancel_button = QPushButton(), QPushButton()
        self.bind_text(self.measure_button.setText, lambda: self.tr("Measure"))
        self.bind_text(self.measure_button.setToolTip, lambda: self.tr(
            "Switch every head off alone, then one after another (equally important heads in several orders), on "
            "the task's test sentences"))
        self.bind_text(self.cancel_button.setText, lambda: self.tr("Cancel"))
        self.measure_button.clicked.connect(self.start)
        self.cancel_button.clicked.connect(self.cancel)
        self.progress = QProgressBar()
        self.progress.setRange(0, 100)
        self.progress.setMinimumWidth(260)  # room for "37% · about 1 min 20 s left"
        self.error = error_label()
        controls = QHBoxLayout()
        controls.addWidget(bound_label(self, lambda: self.tr("Score")))
        controls.addWidget(self.score_choice)
        for widget in (self.measure_button, self.cancel_button, self.progress):
            controls.addWidget(widget)
        controls.addStretch(1)
        self.maps = {kind: HeatmapWidget(value_format=self._value_text) for kind in KINDS}
        for kind, heatmap in self.maps.items():
            heatmap.clicked.connect(lambda layer, head, kind=kind: self.switch_off(kind, layer, head))
        self.curve = pg.PlotWidget(enableMenu=False)
        plain_axes(self.curve.getPlotItem())
        self.curve.hideButtons()
        self.legend = legend_below(self.curve.getPlotItem(), columns=3)
        self.about = bound_label(self, lambda: self.tr(
            "Press Measure: each head of the model is switched off alone, then one after another, on the task's "
            "test sentences. Heads equally important alone go in layer and head order for the curve and in several "
            "random orders for the band around it, since how many heads can go may depend on that order. On a busy "
            "laptop this takes minutes: the bar shows how far it is and the time left."),
            wrap=True)
        self.summary = plain_label(wrap=True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.curve.setMinimumHeight(220)  # the maps' size hints would take the whole height
        self.track(*self.maps.values(), self.curve)
        body = QGridLayout()
        body.addWidget(self.about, 0, 0, 1, 3, Qt.AlignmentFlag.AlignTop)
        for column, heatmap in enumerate(self.maps.values()):
            body.addWidget(heatmap, 0, column)
        body.addWidget(self.curve, 1, 0, 1, 2)
        body.addWidget(self.summary, 1, 2, Qt.AlignmentFlag.AlignTop)
        body.setRowStretch(0, 3)
        body.setRowStretch(1, 2)
        self.arrange(controls, self.error, body)
        self._update_buttons()
        self._name_maps()

    def retranslate(self) -> None:
        super().retranslate()
        if hasattr(self, "curve"):  # built
            self._name_maps()

    def _kind_name(self, kind: Kind) -> str:
        return {"encoder_self": self.tr("encoder self-attention"), "decoder_self": self.tr("decoder self-attention"),
                "cross": self.tr("cross-attention")}[kind]

    def _name_maps(self) -> None:
        for kind, heatmap in self.maps.items():
            heatmap.set_title(self.tr("{0}: score lost without each head (click: switch it off)").format(
                self._kind_name(kind)))
            heatmap.set_axes(AxisNames(self.tr("layer"), self.tr("head"), self.tr("layers (rows)"),
                                       self.tr("heads (columns)"), self.tr("layer {row}, head {column}: {value}")))
            heatmap.set_colorbar_title(self._lost_unit())
        self.curve.setTitle(self.tr("Prune curve: heads switched off, least important first"))
        self.curve.setLabel("bottom", self.tr("heads switched off"))
        self.curve.setLabel("left", self._unit())
        self._draw()

    def _metric(self) -> Metric:
        metric: Metric = self.score_choice.currentData()
        return metric

    def _unit(self) -> str:
        return self.tr("exact match (%)") if self._metric() == "exact_match" else self.tr(
            "mean log-probability of a reference token")

    def _lost_unit(self) -> str:
        """The colour bars' unit: what a head's cell counts."""
        return self.tr("score lost (points of exact match)") if self._metric() == "exact_match" else self.tr(
            "score lost (nats per reference token)")

    def _value_text(self, value: float) -> str:
        if self._metric() == "exact_match":
            return self.tr("{0:+.1f} points").format(value)
        return self.tr("{0:+.3f} nats").format(value)

    # -- measuring -----------------------------------------------------------------------------
    def set_model(self, model: Model | None) -> None:
        self.cancel()
        self._forget()

    def _forget(self, *_: object) -> None:
        """Results of another model or metric are not shown."""
        self.runner.cancel()
        self.results = {}
        self.progress.setValue(0)
        self.progress.setFormat("%p%")
        if hasattr(self, "curve"):  # built: the units follow the score chosen (and it draws)
            self._name_maps()
        self._update_buttons()

    def start(self) -> None:
        model = self.model
        if model is None or self.runner.is_busy():
            return
        show_error(self.error, None)
        self.progress.setValue(0)
        self.progress.setFormat("%p%")
        self._started = time.monotonic()
        metric, data = self._metric(), self.data
        self.runner.start(lambda state: measure(model, metric, data, state), self._on_done, self._on_failed)

    def cancel(self) -> None:
        self.runner.cancel()
        self.progress.setFormat("%p%")  # no time left to tell

    def shutdown(self) -> None:
        self.runner.shutdown()

    def _on_progress(self, percent: float) -> None:
        """The bar, and the time left at the pace measured since Measure (a loaded laptop is many
        times slower than an idle one, so no fixed figure would hold)."""
        self.progress.setValue(round(percent))
        if percent >= 1 and self.runner.is_busy():
            elapsed = time.monotonic() - self._started
            left = duration_text(elapsed * (100 - percent) / percent)
            text = self.tr("{0}% · about {1} left").format(round(percent), left)
            self.progress.setFormat(text)  # "%" before a space is no placeholder of the bar's: it shows as is

    def _on_done(self, results: Results) -> None:
        self.results = results
        self.progress.setValue(100)
        self.progress.setFormat("%p%")
        self._draw()

    def _on_failed(self, exc: Exception) -> None:
        if isinstance(exc, Stopped):
            return
        show_error(self.error, translated(exc))

    def _update_buttons(self, *_: object) -> None:
        busy = self.runner.is_busy()
        self.measure_button.setEnabled(self.model is not None and not busy)
        self.cancel_button.setEnabled(busy)
        self.score_choice.setEnabled(not busy)

    # -- showing -------------------------------------------------------------------------------
    def _draw(self) -> None:
        self.curve.clear()
        self.legend.clear()
        for plot in (*self.maps.values(), self.curve, self.summary):
            plot.setVisible(bool(self.results))
        self.about.setVisible(not self.results)
        if not self.results:
            return
        scale = 100.0 if self._metric() == "exact_match" else 1.0
        worst = max(float(np.abs(importance).max()) for importance, _, _ in self.results.values()) * scale
        for kind, (importance, curve, shuffled) in self.results.items():
            layers, heads = importance.shape
            self.maps[kind].set_data(importance * scale, [str(i) for i in range(layers)],
                                     [str(h) for h in range(heads)], levels=(-worst, worst) if worst else (-1, 1))
            colour = COLOURS[kind]
            if shuffled:  # the band: what other orders of equally important heads give at each step
                spread = np.stack([c.values for c in (curve, *shuffled)]) * scale
                steps = np.arange(spread.shape[1])
                low, high = pg.PlotDataItem(steps, spread.min(axis=0)), pg.PlotDataItem(steps, spread.max(axis=0))
                band = QColor(colour)
                band.setAlpha(60)
                self.curve.addItem(pg.FillBetweenItem(low, high, brush=pg.mkBrush(band)))
            item = self.curve.plot(np.arange(len(curve.values)), curve.values * scale, name=self._kind_name(kind),
                                   pen=pg.mkPen(colour, width=2), symbol="o", symbolSize=6, symbolBrush=colour,
                                   symbolPen=None)
            self.legend.addItem(item, self._kind_name(kind))
        self.summary.setText(self._summary())

    def _summary(self) -> str:
        lines = []
        for kind, (importance, curve, shuffled) in self.results.items():
            count = curve.removable()
            if count is not None:
                lines.append(self._removable(kind, importance, curve, shuffled))
            else:
                lines.append(self.tr("{0}: {1:.3f} with every head, {2:.3f} with all switched off").format(
                    self._kind_name(kind), curve.values[0], curve.values[-1]))
        return "\n".join(lines)

    def _removable(self, kind: Kind, importance: np.ndarray, curve: PruneCurve, shuffled: tuple[PruneCurve, ...]
                   ) -> str:
        """How many heads can go, with its spread over the orders of equally important heads: most
        single-head importances are 0 or one sentence, so the order among them decides the count."""
        count, tied = curve.removable() or 0, tied_heads(importance)
        counts = [count, *(c.removable() or 0 for c in shuffled)]
        name, total = self._kind_name(kind), len(curve.order)
        if tied == 0:
            return self.tr("{0}: {1} of {2} heads can be switched off losing less than one point (no two heads "
                           "are equally important)").format(name, count, total)
        if min(counts) == max(counts):
            return self.tr("{0}: {1} of {2} heads can be switched off losing less than one point, in each of "
                           "{3} orders of the {4} heads whose importance ties with another's").format(
                name, count, total, len(counts), tied)
        return self.tr("{0}: {1} to {2} of {3} heads can be switched off losing less than one point, depending on "
                       "the order of the {4} heads whose importance ties with another's ({5} orders tried; the "
                       "curve's, layer and head order, gives {6})").format(
            name, min(counts), max(counts), total, tied, len(counts), count)

    def switch_off(self, kind: Kind, layer: int, head: int) -> None:
        """Switch that head off in the explorer (once) and show it there."""
        if not self.results or self.workspace.session is None:
            return
        item = AblateHead(kind, layer, head)
        if item not in self.workspace.interventions:
            try:
                self.workspace.set_interventions((*self.workspace.interventions, item))
            except TransvizError as exc:
                show_error(self.error, translated(exc))
                return
        self.status.emit(self.tr("{0}, layer {1}, head {2} is switched off in the explorer").format(
            self._kind_name(kind), layer, head))
        self.show_panel.emit("explorer")
