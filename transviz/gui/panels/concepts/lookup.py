"""Attention as a look-up: the current query's keys ranked by score, the weight each gets and how
close each key is to the best one, and what the head retrieves compared with the best key's value
(:func:`transviz.core.analysis.concepts.lookup.lookup`). The caption says how often, over the test
split, keys more like the best one get more weight (:func:`~transviz.core.analysis.concepts.lookup.
measure_agreement`, counted once per model and kind on the view's worker thread)."""
from __future__ import annotations

from collections.abc import Callable
from html import escape  # plot titles are rich text: '<s>' would strike the rest through

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QVBoxLayout, QWidget

from ....core.analysis.concepts.lookup import MIN_OTHERS, Agreement, Lookup, lookup, measure_agreement
from ....core.analysis.walkthrough import Kind
from ....core.data.tasks import TASKS
from ....core.model.bundle import Model
from ...style import BLUE, ORANGE
from ...widgets.labels import plain_label
from ...widgets.plots import curve_plot
from .background import Background, Key, Reporter, counting, model_key
from .base import ConceptContext, ConceptView, hidden_message

BAR = 0.38  # two bars per key, side by side


class LookupView(ConceptView):
    """The current query's look-up in the chosen head."""

    name = "lookup"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.shown: Lookup | None = None
        self.background: Background[Agreement] = Background(self._on_agreement)
        self._key: Key | None = None  # the model and kind whose agreement the caption states
        self._layer_head = (0, 0)
        self._split = True  # the model names a built-in task, whose test split can be counted
        self.bars = curve_plot()
        self.bars.setYRange(-1, 1.45, padding=0.02)  # room at the top for the legend
        legend = self.bars.addLegend(offset=(-10, 10))
        # made once, given new bars per draw: a legend refilled at each draw is laid out again after it is drawn
        self._weight_bars = pg.BarGraphItem(x=[], height=[], width=BAR, brush=BLUE, pen=None)
        self._cosine_bars = pg.BarGraphItem(x=[], height=[], width=BAR, brush=ORANGE, pen=None)
        for bars, name in ((self._weight_bars, lambda: self.tr("attention weight")),
                           (self._cosine_bars, lambda: self.tr("cosine to the best key"))):
            self.bars.addItem(bars)
            legend.addItem(bars, name())
            self.bind_text(legend.getLabel(bars).setText, name)
        self.bars.addItem(pg.InfiniteLine(pos=0, angle=0, pen=pg.mkPen("#9a9a9a")))
        self.summary = plain_label(wrap=True)
        self.hidden = plain_label(wrap=True)  # instead of the picture while a quiz's question is open
        self.hidden.setVisible(False)
        self.hidden.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.background.bar)
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
        agreement = self.background.results.get(self._key) if self._key is not None else None
        if agreement is None:
            if not self._split:
                return self.tr("The keys the current query sees, ranked by score: the weight each gets (blue) and "
                               "the cosine of each key to the best-scoring key (orange). Whether keys more like the "
                               "best one get more weight varies from row to row; this model names no built-in task, "
                               "so there is no test split to count how often.")
            return self.tr("The keys the current query sees, ranked by score: the weight each gets (blue) and the "
                           "cosine of each key to the best-scoring key (orange). How often keys more like the best "
                           "one get more weight is being counted over the test split (the bar below).")
        layer, head = self._layer_head
        rows, share, mean = int(agreement.rows[layer, head]), agreement.share[layer, head], agreement.mean[layer, head]
        general = self.tr("The keys the current query sees, ranked by score: the weight each gets (blue) and the "
                          "cosine of each key to the best-scoring key (orange). Keys more like the best one get more "
                          "weight in {0:.0%} of this head's {1} query rows over the test split (rank correlation "
                          "above 0 among the other keys; mean {2:.2f}).").format(share, rows, mean)
        here = self.shown.agreement if self.shown is not None else None
        if self.shown is None:  # hidden by a quiz: the row shown is its answer
            return general
        if here is None:
            return general + " " + self.tr("The row shown has fewer than {0} other keys to rank.").format(MIN_OTHERS)
        if here <= 0:
            return general + " " + self.tr("In the row shown it is {0:+.2f}: here keys more like the best one do "
                                           "not get more weight.").format(here)
        return general + " " + self.tr("In the row shown it is {0:+.2f}.").format(here)

    def plots(self) -> list[QWidget]:
        return [self.bars]

    def set_synchronous(self, synchronous: bool) -> None:
        self.background.synchronous = synchronous

    def shutdown(self) -> None:
        self.background.shutdown()

    def _count(self, context: ConceptContext) -> None:
        """Ask for the agreement of the context's model and kind (counted once, off the GUI thread)."""
        model = context.model
        self._layer_head = (context.layer, context.head)
        self._split = model.facts.get("task") in TASKS
        if not self._split:
            self._key = None
            self.background.cancel()
            return
        self._key = (model_key(model), context.kind)
        self.background.request(self._key, self._task(self.background.model_copy(model), context.kind))

    def _task(self, model: Model, kind: Kind) -> Callable[[Reporter], Agreement | None]:
        template = self.tr("Test sentence {0} of {1}")

        def task(state: Reporter) -> Agreement | None:
            progress = counting(state, template)
            return measure_agreement(model, kind, progress, state.is_cancelled)
        return task

    def _on_agreement(self, key: Key, agreement: Agreement) -> None:
        if key == self._key:
            self.caption_changed.emit()

    def draw(self, context: ConceptContext) -> None:
        self._count(context)
        # the whole picture is the current query's row: with a quiz's question open, it is the answer
        concealed = context.hidden_query is not None
        self.hidden.setVisible(concealed)
        self.bars.setVisible(not concealed)
        self.summary.setVisible(not concealed)
        if concealed:
            self.shown = None
            for bars in (self._weight_bars, self._cosine_bars):
                bars.setOpts(x=[], height=[])
            self.hidden.setText(hidden_message())
            return
        shown = lookup(context.model, context.sentence, context.kind, context.layer, context.head)
        self.shown = shown
        plot = self.bars
        x = np.arange(len(shown.key_tokens))
        self._weight_bars.setOpts(x=x - BAR / 2, height=shown.weights)
        self._cosine_bars.setOpts(x=x + BAR / 2, height=shown.key_cosine)
        plot.getAxis("bottom").setTicks([list(enumerate(shown.key_tokens))])
        plot.setXRange(-0.6, len(x) - 0.4, padding=0)
        plot.setTitle(self.tr("Query '{0}' looks up its keys (ranked by score)").format(escape(shown.query_token)))
        self.summary.setText(self.tr(
            "Retrieved: the mixture weights @ V (norm {0:.2f}); a dictionary would return the best key's value "
            "alone (norm {1:.2f}, weight {2:.0%}); cosine between the two: {3:.3f}.").format(
            shown.mixture_norm, shown.best_norm, float(shown.weights[0]), shown.mixture_cosine))
