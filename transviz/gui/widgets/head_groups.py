"""A model's query heads as buttons, framed by the key/value head they share: one frame per head
for multi-head attention, frames of several for grouped-query, one frame around all for multi-query."""
from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QSizePolicy, QToolButton, QWidget

from ..services.language import Retranslated
from .labels import plain_label


class HeadGroups(Retranslated, QWidget):
    """Buttons for the query heads, in frames of those that read the same keys and values.

    Signals:
        head_clicked(int): a query head's button was clicked.
    """

    head_clicked = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._groups: list[list[int]] = []
        self.buttons: list[QToolButton] = []
        self.frames: list[QFrame] = []
        self._layout = QHBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._name = plain_label()
        self.bind_text(self._name.setText, lambda: self.tr("Heads:"))
        self.bind_text(self._name.setToolTip, lambda: self.tr("The query heads, framed by the keys and values they "
                                                              "share: a frame holds the heads of one key/value head"))
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        self._layout.addWidget(self._name)
        self._layout.addStretch(1)

    @property
    def groups(self) -> list[list[int]]:
        return [list(group) for group in self._groups]

    def set_groups(self, groups: list[list[int]], chosen: int | None) -> None:
        """Show ``groups`` (the query heads of each key/value head) with head ``chosen`` pressed
        (None: a summary of all heads is shown)."""
        if groups != self._groups:
            self._rebuild(groups)
        for head, button in enumerate(self.buttons):
            button.setChecked(head == chosen)

    def _rebuild(self, groups: list[list[int]]) -> None:
        for frame in self.frames:
            self._layout.removeWidget(frame)
            frame.deleteLater()
        self._groups, self.frames, self.buttons = [list(group) for group in groups], [], []
        for index, group in enumerate(groups):
            frame = QFrame()
            frame.setFrameShape(QFrame.Shape.Box)
            frame.setLineWidth(2)
            row = QHBoxLayout(frame)
            row.setContentsMargins(2, 2, 2, 2)
            row.setSpacing(1)
            for head in group:
                button = QToolButton()
                button.setText(str(head))
                button.setCheckable(True)
                button.clicked.connect(lambda _=False, head=head: self.head_clicked.emit(head))
                row.addWidget(button)
                self.buttons.append(button)
            self._layout.insertWidget(1 + index, frame)
            self.frames.append(frame)
        self.retranslate()

    def retranslate(self) -> None:
        super().retranslate()
        for index, (frame, group) in enumerate(zip(self.frames, self._groups, strict=True)):
            heads = ", ".join(str(head) for head in group)
            frame.setToolTip(self.tr("Query heads {0} read key/value head {1}").format(heads, index)
                             if len(group) > 1 else self.tr("Query head {0} has key/value head {1} to itself")
                             .format(heads, index))
