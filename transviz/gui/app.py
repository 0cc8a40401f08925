"""The QApplication and what every view shares: pyqtgraph's configuration, the colormap of
attention plots, fonts and translations.

pyqtgraph is configured once, here, before any plot exists: ``imageAxisOrder='row-major'``
(otherwise an array ``(queries, keys)`` is drawn transposed), no OpenGL (the offscreen platform
and many classroom laptops have none), the theme's plot colours (a light background by default,
for projectors). View > Theme and View > Colormap change the shared colours (:mod:`.theme`).
"""
from __future__ import annotations

import functools
import logging
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, QEvent, QMessageLogContext, QtMsgType, qInstallMessageHandler
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QWidget

from ..core.errors import ConfigError
from ..core.resources import resource_dir
from .fonts import install_fonts
from .language import set_language, system_language

log = logging.getLogger(__name__)

APP_NAME = "transviz"
# Perceptually uniform and readable with every common colour-vision deficiency (cividis was made
# for red-green deficiency); attention plots use no other colormaps (View > Colormap chooses).
COLORMAPS = ("viridis", "cividis", "magma")
# Okabe & Ito's colour-blind-safe palette: lines, highlights and marks drawn over heatmaps.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000")
HIGHLIGHT = PALETTE[1]  # vermillion: stands out on every colour of these colormaps


class _Shared:
    """What every plot is drawn with now (changed through :func:`set_colormap` and
    :func:`set_plot_colours`)."""

    colormap = COLORMAPS[0]
    plot_colours = {"background": "w", "foreground": "k"}


def configure_pyqtgraph() -> None:
    """Set pyqtgraph's global options (idempotent; call before creating any plot)."""
    pg.setConfigOptions(
        imageAxisOrder="row-major", useOpenGL=False, enableExperimental=False,
        antialias=True,  # line plots and outlines; images are unaffected
        **_Shared.plot_colours,
    )


def set_plot_colours(background: str, foreground: str) -> None:
    """The background and text colour of plots made from now on (the theme restyles the others)."""
    _Shared.plot_colours = {"background": background, "foreground": foreground}
    pg.setConfigOptions(**_Shared.plot_colours)


def colormap_name() -> str:
    return _Shared.colormap


def set_colormap(name: str) -> None:
    """Draw attention with ``name`` (one of :data:`COLORMAPS`) from now on; ConfigError otherwise.
    Heatmaps already shown take it when restyled (:func:`transviz.gui.theme.restyle`)."""
    if name not in COLORMAPS:
        raise ConfigError(f"unknown colormap {name!r}; choose one of {', '.join(COLORMAPS)}")
    if name != _Shared.colormap:
        _Shared.colormap = name
        lookup_table.cache_clear()


def colormap() -> pg.ColorMap:
    return pg.colormap.get(_Shared.colormap)


@functools.cache
def lookup_table() -> np.ndarray:
    """The colormap as a 256 x 3 uint8 table (pyqtgraph's fast path for float images)."""
    return colormap().getLookupTable(0.0, 1.0, 256, alpha=False).astype(np.uint8)


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
    can crash the process with a segmentation fault after all the work is done (seen here with
    ``transviz bench``); deleting it while the application still exists avoids that.
    """
    widget.close()
    widget.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def leave_a_core_for_qt() -> None:
    """Let torch use all cores but one, so the window stays live while a worker computes.

    On a 2-core machine this is one thread, which also matters for speed: a busy machine makes
    torch's two-thread pool spin, and a tiny Linear layer then took 16 ms instead of 0.01 ms here.
    """
    import torch

    torch.set_num_threads(max(1, (os.cpu_count() or 2) - 1))


@contextmanager
def a_core_left_for_qt() -> Iterator[None]:
    """:func:`leave_a_core_for_qt` for the duration, then torch's threads as they were (a bench or
    test that runs as the window does, without changing what runs after it)."""
    import torch

    threads = torch.get_num_threads()
    leave_a_core_for_qt()
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def run(model: str | None = None) -> int:
    """Open the main window (with ``model``: a file or a shipped model's name; default: the last
    run's) until it closes. The window remembers its settings in the user's settings file."""
    from .main_window import MainWindow
    from .settings import user_settings

    leave_a_core_for_qt()
    app = application()
    settings = user_settings()
    window = MainWindow(settings=settings)
    if settings is not None:
        window.restore(settings.load())
    window.show_as_chosen()
    window.open_initial_model(model)
    try:
        return int(app.exec())
    finally:
        window.shutdown()
        dispose(window)
