"""The explorer's attention: every layer and head of one kind (encoder self, decoder masked self,
cross) as a grid, and the head clicked, large, both redrawn in place on every step.

What is drawn comes straight from the session (rows are queries, columns keys); the decoder's
masked cells (the future, weight exactly 0) are drawn as masked rather than as a low weight.
Summaries of a layer's heads (mean, max, rollout) come from :mod:`transviz.core.aggregate`.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QSplitter, QStackedWidget, QVBoxLayout, QWidget

from ..core.aggregate import max_over_heads, mean_over_heads, rollout
from ..core.decoding import DecodingSession
from ..core.walkthrough import KINDS, Kind
from .grid import SUMMARY_COLUMN, AttentionGrid
from .heatmap import AxisNames, HeatmapWidget, attention_axes
from .labels import bound_label, plain_label
from .language import Retranslated, set_items
from .session import SessionController

SUMMARIES = ("mean", "max", "rollout")  # entries of the summary selector
SUMMARY_FUNCTIONS = {"mean": mean_over_heads, "max": max_over_heads, "rollout": rollout}
DEFAULT_KIND: Kind = "cross"


def kind_names() -> dict[Kind, str]:
    translate = QCoreApplication.translate  # literal arguments below, so that lupdate finds them
    return {"encoder_self": translate("AttentionView", "encoder self-attention"),
            "decoder_self": translate("AttentionView", "decoder masked self-attention"),
            "cross": translate("AttentionView", "cross-attention")}


def kind_axes(kind: Kind) -> AxisNames:
    """Axis titles that say which tokens are the queries (rows) and which the keys (columns)."""
    translate = QCoreApplication.translate
    source_rows = translate("AttentionView", "queries: source tokens (rows)")
    source_columns = translate("AttentionView", "keys: source tokens (columns)")
    target_rows = translate("AttentionView", "queries: decoder inputs (rows)")
    target_columns = translate("AttentionView", "keys: decoder inputs (columns)")
    rows, columns = {"encoder_self": (source_rows, source_columns), "decoder_self": (target_rows, target_columns),
                     "cross": (target_rows, source_columns)}[kind]
    return replace(attention_axes(), row_title=rows, column_title=columns)


@dataclass(frozen=True)
class AttentionMaps:
    """One kind of attention of a session, as drawn. ``maps`` (L, H, Q, K) and ``summary``
    (L, Q, K) hold NaN where the decoder's causal mask blocks a key."""

    kind: Kind
    maps: np.ndarray
    summary: np.ndarray
    query_tokens: list[str]
    key_tokens: list[str]
    query: int | None  # the current step's query row (None for the encoder: no step has a row)


def attention_maps(session: DecodingSession, kind: Kind, summary: str) -> AttentionMaps:
    """The session's attention of ``kind`` with its summary of heads (``summary`` in SUMMARIES)."""
    if kind == "encoder_self":
        maps, queries, keys = session.encoder_attention, session.source_tokens, session.source_tokens
    elif kind == "decoder_self":
        maps, queries, keys = session.decoder_self_attention(), session.target_tokens, session.target_tokens
    else:
        maps, queries, keys = session.cross_attention(), session.target_tokens, session.source_tokens
    summarised = SUMMARY_FUNCTIONS[summary](maps) if maps.shape[2] else np.zeros((maps.shape[0], 0, maps.shape[3]),
                                                                                 np.float32)
    if kind == "decoder_self":
        visible = np.tri(len(queries), dtype=bool)  # (T, T): query t sees keys 0..t
        maps, summarised = np.where(visible, maps, np.nan), np.where(visible, summarised, np.nan)
    query = None if kind == "encoder_self" or not queries else len(queries) - 1
    return AttentionMaps(kind, maps.astype(np.float32, copy=False), summarised.astype(np.float32, copy=False),
                         list(queries), list(keys), query)


class AttentionView(Retranslated, QWidget):
    """Kind and summary selectors, the grid of every head, and one head (or summary) large.

    Args:
        controller: the explorer's session; the view redraws whenever it moves.
    """

    def __init__(self, controller: SessionController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.shown: AttentionMaps | None = None
        self.layer, self.head = -1, 0  # the tile shown large; layer -1: the last layer
        self._build()
        controller.session_changed.connect(self.refresh)
        controller.changed.connect(self.refresh)
        self._on_kind_changed()

    def _build(self) -> None:
        self.kind = QComboBox()
        self.bind_text(lambda names: set_items(self.kind, [names[k] for k in KINDS]), kind_names)
        self.kind.setCurrentIndex(KINDS.index(DEFAULT_KIND))
        self.summary = QComboBox()
        self.bind_text(lambda texts: set_items(self.summary, texts), lambda: [
            self.tr("mean of heads"), self.tr("max of heads"), self.tr("rollout across layers")])
        self.bind_text(self.summary.setToolTip,
                       lambda: self.tr("What the last column of the grid shows for each layer"))
        self.choices = QWidget()
        controls = QHBoxLayout(self.choices)
        controls.setContentsMargins(0, 0, 0, 0)
        for text, widget in ((lambda: self.tr("Attention"), self.kind), (lambda: self.tr("last column"), self.summary)):
            controls.addWidget(bound_label(self, text))
            controls.addWidget(widget)
        controls.addStretch(1)
        self.grid = AttentionGrid()
        self.large = HeatmapWidget()
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.setObjectName("attention_grid_and_head")  # its sizes are restored at the next start
        splitter.addWidget(self.grid)
        splitter.addWidget(self.large)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        self.large.setMinimumWidth(320)
        self.hint = plain_label(wrap=True)
        self.hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.pages = QStackedWidget()
        self.pages.addWidget(self.hint)
        self.pages.addWidget(splitter)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.choices)
        layout.addWidget(self.pages, 1)
        self.kind.currentIndexChanged.connect(self._on_kind_changed)
        self.summary.currentIndexChanged.connect(self._on_summary_changed)
        self.grid.cell_clicked.connect(self.select)

    def retranslate(self) -> None:
        super().retranslate()
        self._name_summary()
        self._on_kind_changed()  # axes, titles and tooltips name the kind; redraws

    # -- choices ---------------------------------------------------------------------------------
    def current_kind(self) -> Kind:
        return KINDS[self.kind.currentIndex()]

    def current_summary(self) -> str:
        return SUMMARIES[self.summary.currentIndex()]

    def _on_kind_changed(self) -> None:
        kind = self.current_kind()
        entries = self.summary.model()
        assert isinstance(entries, QStandardItemModel)  # a combo box's own model
        rollout_item = entries.item(SUMMARIES.index("rollout"))
        rollout_item.setEnabled(kind != "cross")
        rollout_item.setToolTip(self.tr("Rollout follows self-attention through the layers; cross-attention's "
                                        "queries and keys are different sequences") if kind == "cross" else "")
        if kind == "cross" and self.current_summary() == "rollout":
            self.summary.setCurrentIndex(SUMMARIES.index("mean"))  # refreshes
        self.large.set_axes(kind_axes(kind))
        self.grid.set_title(self.tr("{0}: every layer (rows) and head (columns); click one to open it large")
                            .format(kind_names()[kind]))
        self.refresh()

    def _on_summary_changed(self) -> None:
        self._name_summary()
        self.refresh()

    def _name_summary(self) -> None:
        names = {"mean": (self.tr("mean"), self.tr("mean of heads")), "max": (self.tr("max"), self.tr("max of heads")),
                 "rollout": (self.tr("rollout"), self.tr("rollout through this layer"))}
        self.grid.set_summary_names(*names[self.current_summary()])

    def show_only(self, plot: AttentionGrid | HeatmapWidget) -> None:
        """Show just one plot, without the selectors (a slide of the grid or of one head)."""
        self.choices.setVisible(False)
        self.grid.setVisible(plot is self.grid)
        self.large.setVisible(plot is self.large)

    def select(self, layer: int, head: int) -> None:
        """Show this tile large (``head`` SUMMARY_COLUMN: the layer's summary)."""
        self.layer, self.head = layer, head
        self._draw_large()

    # -- drawing ---------------------------------------------------------------------------------
    def refresh(self, *_: object) -> None:
        session = self.controller.session
        if session is None:
            self._show_hint(self.tr("Type a sentence above to see its attention."))
            return
        shown = attention_maps(session, self.current_kind(), self.current_summary())
        if not shown.query_tokens:
            self._show_hint(self.tr("The decoder has not run yet: press Step (Space) to see its first query."))
            return
        self.shown = shown
        self.grid.set_maps(shown.maps, shown.query_tokens, shown.key_tokens, summary=shown.summary)
        self.grid.set_query(shown.query)
        self._draw_large()
        self.pages.setCurrentIndex(1)

    def _show_hint(self, text: str) -> None:
        self.shown = None
        self.hint.setText(text)
        self.pages.setCurrentIndex(0)

    def selected(self) -> tuple[int, int]:
        """The (layer, head) shown large, within the current kind's layers and heads."""
        assert self.shown is not None
        layers, heads = self.shown.maps.shape[:2]
        layer = layers - 1 if self.layer < 0 or self.layer >= layers else self.layer
        head = self.head if self.head == SUMMARY_COLUMN or self.head < heads else 0
        return layer, head

    def _draw_large(self) -> None:
        shown = self.shown
        if shown is None:
            return
        layer, head = self.selected()
        data = shown.summary[layer] if head == SUMMARY_COLUMN else shown.maps[layer, head]
        self.large.set_data(data, shown.query_tokens, shown.key_tokens)
        self.large.set_highlighted_row(shown.query)
        self.large.set_title(self.tr("{0}, layer {1}: {2}").format(
            kind_names()[shown.kind], layer, self._head_name(head, layer)))

    def _head_name(self, head: int, layer: int) -> str:
        if head != SUMMARY_COLUMN:
            return self.tr("head {0}").format(head)
        return {"mean": self.tr("mean of heads"), "max": self.tr("max of heads"),
                "rollout": self.tr("rollout through layers 0..{0}").format(layer)}[self.current_summary()]
