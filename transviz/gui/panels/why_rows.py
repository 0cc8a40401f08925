"""The loaded model's real attention rows with its 1/sqrt(d_k) scaling multiplied by a factor
(:func:`transviz.core.analysis.why_scale.model_rows_under_scale`): one query of one head, one row per factor,
with each row's entropy."""
from __future__ import annotations

import math

import numpy as np
from PySide6.QtWidgets import QComboBox, QGridLayout, QGroupBox, QSpinBox, QVBoxLayout, QWidget

from ...core.analysis.why_scale import ScaledRows, model_rows_under_scale
from ...core.base.errors import TransvizError
from ...core.decoding.interventions import KINDS, Kind
from ...core.model.bundle import Model
from ..services.core_messages import translated
from ..services.language import Retranslated, set_items
from ..widgets.heatmap import AxisNames, HeatmapWidget
from ..widgets.labels import bound_label, error_label, plain_label, show_error


class ModelRows(Retranslated, QGroupBox):
    """A kind, layer, head and query chooser over a heatmap of the query's row at each factor.
    :meth:`set_model` gives it the model and sentence; :meth:`refresh` runs the model."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model: Model | None = None
        self.sentence = ""
        self.rows: ScaledRows | None = None
        self._build()

    def retranslate(self) -> None:
        super().retranslate()
        self._show_rows()

    def _build(self) -> None:
        self.kind = QComboBox()
        self.bind_text(lambda texts: set_items(self.kind, texts), lambda: [
            self.tr("encoder self-attention"), self.tr("decoder self-attention"), self.tr("cross-attention")])
        self.kind.setCurrentIndex(KINDS.index("cross"))
        self.layer, self.head = QSpinBox(), QSpinBox()
        self.query = QComboBox()
        self.query.setMinimumContentsLength(8)
        self.query.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.model_error = error_label()
        self.rows_view = HeatmapWidget(value_format="{:.3f}")
        self.bind_text(self.rows_view.set_axes, lambda: AxisNames(
            self.tr("scale"), self.tr("key"), self.tr("scaling × factor (rows)"), self.tr("keys (columns)"),
            self.tr("{row_name} {row}, {column_name} '{column}': {value}")))
        self.rows_note = plain_label(wrap=True)
        self.no_model = bound_label(self, lambda: self.tr(
            "No model loaded: Model > Open a checkpoint to see its real rows under the scale."), wrap=True)
        selectors = QGridLayout()
        for i, (text, widget) in enumerate(((lambda: self.tr("attention"), self.kind),
                                            (lambda: self.tr("query"), self.query),
                                            (lambda: self.tr("layer"), self.layer),
                                            (lambda: self.tr("head"), self.head))):
            selectors.addWidget(bound_label(self, text), i // 2, 2 * (i % 2))
            selectors.addWidget(widget, i // 2, 2 * (i % 2) + 1)
        selectors.setColumnStretch(1, 1)
        self.bind_text(self.setTitle, lambda: self.tr("The loaded model's real rows, scaling × factor"))
        layout = QVBoxLayout(self)
        layout.addWidget(self.no_model)
        layout.addLayout(selectors)
        layout.addWidget(self.model_error)
        layout.addWidget(self.rows_view, 1)
        layout.addWidget(self.rows_note)
        self.kind.currentIndexChanged.connect(self._on_kind_changed)
        for spin in (self.layer, self.head):
            spin.valueChanged.connect(self.refresh)
        self.query.currentIndexChanged.connect(self._show_rows)

    def set_model(self, model: Model | None, sentence: str) -> None:
        """Show ``model``'s rows for ``sentence`` (run at the next :meth:`refresh`)."""
        self.model, self.sentence, self.rows = model, sentence, None
        self.no_model.setVisible(model is None)
        for widget in (self.kind, self.layer, self.head, self.query, self.rows_view):
            widget.setEnabled(model is not None)
        if model is not None:
            self.head.setMaximum(model.config.n_heads - 1)
            self._fit_layers()

    def _fit_layers(self) -> None:
        if self.model is not None:
            self.layer.setMaximum(self.model.config.layer_count(self.current_kind()) - 1)

    def current_kind(self) -> Kind:
        return KINDS[self.kind.currentIndex()]

    def _on_kind_changed(self) -> None:
        self._fit_layers()
        self.refresh()

    def refresh(self) -> None:
        """Run the model at each factor (a few forward passes) and draw the chosen query's rows."""
        if self.model is None or not self.sentence:
            self._show_none()
            return
        try:
            self.rows = model_rows_under_scale(self.model, self.sentence, self.current_kind(), self.layer.value(),
                                               self.head.value())
        except TransvizError as exc:
            self._show_none()
            show_error(self.model_error, translated(exc))
            return
        show_error(self.model_error, None)
        self.rows_view.setVisible(True)
        previous = self.query.currentIndex()
        self.query.blockSignals(True)
        self.query.clear()
        self.query.addItems(self.rows.query_labels)
        self.query.setCurrentIndex(previous if 0 <= previous < self.query.count() else 0)
        self.query.blockSignals(False)
        self._show_rows()

    def _show_none(self) -> None:
        """No rows (no model, or the sentence cannot be read): the heatmap hides (an empty one cannot be drawn)."""
        self.rows = None
        self.rows_view.setVisible(False)
        self.rows_note.setText("")

    def factor_names(self) -> list[str]:
        """The heatmap's row names: each factor, and what the special ones mean."""
        rows = self.rows
        assert rows is not None
        special = {0.0: self.tr("×0: uniform"), 1.0: self.tr("×1: the model"),
                   math.sqrt(rows.d_k): self.tr("×{0:.2f} = √d_k: no scale").format(math.sqrt(rows.d_k))}
        return [special.get(f, f"×{f:g}") for f in rows.factors]

    def _show_rows(self) -> None:
        rows, query = self.rows, self.query.currentIndex()
        if rows is None or query < 0:
            return
        names = self.factor_names()
        shown = rows.rows[:, query].copy()
        if rows.kind == "decoder_self":
            shown[:, query + 1:] = np.nan  # the future: masked, hatched as in every attention plot
        self.rows_view.set_data(shown, names, rows.key_labels, levels=(0.0, 1.0))
        self.rows_view.set_title(self.tr("{0}, layer {1}, head {2}, query '{3}'").format(
            self.kind.currentText(), rows.layer, rows.head, rows.query_labels[query]))
        entropies = ", ".join(f"×{f:.3g} {h:.2f}" for f, h in zip(rows.factors, rows.entropy[:, query], strict=True))
        self.rows_note.setText(self.tr(
            "Entropy of the row in bits: {0}. Only this layer is scaled, so its scores stay the model's: "
            "a larger factor sharpens the row, 0 makes it uniform.").format(entropies))
