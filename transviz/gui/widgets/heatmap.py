"""One reusable heatmap: a 2-D float array with token labels on both axes, a colour bar with
fixed levels, the highlighted current row, a hover read-out and export to PNG / SVG.

Every attention plot in transviz is this widget: rows are queries, columns are keys, drawn like
a matrix (row 0 at the top), and the axis titles say so.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, QEvent, QObject, QPoint, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QImage,
    QPainter,
    QPainterPath,
    QPen,
    QTransform,
    QWheelEvent,
)
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsPathItem,
    QGraphicsRectItem,
    QGraphicsSimpleTextItem,
    QHBoxLayout,
    QStyleOptionGraphicsItem,
    QVBoxLayout,
    QWidget,
)

from ...core.analysis.resample import area_average
from ..services.export import add_export_actions, name_export_actions, plot_title, save_picture
from ..services.language import Retranslated
from ..style import HIGHLIGHT, colormap, diverging_colormap, diverging_lookup_table, lookup_table, plain_axes, plot_font
from .labels import plain_label, unbreakable

MAX_LABELS = 40  # more rows or columns than this: label every n-th one so that labels never pile up
MIN_CELL_PIXELS = 3  # narrower cells are resampled to the screen's pixels (area averaging)
MIN_ZOOM_CELLS = 8  # zoomed in as far as it goes, this many rows and columns still show
WHEEL_ZOOM = 1.25  # a notch of Ctrl + wheel zooms in or out by this factor
WHEEL_PAGES = 10  # a notch of the wheel scrolls by this share of the cells shown
MASKED_FILL, MASKED_LINES = QColor("#dcdcdc"), QColor("#505050")  # grey hatching: outside any colormap
# a quiz's hidden row: lavender under a dashed purple frame and a "?", unlike any colormap and unlike
# the mask's hatching (hidden is not masked: the model did attend there, the class may not see it yet)
HIDDEN_FILL, HIDDEN_MARK = QColor("#d9cff3"), QColor("#5a4b8c")
# a marked cell (a quiz's numbered cells): dark ink on white, readable on every colormap, the hatching and
# the hidden fill alike
MARK_INK, MARK_PAPER = QColor("#1a1a1a"), QColor("#ffffff")


def hidden_word() -> str:
    """What a hidden cell is called in legends and read-outs."""
    return QCoreApplication.translate("HeatmapWidget", "hidden until you answer")


def hidden_band(rows: Sequence[int], columns: int) -> QPainterPath:
    """One rectangle per hidden row, ``columns`` cells wide."""
    path = QPainterPath()
    for row in rows:
        path.addRect(QRectF(0, float(row), float(columns), 1))
    return path


def cell_frames(cells: Sequence[tuple[int, int]]) -> QPainterPath:
    """One square outline per (row, column) cell."""
    path = QPainterPath()
    for row, column in cells:
        path.addRect(QRectF(float(column), float(row), 1, 1))
    return path


class CellMark(QGraphicsItem):
    """A short text on a white box with a dark border, centred on its position and the same size on
    screen at any zoom: a cell's number, readable over any colour of the map."""

    PAD = 3.0  # pixels of box around the text

    def __init__(self, text: str) -> None:
        super().__init__()
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)  # a click goes to the cell under it
        self.setZValue(12)
        self._text = ""
        self.set_text(text)

    @property
    def text(self) -> str:
        return self._text

    def set_text(self, text: str) -> None:
        self.prepareGeometryChange()
        self._text = text
        self._font = QFont(plot_font())
        self._font.setBold(True)
        metrics = QFontMetricsF(self._font)
        width = max(metrics.horizontalAdvance(text), metrics.height() * 0.6) + 2 * self.PAD
        height = metrics.height() + self.PAD
        self._box = QRectF(-width / 2, -height / 2, width, height)
        self.update()

    def boundingRect(self) -> QRectF:
        return self._box.adjusted(-1, -1, 1, 1)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QPen(MARK_INK, 1.2))
        painter.setBrush(QBrush(MARK_PAPER))
        painter.drawRoundedRect(self._box, 3, 3)
        painter.setFont(self._font)
        painter.drawText(self._box, int(Qt.AlignmentFlag.AlignCenter), self._text)


def hatching(cells: np.ndarray) -> QPainterPath:
    """Outlined, diagonally hatched squares over the ``True`` cells of a (rows, columns) array.

    Drawn as vector lines rather than a pattern brush, so they look the same on screen, in PNG
    and in every SVG viewer (pattern fills are not part of SVG Tiny, which Qt writes).
    """
    path = QPainterPath()
    for row, column in zip(*np.nonzero(cells), strict=True):
        x, y = float(column), float(row)
        path.addRect(QRectF(x, y, 1, 1))
        for start, end in (((0, 0.5), (0.5, 0)), ((0, 1), (1, 0)), ((0.5, 1), (1, 0.5))):  # rising diagonals
            path.moveTo(x + start[0], y + start[1])
            path.lineTo(x + end[0], y + end[1])
    return path


def label_stride(count: int, cell_pixels: float = math.inf, needed_pixels: float = 0.0) -> int:
    """Label every ``stride``-th cell: 1 up to :data:`MAX_LABELS` cells, then 2, 5, 10, 20, 50, ...;
    more if the cells are narrower (``cell_pixels``) than a label needs (``needed_pixels``)."""
    stride, steps = 1, (2, 2.5, 2)  # 1 -> 2 -> 5 -> 10 -> 20 -> 50 ...
    i = 0
    while (count / stride > MAX_LABELS or stride * cell_pixels < needed_pixels) and stride < count:
        stride = int(stride * steps[i % 3])
        i += 1
    return stride


def reserve_label_width(axis: pg.AxisItem, texts: Sequence[str]) -> None:
    """Size a vertical axis for its longest label now; pyqtgraph would widen it only after a
    first paint, so a picture exported straight away would lose labels that do not fit."""
    font = axis.style["tickFont"] or axis.font()
    widest = max((QFontMetricsF(font).horizontalAdvance(text) for text in texts), default=0.0)
    axis._updateMaxTextSize(math.ceil(widest) + 2)  # pyqtgraph's own hook for "text got wider"


class BlitImageItem(pg.ImageItem):
    """pyqtgraph's image item, drawn faster: it colours a float image through its lookup table
    straight into a picture that Qt draws as it is.

    pyqtgraph renders indexed or RGBA pictures, which Qt converts again on every paint, through a
    general rendering path that is slow even for a 12 x 12 map: together a large part of one
    decoding step's redraw (``transviz bench gui_step_redraw_ms_6x8``). The colours are
    pyqtgraph's own (same levels, same table, NaN transparent); other images take its path.
    """

    qimage: QImage | None  # pyqtgraph's: the picture it paints (None until rendered)
    _pixels: np.ndarray  # what our picture shows: the QImage does not own them

    def render(self) -> None:
        image, lut, levels = self.image, self.lut, self.levels
        simple = (isinstance(image, np.ndarray) and image.ndim == 2 and image.dtype.kind == "f" and image.size
                  and self.axisOrder == "row-major" and isinstance(lut, np.ndarray) and lut.ndim == 2
                  and lut.shape[1] == 3 and levels is not None and np.ndim(levels) == 1)
        if not simple:
            super().render()
            if self.qimage is not None:
                opaque = not self.qimage.hasAlphaChannel()
                self.qimage = self.qimage.convertToFormat(
                    QImage.Format.Format_RGB32 if opaque else QImage.Format.Format_ARGB32_Premultiplied)
            return
        self.qimage, self._pixels = coloured_picture(fitted_to(image, self.device_cells()), lut, levels)
        self._renderRequired = self._unrenderable = False

    def device_cells(self) -> tuple[int, int] | None:
        """How many device pixels the image spans (rows, columns); None before it is in a view."""
        if self.image is None:
            return None
        height, width = self.image.shape[:2]
        rect = self.mapRectToDevice(QRectF(0, 0, width, height))
        return None if rect is None else (max(1, round(rect.height())), max(1, round(rect.width())))

    def viewTransformChanged(self) -> None:
        """Render again when the image now spans another number of pixels than the picture has:
        a picture with fewer cells than the image was averaged for the old size."""
        super().viewTransformChanged()
        if self.qimage is not None and self.image is not None \
                and (self.qimage.height(), self.qimage.width()) != fitted_shape(self.image.shape, self.device_cells()):
            self._renderRequired = True
            self.update()


def fitted_shape(shape: Sequence[int], pixels: tuple[int, int] | None) -> tuple[int, int]:
    """The cells of a picture of an image ``shape`` drawn over ``pixels``: one a pixel along an axis
    whose cells are narrower than :data:`MIN_CELL_PIXELS` (drawn as they are, some would take one
    pixel and others two, or none), else the image's own."""
    if pixels is None:
        return shape[0], shape[1]
    rows, columns = (p if n * MIN_CELL_PIXELS > p else n for n, p in zip(shape[:2], pixels, strict=True))
    return rows, columns


def fitted_to(image: np.ndarray, pixels: tuple[int, int] | None) -> np.ndarray:
    """``image`` resampled to :func:`fitted_shape` by averaging the area each pixel covers.

    Drawn as it is, a 512-column table in 400 pixels would show every 1.3th column, whose
    alternating values make moiré stripes. NaN cells are left out of the averages; a pixel over
    NaN cells only stays NaN."""
    return area_average(image, *fitted_shape(image.shape, pixels))


def coloured_picture(image: np.ndarray, lut: np.ndarray, levels: Sequence[float],
                     blank: QColor | None = None) -> tuple[QImage, np.ndarray]:
    """``image`` coloured as pyqtgraph colours it: entry ``floor((v - low) * len(lut) / (high - low))``
    of ``lut``, clipped to the table; NaN cells ``blank``, else transparent. Returns the picture
    and the pixels it shows (the picture does not own them)."""
    low, high = float(levels[0]), float(levels[1])
    scale = len(lut) / ((high - low) or 1.0)
    nan = np.isnan(image)
    index = np.clip((np.where(nan, low, image) - low) * scale, 0, len(lut) - 1).astype(np.intp)
    table = lut.astype(np.uint32)
    argb = (0xFF000000 | table[:, 0] << 16 | table[:, 1] << 8 | table[:, 2]).astype(np.uint32)
    pixels = np.ascontiguousarray(argb[index])
    transparent = blank is None and bool(nan.any())
    if nan.any():
        pixels[nan] = 0 if blank is None else blank.rgb() | 0xFF000000  # 0: transparent black, premultiplied
    pixel_format = QImage.Format.Format_ARGB32_Premultiplied if transparent else QImage.Format.Format_RGB32
    height, width = pixels.shape
    return QImage(pixels.data, width, height, 4 * width, pixel_format), pixels


class TokenAxis(pg.AxisItem):
    """An axis labelled with tokens at cell centres (cell ``i`` spans ``[i, i + 1]``).

    A bottom axis turns its labels by 45 degrees when the widest is wider than a cell, so long
    tokens stay readable instead of overlapping; when the cells are too narrow even for that (or,
    on a vertical axis, lower than a line of text), only every n-th cell is labelled.
    """

    ANGLE = 45.0

    def __init__(self, orientation: str) -> None:
        super().__init__(orientation)
        self.enableAutoSIPrefix(False)  # tokens have no units; otherwise every range change re-lays the title
        self._labels: list[str] = []
        self._requested: list[int] | None = None  # the cells the caller wants labelled; None: fit them
        self._shown: list[int] = []  # indices of the labels drawn
        self._widest = 0.0  # pixels, of all labels
        self._ticks_set = False
        self._rotated = False
        self._reach = 0.0  # pixels the turned labels reach left of the axis

    @property
    def labels(self) -> list[str]:
        return list(self._labels)

    @property
    def rotated(self) -> bool:
        return self._rotated

    def tick_labels(self) -> list[tuple[float, str]]:
        """The (position, text) of every label drawn."""
        return [(i + 0.5, self._labels[i]) for i in self._shown]

    def set_labels(self, labels: Sequence[str], shown: Sequence[int] | None = None) -> None:
        """One label per cell; ``shown`` picks the cells labelled (default: every
        :func:`label_stride`-th one, as many as fit)."""
        labels = [str(label) for label in labels]
        requested = list(shown) if shown is not None else None
        if (labels, requested) == (self._labels, self._requested):
            return  # redrawing an axis is a good part of a step's redraw: only when it changed
        self._labels, self._requested = labels, requested
        self._ticks_set = False  # new texts at the same places: the axis must still be given them
        metrics = self._metrics()
        self._widest = max((metrics.horizontalAdvance(text) for text in labels), default=0.0)
        self._choose_shown()
        self._update_rotation()

    def refit(self) -> None:
        """Measure the labels again (the tick font changed: a theme or presentation mode)."""
        self._widest = max((self._metrics().horizontalAdvance(text) for text in self._labels), default=0.0)
        self._ticks_set = False
        self._choose_shown()
        self._update_rotation(force=self.orientation == "bottom")  # turned labels' height depends on the font

    def _cell_pixels(self) -> float:
        """How many pixels one cell spans along this axis (infinite before the view is laid out)."""
        view = self.linkedView()
        if view is None:
            return math.inf
        units_per_pixel = view.viewPixelSize()[0 if self.orientation in ("top", "bottom") else 1]
        return 1.0 / units_per_pixel if units_per_pixel > 0 else math.inf

    def _visible_count(self) -> int:
        """How many cells the view shows along this axis (all of them before it is laid out)."""
        view = self.linkedView()
        if view is None:
            return len(self._labels)
        low, high = view.viewRange()[0 if self.orientation in ("top", "bottom") else 1]
        return max(1, min(len(self._labels), math.ceil(high - low)))

    def _choose_shown(self) -> None:
        if self._requested is not None:
            shown = self._requested
        else:
            height = self._metrics().height()
            # a column label fits upright, or turned by 45 degrees in about 1.4 lines; a row label in a line
            needed = min(1.1 * self._widest, 1.4 * height) if self.orientation in ("top", "bottom") else 1.1 * height
            stride = label_stride(self._visible_count(), self._cell_pixels(), needed)
            shown = list(range(0, len(self._labels), stride))
        if shown == self._shown and self._ticks_set:
            return
        self._shown, self._ticks_set = shown, True
        self.setTicks([self.tick_labels(), []])
        if self.orientation in ("left", "right"):
            reserve_label_width(self, [text for _, text in self.tick_labels()])

    def setLabel(self, *args, **kwargs):  # pyqtgraph's signature
        super().setLabel(*args, **kwargs)
        if getattr(self, "_rotated", False):  # (pyqtgraph's constructor labels the axis before ours runs)
            self._update_rotation(force=True)  # the title's height is part of a turned axis's height

    def resizeEvent(self, ev=None):  # pyqtgraph's signature
        if self.label is not None:
            self.label.setHtml(self.labelString())  # cut to the new length (not _updateLabel: it resizes)
        super().resizeEvent(ev)

    def labelString(self) -> str:  # pyqtgraph's
        """The title cut with "..." to the axis's length, the whole title in the axis's tooltip: a
        long one ran past the window's edge, or under the colour bar, on a small screen and in
        presentation mode. ``labelText`` keeps the whole title (a restyle sets it again)."""
        full: str = getattr(self, "labelText", "")  # pyqtgraph sets it, untyped
        length = self.size().height() if self.orientation in ("left", "right") else self.size().width()
        shown = QFontMetricsF(self._title_font()).elidedText(full, Qt.TextElideMode.ElideRight,
                                                             max(length - 12.0, 24.0)) if length > 0 else full
        self.setToolTip(full if shown != full else "")
        self.labelText = shown
        try:
            text: str = super().labelString()
        finally:
            self.labelText = full
        return text

    def _title_font(self) -> QFont:
        """The font the title is drawn in: the label's, with the size and weight of its style."""
        font = QFont(self.label.font())
        size = str(self.labelStyle.get("font-size", ""))
        if size.endswith("pt"):
            font.setPointSizeF(float(size[:-2]))
        font.setBold(self.labelStyle.get("font-weight") == "bold")
        return font

    def linkedViewChanged(self, view, newRange=None):  # pyqtgraph's signature
        super().linkedViewChanged(view, newRange)
        self._choose_shown()
        self._update_rotation()

    def _metrics(self) -> QFontMetricsF:
        return QFontMetricsF(self.style["tickFont"] or self.font())

    def _widest_label(self) -> float:
        metrics = self._metrics()
        return max((metrics.horizontalAdvance(text) for _, text in self.tick_labels()), default=0.0)

    def _update_rotation(self, force: bool = False) -> None:
        view = self.linkedView()
        rotated, widest = False, 0.0
        if self.orientation == "bottom" and self._labels and view is not None:
            units_per_pixel = view.viewPixelSize()[0]
            cell_pixels = 1.0 / units_per_pixel if units_per_pixel > 0 else math.inf
            spacing = min((b - a for a, b in pairwise(self._shown)), default=1)
            widest = self._widest_label()
            rotated = widest > 0.9 * cell_pixels * spacing
        slant = math.radians(self.ANGLE)
        # turned labels run down to the left of their ticks: the first one reaches past the axis's
        # left end, into the empty corner under the left axis (it was cut there)
        reach = widest * math.cos(slant) + self._metrics().height() * math.sin(slant) if rotated else 0.0
        if reach != self._reach:
            self.prepareGeometryChange()  # the bounding rectangle follows
            self._reach = reach
        if rotated == self._rotated and not force:
            return
        self._rotated = rotated
        if rotated:
            text = widest * math.sin(slant) + self._metrics().height() * math.cos(slant)
            label = self.label.boundingRect().height() if self.label.isVisible() else 0.0
            self.setHeight(int(text + max(0, self.style["tickLength"]) + self.style["tickTextOffset"][1] + label + 4))
        else:
            self.setHeight(None)
        self.picture = None
        self.update()

    def boundingRect(self) -> QRectF:
        rect: QRectF = super().boundingRect()
        return rect.adjusted(-getattr(self, "_reach", 0.0), 0, 0, 0)  # (pyqtgraph's constructor asks first)

    def drawPicture(self, p, axisSpec, tickSpecs, textSpecs):  # pyqtgraph's signature
        if not self._rotated:
            super().drawPicture(p, axisSpec, tickSpecs, textSpecs)
            return
        super().drawPicture(p, axisSpec, tickSpecs, [])
        view = self.linkedView()
        metrics = self._metrics()
        top = max(0, self.style["tickLength"]) + self.style["tickTextOffset"][1]
        p.setPen(self.textPen())
        for value, text in self.tick_labels():
            x = self.mapFromScene(view.mapViewToScene(QPointF(value, 0))).x()
            width, height = metrics.horizontalAdvance(text) + 2, metrics.height()
            p.save()
            p.translate(x, top)
            p.rotate(-self.ANGLE)  # text rises to the right and ends at its tick
            p.drawText(QRectF(-width, 0, width, height),  # the text's top right corner sits on the tick
                       int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), text)
            p.restore()


def symmetric_levels(*arrays: np.ndarray) -> tuple[float, float]:
    """Levels centred on 0 that cover every finite value (scores and values are signed)."""
    finite = [np.abs(a[np.isfinite(a)]) for a in arrays]
    high = max((float(f.max()) for f in finite if f.size), default=1.0)
    return (-high, high) if high > 0 else (-1.0, 1.0)


@dataclass(frozen=True)
class AxisNames:
    """What the rows and columns of a heatmap are, for its axis titles and read-out."""

    row: str  # one row, in the read-out: "query"
    column: str  # one column: "key"
    row_title: str  # the vertical axis title
    column_title: str  # the horizontal axis title
    readout: str = "{row_name} '{row}' -> {column_name} '{column}': {value}"


def attention_axes() -> AxisNames:
    # QCoreApplication.translate with literal arguments, so that lupdate finds every string
    return AxisNames(
        QCoreApplication.translate("HeatmapWidget", "query"),
        QCoreApplication.translate("HeatmapWidget", "key"),
        QCoreApplication.translate("HeatmapWidget", "queries (rows)"),
        QCoreApplication.translate("HeatmapWidget", "keys (columns)"),
        QCoreApplication.translate("HeatmapWidget", "{row_name} '{row}' -> {column_name} '{column}': {value}"),
    )


def value_text(value: float, fmt: str = "{:.2f}") -> str:
    if math.isnan(value):
        return QCoreApplication.translate("HeatmapWidget", "masked")
    if math.isinf(value):
        return QCoreApplication.translate("HeatmapWidget", "{0}inf (masked)").format("-" if value < 0 else "+")
    return fmt.format(value)


class HeatmapWidget(Retranslated, QWidget):
    """A heatmap of one 2-D array, rows = queries and columns = keys for attention.

    Args:
        title: shown above the plot and written into exported SVGs.
        axes: names of rows and columns (default: query / key), see :class:`AxisNames`.
        levels: the values at the two ends of the colormap; 0..1 for attention weights.
        value_format: how the read-out prints finite values: a format string, or a function
            (e.g. "may attend" / "blocked" for a mask).
        colorbar: show the colour bar.
        diverging: colour with the diverging colormap (:data:`~.style.DIVERGING`) for signed
            values, instead of the attention colormap; give levels symmetric about 0.

    Signals:
        hovered(int, int): the cell (row, column) under the mouse.
        clicked(int, int): the cell (row, column) clicked.

    Non-finite cells (``-inf`` scores of masked keys, NaN) are drawn hatched, outside the
    colormap, and the read-out names them. Right-click offers export to PNG and SVG. The title
    and axes given are the caller's to translate again on a language change (the default axes
    translate themselves).

    Example::

        heatmap = HeatmapWidget(tr("cross-attention, layer 0, head 1"))
        heatmap.set_data(trace.cross_attention[0, 1], trace.target_tokens, trace.source_tokens)
        heatmap.set_highlighted_row(3)
    """

    hovered = Signal(int, int)
    clicked = Signal(int, int)

    def __init__(
        self,
        title: str = "",
        axes: AxisNames | None = None,
        levels: tuple[float, float] = (0.0, 1.0),
        value_format: str | Callable[[float], str] = "{:.2f}",
        colorbar: bool = True,
        parent: QWidget | None = None,
        diverging: bool = False,
    ) -> None:
        super().__init__(parent)
        self._diverging = diverging
        self._axes = axes or attention_axes()
        self._default_axes = axes is None
        self._levels = levels
        self._value_format = value_format
        self._data = np.zeros((0, 0), dtype=np.float32)
        self._highlighted: int | None = None
        self._hidden_rows: list[int] = []
        self._window: QRectF | None = None  # the cells shown when zoomed in; None: the whole map
        self._build(title, colorbar)
        self._export_actions = add_export_actions(self)

    # -- construction --------------------------------------------------------------------------
    def _build(self, title: str, colorbar: bool) -> None:
        self._title = plain_label(title, wrap=True)  # long titles must not widen the window
        self._title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._title.setVisible(bool(title))
        self._view = pg.GraphicsLayoutWidget()
        self._view.ci.setContentsMargins(2, 2, 2, 2)
        self._left, self._bottom = TokenAxis("left"), TokenAxis("bottom")
        self._plot = self._view.addPlot(row=0, col=0, axisItems={"left": self._left, "bottom": self._bottom},
                                        enableMenu=False)
        self._plot.setLabel("left", self._axes.row_title)
        self._plot.setLabel("bottom", self._axes.column_title)
        self._plot.hideButtons()
        for side in ("top", "right"):  # hidden, yet following the range: no title to lay out again each time
            self._plot.getAxis(side).enableAutoSIPrefix(False)
        box = self._plot.getViewBox()
        box.invertY(True)  # row 0 on top, as a matrix is written
        box.setMouseEnabled(False, False)
        box.setDefaultPadding(0.0)
        self._image = BlitImageItem(axisOrder="row-major")
        self._plot.addItem(self._image)
        self._masked = QGraphicsPathItem()
        self._masked.setBrush(QBrush(MASKED_FILL))
        lines = QPen(MASKED_LINES, 1)
        lines.setCosmetic(True)
        self._masked.setPen(lines)
        self._masked.setZValue(5)
        box.addItem(self._masked)
        self._hidden = QGraphicsPathItem()
        self._hidden.setBrush(QBrush(HIDDEN_FILL))
        frame = QPen(HIDDEN_MARK, 2, Qt.PenStyle.DashLine)
        frame.setCosmetic(True)
        self._hidden.setPen(frame)
        self._hidden.setZValue(6)
        box.addItem(self._hidden)
        self._question_marks: list[QGraphicsSimpleTextItem] = []  # one "?" per hidden row, centred on it
        self._highlight = QGraphicsRectItem()
        pen = pg.mkPen(HIGHLIGHT, width=3)
        pen.setCosmetic(True)
        self._highlight.setPen(pen)
        self._highlight.setZValue(10)
        self._highlight.setVisible(False)
        box.addItem(self._highlight)
        self._marked = QGraphicsPathItem()  # the frames of the marked cells (set_cell_marks)
        frame = QPen(MARK_INK, 2)
        frame.setCosmetic(True)
        self._marked.setPen(frame)
        self._marked.setZValue(11.5)
        box.addItem(self._marked)
        self._marks: dict[tuple[int, int], CellMark] = {}
        self._divider = pg.InfiniteLine(angle=90, pen=pg.mkPen(HIGHLIGHT, width=3, style=Qt.PenStyle.DashLine))
        self._divider.setZValue(11)
        self._divider.setVisible(False)
        box.addItem(self._divider, ignoreBounds=True)
        self._colorbar: pg.ColorBarItem | None = None
        if colorbar:
            self._colorbar = pg.ColorBarItem(values=self._levels, colorMap=self._colormap(), interactive=False,
                                             colorMapMenu=False, width=14)
            plain_axes(self._colorbar)  # weights, not quantities with units
            self._view.addItem(self._colorbar, row=0, col=1)
            self._fit_colorbar_labels()
        self._readout = plain_label(" ")  # filled on hover; a space keeps its line height
        self._masked_legend = plain_label(wrap=True)
        self.bind_text(self._masked_legend.setText,
                       lambda: self.tr("grey hatched cells: masked ({0})").format(unbreakable("-inf")))
        self._masked_legend.setVisible(False)
        self._hidden_legend = plain_label(wrap=True)
        self.bind_text(self._hidden_legend.setText,
                       lambda: self.tr("cells with ?: {0}").format(hidden_word()))
        self._hidden_legend.setVisible(False)
        footer = QHBoxLayout()
        footer.addWidget(self._readout, 1)
        footer.addWidget(self._masked_legend)
        footer.addWidget(self._hidden_legend)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self._title)
        layout.addWidget(self._view, 1)
        layout.addLayout(footer)
        self._view.viewport().installEventFilter(self)  # the wheel zooms and scrolls
        self.bind_text(self._view.setToolTip, lambda: self.tr(
            "Ctrl + wheel: zoom in or out. Zoomed in, the wheel scrolls up and down, Shift + wheel left and "
            "right. Double-click: the whole map again."))
        scene = self._view.scene()
        scene.sigMouseMoved.connect(self._on_mouse_moved)
        scene.sigMouseClicked.connect(self._on_mouse_clicked)

    def _colormap(self) -> pg.ColorMap:
        return diverging_colormap() if self._diverging else colormap()

    def _lookup_table(self) -> np.ndarray:
        return diverging_lookup_table() if self._diverging else lookup_table()

    def retranslate(self) -> None:
        super().retranslate()
        name_export_actions(self._export_actions)
        if self._default_axes:
            self.set_axes(attention_axes())
            self._default_axes = True

    def restyle(self) -> None:
        """Take the current colormap; measure the axis labels in the current font."""
        self._image.setLookupTable(self._lookup_table())
        if self._colorbar is not None:
            self._colorbar.setColorMap(self._colormap())
            self._fit_colorbar_labels()
        for axis in (self._left, self._bottom):
            axis.refit()
        for mark in self._marks.values():
            mark.set_text(mark.text)  # measured again in the plot font now in use

    def _fit_colorbar_labels(self) -> None:
        """pyqtgraph gives the colour bar's axis 45 pixels, too narrow for its labels in the large
        font of presentation mode: size it for labels like those of the current levels, with room
        above and below for half of the end labels."""
        assert self._colorbar is not None
        axis = self._colorbar.axis
        axis.setWidth(None)
        reserve_label_width(axis, [f"{value:.1f}" for value in (*self._levels, 0.5)])
        half_line = math.ceil(QFontMetricsF(axis.style["tickFont"] or axis.font()).height() / 2)
        self._view.ci.setContentsMargins(2, half_line, 2, half_line)

    # -- data ----------------------------------------------------------------------------------
    def set_data(
        self,
        data: np.ndarray,
        row_labels: Sequence[str],
        column_labels: Sequence[str],
        levels: tuple[float, float] | None = None,
        labelled_columns: Sequence[int] | None = None,
        colours: np.ndarray | None = None,
        hidden_rows: Sequence[int] = (),
    ) -> None:
        """Show ``data`` (rows, columns); labels give one name per row and per column.
        ``labelled_columns`` picks the columns whose label is drawn (default: all, or every
        n-th when there are many). ``colours`` (same shape) is coloured instead of ``data``, e.g.
        each row scaled to its largest value; the read-out still gives ``data``'s values.
        ``hidden_rows`` are a quiz's question: their values are dropped, and they are drawn and
        named as hidden, not as masked. A change of data clears the read-out: it would describe the
        old cell."""
        data = np.asarray(data, dtype=np.float32)
        if data.ndim != 2 or data.shape != (len(row_labels), len(column_labels)):
            raise ValueError(f"data {data.shape} does not match {len(row_labels)} row and "
                             f"{len(column_labels)} column labels")
        if colours is not None and np.shape(colours) != data.shape:
            raise ValueError(f"colours {np.shape(colours)} do not match data {data.shape}")
        rows, columns = data.shape
        self._hidden_rows = sorted({row for row in hidden_rows if 0 <= row < rows})
        if self._hidden_rows:  # never held, so never hovered or exported either
            data = data.copy()
            data[self._hidden_rows] = np.nan
        self._data = data
        self._readout.setText(" ")
        if levels is not None:
            self._levels = levels if levels[1] > levels[0] else (levels[0], levels[0] + 1.0)  # constant data
        finite = np.isfinite(data)
        coloured = data if colours is None else np.asarray(colours, dtype=np.float32)
        display = np.ascontiguousarray(np.where(finite, coloured, np.nan), dtype=np.float32)  # NaN: transparent
        if data.size:
            self._image.setImage(display, levels=self._levels, lut=self._lookup_table(), autoLevels=False)
            self._image.setRect(QRectF(0, 0, columns, rows))
        else:  # nothing to show (yet): pyqtgraph cannot scale an empty image
            self._image.clear()
        masked = ~finite
        masked[self._hidden_rows] = False
        self._masked.setPath(hatching(masked))
        self._masked_legend.setVisible(bool(masked.any()))
        self._show_hidden(columns)
        self._left.set_labels(row_labels)
        self._bottom.set_labels(column_labels, labelled_columns)
        if self._colorbar is not None and tuple(self._colorbar.levels()) != tuple(self._levels):
            self._colorbar.setLevels(self._levels)
            self._fit_colorbar_labels()
        keep = self._highlighted is not None and self._highlighted < rows
        self._highlighted = self._highlighted if keep else None
        self._show_window(self._window)  # the zoom stays as the map grows by a row each step
        self.set_highlighted_row(self._highlighted)

    def _show_hidden(self, columns: int) -> None:
        """Cover the hidden rows, each with a "?" in its middle (a fixed size on screen)."""
        self._hidden.setPath(hidden_band(self._hidden_rows, columns))
        self._hidden_legend.setVisible(bool(self._hidden_rows))
        box = self._plot.getViewBox()
        while len(self._question_marks) < len(self._hidden_rows):
            mark = QGraphicsSimpleTextItem("?")
            mark.setBrush(QBrush(HIDDEN_MARK))
            mark.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
            mark.setZValue(7)
            font = mark.font()
            font.setBold(True)
            mark.setFont(font)
            box.addItem(mark)
            self._question_marks.append(mark)
        marked_rows = {row for row, _ in self._marks}  # a marked cell's number says what is asked there
        for index, mark in enumerate(self._question_marks):
            mark.setVisible(index < len(self._hidden_rows) and self._hidden_rows[index] not in marked_rows)
            if index < len(self._hidden_rows):
                size = mark.boundingRect()
                mark.setPos(columns / 2, self._hidden_rows[index] + 0.5)
                mark.setTransform(QTransform.fromTranslate(-size.width() / 2, -size.height() / 2))

    @property
    def hidden_rows(self) -> list[int]:
        """The rows drawn as hidden (a quiz's question)."""
        return list(self._hidden_rows)

    def set_cell_marks(self, marks: Mapping[tuple[int, int], str]) -> None:
        """Frame each (row, column) cell of ``marks`` and write its text over it (a quiz's numbered
        cells); ``{}`` clears them. The marks stay until set again, whatever data is shown; a
        hidden row's "?" steps aside for them."""
        box = self._plot.getViewBox()
        for cell in [cell for cell in self._marks if cell not in marks]:
            box.removeItem(self._marks.pop(cell))
        for (row, column), text in marks.items():
            item = self._marks.get((row, column))
            if item is None:
                item = self._marks[row, column] = CellMark(text)
                box.addItem(item)
            elif item.text != text:
                item.set_text(text)
            item.setPos(column + 0.5, row + 0.5)
        self._marked.setPath(cell_frames(list(marks)))
        self._show_hidden(self._data.shape[1])

    @property
    def cell_marks(self) -> dict[tuple[int, int], str]:
        """The marked cells and their texts (:meth:`set_cell_marks`)."""
        return {cell: item.text for cell, item in self._marks.items()}

    def set_levels(self, low: float, high: float) -> None:
        """Change the values at the ends of the colormap (e.g. for raw scores or a positional table)."""
        self._levels = (low, high)
        self._image.setLevels(self._levels)
        if self._colorbar is not None:
            self._colorbar.setLevels(self._levels)
            self._fit_colorbar_labels()

    def set_column_divider(self, column: int | None) -> None:
        """Draw a line before ``column``, between two parts of the keys (None: no line)."""
        self._divider.setVisible(column is not None)
        if column is not None:
            self._divider.setValue(column)

    @property
    def column_divider(self) -> int | None:
        return int(self._divider.value()) if self._divider.isVisible() else None

    def set_highlighted_row(self, row: int | None) -> None:
        """Outline one row (the current query), or none."""
        self._highlighted = row
        if row is None or not 0 <= row < self._data.shape[0]:
            self._highlight.setVisible(False)
            return
        self._highlight.setRect(QRectF(0, row, self._data.shape[1], 1))
        self._highlight.setVisible(True)
        window = self._window
        if window is not None and not window.top() <= row < window.bottom():  # follow the current query
            top = row + 1 - window.height() if row >= window.bottom() else row
            self._show_window(QRectF(window.left(), top, window.width(), window.height()))

    # -- zoom and scroll -------------------------------------------------------------------------
    def visible_cells(self) -> QRectF:
        """The cells shown, ``(column, row, columns, rows)``: the whole map unless zoomed in."""
        return QRectF(self._window) if self._window is not None else QRectF(0, 0, *self._data.shape[::-1])

    def zoom_by(self, factor: float, centre: QPointF | None = None) -> None:
        """Show ``factor`` times fewer cells along both axes (below 1: more), keeping the cell
        coordinate ``centre`` where it is on screen (default: the middle, or the highlighted row
        when there is one: the current query stays in view)."""
        shown = self.visible_cells()
        rows, columns = self._data.shape
        if not rows or not columns or factor <= 0:
            return
        if centre is None and self.highlighted_row is not None:
            centre = QPointF(shown.center().x(), self.highlighted_row + 0.5)
        centre = centre if centre is not None else shown.center()
        width = min(columns, max(min(columns, MIN_ZOOM_CELLS), shown.width() / factor))
        height = min(rows, max(min(rows, MIN_ZOOM_CELLS), shown.height() / factor))
        left = centre.x() - (centre.x() - shown.left()) * width / shown.width()
        top = centre.y() - (centre.y() - shown.top()) * height / shown.height()
        self._show_window(QRectF(left, top, width, height))

    def scroll_by(self, rows: float, columns: float = 0.0) -> None:
        """Move the cells shown by this many rows down and columns right (zoomed in only)."""
        if self._window is not None:
            self._show_window(self._window.translated(columns, rows))

    def show_all(self) -> None:
        """Show the whole map again."""
        self._show_window(None)

    def _show_window(self, window: QRectF | None) -> None:
        """Show ``window`` (kept inside the map; None, or all of it: the whole map)."""
        rows, columns = self._data.shape
        if window is not None:
            width, height = min(window.width(), columns), min(window.height(), rows)
            left = min(max(window.left(), 0.0), columns - width)
            top = min(max(window.top(), 0.0), rows - height)
            window = None if (width, height) == (columns, rows) else QRectF(left, top, width, height)
        self._window = window
        box = self._plot.getViewBox()
        box.setRange(window or QRectF(0, 0, max(columns, 1), max(rows, 1)), padding=0)
        # pyqtgraph applies a new range when the view paints, and the axes it moves then ask for
        # a second paint; applying it now makes one paint do
        box.prepareForPaint()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt's signature
        if watched is self._view.viewport() and isinstance(event, QWheelEvent) and self._data.size:
            notches = event.angleDelta().y() / 120 or event.angleDelta().x() / 120
            modifiers = event.modifiers()
            zoom = bool(modifiers & Qt.KeyboardModifier.ControlModifier)
            if not zoom and self._window is None:
                return False  # nothing to scroll: the page around the plot scrolls, as before
            if zoom:
                scene = self._view.mapToScene(event.position().toPoint())
                self.zoom_by(WHEEL_ZOOM ** notches, self._image.mapFromScene(scene))
            elif modifiers & Qt.KeyboardModifier.ShiftModifier:
                self.scroll_by(0.0, -notches * self.visible_cells().width() / WHEEL_PAGES)
            else:
                self.scroll_by(-notches * self.visible_cells().height() / WHEEL_PAGES)
            event.accept()
            return True
        return super().eventFilter(watched, event)

    def set_title(self, title: str) -> None:
        self._title.setText(title)
        self._title.setVisible(bool(title))

    def set_colorbar_title(self, title: str) -> None:
        """Say what the colour bar's values are (e.g. which colour scale is shown)."""
        if self._colorbar is not None and title != self.colorbar_title:
            self._colorbar.axis.setLabel(title)

    @property
    def colorbar_title(self) -> str:
        return self._colorbar.axis.labelText if self._colorbar is not None else ""

    def set_axes(self, axes: AxisNames) -> None:
        """Rename rows and columns (axis titles and read-out), e.g. when the attention kind changes."""
        if axes == self._axes and not self._default_axes:
            return  # a title set again lays out and draws its axis again, at every step of the explorer
        self._axes = axes
        self._default_axes = False
        self._plot.setLabel("left", axes.row_title)
        self._plot.setLabel("bottom", axes.column_title)

    @property
    def axes(self) -> AxisNames:
        return self._axes

    # -- what is shown (tests, export, read-out) -------------------------------------------------
    @property
    def title(self) -> str:
        return self._title.text()

    @property
    def data(self) -> np.ndarray:
        return self._data

    @property
    def levels(self) -> tuple[float, float]:
        return self._levels

    @property
    def highlighted_row(self) -> int | None:
        return self._highlighted if self._highlight.isVisible() else None

    def displayed_image(self) -> np.ndarray:
        """The array the image item draws (non-finite cells as NaN)."""
        return self._image.image if self._image.image is not None else np.zeros((0, 0), np.float32)

    def row_labels(self) -> list[str]:
        return self._left.labels

    def column_labels(self) -> list[str]:
        return self._bottom.labels

    def axis(self, which: str) -> TokenAxis:
        """The ``"left"`` (rows) or ``"bottom"`` (columns) axis."""
        return self._left if which == "left" else self._bottom

    def readout(self, row: int, column: int) -> str:
        raw = float(self._data[row, column])
        if row in self._hidden_rows:
            value = hidden_word()
        else:
            value = self._value_format(raw) if callable(self._value_format) else value_text(raw, self._value_format)
        return self._axes.readout.format(row_name=self._axes.row, row=self._left.labels[row],
                                         column_name=self._axes.column, column=self._bottom.labels[column],
                                         value=value)

    def readout_text(self) -> str:
        return self._readout.text()

    def legend_texts(self) -> list[str]:
        """The footer's legend lines shown now (masked cells, hidden cells)."""
        return [label.text() for label in (self._masked_legend, self._hidden_legend) if label.isVisibleTo(self)]

    def cell_position(self, row: int, column: int) -> QPoint:
        """Where the centre of a cell is drawn, in this widget's coordinates."""
        scene = self._image.mapToScene(QPointF(column + 0.5, row + 0.5))
        return self._view.mapTo(self, self._view.mapFromScene(scene))

    def canvas(self) -> QWidget:
        """The widget that receives the plot's mouse events (to watch drags on it)."""
        return self._view.viewport()

    def cell_under(self, point: QPointF) -> tuple[int, int] | None:
        """The cell (row, column) under a point of this widget, None outside the data."""
        view_point = self._view.mapFrom(self, point.toPoint())
        return self._cell_at(self._view.mapToScene(view_point))

    def _cell_at(self, scene_pos: QPointF) -> tuple[int, int] | None:
        if not self._plot.getViewBox().sceneBoundingRect().contains(scene_pos):
            return None
        point = self._image.mapFromScene(scene_pos)
        row, column = math.floor(point.y()), math.floor(point.x())
        if 0 <= row < self._data.shape[0] and 0 <= column < self._data.shape[1]:
            return row, column
        return None

    def _on_mouse_moved(self, scene_pos: QPointF) -> None:
        cell = self._cell_at(scene_pos)
        if cell is not None:
            self._readout.setText(self.readout(*cell))
            self.hovered.emit(*cell)

    def _on_mouse_clicked(self, event: Any) -> None:  # pyqtgraph's MouseClickEvent
        if event.double() and event.button() == Qt.MouseButton.LeftButton:
            self.show_all()
            return
        cell = self._cell_at(event.scenePos())
        if cell is not None and event.button() == Qt.MouseButton.LeftButton:
            self.clicked.emit(*cell)

    # -- export ----------------------------------------------------------------------------------
    def export(self, path: str | Path) -> Path:
        """Write the plot (title, axes, colour bar) as ``.png`` or ``.svg``."""
        return save_picture(self, path, plot_title(self))

