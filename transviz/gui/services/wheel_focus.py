"""Spin boxes and drop-down lists take the mouse wheel only once they have focus (clicked or tabbed
to): scrolling a form must not change the numbers and choices that pass under the pointer, and the
form scrolls instead."""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QAbstractSpinBox, QComboBox, QWidget


class WheelNeedsFocus(QObject):
    """The event filter of the widgets :func:`wheel_only_with_focus` found."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt's signature
        if event.type() == QEvent.Type.Wheel and isinstance(watched, QWidget) and not watched.hasFocus():
            event.ignore()  # Qt offers an ignored wheel event to the parent: the page scrolls
            return True
        return False


def wheel_only_with_focus(root: QWidget, keeper: WheelNeedsFocus) -> None:
    """Every spin box and drop-down list inside ``root`` leaves the wheel to scrolling until it has focus."""
    for box in [*root.findChildren(QAbstractSpinBox), *root.findChildren(QComboBox)]:
        box.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # by default the wheel itself gives focus
        box.installEventFilter(keeper)
