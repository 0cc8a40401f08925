"""Two heads of one attention kind side by side for the explorer's sentence at its step: their
maps on one colour scale, how far apart they are on this sentence and over the test split, and a
button that lets the later head copy the earlier one's pattern in the explorer."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import Signal
from PySide6.QtWidgets import QGridLayout, QPushButton, QWidget

from ....core.analysis.concepts.similarity import Head, Pair
from ...services.language import Retranslated
from ...widgets.attention_view import kind_names
from ...widgets.heatmap import HeatmapWidget, attention_axes
from ...widgets.labels import plain_label


def head_name(head: Head) -> str:
    return f"L{head[0]} H{head[1]}"


class HeadPairWidget(Retranslated, QWidget):
    """The two maps of a :class:`Pair`, their divergences and the replace button."""

    replace = Signal()  # the button: head b copies head a's pattern

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.pair: Pair | None = None
        self.maps = (HeatmapWidget(colorbar=False), HeatmapWidget())
        for heatmap in self.maps:  # short names: the titles say which kind, and the maps are small
            self.bind_text(heatmap.set_axes, attention_axes)
        self.divergence = plain_label(wrap=True)
        self.button = QPushButton()
        self.button.clicked.connect(self.replace)
        layout = QGridLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.maps[0], 0, 0)
        layout.addWidget(self.maps[1], 0, 1)
        layout.addWidget(self.divergence, 1, 0, 1, 2)
        layout.addWidget(self.button, 2, 0, 1, 2)
        layout.setRowStretch(0, 1)

    def show_pair(self, pair: Pair, hidden_query: int | None = None) -> None:
        """Show ``pair``; ``hidden_query`` is a quiz's question: that row is drawn as hidden."""
        self.pair = pair
        hidden = () if hidden_query is None else (hidden_query,)
        visible = [np.delete(m, list(hidden), axis=0) for m in pair.maps]  # the scale must not hint at it either
        high = max((float(np.max(m)) for m in visible if m.size), default=1.0)  # one scale: the same colour, weight
        for heatmap, head, weights in zip(self.maps, (pair.a, pair.b), pair.maps, strict=True):
            heatmap.set_data(weights, pair.queries, pair.keys, levels=(0.0, max(high, 1e-6)), hidden_rows=hidden)
            heatmap.set_title(self.tr("{0}, {1}").format(kind_names()[pair.kind], head_name(head)))
        self.divergence.setText(self.tr(
            "JSD between {0} and {1}: {2:.3f} on this sentence, {3:.3f} over the test sentences "
            "(0: the same, 0.69: disjoint).").format(head_name(pair.a), head_name(pair.b), pair.sentence, pair.split))
        self.button.setText(self.tr("Replace {1} by {0}").format(head_name(pair.a), head_name(pair.b)))
