"""A row of tokens drawn as chips: the tokenization preview of the source sentence (unknown words
highlighted) and the output strip (current step highlighted, forced tokens marked, the model's
prediction under each gold token in teacher forcing, tokens an intervention changed in blue).
Clicking a chip reports its index.

One widget paints every chip, so a step redraws it instead of adding widgets. A long sentence
shows at most :data:`MAX_LINES` lines at a time (the wheel scrolls them; the current chip is kept
in view), so hundreds of tokens leave the maps below their room.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QPoint, QRect, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QHelpEvent, QMouseEvent, QPainter, QPaintEvent, QPen, QResizeEvent, QWheelEvent
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from ..style import BLUE, GREY, HIGHLIGHT, PALETTE

PADDING, SPACING, RADIUS = 6, 4, 4  # pixels inside a chip, between chips, corner radius
PLAIN_FILL, CURRENT_FILL, UNKNOWN_FILL = QColor("#eeeeee"), QColor("#fde0cf"), QColor("#f7ef9e")
FORCED_LINE = QColor(PALETTE[3])  # reddish purple: a choice made by the user, not the strategy
RIGHT, WRONG = QColor(PALETTE[2]), QColor(HIGHLIGHT)  # teacher forcing: prediction = gold, or not
CHANGED_FILL, CHANGED_LINE = QColor("#cfe4f5"), QColor(BLUE)  # not what the unmodified model wrote
CHIP_TEXT = QColor("black")  # the fills are light in every theme
MAX_LINES = 3
BAR = 6  # pixels kept free at the right for the scroll bar a long strip draws


@dataclass(frozen=True)
class Chip:
    """One token as the strip draws it."""

    text: str
    tooltip: str = ""
    current: bool = False  # the current step: outlined and filled
    forced: bool = False  # chosen by the user: dashed outline and a star
    unknown: bool = False  # not in the vocabulary: yellow
    below: str | None = None  # a second line (teacher forcing: the model's prediction)
    below_right: bool = True  # the second line agrees (green) or not (red)
    changed: bool = False  # differs from the unmodified model's token (interventions): blue

    @property
    def label(self) -> str:
        return self.text + ("*" if self.forced else "")


class TokenStrip(QWidget):
    """Chips in reading order, wrapping onto more lines when the width runs out.

    Signals:
        chip_clicked(int): the index of the chip clicked (left button).
    """

    chip_clicked = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._chips: list[Chip] = []
        self._rects: list[QRect] = []  # where each chip lies on the whole strip, scrolled or not
        self._scroll = 0  # pixels of the whole strip above the visible part
        self._placeholder = ""
        policy = QSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)
        self.setMouseTracking(True)

    # -- data ------------------------------------------------------------------------------------
    def set_chips(self, chips: Sequence[Chip]) -> None:
        self._chips = list(chips)
        self._rects = self._layout(self.width())
        if self._shown_height(self._rects) != self.height():
            self.updateGeometry()  # a line more or less; otherwise the window's layout need not run again
        self._show_current()
        self.update()

    def set_placeholder(self, text: str) -> None:
        """Shown (greyed) when there are no chips."""
        self._placeholder = text
        self.update()

    @property
    def chips(self) -> list[Chip]:
        return list(self._chips)

    def chip_rect(self, index: int) -> QRect:
        """Where chip ``index`` is drawn, in this widget's coordinates (outside it when scrolled away)."""
        return self._rects[index].translated(0, -self._scroll)

    # -- geometry --------------------------------------------------------------------------------
    def _chip_size(self, chip: Chip) -> QSize:
        metrics = self.fontMetrics()
        width = metrics.horizontalAdvance(chip.label)
        lines = 1
        if chip.below is not None:
            width = max(width, metrics.horizontalAdvance(chip.below))
            lines = 2
        return QSize(width + 2 * PADDING, lines * metrics.height() + PADDING)

    def _layout(self, width: int) -> list[QRect]:
        rects, x, y, line_height = [], 0, 0, 0
        for chip in self._chips:
            size = self._chip_size(chip)
            if x > 0 and x + size.width() > width - BAR:  # wrap
                x, y, line_height = 0, y + line_height + SPACING, 0
            rects.append(QRect(QPoint(x, y), size))
            x += size.width() + SPACING
            line_height = max(line_height, size.height())
        return rects

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._shown_height(self._layout(width))

    def _height(self, rects: list[QRect]) -> int:
        """The height the chips laid out as ``rects`` need (one empty line when there are none)."""
        return max((r.bottom() + 1 for r in rects), default=self.fontMetrics().height() + PADDING) + 2

    def _shown_height(self, rects: list[QRect]) -> int:
        """:meth:`_height`, but at most the first :data:`MAX_LINES` lines."""
        tops = sorted({r.top() for r in rects})
        if len(tops) <= MAX_LINES:
            return self._height(rects)
        return tops[MAX_LINES] - SPACING + 2

    # -- scrolling -------------------------------------------------------------------------------
    def _scroll_to(self, offset: int) -> None:
        self._scroll = max(0, min(offset, self._height(self._rects) - self.height()))
        self.update()

    def _show_current(self) -> None:
        """Scroll the current chip's line into view (the output strip follows the step)."""
        current = next((r for c, r in zip(self._chips, self._rects, strict=True) if c.current), None)
        if current is None:
            self._scroll_to(self._scroll)
        elif current.top() < self._scroll:
            self._scroll_to(current.top())
        elif current.bottom() + 2 > self._scroll + self.height():
            self._scroll_to(current.bottom() + 2 - self.height())

    def wheelEvent(self, event: QWheelEvent) -> None:
        if self._height(self._rects) <= self.height():
            event.ignore()  # nothing hidden: the page scrolls
            return
        line = self.fontMetrics().height() + PADDING + SPACING
        self._scroll_to(self._scroll - round(event.angleDelta().y() / 120 * line))
        event.accept()

    def sizeHint(self) -> QSize:
        return QSize(400, self.heightForWidth(max(self.width(), 400)))

    def minimumSizeHint(self) -> QSize:
        return QSize(100, self.fontMetrics().height() + PADDING + 2)

    def resizeEvent(self, event: QResizeEvent) -> None:
        self._rects = self._layout(self.width())
        self._show_current()
        super().resizeEvent(event)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.FontChange:  # presentation mode: chips grow with the text
            self._rects = self._layout(self.width())
            self.updateGeometry()
        super().changeEvent(event)

    # -- painting --------------------------------------------------------------------------------
    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        if not self._chips:
            painter.setPen(self.palette().placeholderText().color())
            painter.drawText(self.rect(), int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                             self._placeholder)
            return
        metrics = self.fontMetrics()
        self._paint_scroll_bar(painter)
        painter.translate(0, -self._scroll)
        for chip, rect in zip(self._chips, self._rects, strict=True):
            fill = CURRENT_FILL if chip.current else CHANGED_FILL if chip.changed else \
                UNKNOWN_FILL if chip.unknown else PLAIN_FILL
            # a forced chip keeps its dashed purple outline even when current (its fill says current);
            # a changed one its blue outline
            colour = FORCED_LINE if chip.forced else CHANGED_LINE if chip.changed else \
                QColor(HIGHLIGHT) if chip.current else QColor(GREY)
            pen = QPen(colour, 2.5 if chip.current or chip.changed else 1.5)
            pen.setStyle(Qt.PenStyle.DashLine if chip.forced else Qt.PenStyle.SolidLine)
            painter.setPen(pen)
            painter.setBrush(fill)
            painter.drawRoundedRect(QRectF(rect).adjusted(1, 1, -1, -1), RADIUS, RADIUS)
            top = QRect(rect.x(), rect.y() + PADDING // 2, rect.width(), metrics.height())
            painter.setPen(CHIP_TEXT)
            painter.drawText(top, int(Qt.AlignmentFlag.AlignCenter), chip.label)
            if chip.below is not None:
                painter.setPen(RIGHT if chip.below_right else WRONG)
                painter.drawText(top.translated(0, metrics.height()), int(Qt.AlignmentFlag.AlignCenter), chip.below)

    def _paint_scroll_bar(self, painter: QPainter) -> None:
        """A thin bar at the right edge, where lines are hidden: which part of the strip shows."""
        full = self._height(self._rects)
        if full <= self.height():
            return
        top, length = self.height() * self._scroll / full, self.height() * self.height() / full
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(GREY))
        painter.drawRoundedRect(QRectF(self.width() - BAR + 2, top, 3, length), 1.5, 1.5)

    # -- mouse -----------------------------------------------------------------------------------
    def chip_at(self, point: QPoint) -> int | None:
        point = point + QPoint(0, self._scroll)
        return next((i for i, rect in enumerate(self._rects) if rect.contains(point)), None)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        index = self.chip_at(event.position().toPoint())
        if index is not None and event.button() == Qt.MouseButton.LeftButton:
            self.chip_clicked.emit(index)
        super().mousePressEvent(event)

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip:
            assert isinstance(event, QHelpEvent)
            index = self.chip_at(event.pos())
            if index is not None and self._chips[index].tooltip:
                QToolTip.showText(event.globalPos(), self._chips[index].tooltip, self, self.chip_rect(index))
            else:
                QToolTip.hideText()
                event.ignore()
            return True
        return super().event(event)

    def tooltip_at(self, index: int) -> str:
        return self._chips[index].tooltip
