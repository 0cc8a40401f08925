"""Alike heads: every head of the chosen attention kind against every other, the mean
Jensen-Shannon divergence of their attention rows over the task's test sentences, in an order
that puts alike heads together (:func:`transviz.core.concepts.similarity.head_similarity`).
Clicking a cell makes the later of its two heads copy the other's pattern in the explorer."""
from __future__ import annotations

import math

from PySide6.QtWidgets import QVBoxLayout, QWidget

from ....core.concepts.similarity import HeadSimilarity, head_similarity
from ....core.interventions import AblateHead
from ...heatmap import AxisNames, HeatmapWidget
from ...labels import plain_label
from .base import ConceptContext, ConceptView


def head_name(head: tuple[int, int]) -> str:
    return f"L{head[0]} H{head[1]}"


class SimilarityView(ConceptView):
    """The clustered head-by-head divergence matrix and the most alike pair."""

    name = "heads-similarity"
    uses_layer = uses_head = False  # every head of every layer of the chosen kind takes part
    uses_kind = True

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.shown: HeadSimilarity | None = None
        self.matrix = HeatmapWidget(value_format="{:.3f}", levels=(0.0, math.log(2)))
        self.bind_text(self.matrix.set_axes, lambda: AxisNames(
            self.tr("head"), self.tr("head"), self.tr("heads (alike ones adjacent)"),
            self.tr("heads (alike ones adjacent)")))
        self.matrix.clicked.connect(self._on_clicked)
        self.summary = plain_label(wrap=True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.matrix, 1)
        layout.addWidget(self.summary)

    def title(self) -> str:
        return self.tr("Alike heads")

    def claim(self) -> str:
        return self.tr("Looking at the heads after pre-training, one often finds heads that are identical or close in "
                       "function; even replacing some of them does not affect downstream tasks much. So more heads "
                       "are just redundancy.")

    def caption(self) -> str:
        return self.tr("Each cell: how differently two heads of this kind spread their attention, the mean "
                       "Jensen-Shannon divergence of their rows (0: the same, ln 2 = 0.69: disjoint) over the "
                       "first test sentences of the task. Click a cell: the later head copies the other's pattern "
                       "in the Explorer.")

    def plots(self) -> list[QWidget]:
        return [self.matrix]

    def draw(self, context: ConceptContext) -> None:
        shown = head_similarity(context.model, context.kind)
        self.shown = shown
        names = [head_name(shown.heads[i]) for i in shown.order]
        self.matrix.set_data(shown.ordered, names, names)
        self.matrix.set_title(self.tr("Mean JSD between heads, {0} sentences, {1} query rows").format(
            shown.sentences, shown.rows))
        a, b, divergence = shown.most_alike()
        self.summary.setText(self.tr(
            "Most alike: {0} and {1} (JSD {2:.3f}). Click their cell to let {1} copy {0}'s pattern and see what "
            "the translation loses in the Explorer.").format(head_name(a), head_name(b), divergence))

    def _on_clicked(self, row: int, column: int) -> None:
        shown = self.shown
        if shown is None or row == column:
            return
        source, target = sorted((shown.heads[int(shown.order[row])], shown.heads[int(shown.order[column])]))
        self.requested.emit(AblateHead(shown.kind, target[0], target[1], "copy", source))
