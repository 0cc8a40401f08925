"""Heads that align: every cross-attention head of the loaded model scored, over its task's test
split, by how often its strongest source word at a target step is a gold-aligned one (and the
alignment error rate of those choices), and the best head's alignment of one test sentence beside
the gold one (:func:`transviz.core.analysis.alignment_heads.alignment_heads`). Scoring takes about
a second on the default model: it runs on the view's worker thread (:mod:`.background`)."""
from __future__ import annotations

from collections.abc import Callable, Hashable

import numpy as np
from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QHBoxLayout, QVBoxLayout, QWidget

from ....core.analysis.alignment_heads import (
    HeadAlignment,
    Stopped,
    alignment_heads,
    gold_pairs,
    keep_test_split_alignment,
)
from ....core.model.bundle import Model
from ...widgets.heatmap import AxisNames, HeatmapWidget
from ...widgets.labels import plain_label
from .background import Background, Reporter, counting, model_key
from .base import ConceptContext, ConceptView

HIT, MISSED, WRONG = 1.0, 0.45, -1.0  # a cell of the example: the head's choice and gold, gold only, the head's only


def score_axes() -> AxisNames:
    translate = QCoreApplication.translate
    return AxisNames(translate("AlignmentView", "layer"), translate("AlignmentView", "head"),
                     translate("AlignmentView", "decoder layers (rows)"),
                     translate("AlignmentView", "cross-attention heads, then the layer's mean (columns)"),
                     translate("AlignmentView", "{row_name} {row}, {column_name} {column}: {value} of the steps"))


def example_axes() -> AxisNames:
    translate = QCoreApplication.translate
    return AxisNames(translate("AlignmentView", "target"), translate("AlignmentView", "source"),
                     translate("AlignmentView", "target words (rows)"),
                     translate("AlignmentView", "source words (columns)"),
                     translate("AlignmentView", "'{row}' and '{column}': {value}"))


def example_cell(value: float) -> str:
    translate = QCoreApplication.translate
    if value == HIT:
        return translate("AlignmentView", "the head's choice, a gold link")
    if value == MISSED:
        return translate("AlignmentView", "a gold link the head did not choose")
    if value == WRONG:
        return translate("AlignmentView", "the head's choice, not a gold link")
    return translate("AlignmentView", "neither")


class AlignmentView(ConceptView):
    """Which cross-attention heads align words, scored against the task's gold alignments."""

    name = "alignment"
    from_tutorial = False
    uses_layer = False
    uses_head = False

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.shown: HeadAlignment | None = None
        self.background: Background[HeadAlignment] = Background(self._show)
        self._model: Model | None = None  # the explorer's: it keeps the scores a worker found for a copy
        self._key: Hashable = None  # the model and weights the view shows, or waits for
        self.scores = HeatmapWidget(value_format="{:.1%}")
        self.bind_text(self.scores.set_axes, score_axes)
        self.example = HeatmapWidget(value_format=example_cell, diverging=True, colorbar=False)
        self.bind_text(self.example.set_axes, example_axes)
        self.summary = plain_label(wrap=True)
        side = QVBoxLayout()
        side.addWidget(self.example, 1)
        side.addWidget(self.summary)
        self.pictures = QWidget()
        row = QHBoxLayout(self.pictures)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.scores, 1)
        row.addLayout(side, 1)
        self.waiting = plain_label(wrap=True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.background.bar)
        layout.addWidget(self.waiting)
        layout.addWidget(self.pictures, 1)

    def title(self) -> str:
        return self.tr("Heads that align words")

    def claim(self) -> str:
        return self.tr("Cross-attention is often read as a word alignment: at each target step, the strongest "
                       "source word should be the one being translated. The toy tasks know which source word each "
                       "target word comes from, so every head can be scored: how often its strongest source word is "
                       "a gold-aligned one, and the alignment error rate (AER) of those choices.")

    def caption(self) -> str:
        shown = self.shown
        if shown is None:
            return self.tr("Each cross-attention head's share of target steps whose strongest source word is a gold "
                           "link, over the test split, and the best head's alignment of one sentence.")
        layer, head = shown.best
        return self.tr("Over {0} test sentences ({1} aligned target words) the best head is layer {2} head {3}: "
                       "{4:.1%} of its choices are gold links, AER {5:.3f} (a perfect head's: {6:.3f}). The last "
                       "column is each layer's mean of heads.").format(
            shown.sentences, shown.steps, layer, head, float(shown.accuracy[layer, head]),
            float(shown.aer[layer, head]), shown.aer_floor)

    def plots(self) -> list[QWidget]:
        return [self.scores, self.example]

    def set_synchronous(self, synchronous: bool) -> None:
        self.background.synchronous = synchronous

    def shutdown(self) -> None:
        self.background.shutdown()

    def draw(self, context: ConceptContext) -> None:
        model = context.model
        self._model, self._key = model, (model_key(model),)
        if self.background.request(self._key, self._task(self.background.model_copy(model))):
            self._show(self._key, self.background.results[self._key])
            return
        self.shown = None  # what the maps showed is another model's
        self.pictures.setVisible(False)
        self.waiting.setVisible(True)
        self.waiting.setText(self.tr("Scoring every cross-attention head on the task's test sentences, off the "
                                     "window's thread: the scores appear when done."))

    def _task(self, model: Model) -> Callable[[Reporter], HeadAlignment | None]:
        """The scoring for the worker, on ``model`` (its own copy), reporting sentences done."""
        template = self.tr("Test sentence {0} of {1}")

        def task(state: Reporter) -> HeadAlignment | None:
            progress = counting(state, template)
            try:
                return alignment_heads(model, gold_pairs(model), on_progress=progress, cancelled=state.is_cancelled)
            except Stopped:
                return None
        return task

    def _show(self, key: Hashable, shown: HeadAlignment) -> None:
        if key != self._key:
            return  # scored for a model or weights no longer shown
        if self._model is not None:
            keep_test_split_alignment(self._model, shown)  # a quiz on these weights asks without scoring again
        self.shown = shown
        self.waiting.setVisible(False)
        self.pictures.setVisible(True)
        layers, heads = shown.accuracy.shape
        data = np.column_stack([shown.accuracy, shown.layer_accuracy])
        self.scores.set_data(data, [str(i) for i in range(layers)],
                             [str(h) for h in range(heads)] + [self.tr("mean")], levels=(0.0, 1.0))
        self.scores.set_title(self.tr("Share of target steps whose strongest source word is a gold link"))
        self._draw_example(shown)
        self.caption_changed.emit()

    def _draw_example(self, shown: HeadAlignment) -> None:
        example = shown.example
        if example is None:
            self.example.set_data(np.zeros((0, 0)), [], [])
            return
        cells = np.zeros((len(example.target_tokens), len(example.source_tokens)))
        for source, target in example.possible:
            cells[target, source] = MISSED
        for source, target in example.predicted:
            cells[target, source] = HIT if cells[target, source] == MISSED else WRONG
        self.example.set_data(cells, list(example.target_tokens), list(example.source_tokens), levels=(-1.0, 1.0))
        layer, head = example.head
        self.example.set_title(self.tr("Layer {0} head {1} on a test sentence: dark red, its choice and gold; pink, "
                                       "gold it missed; blue, its choice, not gold").format(layer, head))
        hits = sum(1 for link in example.predicted if link in set(example.possible))
        self.summary.setText(self.tr("{0} of its {1} choices in this sentence are gold links.").format(
            hits, len(example.predicted)))
