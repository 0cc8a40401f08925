"""Attribution beside attention: integrated gradients of each output token over the source tokens,
next to the head-mean cross-attention and a rollout, one row per output token
(:func:`transviz.core.analysis.concepts.attribution.attribute`).

Integrated gradients run the model a few dozen times over, so the view computes them on a worker
thread of its own, on a copy of the explorer's model (that one runs on the GUI thread only); a
result for a step the explorer has left is dropped. Headless rendering computes at once.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Hashable

import numpy as np
from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QVBoxLayout, QWidget

from ....core.analysis.concepts.attribution import (
    BASELINES,
    STEPS,
    Attribution,
    Baseline,
    attribute,
    check_attributable,
)
from ....core.analysis.concepts.forward import Sentence
from ....core.base.errors import TransvizError
from ....core.model.bundle import Model
from ...services.core_messages import translated
from ...services.language import set_items
from ...widgets.heatmap import AxisNames, HeatmapWidget, hidden_word
from ...widgets.labels import bound_label, plain_label
from .background import Background, Reporter, model_key
from .base import ConceptContext, ConceptView


class Stopped(Exception):
    """The step changed while integrated gradients ran: the result would be dropped anyway."""


def output_axes() -> AxisNames:
    translate = QCoreApplication.translate
    return AxisNames(translate("AttributionView", "output token"), translate("AttributionView", "source token"),
                     translate("AttributionView", "output tokens (rows)"),
                     translate("AttributionView", "source tokens (columns)"),
                     translate("AttributionView", "{row_name} '{row}', {column_name} '{column}': {value}"))


class AttributionView(ConceptView):
    """Three maps of the same rows and columns: attribution, attention, rollout."""

    name = "attribution"
    uses_head = False

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.shown: Attribution | None = None
        self.background: Background[Attribution] = Background(self._show)
        self._key: Hashable = None  # the model's weights, sentence, layer and baseline shown or wanted
        self.attribution = HeatmapWidget(value_format="{:+.3f}", diverging=True)
        self.attention = HeatmapWidget(value_format="{:.3f}")
        self.rollout = HeatmapWidget(value_format="{:.3f}")
        for heatmap in (self.attribution, self.attention, self.rollout):
            self.bind_text(heatmap.set_axes, output_axes)  # axis names follow the language
        self.baseline = QComboBox()
        self.bind_text(lambda names: set_items(self.baseline, names), lambda: [
            self.tr("zero embedding"), self.tr("padding token's embedding")])
        self.baseline.currentIndexChanged.connect(lambda _: self._again())
        self.summary = plain_label(wrap=True)
        self._context: ConceptContext | None = None
        self._hidden = False  # the last row is a quiz's open question: its token and its numbers are not shown
        self._layout()

    def _layout(self) -> None:
        maps = QHBoxLayout()
        for heatmap in (self.attribution, self.attention, self.rollout):
            maps.addWidget(heatmap, 1)
        controls = QHBoxLayout()
        controls.addWidget(bound_label(self, lambda: self.tr("Baseline")))
        controls.addWidget(self.baseline)
        controls.addWidget(self.background.bar, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(maps, 1)
        layout.addLayout(controls)
        layout.addWidget(self.summary)

    def title(self) -> str:
        return self.tr("Attribution beside attention")

    def claim(self) -> str:
        return self.tr("(No passage of the tutorials is about attribution; the nearest is their first reading of "
                       "attention.) The most common explanation of attention is Q, K, V, query, key and value: it "
                       "can be understood as taking information out of a KV store, that is, taking things from a "
                       "dictionary. This explanation is vivid, but not entirely rigorous.")

    def caption(self) -> str:
        return self.tr("One row per output token written so far. Left: integrated gradients of its log-probability "
                       "over the source token embeddings ({0} steps from the baseline chosen below; red raised the "
                       "token, blue lowered it). Middle: the mean of the heads of the chosen decoder layer's "
                       "cross-attention. Right: the explorer's rollout through the decoder (each layer's head means "
                       "with their residual paths, down to the source tokens). Attention is where the heads read; "
                       "attribution is what changed the output: where the rows differ, the weights alone "
                       "mislead.").format(STEPS)

    def plots(self) -> list[QWidget]:
        return [self.attribution, self.attention, self.rollout]

    # -- computing -------------------------------------------------------------------------------
    def set_synchronous(self, synchronous: bool) -> None:
        self.background.synchronous = synchronous

    def shutdown(self) -> None:
        self.background.shutdown()

    def draw(self, context: ConceptContext) -> None:
        self._context = context
        self._hidden = context.hidden
        model = context.model
        layer = min(context.layer, model.config.n_decoder_layers - 1)  # the chooser may span the encoder
        sentence = Sentence(context.sentence.source, context.outputs)  # rows: every token chosen so far
        baseline = BASELINES[max(self.baseline.currentIndex(), 0)]
        check_attributable(model, sentence, layer, baseline, STEPS)
        weights = model_key(model)
        self._key = (weights, sentence, layer, baseline)
        if self.background.request(self._key, self._task(self.background.model_copy(model), sentence, layer,
                                                         baseline)):
            self._show(self._key, self.background.results[self._key])

    def _again(self) -> None:
        """The baseline changed: compute for the context shown with it."""
        if self._context is not None:
            try:
                self.draw(self._context)
            except TransvizError as exc:
                self.summary.setText(translated(exc))

    def _task(self, model: Model, sentence: Sentence, layer: int,
              baseline: Baseline) -> Callable[[Reporter], Attribution | None]:
        """Integrated gradients for the worker, on ``model`` (its own copy), reporting rows done."""
        template = self.tr("Integrated gradients: output token {0} of {1}")

        def task(state: Reporter) -> Attribution | None:
            def progress(done: int, rows: int) -> None:
                if state.is_cancelled():
                    raise Stopped
                state.set_progress(100 * done / rows)
                state.set_status(template.format(done, rows))

            try:
                return attribute(model, sentence, layer, baseline, progress=progress)
            except Stopped:
                return None
        return task

    # -- showing ---------------------------------------------------------------------------------
    def _show(self, key: Hashable, shown: Attribution) -> None:
        if key != self._key:
            return  # computed for a step, layer or baseline no longer chosen
        self.shown = shown
        rows, columns = list(shown.output_tokens), shown.source_tokens
        hidden = [len(rows) - 1] if self._hidden and rows else []
        for row in hidden:
            rows[row] = "?"
        visible = np.delete(shown.attribution, hidden, axis=0)  # the scale must not hint at the hidden row
        largest = float(max(np.abs(visible).max(initial=0.0), 1e-9))
        self.attribution.set_data(shown.attribution, rows, columns, levels=(-largest, largest), hidden_rows=hidden)
        self.attribution.set_title(self.tr("Integrated gradients, from the {0}").format(
            self.baseline.itemText(BASELINES.index(shown.baseline))))
        self.attribution.set_colorbar_title(self.tr("change of log p"))
        self.attention.set_data(shown.attention, rows, columns, levels=(0.0, 1.0), hidden_rows=hidden)
        self.attention.set_title(self.tr("Cross-attention, decoder layer {0}, mean of heads").format(shown.layer))
        self.rollout.set_data(shown.rollout, rows, columns, levels=(0.0, 1.0), hidden_rows=hidden)
        self.rollout.set_title(self.tr("Rollout through the decoder"))
        self.summary.setText(self.tr(
            "Rank correlation (Spearman) of |attribution| with attention, per output token: {0}; mean {1}. "
            "With rollout: mean {2}.").format(
            ", ".join(f"{token} {_number(value)}" if row not in hidden else f"? ({hidden_word()})"
                      for row, (token, value) in enumerate(zip(rows, shown.correlation, strict=True))),
            _number(_mean_of_shown(shown.correlation, hidden)),
            _number(_mean_of_shown(shown.rollout_correlation, hidden)))
            + "\n" + self.tr("Completeness: each row's attributions sum to its change of log-probability from the "
                              "baseline to within {0:.3f} ({1:.1%} of the largest change).").format(
                float(np.abs(shown.gap).max()), shown.relative_gap))


def _mean_of_shown(values: np.ndarray, hidden: list[int]) -> float:
    """The mean of the defined values of the rows shown: one of all rows would give a hidden row's away."""
    shown = np.delete(values, hidden)
    defined = shown[~np.isnan(shown)]
    return float(defined.mean()) if len(defined) else math.nan


def _number(value: float) -> str:
    """A correlation, or a dash where it is undefined (a constant row: one source token)."""
    return "-" if math.isnan(value) else f"{value:+.2f}"
