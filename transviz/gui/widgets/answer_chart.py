"""The class's answers to the open question: a bar per choice, as long as its share of the answers,
with the count beside it. The right answer is not marked until the teacher reveals it: the chart is
on the projector while the class still answers.

One plain painted widget, like the candidates' bars: an answer repaints a few rectangles.
"""
from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from ..style import PALETTE

BAR, RIGHT = QColor(PALETTE[0]), QColor(PALETTE[2])
ROW_HEIGHT, BAR_SHARE, MARGIN = 28, 0.7, 6  # most pixels a row gets; the bar's part of it; edges
RIGHT_MARK = "\u2713"  # after the right choice's count, once revealed


class AnswerChart(QWidget):
    """Bars of the counts per choice; :meth:`set_truth` marks the right one (at the reveal)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.choices: list[str] = []
        self.counts: list[int] = []
        self.truth: int | None = None
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.setMinimumSize(120, 60)

    def sizeHint(self) -> QSize:
        return QSize(240, self._rows_height(max(len(self.choices), 2)))

    def minimumSizeHint(self) -> QSize:
        return QSize(120, self._rows_height(max(len(self.choices), 2)))

    def _rows_height(self, rows: int) -> int:
        return rows * max(ROW_HEIGHT, self.fontMetrics().height() + 6) + 2 * MARGIN

    def set_question(self, choices: Sequence[str]) -> None:
        """A new question: its choices as shown (numbered here), no answers, nothing marked."""
        self.choices, self.counts, self.truth = list(choices), [0] * len(choices), None
        self.updateGeometry()
        self.update()

    def set_counts(self, counts: Sequence[int]) -> None:
        if len(counts) == len(self.choices):
            self.counts = list(counts)
            self.update()

    def set_truth(self, index: int | None) -> None:
        """Mark choice ``index`` as the right answer (None: nothing marked)."""
        self.truth = index
        self.update()

    def clear(self) -> None:
        self.set_question([])

    # -- drawing -----------------------------------------------------------------------------------
    def row_text(self, index: int) -> str:
        return f"{index + 1}  {self.choices[index]}"

    def count_text(self, index: int) -> str:
        total = sum(self.counts)
        share = f" ({self.counts[index] / total:.0%})" if total else ""
        return f"{self.counts[index]}{share}" + (f"  {RIGHT_MARK}" if index == self.truth else "")

    def paintEvent(self, event: QPaintEvent) -> None:
        if not self.choices:
            return
        painter = QPainter(self)
        metrics = self.fontMetrics()
        text = self.palette().text().color()
        rows = len(self.choices)
        height = max(1.0, min(float(max(ROW_HEIGHT, metrics.height() + 6)), (self.height() - 2 * MARGIN) / rows))
        widest = max(metrics.horizontalAdvance(self.row_text(i)) for i in range(rows))
        left = MARGIN + min(widest + 2, self.width() * 0.45) + MARGIN  # a long choice is elided, the bars keep room
        number = metrics.horizontalAdvance(f"999 (100%)  {RIGHT_MARK}") + MARGIN
        length = max(self.width() - left - number - MARGIN, 10.0)
        total = max(sum(self.counts), 1)
        for i in range(rows):
            top = MARGIN + i * height
            label = metrics.elidedText(self.row_text(i), Qt.TextElideMode.ElideRight, int(left - 2 * MARGIN))
            painter.setPen(text)
            painter.drawText(QRectF(MARGIN, top, left - 2 * MARGIN, height),
                             int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), label)
            bar = QRectF(left, top + height * (1 - BAR_SHARE) / 2, max(self.counts[i] / total * length, 1.0),
                         height * BAR_SHARE)
            painter.fillRect(bar, RIGHT if i == self.truth else BAR)
            if i == self.truth:
                painter.setPen(QPen(text, 2))
                painter.drawRect(bar)
            painter.setPen(text)
            painter.drawText(QRectF(bar.right() + MARGIN, top, number, height),
                             int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), self.count_text(i))

    # -- what is shown (tests) ---------------------------------------------------------------------
    def bars(self) -> list[tuple[str, int]]:
        """(choice, count) of every bar, top to bottom."""
        return list(zip(self.choices, self.counts, strict=True))
