"""The beam search tree, step by step: every hypothesis the beam kept after each step (x: the
step, y: its rank, best on top), joined to the hypothesis it extends, with its last token and
its ranking score. The current best hypothesis's path is drawn thick.

It draws ``session.beam_history``; only the ranking scores are put on the search's one scale.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QFontMetricsF
from PySide6.QtWidgets import QFrame, QScrollArea, QVBoxLayout, QWidget

from ...core.decoding.beam import BeamStep
from ...core.decoding.strategies import Beam
from ...core.model.vocab import BOS
from ..services.language import Retranslated
from ..style import GREY, HIGHLIGHT, PALETTE, plain_axes, plot_font, plot_style
from .labels import plain_label

LIVE, ENDED = PALETTE[0], PALETTE[2]
SEPARATOR = "  "  # between a node's token and its score: one line, so that the ranks' rows never overlap
ROW_LINES = 1.3  # lines of text each rank keeps; narrower, the plot scrolls instead of overlapping


@dataclass(frozen=True)
class TreeNode:
    """One hypothesis as drawn: at ``step`` with ``rank`` in that beam."""

    step: int
    rank: int
    parent: int | None  # its rank in the beam of the step before
    label: str  # its last token (in brackets if it ended earlier) and its ranking score
    finished: bool


def tree_nodes(history: Sequence[BeamStep], length_penalty: float = 1.0, start: str = BOS) -> list[TreeNode]:
    """The nodes to draw for a beam history (the start first, named ``start``), every score on one
    scale: summed log-probability / length ** ``length_penalty`` (steps taken before the beam
    search started, greedy or sampled, carry plain summed scores in the history)."""
    scale = Beam(length_penalty=length_penalty)
    nodes = [TreeNode(0, 0, None, start, False)]
    for beam in history[1:]:
        for rank, h in enumerate(beam.hypotheses):
            kept = len(h.tokens) < beam.position  # ended earlier, carried over as it was
            token = h.tokens[-1] if h.tokens else start
            label = f"({token})" if kept else token
            score = round(scale.normalized(h.score, len(h.tokens)), 2) + 0.0  # + 0.0: no "-0.00"
            nodes.append(TreeNode(beam.position, rank, h.parent, f"{label}{SEPARATOR}{score:.2f}", h.finished))
    return nodes


def best_path(history: Sequence[BeamStep]) -> list[tuple[int, int]]:
    """(step, rank) of the best current hypothesis and its ancestors, back to the start."""
    path, rank = [], 0
    for beam in reversed(history):
        path.append((beam.position, rank))
        parent = beam.hypotheses[rank].parent
        rank = parent if parent is not None else 0
    return path[::-1]


class BeamTree(Retranslated, QWidget):
    """A plot of the beam after every step; call :meth:`show_history` with ``session.beam_history``."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._nodes: list[TreeNode] = []
        self._width: int | None = None  # the beam's, for the title
        self._length_penalty = 1.0  # the scale of the scores shown
        self._title = plain_label(wrap=True)
        self._view = pg.PlotWidget(enableMenu=False)
        plot = self._view.getPlotItem()
        plot.hideButtons()
        plain_axes(plot)
        self.bind_text(lambda text: plot.setLabel("bottom", text), lambda: self.tr("step"))
        self.bind_text(lambda text: plot.setLabel("left", text), lambda: self.tr("rank"))  # 0 = best: the title
        plot.getViewBox().invertY(True)
        for axis in ("bottom", "left"):
            plot.getAxis(axis).setTickSpacing(1, 1)  # steps and ranks are whole numbers
        self._edges = pg.PlotDataItem(connect="pairs", pen=pg.mkPen(GREY, width=1))
        self._best = pg.PlotDataItem(pen=pg.mkPen(HIGHLIGHT, width=3))
        self._points = pg.ScatterPlotItem(size=9, pen=pg.mkPen("k", width=0.5))
        for item in (self._edges, self._best, self._points):
            plot.addItem(item)
        self._labels: list[pg.TextItem] = []  # reused from step to step
        self._scroll = QScrollArea()  # a long or wide search scrolls rather than writing labels over each other
        self._scroll.setWidgetResizable(True)
        self._scroll.setFrameShape(QFrame.Shape.NoFrame)
        self._scroll.setWidget(self._view)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self._title)
        layout.addWidget(self._scroll, 1)
        self.show_history(())

    def retranslate(self) -> None:
        super().retranslate()
        self._name()

    @property
    def title(self) -> str:
        return self._title.text()

    def _name(self) -> None:
        if self._width is None:
            self._title.setText(self.tr("Beam search tree: choose beam search as the strategy to see it grow."))
        else:
            self._title.setText(self.tr("Beam search, width {0}: each hypothesis kept after each step (rank 0: the "
                                        "best), with its last token and score = summed log-probability / "
                                        "length^{1:g}; the best path is thick; (token): ended earlier, kept").format(
                self._width, self._length_penalty))

    def show_history(self, history: Sequence[BeamStep], width: int | None = None,
                     length_penalty: float = 1.0, start: str = BOS) -> None:
        """Draw the beams of a search (``width``: the beam width, for the title; ``length_penalty``:
        the search's, which every score shown is normalised with; ``start``: the decoder's first
        input as the model names it)."""
        self._nodes = tree_nodes(history, length_penalty, start) if history else []
        self._width, self._length_penalty = width, length_penalty
        self._name()
        x = np.array([n.step for n in self._nodes], dtype=float)
        y = np.array([n.rank for n in self._nodes], dtype=float)
        brushes = [pg.mkBrush(ENDED if n.finished else LIVE) for n in self._nodes]
        symbols = ["s" if n.finished else "o" for n in self._nodes]
        self._points.setData(x=x, y=y, brush=brushes, symbol=symbols)
        edges = [(n.step - 1, n.parent, n.step, n.rank) for n in self._nodes if n.parent is not None]
        ex = np.array([[a, c] for a, _, c, _ in edges], dtype=float).ravel()
        ey = np.array([[b, d] for _, b, _, d in edges], dtype=float).ravel()
        self._edges.setData(ex, ey)
        path = best_path(history) if history else []
        self._best.setData(np.array([s for s, _ in path], float), np.array([r for _, r in path], float))
        self._draw_labels()
        if self._nodes:
            rows = max(n.rank for n in self._nodes) + 1
            self._view.getPlotItem().getViewBox().setRange(xRange=(-0.3, max(x) + 0.9), yRange=(-0.5, rows - 0.5))
            self._fit_view(int(max(x)) + 1, rows)

    def _fit_view(self, steps: int, rows: int) -> None:
        """The smallest plot on which no two labels meet: a column a step as wide as the widest
        label and its point, a row a rank of :data:`ROW_LINES` lines, plus the axes."""
        metrics = QFontMetricsF(plot_font())
        widest = max((metrics.horizontalAdvance(n.label) for n in self._nodes), default=0.0)
        axes = 3 * metrics.height()  # the axes' ticks and titles, roughly
        self._view.setMinimumSize(int(steps * (widest + 2 * metrics.height()) + axes),
                                  int(rows * ROW_LINES * metrics.height() + axes))

    def _draw_labels(self) -> None:
        while len(self._labels) < len(self._nodes):
            # on the background's colour, above the lines: an edge passes under a label, not through its text
            style = plot_style()
            label = pg.TextItem(color=style.foreground, anchor=(0, 0.5), fill=pg.mkBrush(style.background))
            label.setZValue(10)
            label.textItem.document().setDocumentMargin(1)  # Qt's 4 px would make the rows' cards meet
            label.setFont(plot_font())
            self._view.addItem(label)
            self._labels.append(label)
        for i, label in enumerate(self._labels):
            label.setVisible(i < len(self._nodes))
            if i < len(self._nodes):
                node = self._nodes[i]
                label.setText(node.label)
                label.setPos(node.step + 0.08, node.rank)

    # -- what is shown (tests) -------------------------------------------------------------------
    def drawn_points(self) -> list[tuple[float, float]]:
        x, y = self._points.getData()
        return list(zip(x.tolist(), y.tolist(), strict=True))

    def drawn_edges(self) -> list[tuple[tuple[float, float], tuple[float, float]]]:
        x, y = self._edges.getData()
        if x is None:
            return []
        points = list(zip(x.tolist(), y.tolist(), strict=True))
        return [(points[i], points[i + 1]) for i in range(0, len(points), 2)]

    def drawn_labels(self) -> list[str]:
        return [label.toPlainText() for label in self._labels if label.isVisible()]

    def best_path_points(self) -> list[tuple[float, float]]:
        x, y = self._best.getData()
        return [] if x is None else list(zip(x.tolist(), y.tolist(), strict=True))
