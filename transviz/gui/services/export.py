"""Export any widget as a picture: PNG (its pixels) or SVG (vector text and lines; images
embedded), written atomically like every file transviz writes."""
from __future__ import annotations

import base64
import math
import re
from pathlib import Path

from PySide6.QtCore import QBuffer, QCoreApplication, QIODevice, QPoint, Qt
from PySide6.QtGui import QAction, QImage, QPainter, QPixmap
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from ...core.base.errors import InputError, TransvizError
from ...core.base.files import write_atomically
from .core_messages import translated

FORMATS = (".png", ".svg")


def _png_bytes(image: QImage | QPixmap) -> bytes | None:
    """``image`` encoded as PNG, or None if Qt could not encode it."""
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    saved = image.save(buffer, "PNG")  # type: ignore[call-overload]  # PySide6's stub wants bytes; only str works
    return bytes(buffer.data().data()) if saved else None


def _png(widget: QWidget, path: Path) -> bytes:
    data = _png_bytes(widget.grab())
    if data is None:
        raise InputError(QCoreApplication.translate("export", "could not write the PNG file {0}").format(path))
    return data


# A heatmap is a tiny image (one pixel a cell) drawn large. SVG viewers smooth embedded images
# when they scale them, which blurs cells into each other (Qt's image-rendering hint is widely
# ignored), so small images are enlarged here first, nearest-neighbour: cells stay sharp.
_EMBEDDED_PNG = re.compile(r'(<image\b[^>]*?xlink:href="data:image/png;base64,)([^"]+)(")')
SHARP_PIXELS = 512  # enlarge embedded images until their longer side has at least this many pixels


def _enlarge(match: re.Match[str]) -> str:
    image = QImage.fromData(base64.b64decode(match.group(2)), "PNG")  # type: ignore[arg-type]  # as in _png_bytes
    longest = max(image.width(), image.height())
    if image.isNull() or longest >= SHARP_PIXELS:
        return match.group(0)
    factor = math.ceil(SHARP_PIXELS / longest)
    image = image.scaled(image.width() * factor, image.height() * factor,
                         Qt.AspectRatioMode.IgnoreAspectRatio, Qt.TransformationMode.FastTransformation)
    return match.group(1) + base64.b64encode(_png_bytes(image) or b"").decode("ascii") + match.group(3)


def _svg(widget: QWidget, title: str) -> bytes:
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    generator = QSvgGenerator()
    generator.setOutputDevice(buffer)
    generator.setSize(widget.size())
    generator.setViewBox(widget.rect())
    generator.setTitle(title)
    painter = QPainter(generator)
    try:
        # QWidget's render, by name: pyqtgraph's views (QGraphicsView) override render() with the
        # scene-drawing signature, which refuses these arguments
        QWidget.render(widget, painter, QPoint(0, 0))
    finally:
        painter.end()
    svg = bytes(buffer.data().data()).decode("utf-8")
    return _EMBEDDED_PNG.sub(_enlarge, svg).encode("utf-8")


def save_picture(widget: QWidget, path: str | Path, title: str = "transviz") -> Path:
    """Write ``widget`` as it looks now to ``path``: ``.png`` or ``.svg`` by the suffix."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        message = QCoreApplication.translate("export", "cannot export to {0}: choose a .png or .svg file name")
        raise InputError(message.format(path.name))
    data = _png(widget, path) if suffix == ".png" else _svg(widget, title)
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_atomically(path, data)


def export_with_dialog(widget: QWidget, suffix: str, title: str, parent: QWidget | None = None) -> Path | None:
    """Ask where to write ``widget`` as ``suffix`` (".png" or ".svg") and write it; a failure is
    shown in a warning box that does not block. Returns the file written, None if none was."""
    owner = parent or widget
    kind = suffix[1:].upper()
    title_text = QCoreApplication.translate("export", "Export plot")
    name, _ = QFileDialog.getSaveFileName(owner, title_text, "plot" + suffix, f"{kind} (*{suffix})")
    if not name:
        return None
    try:
        return save_picture(widget, name if name.lower().endswith(suffix) else name + suffix, title)
    except (OSError, TransvizError) as exc:
        failed = QCoreApplication.translate("export", "Export failed")
        box = QMessageBox(QMessageBox.Icon.Warning, failed, translated(exc), QMessageBox.StandardButton.Ok, owner)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
        return None


def plot_title(plot: QWidget) -> str:
    """The title a plot's SVG export carries."""
    return getattr(plot, "title", "") or "transviz"


def add_export_actions(plot: QWidget) -> list[QAction]:
    """A right-click menu on ``plot`` that exports it as PNG or SVG; the owner names the actions
    again after a language change (:func:`name_export_actions`)."""
    plot.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
    actions = []
    for suffix in FORMATS:
        action = QAction(plot)
        action.setData(suffix)
        action.triggered.connect(lambda _=False, s=suffix: export_with_dialog(plot, s, plot_title(plot)))
        plot.addAction(action)
        actions.append(action)
    name_export_actions(actions)
    return actions


def name_export_actions(actions: list[QAction]) -> None:
    translate = QCoreApplication.translate  # literal arguments, so that lupdate finds them
    for action in actions:
        png = action.data() == ".png"
        action.setText(translate("export", "Export as PNG...") if png else translate("export", "Export as SVG..."))
