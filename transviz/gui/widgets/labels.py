"""Labels that show text as typed. Tokens such as ``<s>`` would otherwise be read as HTML by
QLabel's rich-text guess (``<s>`` strikes out the rest of the line), so every label is plain."""
from __future__ import annotations

from collections.abc import Callable, Iterable

from PySide6.QtCore import QCoreApplication, QEvent, QSize, Qt, QTimer
from PySide6.QtGui import QAction, QHelpEvent, QKeySequence, QPainter, QPaintEvent
from PySide6.QtWidgets import QLabel, QMenu, QMenuBar, QToolTip

from ..services.language import Retranslated
from ..style import BLUE, plot_style


class ErrorLabel(QLabel):
    """An inline message about the user's input (no dialog for a typo), in the theme's error colour."""

    def restyle(self) -> None:
        self.setStyleSheet(f"color: {plot_style().error};")


class TimedNotice(ErrorLabel):
    """A warning on one line (the whole text in its tooltip) that hides itself after a while."""

    def __init__(self) -> None:
        super().__init__()
        self._hide = QTimer(self)  # one timer: a second warning gets its whole time, not the first's rest
        self._hide.setSingleShot(True)
        self._hide.timeout.connect(lambda: self.setVisible(False))

    def show_for(self, text: str, seconds: float) -> None:
        self.setText(text)
        self.setToolTip(text)
        self.setVisible(True)
        self._hide.start(round(seconds * 1000))


class NoticeLabel(QLabel):
    """A framed message in the theme's colours, its border in an accent colour (how a run ended)."""

    def __init__(self) -> None:
        super().__init__()
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setWordWrap(True)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setVisible(False)
        self._accent = BLUE

    def show_notice(self, text: str, accent: str) -> None:
        self._accent = accent
        self.setText(text)
        self.restyle()
        self.setVisible(True)

    def restyle(self) -> None:
        # set again on each change: a widget with a style sheet keeps the font it was polished with
        style = plot_style()
        self.setStyleSheet(f"background: {style.background}; color: {style.foreground}; "
                           f"border: 2px solid {self._accent}; padding: 6px;")


class FittingLabel(QLabel):
    """A plain label that gives way: narrower than its text, it elides each line ("…") and its
    tooltip shows the whole text (when it has no tooltip of its own). Its minimum width is a few
    characters, so one long sentence or token list never makes the window wider than the screen.
    A label that wraps keeps QLabel's own behaviour."""

    SHORTEST = "Mmmmmm…"  # the narrowest it becomes: a few characters stay readable

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        if self.wordWrap():
            return hint
        margins = self.contentsMargins()
        narrowest = self.fontMetrics().horizontalAdvance(self.SHORTEST) + margins.left() + margins.right()
        return QSize(min(hint.width(), narrowest + 2 * max(self.indent(), 0) + 2 * self.margin()), hint.height())

    def _shown_lines(self) -> list[str]:
        """The lines as drawn in the current width (elided where they do not fit)."""
        width = self.contentsRect().width() - 2 * self.margin()
        metrics = self.fontMetrics()
        return [metrics.elidedText(line, Qt.TextElideMode.ElideRight, width) for line in self.text().split("\n")]

    def is_elided(self) -> bool:
        return not self.wordWrap() and self._shown_lines() != self.text().split("\n")

    def paintEvent(self, event: QPaintEvent) -> None:
        if not self.is_elided():
            super().paintEvent(event)
            return
        painter = QPainter(self)
        rect = self.contentsRect().adjusted(self.margin(), self.margin(), -self.margin(), -self.margin())
        self.style().drawItemText(painter, rect, int(self.alignment()), self.palette(), self.isEnabled(),
                                  "\n".join(self._shown_lines()), self.foregroundRole())

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and not self.toolTip() and self.is_elided():
            assert isinstance(event, QHelpEvent)
            QToolTip.showText(event.globalPos(), self.text(), self)
            return True
        return super().event(event)


WORD_JOINER = "\u2060"  # invisible; forbids a line break where it stands


def unbreakable(token: str) -> str:
    """``token`` as one piece for line wrapping: ``</s>`` may otherwise break after its slash."""
    return WORD_JOINER.join(token)


def token_line(tokens: Iterable[str]) -> str:
    """Tokens separated by spaces, for a wrapped caption: lines break between tokens, never inside one."""
    return " ".join(unbreakable(token) for token in tokens)


def plain_label(text: str = "", wrap: bool = False) -> QLabel:
    label = FittingLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(wrap)
    return label


def bound_label(owner: Retranslated, text: Callable[[], str], wrap: bool = False) -> QLabel:
    """A plain label showing ``text()``, set again by ``owner`` after each language change."""
    label = plain_label(wrap=wrap)
    owner.bind_text(label.setText, text)
    return label


def error_label() -> ErrorLabel:
    label = ErrorLabel()
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    label.restyle()
    label.setVisible(False)
    return label


def show_error(label: QLabel, message: str | None) -> None:
    label.setText(message or "")
    label.setVisible(bool(message))


def bound_menu(owner: Retranslated, parent: QMenuBar | QMenu, title: Callable[[], str]) -> QMenu:
    """A menu titled ``title()``, set again by ``owner`` after each language change."""
    menu = parent.addMenu("")
    owner.bind_text(menu.setTitle, title)
    return menu


def bound_action(owner: Retranslated, menu: QMenu, text: Callable[[], str], slot: Callable[[], object],
                 shortcut: QKeySequence | QKeySequence.StandardKey | str | None = None) -> QAction:
    """A menu entry showing ``text()`` (set again by ``owner`` after each language change) that calls ``slot``."""
    action = menu.addAction("")
    owner.bind_text(action.setText, text)
    action.triggered.connect(slot)
    if shortcut is not None:
        action.setShortcut(QKeySequence(shortcut))
    return action


def duration_text(seconds: float) -> str:
    """``"1 h 05 min"``, ``"3 min 07 s"`` or ``"42 s"`` (the training tab's words, which its catalogue holds)."""
    seconds = max(0, round(seconds))
    minutes, seconds = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    if hours:
        return QCoreApplication.translate("TrainingPanel", "{0} h {1:02d} min").format(hours, minutes)
    if minutes:
        return QCoreApplication.translate("TrainingPanel", "{0} min {1:02d} s").format(minutes, seconds)
    return QCoreApplication.translate("TrainingPanel", "{0} s").format(seconds)
