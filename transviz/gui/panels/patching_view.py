"""The Compare tab's second page: activation patching between its two sentences. B runs with one
activation taken from A (an encoder position, a cross-attention head or the decoder's stream, in
each layer), and the map shows how far that one value moves B's output towards A's at the chosen
step: 0 is B's own run, 1 is A's (:func:`transviz.core.analysis.patching.activation_patching`)."""
from __future__ import annotations

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QSpinBox, QVBoxLayout, QWidget

from ...core.analysis.patching import PATCH_KINDS, Patching, PatchKind, activation_patching
from ...core.base.errors import TransvizError
from ...core.model.bundle import Model
from ..services.core_messages import translated
from ..services.language import Retranslated, set_items
from ..widgets.heatmap import AxisNames, HeatmapWidget, symmetric_levels
from ..widgets.labels import bound_label, error_label, plain_label, show_error


def patch_names() -> dict[PatchKind, str]:
    translate = QCoreApplication.translate  # literal arguments, so that lupdate finds them
    return {"encoder": translate("PatchingView", "the encoder's stream at a source position"),
            "cross_head": translate("PatchingView", "one cross-attention head at the step"),
            "decoder": translate("PatchingView", "the decoder's stream at the step")}


def patch_axes(kind: PatchKind) -> AxisNames:
    translate = QCoreApplication.translate
    columns = {"encoder": translate("PatchingView", "source positions (columns, A's word/B's where they differ)"),
               "cross_head": translate("PatchingView", "cross-attention heads (columns)"),
               "decoder": translate("PatchingView", "the step's decoder input (one column)")}[kind]
    return AxisNames(translate("PatchingView", "layer"), translate("PatchingView", "patched"),
                     translate("PatchingView", "layers (rows) of the patched stack"), columns,
                     translate("PatchingView", "{row_name} {row}, {column_name} '{column}': {value}"))


class PatchingView(Retranslated, QWidget):
    """The patching map of one model's runs on sentences A and B; :attr:`shown` is what it draws
    (None before :meth:`show_pair`, or after an error, which its error line names)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.shown: Patching | None = None
        self._pair: tuple[Model, str, str] | None = None
        self.kind = QComboBox()
        for kind in PATCH_KINDS:
            self.kind.addItem("", kind)
        self.bind_text(lambda names: set_items(self.kind, list(names.values())), patch_names)
        self.step = QSpinBox()
        self.step.setRange(0, 0)
        self.kind.currentIndexChanged.connect(self._draw)
        self.step.valueChanged.connect(self._draw)
        self.error = error_label()
        self.map = HeatmapWidget(value_format="{:+.2f}", diverging=True)
        self.summary = plain_label(wrap=True)
        choices = QHBoxLayout()
        choices.addWidget(bound_label(self, lambda: self.tr("Patch:")))
        choices.addWidget(self.kind)
        choices.addWidget(bound_label(self, lambda: self.tr("Output step:")))
        choices.addWidget(self.step)
        choices.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(choices)
        layout.addWidget(self.error)
        layout.addWidget(self.map, 1)
        layout.addWidget(self.summary)
        layout.addStretch(0)  # takes the map's room while it is hidden: the lines above stay at the top
        self._show(None)

    def current_kind(self) -> PatchKind:
        return PATCH_KINDS[max(self.kind.currentIndex(), 0)]

    def show_pair(self, model: Model, a: str, b: str, outputs: tuple[list[str], list[str]]) -> None:
        """Patch from ``a`` into ``b`` through ``model``, at the first step where their greedy
        ``outputs`` differ (the step chooser spans A's output)."""
        self._pair = (model, a, b)
        first = next((i for i, (x, y) in enumerate(zip(*outputs, strict=False)) if x != y),
                     min(len(outputs[0]), len(outputs[1])))
        self.step.blockSignals(True)
        self.step.setMaximum(max(len(outputs[0]) - 1, 0))
        self.step.setValue(min(first, self.step.maximum()))
        self.step.blockSignals(False)
        self._draw()

    def refuse(self, reason: str) -> None:
        """Say why there is nothing to patch (for example two models), and draw nothing."""
        self._pair, self.shown = None, None
        show_error(self.error, reason)
        self._show(None)

    def retranslate(self) -> None:
        super().retranslate()
        self._show(self.shown)

    def _draw(self) -> None:
        if self._pair is None:
            return
        model, a, b = self._pair
        try:
            self.shown = activation_patching(model, a, b, self.step.value(), self.current_kind())
        except TransvizError as error:
            self.shown = None
            show_error(self.error, translated(error))
        else:
            show_error(self.error, None)
        self._show(self.shown)

    def _show(self, shown: Patching | None) -> None:
        self.map.setVisible(shown is not None)
        if shown is None:  # before the first comparison, a line on what comes here instead of empty axes
            self.summary.setText("" if self._pair is not None or self.error.isVisibleTo(self) else self.tr(
                "Compare (Enter) runs sentences A and B through one model; this map then shows how far A's "
                "activations, patched into B's run one at a time, move B's output toward A's."))
            return
        self.map.set_axes(patch_axes(shown.kind))
        low, high = symmetric_levels(shown.scores)
        self.map.set_data(shown.scores, list(shown.rows), list(shown.columns), levels=(min(low, -1.0), max(high, 1.0)))
        self.map.set_title(self.tr("Step {0}: how far each patch moves B from '{1}' to A's '{2}' (0: B's own run, "
                                   "1: A's)").format(shown.step, shown.token_b, shown.token_a))
        best = divmod(int(shown.scores.argmax()), shown.scores.shape[1])
        self.summary.setText(self.tr(
            "Both runs read A's output so far ({0}). A's run prefers '{1}' over '{2}' by {3:.2f} in log-probability, "
            "B's by {4:.2f}. The largest move, {5:.2f}, comes from layer {6}, '{7}'.").format(
                " ".join(shown.prefix), shown.token_a, shown.token_b, shown.m_a, shown.m_b,
                float(shown.scores[best]), best[0], shown.columns[best[1]]))
