"""The next-token panel: the last step's most probable tokens as horizontal bars, the chosen one
highlighted (and, in teacher forcing, the gold one outlined). The token written always has a bar
(one more when it is not among the most probable), and a last bar holds the probability of all the
others, so the bars sum to 1. Clicking a bar asks to choose that token instead (the explorer forces
it: "what if the model had said this?").

One plain widget paints the title and the bars: a step repaints a few rectangles and words, a
fraction of a pyqtgraph plot's redraw, and no label changes size, so the window's layout does
not run again (``transviz bench gui_step_redraw_ms_default``).
"""
from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QPoint, QRect, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QMouseEvent, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

from ...core.decoding.session import DrawnCandidate, StepRecord
from ..services.language import Retranslated
from ..style import BLACK, HIGHLIGHT, PALETTE
from .labels import plain_label

OTHER, CHOSEN, GOLD = QColor(PALETTE[0]), QColor(HIGHLIGHT), QColor(PALETTE[2])
REST = QColor("#B0B0B0")  # the "all others" bar: no token of its own
RAW = QColor(BLACK)  # sampling: the model's own probability, a thin bar under the drawn-from one
ROW_HEIGHT, BAR_SHARE, MARGIN = 30, 0.7, 6  # most pixels a row gets; the bar's part of it; edges
TITLE_LINES = 4  # room kept for the title above the bars, in lines
TITLE_FLAGS = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap)
SCALE = (0.0, 0.5, 1.0)  # probabilities marked under the bars


class _Bars(QWidget):
    """A title, then token | bar of its probability | the probability, one row per candidate."""

    clicked = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = ""
        self.rows: list[tuple[str, float, QColor, bool]] = []  # token, probability, colour, outlined
        self.raw: list[float] = []  # sampling: the model's raw probability of each row, drawn as a thin bar
        self.raw_name = ""  # how the raw numbers are introduced, e.g. "raw"
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumSize(160, 160)

    def sizeHint(self) -> QSize:
        return QSize(300, 320)

    def _top(self) -> float:
        return MARGIN + self._title_height() + MARGIN

    def _title_height(self) -> int:
        """At least TITLE_LINES lines (the bars stay put from step to step), more when the wrapped
        title needs them: every word of it is shown."""
        metrics = self.fontMetrics()
        wrapped = metrics.boundingRect(QRect(0, 0, max(self.width() - 2 * MARGIN, 1), 100_000), TITLE_FLAGS, self.title)
        return max(TITLE_LINES * metrics.lineSpacing(), wrapped.height())

    def _geometry(self) -> tuple[float, float, float]:
        """x where bars start, their length for probability 1, and the row height."""
        metrics = self.fontMetrics()
        left = MARGIN + max((metrics.horizontalAdvance(token) for token, *_ in self.rows), default=0) + MARGIN
        number = max((metrics.horizontalAdvance(self.number_text(i)) for i in range(len(self.rows))),
                     default=metrics.horizontalAdvance("0.000")) + 2 * MARGIN
        rows = max(len(self.rows), 1)
        height = min(ROW_HEIGHT, (self.height() - self._top() - metrics.height() - 2 * MARGIN) / rows)
        return left, max(self.width() - left - number, 10.0), max(height, 1.0)

    def bar_rect(self, index: int, geometry: tuple[float, float, float] | None = None) -> QRectF:
        left, length, height = geometry or self._geometry()
        probability = self.rows[index][1]
        top = self._top() + index * height + height * (1 - BAR_SHARE) / 2
        return QRectF(left, top, max(probability * length, 1.0), height * BAR_SHARE)

    def number_text(self, index: int) -> str:
        text = f"{self.rows[index][1]:.3f}"
        return f"{text}  ({self.raw_name} {self.raw[index]:.3f})" if index < len(self.raw) else text

    def raw_rect(self, index: int, geometry: tuple[float, float, float]) -> QRectF:
        """A thin bar under row ``index``'s bar: the raw probability."""
        left, length, _ = geometry
        bar = self.bar_rect(index, geometry)
        return QRectF(left, bar.bottom() - bar.height() * 0.25, max(self.raw[index] * length, 1.0), bar.height() * 0.25)

    def row_at(self, point: QPoint) -> int | None:
        _, _, height = self._geometry()
        offset = point.y() - self._top()
        index = int(offset // height) if offset >= 0 else -1
        return index if 0 <= index < len(self.rows) else None

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        text = self.palette().text().color()
        metrics = self.fontMetrics()
        painter.setPen(text)
        painter.drawText(QRectF(MARGIN, MARGIN, self.width() - 2 * MARGIN, self._top() - 2 * MARGIN),
                         TITLE_FLAGS, self.title)
        geometry = self._geometry()  # measured once: it measures every token
        left, length, height = geometry
        top = self._top()
        for i, (token, _probability, colour, outlined) in enumerate(self.rows):
            bar = self.bar_rect(i, geometry)
            painter.fillRect(bar, colour)
            if i < len(self.raw):
                painter.fillRect(self.raw_rect(i, geometry), RAW)
            if outlined:
                painter.setPen(QPen(GOLD, 3))
                painter.drawRect(bar)
            painter.setPen(text)
            row = QRectF(0, top + i * height, left - MARGIN, height)
            painter.drawText(row, int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), token)
            end = max(bar.right(), self.raw_rect(i, geometry).right()) if i < len(self.raw) else bar.right()
            number = QRectF(end + MARGIN, row.top(), self.width() - end, height)
            painter.drawText(number, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                             self.number_text(i))
        if self.rows:
            bottom = top + len(self.rows) * height
            painter.setPen(QColor("#808080"))
            painter.drawLine(int(left), int(top), int(left), int(bottom))
            for value in SCALE:  # a light scale: where 0, 0.5 and 1 are
                x = left + value * length
                painter.drawLine(int(x), int(bottom), int(x), int(bottom) + 3)
                painter.drawText(QRectF(x - 20, bottom + 3, 40, metrics.height()),
                                 int(Qt.AlignmentFlag.AlignCenter), f"{value:g}")

    def mousePressEvent(self, event: QMouseEvent) -> None:
        row = self.row_at(event.position().toPoint())
        if row is not None and event.button() == Qt.MouseButton.LeftButton:
            self.clicked.emit(row)
        super().mousePressEvent(event)


class CandidatesChart(Retranslated, QWidget):
    """Bars of ``record.candidates``, most probable on top.

    Signals:
        candidate_clicked(str): the token whose row was clicked.
    """

    candidate_clicked = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._record: StepRecord | None = None
        self._beam_search = True  # the session searches a beam: titles may say so
        self._hidden: str | None = None  # the title shown instead of a quiz's hidden candidates
        self._tokens: list[str | None] = []  # each bar's token (None: all the others)
        self._smoothing: float | None = None  # the model's label smoothing, when it was trained with some
        self._elsewhere = False  # bars of another window's step (a live class): its owner names them again
        self._bars = _Bars()
        self.smoothing_note: QLabel = plain_label(wrap=True)
        self.smoothing_note.setVisible(False)
        self.bind_text(self._bars.setToolTip, lambda: self.tr("Click a bar to make the model write that token instead"))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self._bars, 1)
        layout.addWidget(self.smoothing_note)
        self._bars.clicked.connect(self._on_row_clicked)
        self.show_record(None)

    def retranslate(self) -> None:
        super().retranslate()
        if self._hidden is None and not self._elsewhere:  # a hidden step stays hidden: the explorer names it again
            self.show_record(self._record, self._beam_search)
        self.set_label_smoothing(self._smoothing)

    @property
    def title(self) -> str:
        return self._bars.title

    def set_label_smoothing(self, smoothing: float | None) -> None:
        """The model's label smoothing (None or 0: none): its bars are spread, and a line says why."""
        self._smoothing = smoothing if smoothing else None
        self.smoothing_note.setVisible(self._smoothing is not None)
        if self._smoothing is not None:
            self.smoothing_note.setText(self.tr(
                "This model was trained with label smoothing ({0:g}): it learned to leave part of the probability "
                "to other tokens, so even a sure choice stays below 1.").format(self._smoothing))

    def show_record(self, record: StepRecord | None, beam_search: bool = True) -> None:
        """Draw ``record``'s candidates (None: nothing yet); ``beam_search``: the session still
        searches a beam, so the title may say so."""
        self._record, self._beam_search, self._hidden, self._elsewhere = record, beam_search, None, False
        self.smoothing_note.setVisible(self._smoothing is not None)
        if record is None:
            self._bars.title = self.tr("Next-token candidates: press Step to see what the model considers.")
            self._bars.rows = []
            self._bars.raw = []
        elif record.drawn is not None:
            self._show_drawn(record, record.drawn)
        else:
            self._bars.rows = [(c.token, c.probability, CHOSEN if c.token == record.token else OTHER,
                                c.token == record.gold_token) for c in record.candidates]
            if record.token not in [c.token for c in record.candidates]:  # forced, or a beam's choice
                self._bars.rows.append((record.token, record.probability, CHOSEN, record.token == record.gold_token))
            self._bars.raw = []
            self._bars.title = self._title_text(record)
        self._tokens = [token for token, *_ in self._bars.rows]
        if record is not None:
            self._add_the_others()
        self._bars.update()

    def _add_the_others(self) -> None:
        """A last bar: what every token without a bar shares (1 minus the bars above)."""
        rest = max(0.0, 1.0 - sum(probability for _, probability, *_ in self._bars.rows))
        if self._bars.raw:
            self._bars.raw.append(max(0.0, 1.0 - sum(self._bars.raw)))
        self._bars.rows.append((self.tr("all others"), rest, REST, False))
        self._tokens.append(None)

    def show_pairs(self, title: str, pairs: Sequence[tuple[str, float]], chosen: str | None = None) -> None:
        """Bars of ``pairs`` (token, probability), most probable first, from another window's step (a
        teacher's, in a live class): ``chosen``, the token written there, highlighted; nothing to
        click (this window's model did not take that step)."""
        self._record, self._hidden, self._elsewhere = None, None, True
        self.smoothing_note.setVisible(False)
        self._bars.title, self._bars.raw = title, []
        self._bars.rows = [(token, probability, CHOSEN if token == chosen else OTHER, False)
                           for token, probability in pairs]
        self._tokens = [token for token, _ in pairs]
        if pairs:
            self._add_the_others()
        self._bars.update()

    def show_hidden(self, title: str) -> None:
        """No bars, only ``title``: a quiz hides the step's candidates until it is revealed."""
        self._hidden, self._elsewhere = title, False
        self._bars.title, self._bars.rows, self._bars.raw = title, [], []
        self._tokens = []
        self.smoothing_note.setVisible(False)  # it explains bars there are none of: the quiz needs the room
        self._bars.update()

    def _show_drawn(self, record: StepRecord, drawn: tuple[DrawnCandidate, ...]) -> None:
        """Sampling: bars of the distribution the token was drawn from, the raw one beside them."""
        self._bars.rows = [(c.token, c.probability, CHOSEN if c.token == record.token else OTHER, False)
                           for c in drawn]
        self._bars.raw = [c.raw_probability for c in drawn]
        if record.token not in [c.token for c in drawn]:  # drawn from the tail: it gets a bar of its own
            self._bars.rows.append((record.token, record.drawn_probability or 0.0, CHOSEN, False))
            self._bars.raw.append(record.probability)
        self._bars.raw_name = self.tr("raw")
        self._bars.title = self.tr(
            "Step {0}: sampled '{1}' with p = {2:.3f} from the wide bars (after temperature, top-k, top-p); thin bars "
            "and numbers in brackets: the model's raw probabilities (raw p = {3:.3f})").format(
            record.index + 1, record.token, record.drawn_probability or 0.0, record.probability)

    def _title_text(self, record: StepRecord) -> str:
        listed = [c.token for c in record.candidates]
        ended = self._ended_before(record)
        if ended is not None:  # the step describes a hypothesis other than the translation shown
            text = self.tr("Search step {0}, after the translation shown ended ({1} tokens): an unfinished "
                           "hypothesis could still beat it, so the search went on. That hypothesis's {2} most "
                           "probable next tokens; it wrote '{3}' (p = {4:.3f})").format(
                record.index + 1, ended, len(listed), record.token, record.probability)
            return self.tr("{0}.").format(text)
        text = self.tr("Step {0}: the model's {1} most probable next tokens; it wrote '{2}' (p = {3:.3f})").format(
            record.index + 1, len(listed), record.token, record.probability)
        if record.forced:
            text += self.tr(", forced by you")
        if record.prescribed:
            text += self.tr(", the target language, which the model is told to write first")
        if record.token not in listed:
            text += self.tr(", not among them")
        if record.beam is not None and self._beam_search:  # after a switch of strategy it would be stale
            text += self.tr(" (in beam search: the best hypothesis extended at this step)")
        if record.gold_token is not None:
            text += self.tr(". Teacher forcing: the gold token is outlined green; the model predicted '{0}'").format(
                record.predicted_token)
        return self.tr("{0}.").format(text)  # the full stop of the language

    def _ended_before(self, record: StepRecord) -> int | None:
        """In beam search, the length of the best hypothesis when it ended before this step (the
        translation shown is shorter than the search); else None."""
        if record.beam is None or not self._beam_search or not record.beam.best.finished:
            return None
        ended = len(record.beam.best.tokens)
        return ended if ended < record.index + 1 else None

    def _on_row_clicked(self, row: int) -> None:
        token = self._tokens[row] if row < len(self._tokens) else None
        if self._record is not None and token is not None:  # "all others" names no token to choose
            self.candidate_clicked.emit(token)

    # -- what is shown (tests) -------------------------------------------------------------------
    def bars(self) -> list[tuple[str, float]]:
        """(token, probability) of every token's bar, top to bottom (the last bar, all the others,
        aside: :meth:`others`)."""
        return [(row[0], row[1]) for row, token in zip(self._bars.rows, self._tokens, strict=True) if token is not None]

    def raw_bars(self) -> list[float]:
        """The raw probability beside each token's bar (sampling), top to bottom; empty when not sampling."""
        return [raw for raw, token in zip(self._bars.raw, self._tokens, strict=False) if token is not None]

    def others(self) -> tuple[str, float, float | None] | None:
        """The last bar: its name, the probability of every token without a bar, and (sampling)
        the raw one; None when no step is shown."""
        if not self._tokens or self._tokens[-1] is not None:
            return None
        name, probability, *_ = self._bars.rows[-1]
        return name, probability, self._bars.raw[-1] if self._bars.raw else None

    def bar_colour(self, index: int) -> str:
        return self._bars.rows[index][2].name()

    def bar_position(self, index: int) -> QPoint:
        """The middle of bar ``index`` in this widget's coordinates."""
        return self._bars.mapTo(self, self._bars.bar_rect(index).center().toPoint())

    @property
    def bars_widget(self) -> QWidget:
        """The widget the bars are painted on (where clicks land)."""
        return self._bars
