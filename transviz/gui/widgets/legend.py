"""The colour legend of the explorer's chips and maps: yellow chip = not in the vocabulary, orange
= the current query, dashed = forced by you, hatched = masked; in teacher forcing, the two-line
chips (the gold token over the model's prediction) and the candidate bars' colours; and while a
quiz's question is open, lavender with "?" = hidden until you answer. One small widget paints a
sample of each, drawn with the very colours and pens the chips, bars and heatmaps use, then its
meaning; the entries wrap onto more lines instead of widening the window.
"""
from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, QRect, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from ..services.language import Retranslated
from ..style import GREY, HIGHLIGHT
from .candidates import CHOSEN, GOLD, OTHER
from .heatmap import HIDDEN_FILL, HIDDEN_MARK, MASKED_FILL, MASKED_LINES, hidden_word
from .token_strip import CHIP_TEXT, CURRENT_FILL, FORCED_LINE, PLAIN_FILL, RADIUS, RIGHT, SPACING, UNKNOWN_FILL, WRONG

SWATCH_WIDTH, GAP = 26, 4  # a sample's width; between a sample and its text
KINDS = ("unknown", "current", "forced", "masked", "prediction", "bars", "hidden")
TEACHER_KINDS = ("prediction", "bars")  # listed only in teacher forcing


class ColourLegend(Retranslated, QWidget):
    """What each colour and outline of the chips and maps means, in the language in use."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._texts: dict[str, str] = {}
        self._hidden_shown = False  # the "hidden" entry: only while a quiz's question is open
        self._teacher_shown = False  # the teacher forcing entries
        self.bind_text(lambda texts: self._set_texts(dict(zip(KINDS, texts, strict=True))), lambda: [
            self.tr("not in the vocabulary (read as <unk>; on axes: word (?))"), self.tr("current query"),
            self.tr("forced by you"),
            self.tr("masked"),
            self.tr("gold token over the model's prediction (green: the same, red: another)"),
            self.tr("bars: orange = the token fed, outlined green when gold; blue = the other candidates"),
            hidden_word()])
        self.bind_text(self.setToolTip, lambda: self.tr(
            "Colour legend: yellow chip (on a plot's axis: the word followed by (?)) = a word not in the model's "
            "vocabulary; orange = the current query (the "
            "step being shown); dashed outline = a token forced by you; grey hatched cells = masked (-inf); in "
            "teacher forcing, each chip shows the gold token over the model's prediction, and the candidate bars "
            "are orange for the token fed, outlined green when it is the gold one, blue for the others; while a "
            "quiz's question is open, lavender cells with ? = hidden until you answer (not masked)"))
        policy = QSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)

    def _set_texts(self, texts: dict[str, str]) -> None:
        self._texts = texts
        self.updateGeometry()
        self.update()

    def show_hidden(self, shown: bool) -> None:
        """List hidden cells too (a quiz's question is open), or not."""
        if shown != self._hidden_shown:
            self._hidden_shown = shown
            self.updateGeometry()
            self.update()

    def show_teacher_forcing(self, shown: bool) -> None:
        """List what teacher forcing's chips and bars mean too, or not."""
        if shown != self._teacher_shown:
            self._teacher_shown = shown
            self.updateGeometry()
            self.update()

    def _kinds(self) -> tuple[str, ...]:
        return tuple(kind for kind in KINDS if (kind != "hidden" or self._hidden_shown)
                     and (kind not in TEACHER_KINDS or self._teacher_shown))

    @property
    def entries(self) -> list[tuple[str, str]]:
        """(kind, meaning) of every entry, in the order shown."""
        return [(kind, self._texts.get(kind, "")) for kind in self._kinds()]

    # -- geometry --------------------------------------------------------------------------------
    def _layout(self, width: int) -> list[QRect]:
        """One rectangle per entry (sample and text), wrapping when the width runs out."""
        metrics, rects, x, y = self.fontMetrics(), [], 0, 0
        height = metrics.height() + 2
        for kind in self._kinds():
            size = QSize(SWATCH_WIDTH + GAP + metrics.horizontalAdvance(self._texts.get(kind, "")), height)
            if x > 0 and x + size.width() > width:
                x, y = 0, y + height + SPACING
            rects.append(QRect(QPoint(x, y), size))
            x += size.width() + 4 * SPACING
        return rects

    def swatch_rect(self, index: int) -> QRect:
        """Where entry ``index``'s sample is drawn, in this widget's coordinates."""
        rect = self._layout(self.width())[index]
        return QRect(rect.x() + 1, rect.y() + 1, SWATCH_WIDTH - 2, rect.height() - 2)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return max(r.bottom() + 1 for r in self._layout(width))

    def sizeHint(self) -> QSize:
        return QSize(400, self.heightForWidth(400))

    def minimumSizeHint(self) -> QSize:
        return QSize(SWATCH_WIDTH, self.fontMetrics().height() + 2)

    # -- painting --------------------------------------------------------------------------------
    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        text = self.palette().text().color()
        for index, (kind, rect) in enumerate(zip(self._kinds(), self._layout(self.width()), strict=True)):
            swatch = QRectF(self.swatch_rect(index))
            self._paint_swatch(painter, kind, swatch)
            painter.setPen(text)
            painter.drawText(rect.adjusted(SWATCH_WIDTH + GAP, 0, 0, 0),
                             int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), self._texts.get(kind, ""))

    @staticmethod
    def _paint_swatch(painter: QPainter, kind: str, swatch: QRectF) -> None:
        """A chip as the token strips draw it, or a masked or hidden cell as the heatmaps draw it."""
        if kind == "hidden":
            painter.fillRect(swatch, HIDDEN_FILL)
            painter.setPen(QPen(HIDDEN_MARK, 1.5, Qt.PenStyle.DashLine))
            painter.drawRect(swatch)
            painter.drawText(swatch, int(Qt.AlignmentFlag.AlignCenter), "?")
            return
        if kind == "prediction":
            ColourLegend._paint_prediction(painter, swatch)
            return
        if kind == "bars":
            ColourLegend._paint_bars(painter, swatch)
            return
        if kind == "masked":
            painter.fillRect(swatch, MASKED_FILL)
            painter.setPen(QPen(MASKED_LINES, 1))
            painter.drawRect(swatch)
            painter.save()
            painter.setClipRect(swatch)
            height = swatch.height()
            for offset in range(int(-height), int(swatch.width()), 6):  # rising diagonals, as the maps hatch
                x = swatch.left() + offset
                painter.drawLine(QPointF(x, swatch.bottom()), QPointF(x + height, swatch.top()))
            painter.restore()
            return
        fill = {"unknown": UNKNOWN_FILL, "current": CURRENT_FILL}.get(kind, PLAIN_FILL)
        colour = FORCED_LINE if kind == "forced" else QColor(HIGHLIGHT if kind == "current" else GREY)
        pen = QPen(colour, 2.0 if kind == "current" else 1.5)
        pen.setStyle(Qt.PenStyle.DashLine if kind == "forced" else Qt.PenStyle.SolidLine)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(pen)
        painter.setBrush(fill)
        painter.drawRoundedRect(swatch.adjusted(1, 1, -1, -1), RADIUS, RADIUS)

    @staticmethod
    def _paint_prediction(painter: QPainter, swatch: QRectF) -> None:
        """A chip of two lines, drawn as strokes: the gold token in the chip's text colour over the
        prediction, its right half green and its left half red (the two colours it can take)."""
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QPen(QColor(GREY), 1.5))
        painter.setBrush(PLAIN_FILL)
        painter.drawRoundedRect(swatch.adjusted(1, 1, -1, -1), RADIUS, RADIUS)
        left, right, middle = swatch.left() + 6, swatch.right() - 6, swatch.center().x()
        rows = (swatch.top() + swatch.height() / 3, swatch.top() + 2 * swatch.height() / 3)
        for colour, (x0, x1, y) in ((CHIP_TEXT, (left, right, rows[0])), (WRONG, (left, middle - 1, rows[1])),
                                    (RIGHT, (middle + 1, right, rows[1]))):
            painter.setPen(QPen(colour, 2.5))
            painter.drawLine(QPointF(x0, y), QPointF(x1, y))

    @staticmethod
    def _paint_bars(painter: QPainter, swatch: QRectF) -> None:
        """Two candidate bars as the chart draws them: the token fed (orange, outlined green: gold)
        over another candidate (blue)."""
        half = swatch.height() / 2
        fed = QRectF(swatch.left(), swatch.top() + 1, swatch.width(), half - 2)
        other = QRectF(swatch.left(), swatch.top() + half + 1, swatch.width() * 0.6, half - 2)
        painter.fillRect(fed, CHOSEN)
        painter.setPen(QPen(GOLD, 2))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(fed)
        painter.fillRect(other, OTHER)
