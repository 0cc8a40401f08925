"""The explorer's attention: every layer and head of one kind (encoder self, decoder masked self,
cross) as a grid, and the head clicked, large, both redrawn in place on every step.

What is drawn comes straight from the session (rows are queries, columns keys); the decoder's
masked cells (the future, weight exactly 0) are drawn as masked rather than as a low weight.
Summaries of a layer's heads (mean, max, rollout) come from :mod:`transviz.core.analysis.aggregate`.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from PySide6.QtCore import QCoreApplication, QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import QCheckBox, QComboBox, QHBoxLayout, QSplitter, QStackedWidget, QVBoxLayout, QWidget

from ...core.analysis.aggregate import SUMMARIES as COMPARED_SUMMARIES
from ...core.analysis.aggregate import summarise, summarise_view
from ...core.analysis.compare import Head
from ...core.analysis.walkthrough import KINDS, Kind
from ...core.decoding.interventions import EditAttention
from ...core.decoding.session import DecodingSession
from ...core.teaching.lesson import SUMMARY_HEAD, View
from ..services.core_messages import translated
from ..services.intervention_list import added, edited_heads
from ..services.language import Retranslated, Translate, set_items
from ..services.observe import subscribe
from ..services.session import SessionController
from .grid import SUMMARY_COLUMN, AttentionGrid
from .heatmap import AxisNames, HeatmapWidget, attention_axes
from .intervention_bar import InterventionBar, describe
from .labels import bound_label, plain_label
from .row_painter import RowPainter

SUMMARIES = ("mean", "max", "rollout")  # entries of the summary selector
SCALES = ("fixed", "map", "row")  # entries of the colour scale selector: 0..1, each map's or each row's maximum
UNKNOWN_MARK = " (?)"  # after a source word the model read as <unk>, on axes (the legend says so)
DEFAULT_KIND: Kind = "cross"


def kind_names(translate: Translate = QCoreApplication.translate) -> dict[Kind, str]:
    """The kinds' names in the language in use (``translate``: in another; literal arguments below,
    so that lupdate finds them)."""
    return {"encoder_self": translate("AttentionView", "encoder self-attention"),
            "decoder_self": translate("AttentionView", "decoder masked self-attention"),
            "cross": translate("AttentionView", "cross-attention")}


def one_stream_note(kind: Kind) -> str:
    """What a view of a decoder-only model's one self-attention map is (ModelConfig.decoder_only)."""
    translate = QCoreApplication.translate
    if kind == "encoder_self":
        return translate("AttentionView", "decoder-only: the source's rows of its one self-attention map")
    return translate("AttentionView", "decoder-only: the output rows of one map, over the source and the output; "
                                      "a row's two parts sum to 1 together")


def set_head_items(box: QComboBox, heads: int) -> None:
    """Fill ``box`` with ``heads`` heads, then the summaries of a layer's heads, in the language in use
    (refilled without signals when the number of heads changes; :func:`chosen_head` reads it)."""
    translate = QCoreApplication.translate  # literal arguments, so that lupdate finds them
    names = [translate("AttentionView", "head {0}").format(h) for h in range(heads)]
    summaries = {"mean": translate("AttentionView", "mean of heads"), "max": translate("AttentionView", "max of heads"),
                 "rollout": translate("AttentionView", "rollout")}
    if box.count() != heads + len(COMPARED_SUMMARIES):
        with QSignalBlocker(box):
            box.clear()
    set_items(box, names + [summaries[s] for s in COMPARED_SUMMARIES])


def chosen_head(box: QComboBox, heads: int) -> Head:
    """The head or summary chosen in a box :func:`set_head_items` filled for ``heads`` heads."""
    index = max(box.currentIndex(), 0)
    return index if index < heads else COMPARED_SUMMARIES[index - heads]


def future_masked(weights: np.ndarray, first_column: int = 0) -> np.ndarray:
    """Decoder rows' map with the causally masked keys NaN (drawn hatched, as the explorer draws
    them): column ``first_column + t`` is the future of row t for every column after it."""
    rows, columns = weights.shape
    future = np.zeros((rows, columns), bool)
    future[:, first_column:] = np.triu(np.ones((rows, columns - first_column), bool), k=1)
    return np.where(future, np.nan, weights).astype(np.float32)


def kind_axes(kind: Kind) -> AxisNames:
    """Axis titles that say which tokens are the queries (rows) and which the keys (columns)."""
    translate = QCoreApplication.translate
    source_rows = translate("AttentionView", "queries: source tokens (rows)")
    source_columns = translate("AttentionView", "keys: source tokens (columns)")
    # a decoder row is computed from the token fed and chooses the token written: it names both
    target_rows = translate("AttentionView", "queries: decoder input -> token written (rows)")
    target_columns = translate("AttentionView", "keys: decoder inputs (columns)")
    rows, columns = {"encoder_self": (source_rows, source_columns), "decoder_self": (target_rows, target_columns),
                     "cross": (target_rows, source_columns)}[kind]
    return replace(attention_axes(), row_title=rows, column_title=columns)


def colour_scaled(data: np.ndarray, scale: str) -> np.ndarray:
    """``data`` (..., queries, keys) as coloured on ``scale`` (one of SCALES): as it is ("fixed",
    0..1), or divided by the largest weight of each map ("map") or of each row ("row"), so that
    a diffuse map still spans the colormap. NaN (masked) cells stay NaN."""
    if scale == "fixed":
        return data
    axis = (-2, -1) if scale == "map" else (-1,)
    peak = np.max(np.where(np.isnan(data), -np.inf, data), axis=axis, keepdims=True)
    return (data / np.where(peak > 0, peak, 1.0)).astype(np.float32, copy=False)


def summary_summed(summary: str) -> bool:
    """Whether a summary's rows are distributions that sum to 1 (the max of heads is not)."""
    return summary != "max"


@dataclass(frozen=True)
class AttentionMaps:
    """One kind of attention of a session, as drawn. ``maps`` (L, H, Q, K) and ``summary``
    (L, Q, K) hold NaN where the decoder's causal mask blocks a key."""

    kind: Kind
    maps: np.ndarray
    summary: np.ndarray
    query_tokens: list[str]  # the rows' labels: decoder rows are "input -> written token"
    key_tokens: list[str]
    query: int | None  # the current step's query row (None for the encoder: no step has a row)
    hidden: int | None = None  # the query row a quiz hides (NaN in every map), or None


def hidden_query(shown: AttentionMaps) -> AttentionMaps:
    """``shown`` with its current query row blanked (NaN) in every map and summary, and the
    token it wrote left out of its name: a quiz asks about that row before revealing it."""
    if shown.query is None:
        return shown
    maps, summary, names = shown.maps.copy(), shown.summary.copy(), list(shown.query_tokens)
    maps[:, :, shown.query], summary[:, shown.query] = np.nan, np.nan
    names[shown.query] = hidden_name(names[shown.query])
    return replace(shown, maps=maps, summary=summary, query_tokens=names, hidden=shown.query)


def hidden_name(label: str) -> str:
    """A decoder row's "input -> written token" with the token written left out."""
    return label.split(" -> ")[0] + " -> ?"


def _summarised(session: DecodingSession, kind: Kind, summary: str, maps: np.ndarray) -> np.ndarray:
    if not maps.shape[2]:
        return np.zeros((maps.shape[0], 0, maps.shape[3]), np.float32)
    one_stream = session.model.config.decoder_only
    # cross: through the decoder into the encoder's rollout; a decoder-only model's: through its stream
    if summary == "rollout" and (kind == "cross" or one_stream):
        return summarise_view(summary, kind, session.encoder_attention, session.decoder_self_attention(),
                              session.cross_attention(), one_stream)
    return summarise(summary, maps)


def flag_unknown(tokens: list[str], unknown: list[tuple[int, str]]) -> list[str]:
    """Source tokens as axis labels: a word the model read as <unk> (``unknown``: (position, word))
    is followed by UNKNOWN_MARK."""
    positions = {position for position, _ in unknown}
    return [token + UNKNOWN_MARK if i in positions else token for i, token in enumerate(tokens)]


def flagged_source(session: DecodingSession) -> list[str]:
    return flag_unknown(session.source_tokens, session.unknown_tokens)


def attention_maps(session: DecodingSession, kind: Kind, summary: str) -> AttentionMaps:
    """The session's attention of ``kind`` with its summary of heads (``summary`` in SUMMARIES)."""
    if kind == "encoder_self":
        maps, queries, keys = session.encoder_attention, flagged_source(session), flagged_source(session)
    elif kind == "decoder_self":
        maps, queries, keys = session.decoder_self_attention(), session.query_labels, session.target_tokens
    else:
        maps, queries, keys = session.cross_attention(), session.query_labels, flagged_source(session)
    summarised = _summarised(session, kind, summary, maps)
    if kind == "decoder_self":
        visible = np.tri(len(queries), dtype=bool)  # (T, T): query t sees keys 0..t
        maps, summarised = np.where(visible, maps, np.nan), np.where(visible, summarised, np.nan)
    query = None if kind == "encoder_self" or not queries else len(queries) - 1
    return AttentionMaps(kind, maps.astype(np.float32, copy=False), summarised.astype(np.float32, copy=False),
                         list(queries), list(keys), query)


def set_item_tips(combo: QComboBox, tips: list[str]) -> None:
    """A tooltip for each entry of a combo box, in order."""
    for index, tip in enumerate(tips):
        combo.setItemData(index, tip, Qt.ItemDataRole.ToolTipRole)


class AttentionView(Retranslated, QWidget):
    """Kind, summary and colour scale selectors, the grid of every head, and one head (or
    summary) large. Before the decoder's first step its kinds have no rows yet: the view then
    shows the encoder self-attention the decoder will read, and says so.

    Args:
        controller: the explorer's session; the view redraws whenever it moves.

    Signals:
        selected_changed(): another tile is shown large.
    """

    selected_changed = Signal()

    def __init__(self, controller: SessionController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.shown: AttentionMaps | None = None
        self.layer, self.head = -1, 0  # the tile shown large; layer -1: the last layer
        self.hints_shown = True  # hints on using the window; left out of an animation's frames
        self._build()
        controller.session_changed.connect(self.refresh)
        subscribe(self, controller.workspace.hidden_changed, self.refresh)
        controller.changed.connect(self.refresh)
        # a change from another tab reaches the list after the session redecoded: frame it then
        controller.interventions_changed.connect(self.refresh)
        self._on_kind_changed()

    def _build(self) -> None:
        self.kind = QComboBox()
        self.bind_text(lambda names: set_items(self.kind, [names[k] for k in KINDS]), kind_names)
        self.kind.setCurrentIndex(KINDS.index(DEFAULT_KIND))
        self.summary = QComboBox()
        self.bind_text(lambda texts: set_items(self.summary, texts), lambda: [
            self.tr("mean of heads"), self.tr("max of heads"), self.tr("rollout across layers")])
        self.bind_text(lambda tips: set_item_tips(self.summary, tips), lambda: [
            self.tr("The average of the layer's heads: each row still sums to 1"),
            self.tr("Each cell's strongest head: rows no longer sum to 1, so a row can hold several bright cells"),
            self.tr("Attention rollout (Abnar & Zuidema): attention followed through the layers below, with half of "
                    "each layer passed on by the residual connection. For cross-attention it follows the decoder's "
                    "self-attention and cross-attention into the encoder's rollout: how much each source token "
                    "reaches the query. Rows sum to 1")])
        self.bind_text(self.summary.setToolTip,
                       lambda: self.tr("What the last column of the grid shows for each layer"))
        self.scale = QComboBox()
        self.bind_text(lambda texts: set_items(self.scale, texts), lambda: [
            self.tr("0..1"), self.tr("per map"), self.tr("per row")])
        self.bind_text(lambda tips: set_item_tips(self.scale, tips), lambda: [
            self.tr("One scale for every map: weight 0 to 1"),
            self.tr("Each map's largest weight is the brightest colour: diffuse maps show their pattern"),
            self.tr("Each row's largest weight is the brightest colour: where each query looks most")])
        self.bind_text(self.scale.setToolTip, lambda: self.tr("How weights map to colours"))
        self.lines = QCheckBox()
        self.bind_text(self.lines.setText, lambda: self.tr("alignment lines"))
        self.bind_text(self.lines.setToolTip, lambda: self.tr(
            "Draw the current step's cross-attention as lines from the token written to the source tokens: the head "
            "shown large, or the mean of its layer's heads"))
        self.choices = QWidget()
        controls = QHBoxLayout(self.choices)
        controls.setContentsMargins(0, 0, 0, 0)
        for text, widget in ((lambda: self.tr("Attention"), self.kind), (lambda: self.tr("last column"), self.summary),
                             (lambda: self.tr("colours"), self.scale)):
            controls.addWidget(bound_label(self, text))
            controls.addWidget(widget)
        controls.addWidget(self.lines)
        controls.addStretch(1)
        self.interventions = InterventionBar(self.controller)
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
        layout.addWidget(self.interventions)
        layout.addWidget(self.pages, 1)
        self.kind.currentIndexChanged.connect(self._on_kind_changed)
        self.summary.currentIndexChanged.connect(self._on_summary_changed)
        self.scale.currentIndexChanged.connect(self.refresh)
        self.grid.cell_clicked.connect(self.select)
        self.painter = RowPainter(self.large)
        self.painter.painting.connect(self._preview_row)
        self.painter.painted.connect(self.paint_row)

    def retranslate(self) -> None:
        super().retranslate()
        self._name_summary()
        self._on_kind_changed()  # axes, titles and tooltips name the kind; redraws

    # -- choices ---------------------------------------------------------------------------------
    def current_kind(self) -> Kind:
        return KINDS[self.kind.currentIndex()]

    def current_summary(self) -> str:
        return SUMMARIES[self.summary.currentIndex()]

    def current_scale(self) -> str:
        return SCALES[self.scale.currentIndex()]

    def _on_kind_changed(self) -> None:
        self.refresh()  # every summary applies to every kind: the one chosen stays

    def _on_summary_changed(self) -> None:
        self._name_summary()
        self.refresh()

    def _name_summary(self) -> None:
        names = {"mean": (self.tr("mean"), self.tr("mean of heads")), "max": (self.tr("max"), self.tr("max of heads")),
                 "rollout": (self.tr("rollout"), self.tr("rollout through this layer"))}
        self.grid.set_summary_names(*names[self.current_summary()])

    def view_state(self) -> View:
        """The kind, the tile shown large, the summary and the colour scale (the colormap is the
        window's: None here)."""
        layer = None if self.layer < 0 else self.layer
        return View(self.current_kind(), layer, SUMMARY_HEAD if self.head == SUMMARY_COLUMN else self.head,
                    self.current_summary(), self.current_scale())

    def apply_view(self, view: View, redraw: bool = True) -> None:
        """Show ``view`` (its colormap aside), drawing once; without ``redraw`` at the next
        redraw (a caller about to open a session, which redraws anyway)."""
        with QSignalBlocker(self.kind), QSignalBlocker(self.summary), QSignalBlocker(self.scale):
            self.kind.setCurrentIndex(KINDS.index(view.kind))
            self.summary.setCurrentIndex(SUMMARIES.index(view.summary))
            self.scale.setCurrentIndex(SCALES.index(view.scale))
        self._name_summary()
        self.layer = -1 if view.layer is None else view.layer
        self.head = SUMMARY_COLUMN if view.head == SUMMARY_HEAD else int(view.head)
        if redraw:
            self.refresh()
            self.selected_changed.emit()

    def show_only(self, plot: AttentionGrid | HeatmapWidget) -> None:
        """Show just one plot, without the selectors (a slide of the grid or of one head)."""
        self.choices.setVisible(False)
        self.grid.setVisible(plot is self.grid)
        self.large.setVisible(plot is self.large)

    @property
    def query_hidden(self) -> bool:
        """Whether the current query row is a quiz's open question (the workspace says)."""
        return self.controller.workspace.hidden

    def show_head(self, kind: Kind, layer: int, head: int) -> None:
        """Show ``kind`` attention with this head large (a quiz asks where it looks)."""
        self.kind.setCurrentIndex(KINDS.index(kind))
        self.select(layer, head)

    def select(self, layer: int, head: int) -> None:
        """Show this tile large (``head`` SUMMARY_COLUMN: the layer's summary)."""
        self.layer, self.head = layer, head
        self._draw_large()
        self.selected_changed.emit()

    # -- drawing ---------------------------------------------------------------------------------
    def refresh(self, *_: object) -> None:
        session = self.controller.session
        if session is None:
            workspace = self.controller.workspace
            if workspace.error is not None and workspace.sentence.strip() and workspace.model is not None:
                # a sentence is there: say why it shows nothing (too long for the model, most often)
                self._show_hint(self.tr("This sentence cannot be shown: {0}.").format(translated(workspace.error)))
            else:
                self._show_hint(self.tr("Type a sentence above to see its attention."))
            return
        kind = self.current_kind()
        shown = attention_maps(session, kind, self.current_summary())
        if not shown.query_tokens:  # the decoder has no row yet: show what it will read
            shown = attention_maps(session, "encoder_self", self.current_summary())
        if self.query_hidden:
            shown = hidden_query(shown)
        self.shown = shown
        scale = self.current_scale()
        self.grid.set_maps(shown.maps, shown.query_tokens, shown.key_tokens, summary=shown.summary,
                           colours=(colour_scaled(shown.maps, scale), colour_scaled(shown.summary, scale)),
                           hidden_query=shown.hidden)
        self.grid.set_query(shown.query)
        self.grid.set_marked(self._edited(shown))
        self.grid.set_title(self._grid_title(kind, shown.kind))
        self.large.set_axes(kind_axes(shown.kind))
        self._draw_large()
        self.pages.setCurrentIndex(1)

    def _edited(self, shown: AttentionMaps) -> set[tuple[int, int]]:
        """(layer, head) of the shown kind's heads that run with an intervention."""
        layers, heads = shown.maps.shape[:2]
        return edited_heads(self.controller.interventions.items, shown.kind, layers, heads)

    def set_hints_shown(self, shown: bool) -> None:
        """Show or leave out the hints on using the window ("click one...", "press Step"): an
        animation's frames show the run only."""
        if shown != self.hints_shown:
            self.hints_shown = shown
            self.grid.set_hint_shown(shown)
            self.refresh()

    def _grid_title(self, chosen: Kind, shown: Kind) -> str:
        scale = {"fixed": "", "map": self.tr(" Colours: each map scaled to its largest weight."),
                 "row": self.tr(" Colours: each row scaled to its largest weight.")}[self.current_scale()]
        if not self.hints_shown:
            if chosen != shown:
                return self.tr("Before the first step: the encoder self-attention the decoder will read, every "
                               "layer (rows) and head (columns).{0}").format(scale)
            return self.tr("{0}: every layer (rows) and head (columns).{1}").format(kind_names()[chosen], scale)
        if chosen != shown:
            return self.tr("The decoder has not run yet: press Step (Space) to see its {0}. Meanwhile, the encoder "
                           "self-attention it will read: every layer (rows) and head (columns).{1}").format(
                kind_names()[chosen], scale)
        return self.tr("{0}: every layer (rows) and head (columns); click one to open it large.{1}").format(
            kind_names()[chosen], scale)

    def _show_hint(self, text: str) -> None:
        self.shown = None
        # nothing left to hover or name
        self.grid.set_maps(np.zeros((0, 0, 0, 0), np.float32), [], [], summary=np.zeros((0, 0, 0), np.float32))
        self.hint.setText(text)
        self.pages.setCurrentIndex(0)

    def selected(self) -> tuple[int, int]:
        """The (layer, head) shown large, within the current kind's layers and heads."""
        assert self.shown is not None
        layers, heads = self.shown.maps.shape[:2]
        layer = layers - 1 if self.layer < 0 or self.layer >= layers else self.layer
        head = self.head if self.head == SUMMARY_COLUMN or self.head < heads else 0
        return layer, head

    def paint_row(self, row: int, weights: np.ndarray) -> bool:
        """Set query ``row`` of the head shown large to ``weights`` (renormalised over the keys it
        may see) and decode again; False, with the reason, where that cannot be done."""
        shown = self.shown
        if shown is None:
            return False
        layer, head = self.selected()
        if head == SUMMARY_COLUMN:
            self.controller.refused.emit(self.tr("Paint a row of one head: a summary of heads has no weights "
                                                 "of its own to set."))
            self._draw_large()
            return False
        if not np.nansum(np.where(np.isnan(shown.maps[layer, head, row]), 0.0, weights)) > 0:
            self.controller.refused.emit(self.tr("This query may not see the keys painted: paint keys left of "
                                                 "the hatched cells."))
            self._draw_large()
            return False
        item = EditAttention(shown.kind, layer, head, row, tuple(float(w) for w in weights))
        done = self.controller.set_interventions(added(self.controller.interventions.items, item))
        if not done:
            self._draw_large()
        return done

    def _preview_row(self, row: int, weights: np.ndarray) -> None:
        """The large head with ``row`` as it would be painted (masked keys stay masked)."""
        shown = self.shown
        layer, head = self.selected() if shown is not None else (0, SUMMARY_COLUMN)
        if shown is None or head == SUMMARY_COLUMN:
            return
        data = shown.maps[layer, head].copy()
        visible = np.where(np.isnan(data[row]), 0.0, weights)
        if visible.sum() > 0:
            data[row] = np.where(np.isnan(data[row]), np.nan, visible / visible.sum())
        self._draw_large(data)

    def _draw_large(self, painted: np.ndarray | None = None) -> None:
        shown = self.shown
        if shown is None:
            return
        layer, head = self.selected()
        data = shown.summary[layer] if head == SUMMARY_COLUMN else shown.maps[layer, head]
        data = data if painted is None else painted
        scale = self.current_scale()
        self.large.set_data(data, shown.query_tokens, shown.key_tokens,
                            colours=None if scale == "fixed" else colour_scaled(data, scale),
                            hidden_rows=() if shown.hidden is None else (shown.hidden,))
        self.large.set_colorbar_title(self._colorbar_title(head == SUMMARY_COLUMN))
        self.large.set_highlighted_row(shown.query)
        title = self.tr("{0}, layer {1}: {2}").format(kind_names()[shown.kind], layer, self._head_name(head, layer))
        session = self.controller.session
        if session is not None and session.model.config.decoder_only:
            title = self.tr("{0} ({1})").format(title, one_stream_note(shown.kind))
        edits = [describe(item) for item in self.controller.interventions.items
                 if (layer, head) in edited_heads([item], shown.kind, *shown.maps.shape[:2])]
        self.large.set_title(title if not edits else self.tr("{0} (edited: {1})").format(title, "; ".join(edits)))

    def _colorbar_title(self, summary: bool) -> str:
        """What the colour bar's 0..1 stands for: the weight, or its share of a map's or row's
        largest; and, for the max of heads, that rows no longer sum to 1."""
        scale = self.current_scale()
        if summary and not summary_summed(self.current_summary()):
            return {"fixed": self.tr("max of heads, 0..1: rows do not sum to 1"),
                    "map": self.tr("max of heads / map's largest: rows do not sum to 1"),
                    "row": self.tr("max of heads / row's largest: rows do not sum to 1")}[scale]
        return {"fixed": self.tr("weight, 0..1"), "map": self.tr("weight / map's largest"),
                "row": self.tr("weight / row's largest")}[scale]

    def alignment(self) -> np.ndarray | None:
        """The current step's cross-attention row (source tokens,) for alignment lines: the
        cross-attention head shown large, else the mean of its layer's heads (of the last layer
        when another kind is shown); None before the first step."""
        session = self.controller.session
        if session is None or not session.position or self.query_hidden:
            return None
        cross = session.cross_attention()  # (L, H, T, S)
        layer, head = cross.shape[0] - 1, SUMMARY_COLUMN
        if self.shown is not None and self.shown.kind == "cross":
            layer, head = self.selected()
        row = cross[layer, :, -1].mean(axis=0) if head == SUMMARY_COLUMN else cross[layer, head, -1]
        return np.asarray(row, dtype=np.float32)

    def _head_name(self, head: int, layer: int) -> str:
        if head != SUMMARY_COLUMN:
            return self.tr("head {0}").format(head)
        if self.current_summary() == "rollout" and self.shown is not None and self.shown.kind == "cross":
            return self.tr("rollout through decoder layers 0..{0} and the encoder").format(layer)
        return {"mean": self.tr("mean of heads"), "max": self.tr("max of heads"),
                "rollout": self.tr("rollout through layers 0..{0}").format(layer)}[self.current_summary()]
