"""Labels that show text as typed. Tokens such as ``<s>`` would otherwise be read as HTML by
QLabel's rich-text guess (``<s>`` strikes out the rest of the line), so every label is plain."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from .theme import plot_style


class ErrorLabel(QLabel):
    """An inline message about the user's input (no dialog for a typo), in the theme's error colour."""

    def restyle(self) -> None:
        self.setStyleSheet(f"color: {plot_style().error};")


def plain_label(text: str = "", wrap: bool = False) -> QLabel:
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(wrap)
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
