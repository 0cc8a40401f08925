"""All layers x heads of one attention kind at a glance, plus a summary of each layer's heads
(their mean by default; the explorer can show their max or the attention rollout instead).

The maps are drawn as ONE mosaic image, and the grid paints it, its names and the current query
with a QPainter instead of as a pyqtgraph plot. A step of decoding must redraw within one 60 fps
frame, next to the model's own step (``transviz bench gui_step_redraw_ms_6x8``): 48 pyqtgraph
image items are far too slow for that, and one mosaic in a pyqtgraph plot still lays out its
range and axes again at every step; painted directly it is cheapest (the manual's Performance page has the figures).
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
from PySide6.QtCore import QEvent, QObject, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFontMetricsF, QImage, QMouseEvent, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QSizePolicy, QVBoxLayout, QWidget

from ...core.analysis.aggregate import mean_over_heads
from ...core.analysis.resample import area_average
from ..services.language import Retranslated
from ..style import BLUE, HIGHLIGHT, lookup_table, plot_font, plot_style
from .heatmap import HIDDEN_FILL, HIDDEN_MARK, MASKED_FILL, MASKED_LINES, coloured_picture, hidden_word, value_text
from .labels import plain_label

GAP = 1  # empty cells between tiles (NaN in the mosaic, drawn in the background colour)
SUMMARY_COLUMN = -1  # the head reported by cell_clicked for the summary ("mean of heads") column
LEVELS = (0.0, 1.0)  # attention weights: the colormap's ends
EDITED = BLUE  # the frame of a tile whose head runs with an intervention


@dataclass
class MosaicPicture:
    """What the canvas paints: the coloured mosaic, names along both sides (at cell coordinates),
    outlined rows, framed tiles and the column of a separating line."""

    image: QImage = field(default_factory=QImage)
    pixels: np.ndarray | None = None  # the image's memory (QImage does not own it)
    shape: tuple[int, int] = (0, 0)  # mosaic (rows, columns)
    row_names: list[tuple[float, str]] = field(default_factory=list)  # (row centre, text)
    column_names: list[tuple[float, str]] = field(default_factory=list)  # (column centre, text)
    outlined_rows: list[int] = field(default_factory=list)
    separator: float | None = None  # a column boundary
    framed: list[tuple[int, int, int, int]] = field(default_factory=list)  # (row, column, rows, columns) of cells
    hidden: list[tuple[int, int, int, int]] = field(default_factory=list)  # cells covered as a quiz's question
    masked: list[tuple[int, int, int]] = field(default_factory=list)  # (row, first column, columns) of masked cells


class MosaicCanvas(QWidget):
    """Paints a :class:`MosaicPicture` stretched over its area, row names on the left and column
    names on top; maps between its pixels and the mosaic's cells."""

    PAD = 6  # pixels between the names and the mosaic

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.picture = MosaicPicture()
        self.setMouseTracking(True)
        self.setMinimumSize(160, 120)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)  # it fills every pixel itself
        self.restyle()

    def sizeHint(self) -> QSize:
        return QSize(640, 480)

    def restyle(self) -> None:
        style = plot_style()
        self.background, self.foreground = QColor(style.background), QColor(style.foreground)
        self.line_width = style.line_width
        self.setFont(plot_font(style))
        self._name_width = self._widest_row_name()

    def show_picture(self, picture: MosaicPicture) -> None:
        names_changed = [text for _, text in picture.row_names] != [text for _, text in self.picture.row_names]
        self.picture = picture
        if names_changed:
            self._name_width = self._widest_row_name()
        self.update()

    def _widest_row_name(self, names: Iterable[str] | None = None) -> float:
        metrics = QFontMetricsF(self.font())
        names = (text for _, text in self.picture.row_names) if names is None else names
        return max((metrics.horizontalAdvance(text) for text in names), default=0.0)

    def mosaic_rect(self, row_names: Iterable[str] | None = None) -> QRectF:
        """Where the mosaic is drawn: all but room for the names (of the picture shown, or of
        ``row_names`` for a picture about to be shown). Its corners are whole pixels."""
        width = self._name_width if row_names is None else self._widest_row_name(row_names)
        left, top = math.ceil(width) + self.PAD, math.ceil(QFontMetricsF(self.font()).height()) + self.PAD
        return QRectF(left, top, max(1, self.width() - left - self.PAD), max(1, self.height() - top - self.PAD))

    def point_of(self, row: float, column: float, area: QRectF | None = None) -> QPointF:
        """The pixel of a mosaic coordinate (cell ``(r, c)`` spans ``[r, r + 1] x [c, c + 1]``)."""
        area, (rows, columns) = area or self.mosaic_rect(), self.picture.shape
        return QPointF(area.left() + column * area.width() / max(columns, 1),
                       area.top() + row * area.height() / max(rows, 1))

    def cell_at(self, point: QPointF) -> tuple[int, int] | None:
        """The mosaic cell (row, column) under a pixel, None outside the mosaic."""
        area, (rows, columns) = self.mosaic_rect(), self.picture.shape
        if not rows or not area.contains(point):
            return None
        row = math.floor((point.y() - area.top()) * rows / area.height())
        column = math.floor((point.x() - area.left()) * columns / area.width())
        return (row, column) if row < rows and column < columns else None

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.fillRect(self.rect(), self.background)
        picture = self.picture
        if picture.image.isNull():
            return
        area = self.mosaic_rect()
        painter.drawImage(area, picture.image)
        self._paint_masked(painter, area)
        self._paint_hidden(painter, area)  # under the current query's outline
        line = QFontMetricsF(self.font()).height()
        painter.setPen(self.foreground)
        columns = picture.shape[1]
        name_width = area.width() / max(len(picture.column_names), 1)
        for column, text in picture.column_names:
            x = self.point_of(0, column, area).x()
            painter.drawText(QRectF(x - name_width / 2, 0, name_width, area.top() - self.PAD / 2),
                             int(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignBottom), text)
        for row, text in picture.row_names:
            y = self.point_of(row, 0, area).y()
            painter.drawText(QRectF(0, y - line, area.left() - self.PAD, 2 * line),
                             int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), text)
        if picture.separator is not None:
            painter.setPen(QPen(self.foreground, 2 * self.line_width))
            x = self.point_of(0, picture.separator, area).x()
            painter.drawLine(QPointF(x, area.top()), QPointF(x, area.bottom()))
        painter.setPen(QPen(QColor(HIGHLIGHT), 2 * self.line_width))
        for row in picture.outlined_rows:
            painter.drawRect(QRectF(self.point_of(row, 0, area), self.point_of(row + 1, columns, area)))
        painter.setPen(QPen(QColor(EDITED), 3 * self.line_width))
        for row, column, rows, tile_columns in picture.framed:
            painter.drawRect(QRectF(self.point_of(row, column, area),
                                    self.point_of(row + rows, column + tile_columns, area)))

    def _paint_masked(self, painter: QPainter, area: QRectF) -> None:
        """Masked cells grey and hatched, as the large view, the legend and the lessons show them
        (a blank cell read as a weight of 0): one rectangle per run of them in a row, so that 48
        tiles of long maps stay quick to paint."""
        hatch = QBrush(MASKED_LINES, Qt.BrushStyle.BDiagPattern)
        for row, column, columns in self.picture.masked:
            rect = QRectF(self.point_of(row, column, area), self.point_of(row + 1, column + columns, area))
            painter.fillRect(rect, MASKED_FILL)
            painter.fillRect(rect, hatch)

    def _paint_hidden(self, painter: QPainter, area: QRectF) -> None:
        """Hidden cells as the heatmaps draw them: lavender, a dashed frame, a "?" where it fits."""
        frame = QPen(HIDDEN_MARK, self.line_width, Qt.PenStyle.DashLine)
        line = QFontMetricsF(self.font()).height()
        for row, column, rows, columns in self.picture.hidden:
            rect = QRectF(self.point_of(row, column, area), self.point_of(row + rows, column + columns, area))
            painter.fillRect(rect, HIDDEN_FILL)
            painter.setPen(frame)
            painter.drawRect(rect)
            if rect.height() >= 0.6 * line:
                painter.drawText(rect, int(Qt.AlignmentFlag.AlignCenter), "?")


@dataclass(frozen=True)
class TileLayout:
    """Where the grid's tiles fall on the canvas's pixels (relative to the mosaic's corner)."""

    pixels: tuple[int, int]  # (rows, columns) of pixels of the whole mosaic
    tile_pixels: tuple[int, int]  # (rows, columns) of pixels every tile is drawn with
    row_starts: np.ndarray  # (layers,): the first pixel row of each layer's tiles
    column_starts: np.ndarray  # (heads + 1,): the first pixel column of each head's tiles


def tile_starts_and_size(tiles: int, cells: int, pixels: int) -> tuple[np.ndarray, int]:
    """The first pixel of each of ``tiles`` tiles of ``cells`` cells (GAP between them) stretched
    over ``pixels``, and the pixels every one of them gets: each starts at the first whole pixel
    inside it and all get the smallest whole count, so a pixel of gap at least is left."""
    per_cell = pixels / (tiles * (cells + GAP) - GAP)
    starts = np.arange(tiles) * (cells + GAP) * per_cell
    first, last = np.ceil(starts - 1e-9), np.floor(starts + cells * per_cell + 1e-9)  # tile pixels [first, last)
    return first.astype(np.intp), max(1, int((last - first).min()))


def tile_layout(shape: tuple[int, ...], area: QRectF) -> TileLayout | None:
    """The pixels of the tiles of maps ``shape`` (layers, heads, queries, keys) plus the summary
    column, drawn over ``area``; None when every tile has a pixel or more for each cell (then the
    mosaic is drawn cell for cell)."""
    layers, heads, queries, keys = shape
    pixels = (max(1, round(area.height())), max(1, round(area.width())))
    # a tile loses under 2 pixels to rounding: cells this wide always have one each (the usual case, decided fast)
    if pixels[0] >= (layers * (queries + GAP)) * (1 + 2 / queries) \
            and pixels[1] >= ((heads + 1) * (keys + GAP)) * (1 + 2 / keys):
        return None
    row_starts, tile_rows = tile_starts_and_size(layers, queries, pixels[0])
    column_starts, tile_columns = tile_starts_and_size(heads + 1, keys, pixels[1])
    if tile_rows >= queries and tile_columns >= keys:
        return None
    return TileLayout(pixels, (tile_rows, tile_columns), row_starts, column_starts)


def repeated(cells: int, pixels: int) -> np.ndarray:
    """The cell each of ``pixels`` pixels shows when there are at least as many pixels as cells
    (nearest cell; every cell gets one pixel or more)."""
    return np.minimum(np.arange(pixels) * cells // pixels, cells - 1) if pixels > cells else np.arange(cells)


class AttentionGrid(Retranslated, QWidget):
    """Small heatmaps of every layer (rows of tiles) and head (columns), the last column a
    summary of the layer's heads (their mean unless :meth:`set_maps` is given another). Each
    tile is ``(queries, keys)``: rows are queries, as everywhere. NaN cells are left blank.

    It takes arrays, not sessions: :meth:`set_maps` with ``(layers, heads, queries, keys)``. Its
    title and summary names are the caller's to translate again on a language change.

    Signals:
        cell_clicked(int, int): the (layer, head) of the tile clicked; head is
            :data:`SUMMARY_COLUMN` for the summary column.
    """

    cell_clicked = Signal(int, int)

    def __init__(self, title: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._maps = np.zeros((0, 0, 0, 0), dtype=np.float32)
        self._summary = np.zeros((0, 0, 0), dtype=np.float32)
        self._mosaic: np.ndarray | None = np.zeros((0, 0), dtype=np.float32)  # None: not built yet
        self._colour_maps, self._colour_summary = self._maps, self._summary  # what the tiles' colours show
        self._fitted_for: tuple[int, int] | None = None  # the canvas pixels a shrunk picture was made for
        self._drawn = self.mosaic()  # the values coloured: the mosaic, or one a pixel when tiles are shrunk
        self._lut = lookup_table()
        self._query_labels: list[str] = []
        self._key_labels: list[str] = []
        self._query: int | None = None
        self._hidden: int | None = None  # the query row a quiz hides, in every tile
        self._masked: list[tuple[int, int, int]] = []  # the runs of masked cells, painted grey and hatched
        self._marked: list[tuple[int, int]] = []  # (layer, head) of the tiles framed as edited
        self._chosen_summary_names: tuple[str, str] | None = None  # column header, read-out; None: the mean's
        self._title = plain_label(title, wrap=True)  # long titles must not widen the window
        self._title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._title.setVisible(bool(title))
        self.canvas = MosaicCanvas()
        self._readout = plain_label(wrap=True)
        self.bind_text(self._readout.setText, self._hint)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self._title)
        layout.addWidget(self.canvas, 1)
        layout.addWidget(self._readout)
        self.canvas.installEventFilter(self)

    def _hint(self) -> str:
        return self.tr("Click a head to open it large.")

    def set_hint_shown(self, shown: bool) -> None:
        """Show the read-out line (its hint and what is hovered), or leave it out (an animation's frames)."""
        self._readout.setVisible(shown)

    def retranslate(self) -> None:
        super().retranslate()
        self._draw()  # "layer 0", "head 0"

    def restyle(self) -> None:
        """Take the current colormap, theme colours and font."""
        self._lut = lookup_table()
        self.canvas.restyle()
        self._draw()

    # -- data ----------------------------------------------------------------------------------
    def set_maps(self, maps: np.ndarray, query_labels: Sequence[str], key_labels: Sequence[str],
                 summary: np.ndarray | None = None, colours: tuple[np.ndarray, np.ndarray] | None = None,
                 hidden_query: int | None = None) -> None:
        """Show ``maps`` ``(layers, heads, queries, keys)`` with one label per query and key;
        ``summary`` ``(layers, queries, keys)`` fills the last column (default: the mean of heads).
        ``colours`` (maps, summary) of the same shapes are coloured instead, e.g. each map scaled
        to its largest weight; the read-out still gives the weights. ``hidden_query`` is a quiz's
        question: that row's values are dropped and it is drawn and named as hidden, not as masked.
        New maps clear the read-out."""
        maps = np.asarray(maps, dtype=np.float32)
        if maps.ndim != 4 or maps.shape[2:] != (len(query_labels), len(key_labels)):
            raise ValueError(f"maps {maps.shape} do not match {len(query_labels)} queries and {len(key_labels)} keys")
        summary = mean_over_heads(maps) if summary is None else np.asarray(summary, dtype=np.float32)
        if summary.shape != (maps.shape[0], *maps.shape[2:]):
            raise ValueError(f"summary {summary.shape} does not match maps {maps.shape}")
        colour_maps, colour_summary = (maps, summary) if colours is None else (
            np.asarray(colours[0], np.float32), np.asarray(colours[1], np.float32))
        self._hidden = hidden_query if hidden_query is not None and 0 <= hidden_query < maps.shape[2] else None
        if self._hidden is not None:  # never held, so never hovered either
            maps, summary, colour_maps, colour_summary = (array.copy() for array in (
                maps, summary, colour_maps, colour_summary))
            for array in (maps, colour_maps):
                array[:, :, self._hidden] = np.nan
            for array in (summary, colour_summary):
                array[:, self._hidden] = np.nan
        self._maps, self._summary = maps, summary
        self._masked = masked_runs(self._tiled(np.isnan(maps), np.isnan(summary), fill=False), self._hidden_rows())
        self._query_labels, self._key_labels = list(query_labels), list(key_labels)
        self._colour_maps, self._colour_summary = colour_maps, colour_summary
        self._mosaic = None  # built when drawn cell for cell or asked for: a long input's tiles are averaged
        self._readout.setText(self._hint())
        self._draw()

    def set_summary_names(self, column: str, readout: str) -> None:
        """Name the summary column: its header (``"max"``) and in the read-out (``"max of heads"``)."""
        self._chosen_summary_names = (column, readout)
        self._draw()

    def _summary_names(self) -> tuple[str, str]:
        return self._chosen_summary_names or (self.tr("mean"), self.tr("mean of heads"))

    def set_query(self, row: int | None) -> None:
        """Highlight one query row in every tile (the current decoding step), or none."""
        self._query = row
        self.canvas.show_picture(replace(self.canvas.picture, outlined_rows=self._outlined_rows()))

    def set_marked(self, heads: Iterable[tuple[int, int]]) -> None:
        """Frame the tiles of these (layer, head): heads running with an intervention."""
        self._marked = sorted(set(heads))
        self.canvas.show_picture(replace(self.canvas.picture, framed=self._framed()))

    @property
    def marked(self) -> list[tuple[int, int]]:
        return list(self._marked)

    def repaint_now(self) -> None:
        """Paint the plot immediately rather than on the event loop's next pass (for timing)."""
        self.canvas.repaint()

    @property
    def title(self) -> str:
        return self._title.text()

    def set_title(self, title: str) -> None:
        self._title.setText(title)
        self._title.setVisible(bool(title))

    @staticmethod
    def _tiled(maps: np.ndarray, summary: np.ndarray, fill: float | bool = np.nan) -> np.ndarray:
        """``maps`` and ``summary`` as one mosaic of tiles, ``fill`` in the gaps between them."""
        layers, heads, queries, keys = maps.shape
        tiles = np.full((layers, heads + 1, queries + GAP, keys + GAP), fill, dtype=maps.dtype)
        tiles[:, :heads, :queries, :keys] = maps
        tiles[:, heads, :queries, :keys] = summary
        mosaic = tiles.transpose(0, 2, 1, 3).reshape(layers * (queries + GAP), (heads + 1) * (keys + GAP))
        return np.ascontiguousarray(mosaic[:-GAP, :-GAP])  # (L*(Q+1)-1, (H+1)*(K+1)-1), row-major

    def _draw(self) -> None:
        """Give the canvas the picture of the current maps, names and query."""
        if self._maps.size == 0:
            self._fitted_for, self._drawn = None, self.mosaic()
            self.canvas.show_picture(MosaicPicture())
            return
        layers, heads, queries, keys = self._maps.shape
        row_names = [((queries + GAP) * layer + queries / 2, self.tr("layer {0}").format(layer))
                     for layer in range(layers)]
        same_names = [text for _, text in row_names] == [text for _, text in self.canvas.picture.row_names]
        area = self.canvas.mosaic_rect(None if same_names else [text for _, text in row_names])
        layout = tile_layout(self._maps.shape, area)
        self._fitted_for = layout.pixels if layout else None
        drawn = self._drawn = self._pixel_mosaic(layout) if layout else self.mosaic()
        image, pixels = coloured_picture(drawn, self._lut, LEVELS, blank=self.canvas.background)
        names = [self.tr("head {0}").format(h) for h in range(heads)] + [self._summary_names()[0]]
        self.canvas.show_picture(MosaicPicture(
            image, pixels, (layers * (queries + GAP) - GAP, (heads + 1) * (keys + GAP) - GAP),
            row_names=row_names,
            column_names=[((keys + GAP) * h + keys / 2, name) for h, name in enumerate(names)],
            outlined_rows=self._outlined_rows(),
            separator=heads * (keys + GAP) - GAP / 2,
            framed=self._framed(),
            hidden=self._hidden_cells(),
            masked=self._masked))

    def _pixel_mosaic(self, layout: TileLayout) -> np.ndarray:
        """The mosaic as drawn on the canvas's pixels, one value a pixel: each tile averaged down
        to the pixels it has (rows or columns that have enough pixels repeated instead), placed at
        its pixels, with at least a pixel of gap between tiles."""
        tiles = np.concatenate([self._colour_maps, self._colour_summary[:, None]], axis=1)  # (L, H+1, Q, K)
        tile_rows, tile_columns = layout.tile_pixels
        tiles = area_average(tiles, tile_rows, tile_columns)  # one call: faster than two, measured
        tiles = tiles[..., repeated(tiles.shape[-2], tile_rows), :][..., repeated(tiles.shape[-1], tile_columns)]
        picture = np.full(layout.pixels, np.nan, np.float32)
        rows = (layout.row_starts[:, None] + np.arange(tile_rows)).ravel()
        columns = (layout.column_starts[:, None] + np.arange(tile_columns)).ravel()
        layers, heads = tiles.shape[:2]  # (L, H+1, tile rows, tile columns) -> (L * tile rows, (H+1) * tile columns)
        picture[np.ix_(rows, columns)] = tiles.transpose(0, 2, 1, 3).reshape(layers * tile_rows, heads * tile_columns)
        return picture

    def _framed(self) -> list[tuple[int, int, int, int]]:
        layers, heads, queries, keys = self._maps.shape
        return [(*self.tile_origin(layer, head), queries, keys) for layer, head in self._marked
                if layer < layers and head < heads]

    def _hidden_rows(self) -> list[int]:
        """The mosaic rows of the quiz's hidden query, in every layer (hidden, not masked)."""
        layers, _, queries, _ = self._maps.shape
        return [] if self._hidden is None else [layer * (queries + GAP) + self._hidden for layer in range(layers)]

    def _hidden_cells(self) -> list[tuple[int, int, int, int]]:
        layers, heads, queries, keys = self._maps.shape
        if self._hidden is None:
            return []
        return [(layer * (queries + GAP) + self._hidden, tile * (keys + GAP), 1, keys)
                for layer in range(layers) for tile in range(heads + 1)]

    @property
    def hidden_query(self) -> int | None:
        """The query row drawn as hidden in every tile (a quiz's question), or None."""
        return self._hidden

    def _outlined_rows(self) -> list[int]:
        layers, _, queries, _ = self._maps.shape
        if self._query is None or not 0 <= self._query < queries:
            return []
        return [layer * (queries + GAP) + self._query for layer in range(layers)]

    # -- what is shown -------------------------------------------------------------------------
    @property
    def maps(self) -> np.ndarray:
        return self._maps

    @property
    def summary(self) -> np.ndarray:
        """``(layers, queries, keys)``: what the summary column shows."""
        return self._summary

    @property
    def query(self) -> int | None:
        return self._query

    @property
    def lut(self) -> np.ndarray:
        """The colour table the tiles are drawn with."""
        return self._lut

    def mosaic(self) -> np.ndarray:
        """The image drawn: tiles ``(queries, keys)`` separated by NaN gaps."""
        if self._mosaic is None:
            self._mosaic = self._tiled(self._colour_maps, self._colour_summary)
        return self._mosaic

    def drawn(self) -> np.ndarray:
        """The values coloured into the picture: :meth:`mosaic` when every cell has a pixel or
        more, else one value a pixel of the mosaic's area (tiles averaged down, NaN gaps)."""
        return self._drawn

    def tile_origin(self, layer: int, head: int) -> tuple[int, int]:
        """Row and column of a tile's top-left cell in :meth:`mosaic` (head SUMMARY_COLUMN: the summary)."""
        _, heads, queries, keys = self._maps.shape
        column = heads if head == SUMMARY_COLUMN else head
        return layer * (queries + GAP), column * (keys + GAP)

    def band_rows(self) -> list[int]:
        """Mosaic rows outlined as the current query (one per layer), as the canvas draws them."""
        return sorted(self.canvas.picture.outlined_rows)

    def tile_position(self, layer: int, head: int, query: int = 0, key: int = 0) -> QPointF:
        """Where a cell of a tile is drawn, in this widget's coordinates."""
        row, column = self.tile_origin(layer, head)
        return self.canvas.point_of(row + query + 0.5, column + key + 0.5) + QPointF(self.canvas.pos())

    def readout_text(self) -> str:
        return self._readout.text()

    def cell_under(self, point: QPointF) -> tuple[int, int, int, int] | None:
        """(layer, head, query, key) under a point of this widget; head SUMMARY_COLUMN for the summary."""
        return self._cell_at(point - QPointF(self.canvas.pos()))

    def _cell_at(self, point: QPointF) -> tuple[int, int, int, int] | None:
        """(layer, head, query, key) under a point of the canvas; head SUMMARY_COLUMN for the summary."""
        cell = self.canvas.cell_at(point)
        if cell is None:
            return None
        layers, heads, queries, keys = self._maps.shape
        layer, query = divmod(cell[0], queries + GAP)
        head, key = divmod(cell[1], keys + GAP)
        if query >= queries or key >= keys:  # in a gap
            return None
        return layer, SUMMARY_COLUMN if head == heads else head, query, key

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.canvas and event.type() == QEvent.Type.Resize and self._maps.size:
            layout = tile_layout(self._maps.shape, self.canvas.mosaic_rect())
            if (layout.pixels if layout else None) != self._fitted_for:
                self._draw()  # averaged for another size, or now too small for a cell a pixel
        if watched is self.canvas and isinstance(event, QMouseEvent):
            cell = self._cell_at(event.position())
            if cell is not None and event.type() == QEvent.Type.MouseMove:
                self._show_readout(*cell)
            elif cell is not None and event.type() == QEvent.Type.MouseButtonRelease \
                    and event.button() == Qt.MouseButton.LeftButton:
                self.cell_clicked.emit(cell[0], cell[1])
        return super().eventFilter(watched, event)

    def _show_readout(self, layer: int, head: int, query: int, key: int) -> None:
        tile = self._summary[layer] if head == SUMMARY_COLUMN else self._maps[layer, head]
        value = float(tile[query, key])  # the weight, whatever the colour scale
        where = self.tr("layer {0}, {1}").format(layer, self._summary_names()[1]) if head == SUMMARY_COLUMN else \
            self.tr("layer {0}, head {1}").format(layer, head)
        shown = hidden_word() if query == self._hidden else value_text(value)
        self._readout.setText(self.tr("{0}: query '{1}' -> key '{2}': {3}").format(
            where, self._query_labels[query], self._key_labels[key], shown))


def masked_runs(cells: np.ndarray, skipped_rows: Sequence[int] = ()) -> list[tuple[int, int, int]]:
    """The runs of ``True`` cells in each row of ``cells`` as (row, first column, length), rows in
    ``skipped_rows`` left out."""
    padded = np.zeros((cells.shape[0], cells.shape[1] + 2), dtype=np.int8)
    padded[:, 1:-1] = cells
    padded[list(skipped_rows), :] = 0
    rows, edges = np.nonzero(np.diff(padded, axis=1))  # +1 where a run starts, -1 after it ends
    starts, ends = edges[0::2], edges[1::2]
    return [(int(r), int(a), int(b - a)) for r, a, b in zip(rows[0::2], starts, ends, strict=True)]
