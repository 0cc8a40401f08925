"""All layers x heads of one attention kind at a glance, plus a summary of each layer's heads
(their mean by default; the explorer can show their max or the attention rollout instead).

The maps are drawn as ONE mosaic image, not one plot per head: pyqtgraph repaints 48 separate
image items in about 24 ms on these machines and one mosaic in about 5 ms, and a step of
decoding must redraw within one 60 fps frame (``transviz bench gui_grid_redraw_ms_6x8``).
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QPainterPath
from PySide6.QtWidgets import QGraphicsPathItem, QVBoxLayout, QWidget

from ..core.aggregate import mean_over_heads
from .app import HIGHLIGHT, lookup_table
from .heatmap import BlitImageItem, reserve_label_width, value_text
from .labels import plain_label
from .language import Retranslated
from .theme import plot_style

GAP = 1  # empty cells between tiles (transparent NaN in the mosaic)
SUMMARY_COLUMN = -1  # the head reported by cell_clicked for the summary ("mean of heads") column


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
        self._column_ticks: list[list[tuple[float, str]]] = []
        self._query_labels: list[str] = []
        self._key_labels: list[str] = []
        self._query: int | None = None
        self._chosen_summary_names: tuple[str, str] | None = None  # column header, read-out; None: the mean's
        self._title = plain_label(title, wrap=True)  # long titles must not widen the window
        self._title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._title.setVisible(bool(title))
        self._view = pg.GraphicsLayoutWidget()
        self._plot = self._view.addPlot()
        self._plot.hideButtons()
        self._plot.setMenuEnabled(False)
        self._plot.showAxis("top")
        self._plot.hideAxis("bottom")
        for side in ("left", "top"):
            self._plot.getAxis(side).enableAutoSIPrefix(False)  # no units; a step need not re-lay the titles
        box = self._plot.getViewBox()
        box.invertY(True)
        box.setMouseEnabled(False, False)
        box.setDefaultPadding(0.0)
        self._image = BlitImageItem(axisOrder="row-major")
        self._plot.addItem(self._image)
        self._bands = QGraphicsPathItem()  # the current query's row in every layer
        pen = pg.mkPen(HIGHLIGHT, width=2)
        pen.setCosmetic(True)
        self._bands.setPen(pen)
        self._bands.setZValue(10)
        box.addItem(self._bands)
        self._separator = pg.InfiniteLine(angle=90)  # heads | mean
        self._plot.addItem(self._separator)
        self._readout = plain_label(wrap=True)
        self.bind_text(self._readout.setText, lambda: self.tr("Click a head to open it large."))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self._title)
        layout.addWidget(self._view, 1)
        layout.addWidget(self._readout)
        self._view.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self._view.scene().sigMouseClicked.connect(self._on_mouse_clicked)
        self.restyle()

    def retranslate(self) -> None:
        super().retranslate()
        if self._maps.size:
            self._layout_axes()  # "layer 0", "head 0"

    def restyle(self) -> None:
        """Take the current colormap, theme colour and font."""
        self._separator.setPen(pg.mkPen(plot_style().foreground, width=2))
        if self._maps.size:
            self._image.setLookupTable(lookup_table())
            self._column_ticks = []  # measured again in the new font
            self._layout_axes()

    # -- data ----------------------------------------------------------------------------------
    def set_maps(self, maps: np.ndarray, query_labels: Sequence[str], key_labels: Sequence[str],
                 summary: np.ndarray | None = None) -> None:
        """Show ``maps`` ``(layers, heads, queries, keys)`` with one label per query and key;
        ``summary`` ``(layers, queries, keys)`` fills the last column (default: the mean of heads)."""
        maps = np.asarray(maps, dtype=np.float32)
        if maps.ndim != 4 or maps.shape[2:] != (len(query_labels), len(key_labels)):
            raise ValueError(f"maps {maps.shape} do not match {len(query_labels)} queries and {len(key_labels)} keys")
        summary = mean_over_heads(maps) if summary is None else np.asarray(summary, dtype=np.float32)
        if summary.shape != (maps.shape[0], *maps.shape[2:]):
            raise ValueError(f"summary {summary.shape} does not match maps {maps.shape}")
        reshaped = maps.shape != self._maps.shape
        self._maps, self._summary = maps, summary
        self._query_labels, self._key_labels = list(query_labels), list(key_labels)
        self._image.setImage(self._mosaic(maps, summary), levels=(0.0, 1.0), lut=lookup_table(), autoLevels=False)
        if reshaped:
            self._layout_axes()
        self._draw_bands()

    def set_summary_names(self, column: str, readout: str) -> None:
        """Name the summary column: its header (``"max"``) and in the read-out (``"max of heads"``)."""
        self._chosen_summary_names = (column, readout)
        if self._maps.size:
            self._layout_axes()

    def _summary_names(self) -> tuple[str, str]:
        return self._chosen_summary_names or (self.tr("mean"), self.tr("mean of heads"))

    def set_query(self, row: int | None) -> None:
        """Highlight one query row in every tile (the current decoding step), or none."""
        self._query = row
        self._draw_bands()

    def repaint_now(self) -> None:
        """Paint the plot immediately rather than on the event loop's next pass (for timing)."""
        self._view.viewport().repaint()

    def set_title(self, title: str) -> None:
        self._title.setText(title)
        self._title.setVisible(bool(title))

    @staticmethod
    def _mosaic(maps: np.ndarray, summary: np.ndarray) -> np.ndarray:
        layers, heads, queries, keys = maps.shape
        tiles = np.full((layers, heads + 1, queries + GAP, keys + GAP), np.nan, dtype=np.float32)
        tiles[:, :heads, :queries, :keys] = maps
        tiles[:, heads, :queries, :keys] = summary
        mosaic = tiles.transpose(0, 2, 1, 3).reshape(layers * (queries + GAP), (heads + 1) * (keys + GAP))
        return np.ascontiguousarray(mosaic[:-GAP, :-GAP])  # (L*(Q+1)-1, (H+1)*(K+1)-1), row-major

    def _layout_axes(self) -> None:
        layers, heads, queries, keys = self._maps.shape
        height, width = layers * (queries + GAP) - GAP, (heads + 1) * (keys + GAP) - GAP
        self._image.setRect(QRectF(0, 0, width, height))
        rows = [((queries + GAP) * layer + queries / 2, self.tr("layer {0}").format(layer)) for layer in range(layers)]
        self._plot.getAxis("left").setTicks([rows, []])
        reserve_label_width(self._plot.getAxis("left"), [text for _, text in rows])
        names = [self.tr("head {0}").format(h) for h in range(heads)] + [self._summary_names()[0]]
        columns = [[((keys + GAP) * h + keys / 2, n) for h, n in enumerate(names)], []]
        if columns != self._column_ticks:  # an axis redraw costs: only when the heads or keys changed
            self._column_ticks = columns
            self._plot.getAxis("top").setTicks(columns)
        self._separator.setValue(heads * (keys + GAP) - GAP / 2)
        box = self._plot.getViewBox()
        box.setRange(QRectF(0, 0, width, height), padding=0)
        box.prepareForPaint()  # apply the range now: one paint instead of two (see HeatmapWidget.set_data)

    def _draw_bands(self) -> None:
        path = QPainterPath()
        layers, _, queries, _ = self._maps.shape
        if self._query is not None and 0 <= self._query < queries:
            width = self.mosaic().shape[1]
            for layer in range(layers):
                path.addRect(QRectF(0, layer * (queries + GAP) + self._query, width, 1))
        self._bands.setPath(path)

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

    def mosaic(self) -> np.ndarray:
        """The image drawn: tiles ``(queries, keys)`` separated by NaN gaps."""
        return self._image.image if self._image.image is not None else np.zeros((0, 0), np.float32)

    def tile_origin(self, layer: int, head: int) -> tuple[int, int]:
        """Row and column of a tile's top-left cell in :meth:`mosaic` (head SUMMARY_COLUMN: the summary)."""
        _, heads, queries, keys = self._maps.shape
        column = heads if head == SUMMARY_COLUMN else head
        return layer * (queries + GAP), column * (keys + GAP)

    def band_rows(self) -> list[int]:
        """Mosaic rows outlined as the current query (one per layer), read from the drawn outlines."""
        return sorted(round(polygon.boundingRect().top()) for polygon in self._bands.path().toSubpathPolygons())

    def tile_position(self, layer: int, head: int, query: int = 0, key: int = 0) -> QPointF:
        """Where a cell of a tile is drawn, in this widget's coordinates."""
        row, column = self.tile_origin(layer, head)
        scene = self._image.mapToScene(QPointF(column + key + 0.5, row + query + 0.5))
        return QPointF(self._view.mapTo(self, self._view.mapFromScene(scene)))

    def readout_text(self) -> str:
        return self._readout.text()

    def _cell_at(self, scene_pos: QPointF) -> tuple[int, int, int, int] | None:
        """(layer, head, query, key) under a scene point; head SUMMARY_COLUMN for the summary."""
        if self._maps.size == 0 or not self._plot.getViewBox().sceneBoundingRect().contains(scene_pos):
            return None
        layers, heads, queries, keys = self._maps.shape
        point = self._image.mapFromScene(scene_pos)
        row, column = math.floor(point.y()), math.floor(point.x())
        layer, query = divmod(row, queries + GAP)
        head, key = divmod(column, keys + GAP)
        inside = row >= 0 and column >= 0 and query < queries and key < keys  # not in a gap
        if not (inside and layer < layers and head <= heads):
            return None
        return layer, SUMMARY_COLUMN if head == heads else head, query, key

    def _on_mouse_moved(self, scene_pos: QPointF) -> None:
        cell = self._cell_at(scene_pos)
        if cell is None:
            return
        layer, head, query, key = cell
        row, column = self.tile_origin(layer, head)
        value = float(self.mosaic()[row + query, column + key])
        where = self.tr("layer {0}, {1}").format(layer, self._summary_names()[1]) if head == SUMMARY_COLUMN else \
            self.tr("layer {0}, head {1}").format(layer, head)
        self._readout.setText(self.tr("{0}: query '{1}' -> key '{2}': {3}").format(
            where, self._query_labels[query], self._key_labels[key], value_text(value)))

    def _on_mouse_clicked(self, event) -> None:  # type: ignore[no-untyped-def]  # pyqtgraph's click event
        cell = self._cell_at(event.scenePos())
        if cell is not None and event.button() == Qt.MouseButton.LeftButton:
            self.cell_clicked.emit(cell[0], cell[1])
