"""Attention as a projection into the convex region of the values: the chosen head's values in
the plane of their two principal axes, their convex hull, and every query's output inside it
(:func:`transviz.core.analysis.concepts.hull.value_hull`)."""
from __future__ import annotations

from html import escape  # plot titles are rich text: '<s>' would strike the rest through

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QVBoxLayout, QWidget

from ....core.analysis.concepts.hull import ValueHull, value_hull
from ...style import BLUE, GREY, HIGHLIGHT, ORANGE
from ...widgets.heatmap import hidden_word
from ...widgets.labels import plain_label
from ...widgets.plots import curve_plot
from .base import ConceptContext, ConceptView


class HullView(ConceptView):
    """The values' hull and the outputs of the chosen head."""

    name = "hull"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.shown: ValueHull | None = None
        self.plane = curve_plot()
        self.plane.setAspectLocked(True)  # distances in the plane read the same both ways
        self.summary = plain_label(wrap=True)
        # made once and given new data per draw: recreating them took most of a step's redraw
        plot = self.plane
        self._hull = plot.plot([], [], pen=pg.mkPen(GREY, width=1.5))
        self._values = plot.plot([], [], pen=None, symbol="o", symbolSize=9, symbolBrush=BLUE, symbolPen=None)
        self._outputs = plot.plot([], [], pen=None, symbol="s", symbolSize=7, symbolBrush=ORANGE, symbolPen=None)
        self._output = plot.plot([], [], pen=None, symbol="s", symbolSize=11, symbolBrush=HIGHLIGHT, symbolPen=None)
        self._current = pg.TextItem("", color=HIGHLIGHT, anchor=(0, 0))
        plot.addItem(self._current)
        self._labels: list[pg.TextItem] = []  # one per value; more are added as sentences grow
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.plane, 1)
        layout.addWidget(self.summary)

    def title(self) -> str:
        return self.tr("Outputs in the values' hull")

    def claim(self) -> str:
        return self.tr("The third reading projects the query into the convex region where the values lie. The space "
                       "the normalised coefficients span is convex: with sum_i a_i = 1 and a_i >= 0, the set of "
                       "sum_i a_i V_i is a convex region, so the segment between any two of its points stays inside "
                       "it. In one attention module there are many queries but one fixed set of values, so the "
                       "region is fixed, and attention can be read as projecting the queries into it. This helps in "
                       "several ways: first, the region is small and compact; second, it generalises and fits more "
                       "easily (convex regions tend to have simpler shapes).")

    def caption(self) -> str:
        return self.tr("The head's value vectors (blue, labelled by their key token) in the plane of their two "
                       "principal axes, their convex hull, and each query's output weights @ V (orange; the current "
                       "query in red): every output lies inside the hull.")

    def plots(self) -> list[QWidget]:
        return [self.plane]

    def draw(self, context: ConceptContext) -> None:
        shown = value_hull(context.model, context.sentence, context.kind, context.layer, context.head)
        self.shown = shown
        plot = self.plane
        corners = shown.points[[*shown.hull, shown.hull[0]]]
        self._hull.setData(corners[:, 0], corners[:, 1])
        self._values.setData(shown.points[:, 0], shown.points[:, 1])
        self._label_values(shown)
        others = np.arange(len(shown.query_tokens)) != shown.current
        self._outputs.setData(shown.projected[others, 0], shown.projected[others, 1])
        plot.setLabel("bottom", self.tr("principal axis 1"))
        plot.setLabel("left", self.tr("principal axis 2"))
        if context.hidden_query is not None:  # where the current output lies would say where the head looks
            self._output.setData([], [])
            self._current.setText("")
            plot.setTitle(self.tr("Head {0}: values (blue), outputs (orange); the current query's output is "
                                  "{1}").format(context.head, hidden_word()))
        else:
            x, y = shown.projected[shown.current]
            self._output.setData([float(x)], [float(y)])
            self._current.setText(shown.query_tokens[shown.current])
            self._current.setPos(float(x), float(y))
            plot.setTitle(self.tr("Head {0}: values (blue), outputs (orange), the output of the current query '{1}' "
                                  "(red)").format(context.head, escape(shown.query_tokens[shown.current])))
        self.summary.setText(self.tr(
            "The two axes keep {0:.0%} of the values' variance; {1} values span a hull of {2} corners, and {3} of "
            "the {4} outputs lie inside it.").format(shown.variance_share, len(shown.key_tokens), len(shown.hull),
                                                     shown.outputs_inside, len(shown.query_tokens)))

    def _label_values(self, shown: ValueHull) -> None:
        """Each value's key token beside it; labels left over from a longer sentence are hidden."""
        while len(self._labels) < len(shown.key_tokens):
            label = pg.TextItem("", color=BLUE, anchor=(0, 1))
            self.plane.addItem(label)
            self._labels.append(label)
        for index, label in enumerate(self._labels):
            label.setVisible(index < len(shown.key_tokens))
            if index < len(shown.key_tokens):
                label.setText(shown.key_tokens[index])
                label.setPos(float(shown.points[index, 0]), float(shown.points[index, 1]))
