"""Attention scores as a bilinear form: the chosen head's W_Z = W_Q W_K^T (biases as an extra row
and column), its singular values and the eigenvalues of its symmetric part (whose signs say
whether W_Z could be a metric), and the check that it gives the model's scaled scores
(:func:`transviz.core.analysis.concepts.bilinear.bilinear`)."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QVBoxLayout, QWidget

from ....core.analysis.concepts.bilinear import Bilinear, bilinear
from ...services.language import set_items
from ...style import BLUE, GREY, ORANGE
from ...widgets.heatmap import AxisNames, HeatmapWidget
from ...widgets.labels import bound_label, plain_label
from ...widgets.plots import curve_plot
from .base import ConceptContext, ConceptView

LABELLED = 8  # dimensions written along each side of the map
PARTS = ("matrix", "symmetric", "antisymmetric")  # what the map may draw: W_Z = S + A, or a part


def form_axes() -> AxisNames:
    translate = QCoreApplication.translate
    return AxisNames(translate("BilinearView", "query input"), translate("BilinearView", "key input"),
                     translate("BilinearView", "query input dimension (rows; last: the bias)"),
                     translate("BilinearView", "key input dimension (columns; last: the bias)"),
                     translate("BilinearView", "{row_name} {row}, {column_name} {column}: {value}"))


class BilinearView(ConceptView):
    """W_Z of the chosen head."""

    name = "bilinear"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.shown: Bilinear | None = None
        self._head = 0
        self._drawn: tuple[np.ndarray, str] | None = None  # the matrix shown, and the language it is labelled in
        self.matrix = HeatmapWidget(value_format="{:.4f}")
        self.bind_text(self.matrix.set_axes, form_axes)  # axis names follow the language
        self.part = QComboBox()
        self.bind_text(lambda names: set_items(self.part, names), lambda: [
            self.tr("W_Z"), self.tr("its symmetric part S = (W_Z + W_Z^T) / 2"),
            self.tr("its antisymmetric part A = (W_Z - W_Z^T) / 2")])
        self.part.currentIndexChanged.connect(lambda _: self._redraw_part())
        self.singular = curve_plot()
        self.summary = plain_label(wrap=True)
        choice = QHBoxLayout()
        choice.addWidget(bound_label(self, lambda: self.tr("Map:")))
        choice.addWidget(self.part, 1)
        side = QVBoxLayout()
        side.addLayout(choice)
        side.addWidget(self.singular, 1)
        side.addWidget(self.summary)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.matrix, 3)
        layout.addLayout(side, 2)

    def title(self) -> str:
        return self.tr("Attention as a bilinear form")

    def claim(self) -> str:
        return self.tr("The second reading is a bilinear function, f(ax+b, y) = a f(x, y) + f(b, y): the attention "
                       "map is a typical bilinear function, and it can equally be read as an inner-product space "
                       "with W_Z as its metric. The essence of bilinearity is that it splits apart; it is widely "
                       "used in work that fuses features at the attention stage, such as relative position "
                       "embeddings.")

    def caption(self) -> str:
        shown = self.shown
        if shown is None:
            return self.tr("W_Z = W_Q W_K^T of the chosen head, with the biases as a last row and column: "
                           "[x_q, 1] W_Z [x_k, 1]^T / sqrt(d_k) is the scaled score of every query and key.")
        positive, negative, zero = shown.inertia
        return self.tr("W_Z = W_Q W_K^T of the chosen head, with the biases as a last row and column: "
                       "[x_q, 1] W_Z [x_k, 1]^T / sqrt(d_k) is the scaled score of every query and key. Its "
                       "symmetric part S has {0} positive, {1} negative and {2} zero eigenvalues (orange, right). "
                       "A metric needs all {3} positive: W_Z is no metric, and the score is a bilinear form, not an "
                       "inner product.").format(positive, negative, zero, len(shown.eigenvalues))

    def plots(self) -> list[QWidget]:
        return [self.matrix, self.singular]

    def draw(self, context: ConceptContext) -> None:
        shown = bilinear(context.model, context.sentence, context.kind, context.layer, context.head)
        self.shown = shown
        self._head = context.head
        self._draw_matrix(shown)
        self.summary.setText(self.tr(
            "Check: the form gives the model's scaled scores to within {0:.1e} ({1} x {2}).\n"
            "Rank {3} of {4} (singular values above 1e-6 of the largest; at most d_k = {5}); "
            "effective rank (entropy) {6:.1f}.\n"
            "Symmetric part |S| = {7:.2f}, antisymmetric part |A| = {8:.2f} (Frobenius norms): W_Z = S + A, "
            "and A is what makes the score of (x, y) differ from that of (y, x).\n"
            "S is a product through d_k: at most d_k = {5} of its eigenvalues are positive and at most d_k "
            "negative (zero: below 1e-6 of the largest). Along a direction with a negative one, an input scores "
            "itself below zero, which no inner product allows.").format(
            shown.check, len(shown.query_tokens), len(shown.key_tokens), shown.rank, shown.d_model + 1, shown.d_k,
            shown.entropy_rank, shown.symmetric_norm, shown.antisymmetric_norm))

    def _redraw_part(self) -> None:
        if self.shown is not None:
            self._draw_matrix(self.shown)

    def _draw_matrix(self, shown: Bilinear) -> None:
        part = PARTS[max(self.part.currentIndex(), 0)]
        self.matrix.set_title(self.tr("{3} of head {0}: {1} x {1}, through d_k = {2}").format(
            self._head, shown.d_model + 1, shown.d_k, ("W_Z", "S", "A")[PARTS.index(part)]))
        self.matrix.set_colorbar_title(self.tr("entry"))
        # a step changes the sentence, not W_Z (kept per head by the core): redraw it only when it changes
        drawn = (getattr(shown, part), self.tr("index"))
        if self._drawn is None or drawn[0] is not self._drawn[0] or drawn[1] != self._drawn[1]:
            self._drawn = drawn
            names = [*(str(i) for i in range(shown.d_model)), "1"]
            largest = float(max(np.abs(shown.matrix).max(), 1e-9))  # one scale for W_Z and its parts
            step = max(1, shown.d_model // LABELLED)
            labelled = [*range(0, shown.d_model, step), shown.d_model]
            self.matrix.set_data(drawn[0], names, names, levels=(-largest, largest), labelled_columns=labelled)
            self._draw_singular(shown)

    def _draw_singular(self, shown: Bilinear) -> None:
        plot = self.singular
        plot.clear()
        values = shown.singular_values
        plot.plot(np.arange(len(values)), values, pen=pg.mkPen(BLUE, width=2), symbol="o", symbolSize=4,
                  symbolBrush=BLUE, symbolPen=None)
        limit = pg.mkPen(GREY, style=Qt.PenStyle.DashLine)  # d_k: where the rank must end
        plot.addItem(pg.InfiniteLine(pos=shown.d_k - 0.5, angle=90, pen=limit))
        # S's eigenvalues, largest first: their signs say whether W_Z could be a metric
        eigenvalues = shown.eigenvalues
        plot.plot(np.arange(len(eigenvalues)), eigenvalues, pen=pg.mkPen(ORANGE, width=2), symbol="t", symbolSize=4,
                  symbolBrush=ORANGE, symbolPen=None)
        plot.addItem(pg.InfiniteLine(pos=0, angle=0, pen=pg.mkPen(GREY)))
        plot.setLabel("bottom", self.tr("index"))
        plot.setLabel("left", self.tr("value"))
        plot.setTitle(self.tr("Singular values of W_Z (blue), eigenvalues of S (orange)"))
