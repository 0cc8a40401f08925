"""The attention of the probe sentence as training goes on: every snapshot the trainer took, one
slider position each, so students can scrub back and watch the alignment form out of noise.

New snapshots are only marked for drawing; the owner redraws at its frame rate
(:class:`~transviz.gui.widgets.plots.FrameClock`). Scrubbing draws at once. Beside the grid of every
layer and head, one of them (clicked in the grid) is drawn large with its tokens on the axes.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QSizePolicy,
    QSlider,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from ...core.analysis.aggregate import mean_over_heads
from ...core.analysis.walkthrough import Kind
from ...core.decoding.trace import query_labels
from ...core.training.snapshots import Snapshot
from ..services.language import Retranslated, set_items
from .attention_view import kind_axes
from .grid import AttentionGrid
from .heatmap import HeatmapWidget
from .labels import bound_label, plain_label, token_line

KINDS = ("cross_attention", "encoder_self_attention", "decoder_self_attention")  # Snapshot fields, menu order
KIND_OF: dict[str, Kind] = {"cross_attention": "cross", "encoder_self_attention": "encoder_self",
                            "decoder_self_attention": "decoder_self"}  # the explorer's names of the same kinds


class SnapshotTimeline(Retranslated, QWidget):
    """Every layer and head of one attention kind of the snapshot chosen on the slider.

    While the slider is at its right end the timeline follows the newest snapshot; moved back,
    it stays where it was put.

    Signals:
        shown(int): the index of the snapshot now drawn.
    """

    shown = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._snapshots: list[Snapshot] = []
        self._index = -1
        self._stale = False  # a new snapshot arrived and waits for the next frame
        self.kind = QComboBox()
        self.bind_text(lambda texts: set_items(self.kind, texts), lambda: [
            self.tr("cross-attention (target queries x source keys)"), self.tr("encoder self-attention"),
            self.tr("decoder self-attention")])
        self.kind.currentIndexChanged.connect(self._draw)
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(0, 0)
        self.slider.setEnabled(False)
        self.slider.setTickPosition(QSlider.TickPosition.TicksBelow)
        self.slider.valueChanged.connect(self._on_slider)
        self.position = plain_label()
        self.origin = plain_label()  # which run or file; a long probe must not widen the window
        self.origin.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.grid = AttentionGrid()
        self.grid.cell_clicked.connect(self.show_head)
        self.head_view = HeatmapWidget()
        self._head: tuple[int, int] = (0, -1)  # (layer, head) drawn large; head < 0: the mean of heads
        self.prediction = plain_label(wrap=True)
        names = (bound_label(self, lambda: self.tr("Attention of the probe")),
                 bound_label(self, lambda: self.tr("Timeline")))
        controls = QHBoxLayout()
        controls.addWidget(names[0])
        controls.addWidget(self.kind)
        controls.addWidget(self.origin, 1)
        scrub = QHBoxLayout()
        scrub.addWidget(names[1])
        scrub.addWidget(self.slider, 1)
        scrub.addWidget(self.position)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(controls)
        maps = QSplitter(Qt.Orientation.Horizontal)
        maps.addWidget(self.grid)
        maps.addWidget(self.head_view)
        maps.setStretchFactor(0, 3)
        maps.setStretchFactor(1, 2)
        self.empty = plain_label(wrap=True)
        self.bind_text(self.empty.setText, lambda: self.tr(
            "Start a run to watch the attention of the probe sentence form, or open the timeline saved in a "
            "checkpoint."))
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.pages = QStackedWidget()  # the note until there is a snapshot, then the maps
        self.pages.addWidget(self.empty)
        self.pages.addWidget(maps)
        layout.addWidget(self.pages, 1)
        layout.addWidget(self.prediction)
        layout.addLayout(scrub)
        self._draw()

    def retranslate(self) -> None:
        super().retranslate()
        self._draw()  # the position, the prediction and the large head's title

    # -- data ----------------------------------------------------------------------------------
    def set_snapshots(self, snapshots: Sequence[Snapshot], origin: str = "") -> None:
        """Replace the timeline (a new run, or a checkpoint's saved snapshots) and show the last."""
        self._snapshots = list(snapshots)
        self.set_origin(origin)
        self._index = len(self._snapshots) - 1
        self._update_slider()
        self._draw()

    def set_origin(self, origin: str) -> None:
        """Say where the snapshots come from (a run's probe, a file)."""
        self.origin.setText(origin)
        self.origin.setToolTip(origin)

    def add(self, snapshot: Snapshot) -> None:
        """Append a snapshot; drawn at the next :meth:`redraw` if the timeline follows the newest."""
        following = self._index == len(self._snapshots) - 1
        self._snapshots.append(snapshot)
        if following:
            self._index = len(self._snapshots) - 1
            self._stale = True
        self._update_slider()

    def redraw(self) -> None:
        """Draw the newest snapshot if one arrived since the last frame."""
        if self._stale:
            self._draw()

    def _update_slider(self) -> None:
        self.slider.blockSignals(True)
        self.slider.setRange(0, max(0, len(self._snapshots) - 1))
        self.slider.setValue(max(0, self._index))
        self.slider.setTickInterval(max(1, len(self._snapshots) // 20))
        self.slider.blockSignals(False)
        self.slider.setEnabled(len(self._snapshots) > 1)

    def _on_slider(self, value: int) -> None:
        self._index = value
        self._draw()

    def show_head(self, layer: int, head: int) -> None:
        """Draw one head large (``head < 0``: the layer's mean of heads, the grid's last column)."""
        self._head = (layer, head)
        snapshot = self.current()
        if snapshot is not None:
            self._draw_head(*self.arrays(snapshot))

    def _draw_head(self, maps: np.ndarray, queries: list[str], keys: list[str]) -> None:
        layer, head = self._head
        layer = min(layer, maps.shape[0] - 1)
        if head < 0 or head >= maps.shape[1]:
            values, name = mean_over_heads(maps)[layer], self.tr("layer {0}, mean of heads").format(layer)
        else:
            values, name = maps[layer, head], self.tr("layer {0}, head {1}").format(layer, head)
        self.head_view.set_axes(kind_axes(KIND_OF[self.current_kind()]))
        self.head_view.set_data(values, queries, keys)
        self.head_view.set_title(self.tr("{0} (click a head in the grid)").format(name))

    # -- what is shown -------------------------------------------------------------------------
    @property
    def snapshots(self) -> list[Snapshot]:
        return list(self._snapshots)

    @property
    def index(self) -> int:
        """The index of the snapshot chosen (-1: none)."""
        return self._index

    def current(self) -> Snapshot | None:
        return self._snapshots[self._index] if self._snapshots else None

    def current_kind(self) -> str:
        return KINDS[self.kind.currentIndex()]

    def arrays(self, snapshot: Snapshot) -> tuple[np.ndarray, list[str], list[str]]:
        """The maps ``(layers, heads, queries, keys)`` of the chosen kind and their query and key tokens."""
        kind = self.current_kind()
        source, target = snapshot.source_tokens, snapshot.target_tokens
        rows = query_labels(target, snapshot.predicted_tokens)  # as in the explorer: "input -> written token"
        queries, keys = {"cross_attention": (rows, source), "encoder_self_attention": (source, source),
                         "decoder_self_attention": (rows, target)}[kind]
        return getattr(snapshot, kind), queries, keys

    def _draw(self) -> None:
        self._stale = False
        snapshot = self.current()
        self.pages.setCurrentIndex(0 if snapshot is None else 1)
        if snapshot is None:
            self.position.setText(self.tr("no snapshots yet"))
            self.prediction.clear()
            return
        maps, queries, keys = self.arrays(snapshot)
        self.grid.set_maps(maps, queries, keys)
        self._draw_head(maps, queries, keys)
        self.position.setText(self.tr("step {0} (snapshot {1} of {2})").format(
            snapshot.step, self._index + 1, len(self._snapshots)))
        self.prediction.setText(self.tr("At step {0} the model predicts after each target token: {1}").format(
            snapshot.step, token_line(snapshot.predicted_tokens)))
        self.shown.emit(self._index)
