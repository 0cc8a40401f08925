"""Alike heads: every head of the chosen attention kind against every other, the mean
Jensen-Shannon divergence of their attention rows over the task's test sentences, in an order
that puts alike heads together (:func:`transviz.core.analysis.concepts.similarity.head_similarity`).
Beside the matrix, two heads side by side for the explorer's sentence at its step: the most alike
pair until a cell is clicked, then that cell's pair; a button lets the later head copy the other's
pattern in the explorer (:mod:`.head_pair`).

The first measurement of a model and kind reads 64 test pairs (about a second per kind on a CPU):
it runs on the view's worker thread with a progress bar (:mod:`.background`)."""
from __future__ import annotations

import math
from collections.abc import Callable, Hashable

from PySide6.QtWidgets import QHBoxLayout, QVBoxLayout, QWidget

from ....core.analysis.concepts.similarity import Head, HeadSimilarity, measure_pair, measure_similarity
from ....core.analysis.walkthrough import Kind
from ....core.decoding.interventions import AblateHead, Copy
from ....core.model.bundle import Model
from ...widgets.attention_view import kind_names
from ...widgets.heatmap import AxisNames, HeatmapWidget
from ...widgets.labels import plain_label
from .background import Background, Reporter, counting, model_key
from .base import ConceptContext, ConceptView
from .head_pair import HeadPairWidget, head_name


class SimilarityView(ConceptView):
    """The clustered head-by-head divergence matrix and the most alike pair."""

    name = "heads-similarity"
    uses_layer = uses_head = False  # every head of every layer of the chosen kind takes part
    uses_kind = True

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.shown: HeadSimilarity | None = None
        self.background: Background[HeadSimilarity] = Background(self._show)
        self._key: Hashable = None  # the model and kind the view shows, or waits for
        self._copies: list[Copy] = []  # the explorer's heads copying another's pattern
        self._context: ConceptContext | None = None
        self._chosen: tuple[Head, Head] | None = None  # the pair clicked; None: the most alike
        self.matrix = HeatmapWidget(value_format="{:.3f}", levels=(0.0, math.log(2)))
        self.bind_text(self.matrix.set_axes, lambda: AxisNames(
            self.tr("head"), self.tr("head"), self.tr("heads (alike ones adjacent)"),
            self.tr("heads (alike ones adjacent)")))
        self.matrix.clicked.connect(self._on_clicked)
        self.pair = HeadPairWidget()
        self.pair.replace.connect(self._on_replace)
        self.summary = plain_label(wrap=True)
        pictures = QHBoxLayout()
        pictures.addWidget(self.matrix, 2)
        pictures.addWidget(self.pair, 3)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.background.bar)
        layout.addLayout(pictures, 1)
        layout.addWidget(self.summary)
        layout.addStretch(0)

    def title(self) -> str:
        return self.tr("Alike heads")

    def claim(self) -> str:
        return self.tr("Looking at the heads after pre-training, one often finds heads that are identical or close in "
                       "function; even replacing some of them does not affect downstream tasks much. So more heads "
                       "are just redundancy.")

    def caption(self) -> str:
        return self.tr("Each cell: how differently two heads of this kind spread their attention, the mean "
                       "Jensen-Shannon divergence of their rows (0: the same, ln 2 = 0.69: disjoint) over the "
                       "first test sentences of the task. Beside it, two heads' maps for the Explorer's sentence: the "
                       "most alike pair, or the cell clicked.")

    def plots(self) -> list[QWidget]:
        return [self.matrix, *self.pair.maps]

    def set_synchronous(self, synchronous: bool) -> None:
        self.background.synchronous = synchronous

    def shutdown(self) -> None:
        self.background.shutdown()

    def draw(self, context: ConceptContext) -> None:
        model, kind = context.model, context.kind
        weights = model_key(model)
        if (weights, kind) != self._key:
            self._chosen = None  # a pair of another model's or kind's heads
        self._key = (weights, kind)
        self._context = context
        copies = (edit.copied() for edit in context.interventions)
        self._copies = [copy for copy in copies if copy is not None and copy.kind == kind]
        if self.background.request(self._key, self._task(self.background.model_copy(model), kind)):
            self._show(self._key, self.background.results[self._key])
            return
        self.shown = None  # what the matrix showed is another kind's or model's
        self.matrix.setVisible(False)
        self.pair.setVisible(False)
        self.summary.setText(self.tr("Comparing every two heads of the {0} on the task's test sentences, off the "
                                     "window's thread: the matrix appears when done.").format(kind_names()[kind]))

    def _task(self, model: Model, kind: Kind) -> Callable[[Reporter], HeadSimilarity | None]:
        """The measurement for the worker, on ``model`` (its own copy), reporting pairs done."""
        template = self.tr("Test sentence {0} of {1}")

        def task(state: Reporter) -> HeadSimilarity | None:
            progress = counting(state, template)
            return measure_similarity(model, kind, progress=progress, cancelled=state.is_cancelled)
        return task

    def _show(self, key: Hashable, shown: HeadSimilarity) -> None:
        if key != self._key:
            return  # measured for a model or kind no longer chosen
        self.shown = shown
        self.matrix.setVisible(True)
        self.pair.setVisible(True)
        names = [head_name(shown.heads[i]) for i in shown.order]
        self.matrix.set_data(shown.ordered, names, names)
        self.matrix.set_title(self.tr("Mean JSD between heads, {0} sentences, {1} query rows").format(
            shown.sentences, shown.rows))
        self._show_pair()
        if self._copies:
            self._name_copy(shown, self._copies[-1])
            return
        a, b, divergence = shown.most_alike()
        self.summary.setText(self.tr(
            "Most alike: {0} and {1} (JSD {2:.3f}). Click a cell to see its two heads side by side; the button "
            "under them lets the later copy the other's pattern, to see what the translation loses in the "
            "Explorer.").format(head_name(a), head_name(b), divergence))

    def _show_pair(self) -> None:
        """The pair clicked, or the most alike, for the explorer's sentence at its step."""
        shown, context = self.shown, self._context
        assert shown is not None and context is not None, "shown after a draw"
        a, b = self._chosen or shown.most_alike()[:2]
        split = float(shown.divergence[shown.heads.index(a), shown.heads.index(b)])
        self.pair.show_pair(measure_pair(context.model, context.sentence, shown.kind, a, b, split),
                            context.hidden_query)

    def _on_clicked(self, row: int, column: int) -> None:
        """Open the pair of the cell; it changes nothing in the explorer (the button does)."""
        shown = self.shown
        if shown is None or row == column:
            return
        self._chosen = (shown.heads[int(shown.order[row])], shown.heads[int(shown.order[column])])
        self._show_pair()

    def _on_replace(self) -> None:
        """The pair's later head copies the earlier one's pattern in the explorer."""
        pair = self.pair.pair
        if pair is not None:
            self.requested.emit(AblateHead(pair.kind, pair.b[0], pair.b[1], "copy", pair.a))

    def _name_copy(self, shown: HeadSimilarity, copy: Copy) -> None:
        """Both heads of the pair clicked, and where the explorer shows them."""
        source, target = copy.source, copy.target
        divergence = shown.divergence[shown.heads.index(source), shown.heads.index(target)]
        self.summary.setText(self.tr(
            "{1} now copies {0}'s pattern (JSD between them {2:.3f}). The Explorer decodes with it: in its grid of "
            "the {3}, {1} is framed as edited and shows {0}'s weights; compare the two tiles there, and the "
            "translation with and without the copy.").format(
            head_name(source), head_name(target), divergence, kind_names()[shown.kind]))
