"""The next-token panel: the last step's most probable tokens as horizontal bars, the chosen one
highlighted (and, in teacher forcing, the gold one outlined). Clicking a bar asks to choose that
token instead (the explorer forces it: "what if the model had said this?")."""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPoint, QPointF, Qt, Signal
from PySide6.QtWidgets import QVBoxLayout, QWidget

from ..core.decoding import StepRecord
from .app import HIGHLIGHT, PALETTE
from .heatmap import TokenAxis
from .labels import plain_label

BAR_HEIGHT = 0.7
OTHER, CHOSEN, GOLD = PALETTE[0], HIGHLIGHT, PALETTE[2]
X_MAX = 1.3  # room right of a bar of probability 1 for its number


class CandidatesChart(QWidget):
    """Bars of ``record.candidates``, most probable on top.

    Signals:
        candidate_clicked(str): the token whose row was clicked.
    """

    candidate_clicked = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._record: StepRecord | None = None
        self._title = plain_label(wrap=True)
        self._axis = TokenAxis("left")
        self._view = pg.PlotWidget(axisItems={"left": self._axis})
        plot = self._view.getPlotItem()
        plot.hideButtons()
        plot.setMenuEnabled(False)
        plot.setLabel("bottom", self.tr("probability"))
        box = plot.getViewBox()
        box.invertY(True)
        box.setMouseEnabled(False, False)
        self._bars = pg.BarGraphItem(x0=[], y=[], width=[], height=BAR_HEIGHT)
        self._bars.setVisible(False)
        plot.addItem(self._bars)
        self._numbers: list[pg.TextItem] = []  # one per bar, reused from step to step
        self._hint = plain_label(self.tr("Click a bar to make the model write that token instead."), wrap=True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self._title)
        layout.addWidget(self._view, 1)
        layout.addWidget(self._hint)
        self._view.scene().sigMouseClicked.connect(self._on_clicked)
        self.show_record(None)

    @property
    def title(self) -> str:
        return self._title.text()

    def show_record(self, record: StepRecord | None) -> None:
        """Draw ``record``'s candidates (None: nothing yet)."""
        self._record = record
        if record is None:
            self._title.setText(self.tr("Next-token candidates: press Step to see what the model considers."))
            self._bars.setVisible(False)
            self._axis.set_labels([])
            for number in self._numbers:
                number.setVisible(False)
            return
        tokens = [c.token for c in record.candidates]
        probabilities = np.array([c.probability for c in record.candidates], dtype=float)
        brushes = [pg.mkBrush(CHOSEN if token == record.token else OTHER) for token in tokens]
        pens = [pg.mkPen(GOLD, width=3) if token == record.gold_token else pg.mkPen(None) for token in tokens]
        rows = np.arange(len(tokens)) + 0.5
        self._bars.setOpts(x0=np.zeros(len(tokens)), y=rows, width=probabilities, height=BAR_HEIGHT,
                           brushes=brushes, pens=pens)
        self._bars.setVisible(True)
        self._axis.set_labels(tokens)
        self._draw_numbers(rows, probabilities)
        box = self._view.getPlotItem().getViewBox()
        box.setRange(xRange=(0, X_MAX), yRange=(0, max(len(tokens), 1)), padding=0)
        box.prepareForPaint()  # apply the range now: one paint instead of two (see HeatmapWidget.set_data)
        self._title.setText(self._title_text(record))

    def _draw_numbers(self, rows: np.ndarray, probabilities: np.ndarray) -> None:
        while len(self._numbers) < len(rows):
            number = pg.TextItem(color="k", anchor=(0, 0.5))
            self._view.addItem(number)
            self._numbers.append(number)
        for i, number in enumerate(self._numbers):
            number.setVisible(i < len(rows))
            if i < len(rows):
                number.setText(f"{probabilities[i]:.3f}")
                number.setPos(float(probabilities[i]) + 0.02, float(rows[i]))

    def _title_text(self, record: StepRecord) -> str:
        listed = [c.token for c in record.candidates]
        text = self.tr("Step {0}: the model's {1} most probable next tokens; it wrote '{2}' (p = {3:.3f})").format(
            record.index + 1, len(listed), record.token, record.probability)
        if record.forced:
            text += self.tr(", forced by you")
        if record.token not in listed:
            text += self.tr(", not among them")
        if record.gold_token is not None:
            text += self.tr(". Teacher forcing: the gold token is outlined green; the model predicted '{0}'").format(
                record.predicted_token)
        return text

    # -- what is shown (tests) -------------------------------------------------------------------
    def bars(self) -> list[tuple[str, float]]:
        """(token, probability) of every bar drawn, top to bottom."""
        if not self._bars.isVisible():
            return []
        widths = self._bars.opts["width"]
        return list(zip(self._axis.labels, (float(w) for w in widths)))

    def bar_brush(self, index: int) -> str:
        return pg.mkBrush(self._bars.opts["brushes"][index]).color().name()

    def bar_position(self, index: int) -> QPoint:
        """The middle of bar ``index`` in this widget's coordinates."""
        width = float(self._bars.opts["width"][index])
        scene = self._view.getPlotItem().getViewBox().mapViewToScene(QPointF(max(width / 2, 0.02), index + 0.5))
        return self._view.mapTo(self, self._view.mapFromScene(scene))

    def _on_clicked(self, event) -> None:  # type: ignore[no-untyped-def]  # pyqtgraph's click event
        if self._record is None or event.button() != Qt.MouseButton.LeftButton:
            return
        box = self._view.getPlotItem().getViewBox()
        if not box.sceneBoundingRect().contains(event.scenePos()):
            return
        row = math.floor(box.mapSceneToView(event.scenePos()).y())
        if 0 <= row < len(self._record.candidates):
            self.candidate_clicked.emit(self._record.candidates[row].token)
