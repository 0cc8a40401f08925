"""FlashAttention's trick on the chosen head: the current query row's output computed block by block
of keys with a running maximum and sum (the online softmax), each block's output beside the
ordinary softmax's (:func:`transviz.core.analysis.concepts.online_softmax.flash_row`)."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QHBoxLayout, QSpinBox, QVBoxLayout, QWidget

from ....core.analysis.concepts.online_softmax import MAX_BLOCK, OnlineSoftmax, flash_row
from ...style import BLUE, ORANGE
from ...widgets.heatmap import AxisNames, HeatmapWidget, symmetric_levels
from ...widgets.labels import bound_label, plain_label
from ...widgets.plots import curve_plot
from .base import ConceptContext, ConceptView, hidden_message


def output_axes() -> AxisNames:
    translate = QCoreApplication.translate
    return AxisNames(translate("FlashView", "after"), translate("FlashView", "dimension"),
                     translate("FlashView", "the output after each block of keys (rows; last: softmax @ V)"),
                     translate("FlashView", "dimensions of d_k (columns)"),
                     translate("FlashView", "{row_name} {row}, {column_name} {column}: {value}"))


class FlashView(ConceptView):
    """The online softmax of the current query row."""

    name = "flash"
    from_tutorial = False

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.shown: OnlineSoftmax | None = None
        self._context: ConceptContext | None = None
        self.outputs = HeatmapWidget(value_format="{:.4f}", diverging=True)
        self.bind_text(self.outputs.set_axes, output_axes)
        self.block = QSpinBox()
        self.block.setRange(1, MAX_BLOCK)
        self.block.setValue(2)
        self.bind_text(self.block.setToolTip, lambda: self.tr("Keys per block: a fused kernel's tile of keys"))
        self.block.valueChanged.connect(lambda _: self._context is not None and self.draw(self._context))
        self.running = curve_plot()
        self._max = self.running.plot([], [], pen=pg.mkPen(BLUE, width=2))
        self._sum = self.running.plot([], [], pen=pg.mkPen(ORANGE, width=2))
        self.summary = plain_label(wrap=True)
        choice = QHBoxLayout()
        choice.addWidget(bound_label(self, lambda: self.tr("Keys per block:")))
        choice.addWidget(self.block)
        choice.addStretch(1)
        side = QVBoxLayout()
        side.addLayout(choice)
        side.addWidget(self.running, 1)
        side.addWidget(self.summary)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.outputs, 3)
        layout.addLayout(side, 2)

    def title(self) -> str:
        return self.tr("The online softmax (FlashAttention)")

    def claim(self) -> str:
        return self.tr("Fused attention kernels (FlashAttention, torch's scaled_dot_product_attention) never hold a "
                       "row of weights: they read the keys block by block and keep only the largest score so far, "
                       "the sum of exponentials below it and the weighted sum of values, rescaling both when a "
                       "larger score arrives. The output is exactly softmax(QK^T) V, but a tool that runs them has "
                       "no attention map to show unless it computes QK^T and the softmax again, as transviz does.")

    def caption(self) -> str:
        shown = self.shown
        if shown is None:
            return self.tr("The current query's output after each block of keys, and the running maximum and sum.")
        return self.tr("Query '{0}': its output after each block of {1} keys (rows), the last row softmax(row) @ V "
                       "computed the ordinary way; the blocks' final output differs from it by {2:.1e}. Right: the "
                       "running maximum (blue) and the running sum of exp(score - maximum) (orange) after each "
                       "block.").format(shown.query_token, shown.block, shown.error)

    def plots(self) -> list[QWidget]:
        return [self.outputs, self.running]

    def draw(self, context: ConceptContext) -> None:
        self._context = context
        if context.hidden_query is not None:  # the row would show where the current query looks
            self.shown = None
            self.outputs.set_data(np.zeros((0, 0)), [], [])
            self.summary.setText(hidden_message())
            return
        shown = flash_row(context.model, context.sentence, context.kind, context.layer, context.head,
                          self.block.value())
        self.shown = shown
        rows = [self.tr("keys 1-{0}").format(end) for end in shown.ends] + [self.tr("softmax @ V")]
        data = np.vstack([shown.partial, shown.reference[None]])
        self.outputs.set_data(data, rows, [str(i) for i in range(data.shape[1])],
                              levels=symmetric_levels(np.nan_to_num(data)))
        self.outputs.set_title(self.tr("Head {0}, query '{1}': the output as the blocks arrive").format(
            context.head, shown.query_token))
        blocks = np.arange(1, len(shown.ends) + 1)
        finite = np.isfinite(shown.running_max)
        self._max.setData(blocks[finite], shown.running_max[finite])
        self._sum.setData(blocks, shown.running_sum)
        self.running.getAxis("bottom").setTicks([[(int(b), str(b)) for b in blocks]])
        self.running.setLabel("bottom", self.tr("after block"))
        self.running.setTitle(self.tr("running maximum (blue) and sum (orange)"))
        self.summary.setText(self.tr(
            "{0} keys in {1} blocks. After the last block the output equals softmax(row) @ V within {2:.1e}; the "
            "weights themselves, which a map would draw, were never formed.").format(
                len(shown.scores), len(shown.ends), shown.error))
