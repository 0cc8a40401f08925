"""File > Join a class: the address the teacher's screen shows (with the code after '#', or the
code typed apart) and a nickname. The dialog stays open while the class is being joined and says
why it could not be."""
from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QFormLayout, QLineEdit, QPushButton, QVBoxLayout, QWidget

from ...live.protocol import MAX_NICKNAME
from ..services.language import Retranslated
from .labels import bound_label, error_label, plain_label, show_error


class JoinDialog(Retranslated, QDialog):
    """Asks for the class's address, its code (when the address lacks it) and a nickname.

    Signals:
        join_asked(str, str, str): the address, the code (may be empty) and the nickname typed.
    """

    join_asked = Signal(str, str, str)

    def __init__(self, parent: QWidget | None = None, address: str = "", nickname: str = "") -> None:
        super().__init__(parent)
        self.setObjectName("join_class_dialog")
        self.address = QLineEdit(address)
        self.address.setPlaceholderText("http://192.168.1.20:8338/#K7Q2MX")
        self.code = QLineEdit()
        self.code.setPlaceholderText("K7Q2MX")
        self.nickname = QLineEdit(nickname)
        self.nickname.setMaxLength(MAX_NICKNAME)
        self.note = bound_label(self, lambda: self.tr(
            "Type the address as the teacher's screen shows it. The code may follow it after '#'; otherwise type "
            "it below."), wrap=True)
        self.error = error_label()
        self.busy = plain_label()
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.join_button: QPushButton = self.buttons.addButton("", QDialogButtonBox.ButtonRole.AcceptRole)
        self.join_button.setDefault(True)
        self.bind_text(self.join_button.setText, lambda: self.tr("Join"))
        self.buttons.accepted.connect(self._ask)
        self.buttons.rejected.connect(self.reject)
        form = QFormLayout()
        form.addRow(bound_label(self, lambda: self.tr("Address")), self.address)
        form.addRow(bound_label(self, lambda: self.tr("Code")), self.code)
        form.addRow(bound_label(self, lambda: self.tr("Nickname")), self.nickname)
        layout = QVBoxLayout(self)
        layout.addWidget(self.note)
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addWidget(self.busy)
        layout.addWidget(self.buttons)
        self.bind_text(self.setWindowTitle, lambda: self.tr("Join a class"))
        self.setMinimumWidth(self.fontMetrics().averageCharWidth() * 60)

    def _ask(self) -> None:
        address, nickname = self.address.text().strip(), self.nickname.text().strip()
        if not address:
            self.show_failure(self.tr("Type the class's address."))
        elif not nickname:
            self.show_failure(self.tr("Choose a nickname: the teacher sees it beside your answers."))
        else:
            self.set_joining(True)
            self.join_asked.emit(address, self.code.text().strip(), nickname)

    def set_joining(self, joining: bool) -> None:
        """While the class is being joined: Join is off and the dialog says so."""
        self.join_button.setEnabled(not joining)
        self.busy.setText(self.tr("Joining...") if joining else "")
        if joining:
            show_error(self.error, None)

    def show_failure(self, message: str) -> None:
        self.set_joining(False)
        show_error(self.error, message)
