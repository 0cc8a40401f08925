"""The window's small dialogs: an error box and a read-only text, both window-modal without
blocking the event loop (tests can find and close them by object name)."""
from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QMessageBox, QPlainTextEdit, QVBoxLayout, QWidget

TEXT_COLUMNS, TEXT_LINES = 80, 30  # a read-only text dialog's size, in characters and lines


def error_box(parent: QWidget, title: str, message: str) -> QMessageBox:
    """An error message over ``parent``, deleted when closed (object name ``error_dialog``)."""
    box = QMessageBox(QMessageBox.Icon.Critical, title, message, QMessageBox.StandardButton.Ok, parent)
    box.setObjectName("error_dialog")
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()
    return box


def text_dialog(parent: QWidget, title: str, text: str, name: str) -> QDialog:
    """A read-only text with a Close button (object name ``name``)."""
    dialog = QDialog(parent)
    dialog.setObjectName(name)
    dialog.setWindowTitle(title)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    body = QPlainTextEdit(text)
    body.setReadOnly(True)
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
    buttons.rejected.connect(dialog.close)
    layout = QVBoxLayout(dialog)
    layout.addWidget(body)
    layout.addWidget(buttons)
    # sized in lines of its text (presentation mode's text is larger), within the screen
    metrics = body.fontMetrics()
    size = QSize(metrics.averageCharWidth() * TEXT_COLUMNS, metrics.lineSpacing() * TEXT_LINES)
    dialog.resize(size.boundedTo(parent.screen().availableGeometry().size() * 0.9))
    dialog.open()
    return dialog
