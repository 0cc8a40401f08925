"""Attention as a look-up: the current query's keys ranked by score, the weight each gets and how
close each key is to the best one, and what the head retrieves compared with the best key's value
(:func:`transviz.core.analysis.concepts.lookup.lookup`)."""
from __future__ import annotations

from html import escape  # plot titles are rich text: '<s>' would strike the rest through

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QVBoxLayout, QWidget

from ....core.analysis.concepts.lookup import Lookup, lookup
from ...style import BLUE, ORANGE
from ...widgets.labels import plain_label
from ...widgets.plots import curve_plot
from .base import ConceptContext, ConceptView, hidden_message

BAR = 0.38  # two bars per key, side by side


class LookupView(ConceptView):
    """The current query's look-up in the chosen head."""

    name = "lookup"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.shown: Lookup | None = None
        self.bars = curve_plot()
        self.bars.setYRange(-1, 1.45, padding=0.02)  # room at the top for the legend
        self.bars.addLegend(offset=(-10, 10))
        self.summary = plain_label(wrap=True)
        self.hidden = plain_label(wrap=True)  # instead of the picture while a quiz's question is open
        self.hidden.setVisible(False)
        self.hidden.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.hidden)
        layout.addWidget(self.bars, 1)
        layout.addWidget(self.summary)

    def title(self) -> str:
        return self.tr("Attention as a look-up")

    def claim(self) -> str:
        return self.tr("The most common reading of attention is Q, K, V (query, key, value): taking information out "
                       "of a key-value store, like taking something out of a dictionary. The picture is vivid but not "
                       "strictly right: attention is continuous, and taking has a knock-on effect. If I take A, the "
                       "form of attention makes me also take B, which is close to A (closeness measured in the space "
                       "the parameters define), and I cannot take C, the opposite of A. So attention does not fetch "
                       "pieces of information independently: they are coupled.")

    def caption(self) -> str:
        return self.tr("The keys the current query sees, ranked by score: the weight each gets (blue) and the cosine "
                       "of each key to the best-scoring key (orange). Keys like the best one share its weight.")

    def plots(self) -> list[QWidget]:
        return [self.bars]

    def draw(self, context: ConceptContext) -> None:
        # the whole picture is the current query's row: with a quiz's question open, it is the answer
        concealed = context.hidden_query is not None
        self.hidden.setVisible(concealed)
        self.bars.setVisible(not concealed)
        self.summary.setVisible(not concealed)
        if concealed:
            self.shown = None
            self.bars.clear()
            self.hidden.setText(hidden_message())
            return
        shown = lookup(context.model, context.sentence, context.kind, context.layer, context.head)
        self.shown = shown
        plot = self.bars
        plot.clear()
        x = np.arange(len(shown.key_tokens))
        plot.addItem(pg.BarGraphItem(x=x - BAR / 2, height=shown.weights, width=BAR, brush=BLUE, pen=None,
                                     name=self.tr("attention weight")))
        plot.addItem(pg.BarGraphItem(x=x + BAR / 2, height=shown.key_cosine, width=BAR, brush=ORANGE, pen=None,
                                     name=self.tr("cosine to the best key")))
        plot.addItem(pg.InfiniteLine(pos=0, angle=0, pen=pg.mkPen("#9a9a9a")))
        plot.getAxis("bottom").setTicks([list(enumerate(shown.key_tokens))])
        plot.setXRange(-0.6, len(x) - 0.4, padding=0)
        plot.setTitle(self.tr("Query '{0}' looks up its keys (ranked by score)").format(escape(shown.query_token)))
        self.summary.setText(self.tr(
            "Retrieved: the mixture weights @ V (norm {0:.2f}); a dictionary would return the best key's value "
            "alone (norm {1:.2f}, weight {2:.0%}); cosine between the two: {3:.3f}.").format(
            shown.mixture_norm, shown.best_norm, float(shown.weights[0]), shown.mixture_cosine))
