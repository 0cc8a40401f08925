"""Starts the application: the QApplication (Qt's messages to logging, fonts, icon, the
system's language, pyqtgraph's options) and the main window, until it closes."""
from __future__ import annotations

import logging
import os
import sys

from PySide6.QtCore import QCoreApplication, QEvent, QMessageLogContext, QTimer, QtMsgType, qInstallMessageHandler
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QWidget

from ..core.base import startup
from ..core.io.resources import resource_dir
from ..core.teaching.lesson import Lesson
from .main_window import MainWindow
from .services.fonts import install_fonts
from .services.language import set_language, system_language
from .services.settings import APP_NAME, user_settings
from .style import configure_pyqtgraph

log = logging.getLogger(__name__)

# The offscreen platform says this about every top-level window; it is not a problem.
_HARMLESS = ("This plugin does not support propagateSizeHints()",)
_LEVELS = {QtMsgType.QtDebugMsg: logging.DEBUG, QtMsgType.QtInfoMsg: logging.INFO,
           QtMsgType.QtWarningMsg: logging.WARNING, QtMsgType.QtCriticalMsg: logging.ERROR,
           QtMsgType.QtFatalMsg: logging.CRITICAL}


def _qt_message(kind: QtMsgType, context: QMessageLogContext, message: str) -> None:
    """Qt's own messages go to logging (so the CLI's stderr stays one line per real problem)."""
    level = logging.DEBUG if message in _HARMLESS else _LEVELS.get(kind, logging.WARNING)
    logging.getLogger("qt").log(level, "%s", message)


def application(argv: list[str] | None = None) -> QApplication:
    """The process's QApplication, created and configured on first use."""
    existing = QApplication.instance()
    if isinstance(existing, QApplication):
        configure_pyqtgraph()
        return existing
    qInstallMessageHandler(_qt_message)
    app = QApplication(argv if argv is not None else sys.argv[:1])
    app.setApplicationName(APP_NAME)
    app.setOrganizationName(APP_NAME)
    configure_pyqtgraph()
    install_fonts()
    app.setWindowIcon(app_icon())  # every window, the task bar
    set_language(system_language())
    return app


def app_icon() -> QIcon:
    """transviz's icon: an attention matrix (an SVG, drawn by Qt's SVG plugins)."""
    return QIcon(str(resource_dir() / "icons" / "transviz.svg"))


def use_offscreen_platform() -> None:
    """Draw without a display and without showing anything (``transviz render``, the bench).
    Takes effect only before the QApplication exists."""
    if QApplication.instance() is None:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"


def dispose(widget: QWidget) -> None:
    """Close and delete a top-level widget now, not at interpreter exit.

    Left to Python's shutdown, Qt objects die in an arbitrary order and a closed pyqtgraph view
    can crash the process with a segmentation fault after all the work is done; deleting it
    while the application still exists avoids that.
    """
    widget.close()
    widget.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def run(model: str | None = None, lesson: Lesson | None = None) -> int:
    """Open the main window (with ``model``: a file or a shipped model's name; default: the last
    run's; or presenting ``lesson``) until it closes. The window remembers its settings in the
    user's settings file. A lesson that cannot be shown raises its LessonError before the window shows."""
    app = application()
    settings = user_settings()
    window = MainWindow(settings=settings)
    try:
        if settings is not None:
            window.restore(settings.load())
        if lesson is not None:
            window.lesson_mode.start(lesson)
            window.lesson_files.opened(lesson.folder / lesson.name)  # File > Recent lessons has it next time
        window.view_choices.show_window()
        if lesson is None:
            window.open_initial_model(model)
        QTimer.singleShot(0, startup.started)  # the window is up: the start-up's pause of the collector ends
        return int(app.exec())
    finally:
        window.shutdown()
        dispose(window)
