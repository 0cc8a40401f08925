"""Paint one query row of a heatmap by dragging along it: the cells the pointer crosses share the
row's weight equally ("what if this head had looked at these words?").

The press picks the row; only the pointer's column counts after that, so a hand that drifts up or
down keeps painting the same row. A drag shorter than the platform's drag distance stays a click.
The painter only watches: the plot still sees every event (hover readouts go on during a drag).
"""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QEvent, QObject, QPointF, Qt, Signal
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication, QWidget

from .heatmap import HeatmapWidget


def painted_weights(columns: list[int], keys: int) -> np.ndarray:
    """A row of ``keys`` weights: the painted ``columns`` share 1 equally, the rest 0."""
    weights = np.zeros(keys, np.float64)
    weights[columns] = 1.0 / len(columns)
    return weights


class RowPainter(QObject):
    """Watches drags on ``heatmap``.

    Signals:
        painting(int, object): a drag is on; the row and its weights so far (numpy), for a preview.
        painted(int, object): the drag ended; the row and its final weights.
    """

    painting = Signal(int, object)
    painted = Signal(int, object)

    def __init__(self, heatmap: HeatmapWidget) -> None:
        super().__init__(heatmap)
        self.heatmap = heatmap
        self._row: int | None = None
        self._columns: list[int] = []
        self._start = QPointF()
        self._dragging = False
        heatmap.canvas().installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt's signature
        if isinstance(event, QMouseEvent) and isinstance(watched, QWidget):
            point = QPointF(watched.mapTo(self.heatmap, event.position().toPoint()))
            kind = event.type()
            if kind == QEvent.Type.MouseButtonPress and event.button() == Qt.MouseButton.LeftButton:
                self._press(point)
            elif kind == QEvent.Type.MouseMove and event.buttons() & Qt.MouseButton.LeftButton:
                self._move(point)
            elif kind == QEvent.Type.MouseButtonRelease and event.button() == Qt.MouseButton.LeftButton:
                self._release()
        return False

    def _press(self, point: QPointF) -> None:
        cell = self.heatmap.cell_under(point)
        self._row, self._columns = (None, []) if cell is None else (cell[0], [cell[1]])
        self._start, self._dragging = point, False

    def _move(self, point: QPointF) -> None:
        if self._row is None:
            return
        if not self._dragging and (point - self._start).manhattanLength() < QApplication.startDragDistance():
            return
        self._dragging = True
        on_row = QPointF(point.x(), self.heatmap.cell_position(self._row, 0).y())
        cell = self.heatmap.cell_under(on_row)
        if cell is not None and cell[1] not in self._columns:
            self._columns.append(cell[1])
        self.painting.emit(self._row, self._weights())

    def _release(self) -> None:
        row, dragging = self._row, self._dragging
        self._row, self._dragging = None, False
        if row is not None and dragging:
            self.painted.emit(row, self._weights())

    def _weights(self) -> np.ndarray:
        return painted_weights(self._columns, self.heatmap.data.shape[1])
