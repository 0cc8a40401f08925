"""Keeping a window on its screen: the room the screen leaves it, and shrinking it back into that
room when content that grew it (a language, presentation mode, a model's long tokens) has shrunk."""
from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QApplication, QWidget


def available_size(window: QWidget) -> QSize:
    """The room the window's screen leaves its contents (its frame and the task bar excluded)."""
    screen = window.screen() or QApplication.primaryScreen()
    frame = window.frameGeometry().size() - window.size()
    return screen.availableGeometry().size() - frame


def fit_to_screen(window: QWidget) -> None:
    """Shrink ``window`` into its screen's available geometry, no smaller than its content allows,
    and move it back on screen (full screen and maximized windows fit already)."""
    if window.isFullScreen() or window.isMaximized():
        return
    fitted = window.size().boundedTo(available_size(window)).expandedTo(window.minimumSizeHint())
    if fitted != window.size():
        window.resize(fitted)
    available = (window.screen() or QApplication.primaryScreen()).availableGeometry()
    frame = window.frameGeometry()
    if not available.contains(frame):  # top-left first: the menus stay reachable
        window.move(max(available.left(), min(frame.left(), available.right() - frame.width() + 1)),
                    max(available.top(), min(frame.top(), available.bottom() - frame.height() + 1)))
