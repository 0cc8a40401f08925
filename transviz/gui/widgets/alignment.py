"""The current step's alignment drawn as lines: from the output chip being written to each source
chip, as thick and as opaque as the cross-attention weight between them.

An overlay over the explorer (it ignores the mouse), because the two rows of chips live in
different widgets; it takes the weights from the caller (one cross-attention row), never the model.
"""
from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QPoint, QPointF, QRect, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPen, QRegion
from PySide6.QtWidgets import QWidget

from ..style import HIGHLIGHT
from .token_strip import TokenStrip

MAX_WIDTH = 6.0  # pixels of a line of weight 1
FAINTEST = 0.02  # weights below this draw no line: noise would cover the picture


class AlignmentLines(QWidget):
    """Lines from chip ``output_index`` of ``outputs`` to every chip of ``sources``, weighted.

    Args:
        parent: the widget it covers (the explorer); both strips must be inside it.
        outputs, sources: the output and source token strips.
        between: widgets between the strips (the buttons) that lines pass behind, not over.
    """

    def __init__(self, parent: QWidget, outputs: TokenStrip, sources: TokenStrip,
                 between: Sequence[QWidget] = ()) -> None:
        super().__init__(parent)
        self.host, self.outputs, self.sources, self.between = parent, outputs, sources, list(between)
        self._output_index: int | None = None
        self._weights: list[float] = []
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setAttribute(Qt.WidgetAttribute.WA_NoSystemBackground)
        self.hide()

    def show_alignment(self, output_index: int | None, weights: Sequence[float]) -> None:
        """Draw ``weights`` (one per source chip) from output chip ``output_index``; None: no lines."""
        self._output_index, self._weights = output_index, [float(w) for w in weights]
        self.setGeometry(self.host.rect())
        self.raise_()
        self.setVisible(output_index is not None)
        self.update()

    @property
    def weights(self) -> list[float]:
        return list(self._weights) if self.isVisible() else []

    def lines(self) -> list[tuple[QPointF, QPointF, float]]:
        """(start, end, weight) of every line drawn, in this widget's coordinates."""
        index = self._output_index
        chips = len(self.sources.chips)
        if index is None or index >= len(self.outputs.chips) or chips != len(self._weights):
            return []  # the strips show something else (a sentence being typed): no line would be true
        start_rect = self.outputs.chip_rect(index)
        start = QPointF(self.outputs.mapTo(self.host, start_rect.center()))
        start.setY(self.outputs.mapTo(self.host, start_rect.topLeft()).y())
        out = []
        for chip, weight in enumerate(self._weights):
            if weight < FAINTEST:
                continue
            rect = self.sources.chip_rect(chip)
            end = QPointF(self.sources.mapTo(self.host, rect.center()))
            end.setY(self.sources.mapTo(self.host, rect.bottomLeft()).y())
            out.append((start, end, weight))
        return out

    def covered(self) -> QRegion:
        """Where lines may be drawn: everywhere but over the widgets between the strips."""
        region = QRegion(self.rect())
        for widget in self.between:
            if widget.isVisible():
                region -= QRegion(QRect(widget.mapTo(self.host, QPoint(0, 0)), widget.size()))
        return region

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setClipRegion(self.covered())  # lines were drawn across the Back and Step buttons
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        for start, end, weight in self.lines():
            colour = QColor(HIGHLIGHT)
            colour.setAlphaF(min(1.0, 0.25 + 0.75 * weight))
            painter.setPen(QPen(colour, max(1.0, MAX_WIDTH * weight), Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
            painter.drawLine(start, end)
