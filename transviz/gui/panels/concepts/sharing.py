"""Weight sharing: the parameters the loaded model stores, and what it would store without
sharing and with both kinds (:func:`transviz.core.analysis.concepts.sharing.sharing`)."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QHBoxLayout, QWidget

from ....core.analysis.concepts.sharing import Sharing, sharing
from ...style import BLUE, GREEN, SKY, VERMILLION
from ...widgets.labels import plain_label
from ...widgets.plots import curve_plot, legend_below
from .base import ConceptContext, ConceptView


class SharingView(ConceptView):
    """Three bars (as stored, without sharing, with both kinds) and the check of a tied output."""

    name = "sharing"
    uses_layer = uses_head = False

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.shown: Sharing | None = None
        self.counts = curve_plot()
        self.legend = legend_below(self.counts.getPlotItem(), columns=4)
        self.facts = plain_label(wrap=True)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.counts, 3)
        layout.addWidget(self.facts, 2)

    def title(self) -> str:
        return self.tr("Weight sharing")

    def claim(self) -> str:
        return self.tr("The encoder's and the decoder's embedding layers can share their weights: the source and "
                       "target languages differ, but they can use one large vocabulary, and words both languages "
                       "use (numbers, punctuation) get a better representation. Moreover, the encoder and the "
                       "decoder each activate only their own language's embeddings, so they can share one table. "
                       "The decoder's embedding layer and its final FC layer can share too: the embedding is (v, d), "
                       "the FC layer (d, v), v the vocabulary size and d the embedding size; transposed, one serves "
                       "as the other.")

    def caption(self) -> str:
        return self.tr("The bars count the parameters of the embedding tables and the output layer's weight: as the "
                       "loaded model stores them, without any sharing, and with one joint table that the output "
                       "layer also uses.")

    def plots(self) -> list[QWidget]:
        return [self.counts]

    def draw(self, context: ConceptContext) -> None:
        found = sharing(context.model)
        self.shown = found
        configurations = ((found.shares_embeddings, found.ties_output), (False, False), (True, True))
        parts = np.array([_stack(found, *c) for c in configurations], dtype=np.float64) / 1000  # (3 bars, 4 tables)
        plot = self.counts
        plot.clear()
        legend = self.legend
        legend.clear()
        names = [self.tr("source embedding"), self.tr("target embedding"), self.tr("output layer weight"),
                 self.tr("one joint table (both sides and the output)")]
        bottom = np.zeros(3)
        for table, (colour, name) in enumerate(zip((BLUE, SKY, VERMILLION, GREEN), names, strict=True)):
            bars = pg.BarGraphItem(x=np.arange(3), y0=bottom, height=parts[:, table], width=0.6, brush=colour, pen=None)
            plot.addItem(bars)
            if parts[:, table].any():
                legend.addItem(bars, name)
            bottom = bottom + parts[:, table]
        plot.getAxis("bottom").setTicks([list(enumerate(
            [self.tr("this model"), self.tr("no sharing"), self.tr("shared and tied")]))])
        plot.setXRange(-0.6, 2.6, padding=0)
        plot.setYRange(0, float(bottom.max()) * 1.05, padding=0)
        plot.setLabel("left", self.tr("parameters (thousands)"))
        plot.setTitle(self.tr("The tables that can be shared, d_model {0}").format(found.d_model))
        self.facts.setText("\n\n".join(self._facts(found)))

    def _facts(self, found: Sharing) -> list[str]:
        lines = [self.tr("This model stores {0:,} parameters. Without sharing: {1:,}; with one joint table of {2:,} "
                         "tokens used by both sides and by the output layer: {3:,} ({4:+.1%}).").format(
            found.stored, found.unshared, found.joint_vocab, found.shared, found.shared / found.unshared - 1)]
        if found.shares_embeddings:
            lines.append(self.tr("The encoder and the decoder read one embedding table ({0:,} tokens x {1}).").format(
                found.joint_vocab, found.d_model))
        else:
            lines.append(self.tr("Source and target have their own tables ({0:,} and {1:,} tokens).").format(
                found.src_vocab, found.tgt_vocab))
        if found.tied_difference is not None:
            lines.append(self.tr("The output layer is tied: its rows are the target embedding's rows (largest "
                                 "difference {0:g}).").format(found.tied_difference))
        else:
            lines.append(self.tr("The output layer has its own weight; the recipe toy-de-en-shared trains a model "
                                 "with both kinds of sharing (transviz train --recipe toy-de-en-shared)."))
        return lines


def _stack(found: Sharing, share: bool, tie: bool) -> tuple[int, int, int, int]:
    """The segments of one bar: source table, target table, output weight, and the joint table
    that replaces the source table when both sides share one (a bar of its own colour, so the
    shared bar is not labelled a source embedding)."""
    source, target, output = found.tables(share, tie)
    return (0, target, output, source) if share else (source, target, output, 0)
