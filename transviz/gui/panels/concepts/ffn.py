"""The FFN spindle: each token's d_ff hidden units in one layer's FFN (after the activation), the
share of units each token switches on, and its strongest units
(:func:`transviz.core.analysis.concepts.ffn.ffn_activations`)."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QFrame, QHBoxLayout, QPlainTextEdit, QVBoxLayout, QWidget

from ....core.analysis.concepts.ffn import FfnActivations, ffn_activations
from ...style import BLUE
from ...widgets.heatmap import AxisNames, HeatmapWidget
from ...widgets.plots import curve_plot
from .base import ConceptContext, ConceptView

LABELLED_UNITS = 8  # unit numbers written under the map


def unit_axes() -> AxisNames:
    translate = QCoreApplication.translate
    return AxisNames(translate("FfnView", "token"), translate("FfnView", "unit"),
                     translate("FfnView", "tokens (rows)"), translate("FfnView", "hidden units of the FFN (columns)"),
                     translate("FfnView", "{row_name} '{row}', {column_name} {column}: {value}"))


class FfnView(ConceptView):
    """The hidden units of the FFN of the chosen layer (the encoder's for encoder self-attention,
    else the decoder's)."""

    name = "ffn"
    uses_head = False

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.shown: FfnActivations | None = None
        self.units = HeatmapWidget(value_format="{:.3f}")
        self.bind_text(self.units.set_axes, unit_axes)  # axis names follow the language
        self.active = curve_plot()
        self.active.setYRange(0, 1, padding=0.02)
        self._bars = pg.BarGraphItem(x=[], height=[], width=0.7, brush=BLUE, pen=None)  # updated per draw
        self.active.addItem(self._bars)
        self.strongest = QPlainTextEdit()  # one line per token: it scrolls for a long sentence
        self.strongest.setReadOnly(True)
        self.strongest.setFrameShape(QFrame.Shape.NoFrame)
        below = QHBoxLayout()
        below.addWidget(self.active, 3)
        below.addWidget(self.strongest, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.units, 3)
        layout.addLayout(below, 2)

    def title(self) -> str:
        return self.tr("The FFN spindle")

    def claim(self) -> str:
        return self.tr("A feature of the Transformer is its spindle-shaped FFN: it first raises the dimension, then "
                       "lowers it again. Why this is done and what it gains has no clear answer yet, but it has been "
                       "found to work better.")

    def caption(self) -> str:
        return self.tr("Each row is one token, each column one of the d_ff hidden units after the activation; the "
                       "bars give the share of units each token switches on.")

    def plots(self) -> list[QWidget]:
        return [self.units, self.active]

    def draw(self, context: ConceptContext) -> None:
        shown = ffn_activations(context.model, context.sentence, "encoder" if context.side == "encoder" else "decoder",
                                context.layer)
        self.shown = shown
        hidden = shown.hidden
        step = max(1, shown.d_ff // LABELLED_UNITS)
        self.units.set_data(hidden, shown.tokens, [str(unit) for unit in range(shown.d_ff)],
                            levels=(0.0, float(max(hidden.max(), 1e-6))),
                            labelled_columns=list(range(0, shown.d_ff, step)))
        side = self.tr("encoder") if shown.side == "encoder" else self.tr("decoder")
        self.units.set_title(self.tr("{0} layer {1}: d_model {2} -> d_ff {3} ({4}) -> d_model {2}").format(
            side, shown.layer, shown.d_model, shown.d_ff, shown.activation.upper() if shown.activation == "relu"
            else "GELU"))
        self.units.set_colorbar_title(self.tr("activation"))
        self._draw_shares(shown)
        self._list_strongest(shown)

    def _draw_shares(self, shown: FfnActivations) -> None:
        plot = self.active
        share = shown.active_share
        self._bars.setOpts(x=np.arange(len(share)), height=share)
        plot.getAxis("bottom").setTicks([list(enumerate(shown.tokens))])
        plot.setXRange(-0.6, len(share) - 0.4, padding=0)
        plot.setLabel("left", self.tr("share of units > 0"))
        plot.setTitle(self.tr("Units switched on, per token (mean {0:.0%})").format(float(share.mean())))

    def _list_strongest(self, shown: FfnActivations) -> None:
        lines = [self.tr("Strongest units per token:")]
        for token, units, row in zip(shown.tokens, shown.strongest(), shown.hidden, strict=True):
            lines.append(f"{token}: " + ", ".join(f"{unit} ({row[unit]:.2f})" for unit in units))
        self.strongest.setPlainText("\n".join(lines))
