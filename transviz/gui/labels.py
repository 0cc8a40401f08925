"""Labels that show text as typed. Tokens such as ``<s>`` would otherwise be read as HTML by
QLabel's rich-text guess (``<s>`` strikes out the rest of the line), so every label is plain."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

ERROR_STYLE = "color: #B00020;"  # inline messages about the user's input (no dialog for a typo)


def plain_label(text: str = "", wrap: bool = False) -> QLabel:
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(wrap)
    return label


def error_label() -> QLabel:
    label = plain_label(wrap=True)
    label.setStyleSheet(ERROR_STYLE)
    label.setVisible(False)
    return label


def show_error(label: QLabel, message: str | None) -> None:
    label.setText(message or "")
    label.setVisible(bool(message))
