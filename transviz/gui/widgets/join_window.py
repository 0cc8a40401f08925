"""The join window, for the projector: the address students open, the join code in large letters
and the QR code of the address with the code, each sized from the screen so that the back of the
room reads them."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetrics, QKeyEvent, QPixmap
from PySide6.QtWidgets import QApplication, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from ...live.qr import qr_png
from ..services.language import Retranslated
from .labels import bound_label, plain_label

QR_SHARE = 0.6  # of the screen's height the QR code takes ...
QR_WIDTH_SHARE = 0.38  # ... and at most this of its width (a 4:3 projector keeps room for the code)
CODE_SPACING = 125  # percent: the code's letters spaced, read one by one from afar
CODE_SHARE = 0.11  # of the screen's height a letter of the code takes
ADDRESS_SHARE = 0.06  # ... and a letter of the address, typed from the back of the room too
SIZE_SHARE = 0.85  # of the screen the window takes when it opens
MARGIN = 12  # pixels around and between the texts and the QR code


def qr_pixmap(text: str, side: int) -> QPixmap:
    """``text`` as a QR code at most ``side`` pixels square, every module the same whole number of
    pixels (a scaled-up code blurs, and uneven modules are harder for a phone to read)."""
    probe = QPixmap()
    probe.loadFromData(qr_png(text, scale=1))  # one pixel a module: the code's width in modules
    pixmap = QPixmap()
    pixmap.loadFromData(qr_png(text, scale=max(1, side // max(probe.width(), 1))))
    return pixmap


class JoinWindow(Retranslated, QWidget):
    """How to join: the address, the code and the QR code (Esc closes; the Class panel's "Show join
    code" opens it again)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setObjectName("class_join_window")
        self._shown = ("", "", "")
        self.heading = bound_label(self, lambda: self.tr("Join the class"))
        self.how = bound_label(self, lambda: self.tr(
            "Open this address in a browser (phone or laptop) and type the code, or scan the QR code; then choose a "
            "nickname. In transviz: File > Join a class."), wrap=True)
        self.address = plain_label()
        self.address.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.code_title = bound_label(self, lambda: self.tr("Code"))
        self.code = plain_label()
        self.code.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.qr = QLabel()
        self.qr.setAlignment(Qt.AlignmentFlag.AlignCenter)
        texts = QVBoxLayout()  # beside the QR code: how to join, and the code
        for label in (self.how, self.code_title, self.code):
            texts.addWidget(label)
        texts.addStretch(1)
        below = QHBoxLayout()
        below.addLayout(texts, 1)
        below.addWidget(self.qr, 0, Qt.AlignmentFlag.AlignCenter)
        layout = QVBoxLayout(self)  # the address across the whole width: the longest text, typed on laptops
        layout.addWidget(self.heading)
        layout.addWidget(self.address)
        layout.addLayout(below, 1)
        self.bind_text(self.setWindowTitle, lambda: self.tr("transviz: join the class"))

    def show_class(self, url: str, join_url: str, code: str) -> None:
        """Show how to join the class at ``url`` with ``code`` (``join_url``: the QR code's text)."""
        self._shown = (url, join_url, code)
        self.address.setText(url)
        self.code.setText(code)
        self._fit_to_screen()
        self.resize(self.screen().availableGeometry().size() * SIZE_SHARE)

    def retranslate(self) -> None:
        super().retranslate()
        if self._shown[0]:
            self._fit_to_screen()  # the texts' lengths and the language's font changed

    def _fit_to_screen(self) -> None:
        room = self.screen().availableGeometry()
        height = room.height()
        side = int(min(height * QR_SHARE, room.width() * QR_WIDTH_SHARE))
        across = int(room.width() * SIZE_SHARE) - 2 * MARGIN  # the address's width: the window's
        beside = across - side - 2 * MARGIN  # the code's: what the QR code leaves
        for label, share, bold, width in ((self.heading, ADDRESS_SHARE * 0.8, True, across),
                                          (self.address, ADDRESS_SHARE, True, across),
                                          (self.how, ADDRESS_SHARE * 0.45, False, beside),
                                          (self.code_title, ADDRESS_SHARE * 0.6, False, beside),
                                          (self.code, CODE_SHARE, True, beside)):
            font = QFont(QApplication.font())  # the language's font, at the size the room needs
            font.setBold(bold)
            font.setPixelSize(max(12, int(height * share)))
            if label is self.code:
                font.setLetterSpacing(QFont.SpacingType.PercentageSpacing, CODE_SPACING)
            if not label.wordWrap():  # long texts take smaller letters, never a window wider than the screen
                wide = QFontMetrics(font).horizontalAdvance(label.text())
                if wide > width > 0:
                    font.setPixelSize(max(12, int(font.pixelSize() * width / wide)))
            label.setFont(font)
        self.qr.setPixmap(qr_pixmap(self._shown[1], side) if self._shown[1] else QPixmap())

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape:
            self.close()
        else:
            super().keyPressEvent(event)
