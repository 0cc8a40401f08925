"""The logit lens at the current step: what each decoder layer would write if it were the last (the
model's final candidates, as each layer's stream ranks them), and each cross-attention head's direct
share of the written token's logit (:func:`transviz.core.analysis.lens.logit_lens`)."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QHBoxLayout, QVBoxLayout, QWidget

from ....core.analysis.lens import LogitLens, logit_lens
from ...widgets.heatmap import AxisNames, HeatmapWidget, symmetric_levels
from ...widgets.labels import plain_label
from .base import ConceptContext, ConceptView, hidden_message

CANDIDATES = 6  # the model's final candidates followed through the layers


def lens_axes() -> AxisNames:
    translate = QCoreApplication.translate
    return AxisNames(translate("LensView", "layer"), translate("LensView", "token"),
                     translate("LensView", "decoder layers (rows), each read as if it were the last"),
                     translate("LensView", "the model's most probable next tokens (columns)"),
                     translate("LensView", "{row_name} {row}, {column_name} '{column}': p = {value}"))


def head_axes() -> AxisNames:
    translate = QCoreApplication.translate
    return AxisNames(translate("LensView", "layer"), translate("LensView", "head"),
                     translate("LensView", "decoder layers (rows)"),
                     translate("LensView", "cross-attention heads (columns)"),
                     translate("LensView", "{row_name} {row}, {column_name} {column}: {value} of the logit"))


class LensView(ConceptView):
    """Each layer's guess and each cross-attention head's direct logit."""

    name = "lens"
    from_tutorial = False
    uses_layer = False
    uses_head = False

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.shown: LogitLens | None = None
        self.guesses = HeatmapWidget(value_format="{:.3f}")
        self.bind_text(self.guesses.set_axes, lens_axes)
        self.bind_text(self.guesses.set_colorbar_title, lambda: self.tr("p over the row's largest"))
        self.heads = HeatmapWidget(value_format="{:+.2f}", diverging=True)
        self.bind_text(self.heads.set_axes, head_axes)
        self.summary = plain_label(wrap=True)
        side = QVBoxLayout()
        side.addWidget(self.heads, 1)
        side.addWidget(self.summary)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.guesses, 3)
        layout.addLayout(side, 2)

    def title(self) -> str:
        return self.tr("The logit lens: what each layer would write")

    def claim(self) -> str:
        return self.tr("The decoder's residual stream carries the next token's prediction before the last layer: "
                       "sent through the final norm and the output layer, each layer's stream already ranks the "
                       "candidates, and the last layer's ranking is the model's own. The written token's logit is a "
                       "sum of direct terms, one of them each cross-attention head's output on its way along the "
                       "residual path.")

    def caption(self) -> str:
        shown = self.shown
        if shown is None:
            return self.tr("Each decoder layer's guess at the next token, and each cross-attention head's direct share "
                           "of the written token's logit.")
        first = shown.first_layer
        settled = self.tr("from layer {0} on, every layer ranks '{1}' first").format(first, shown.written) \
            if first is not None else self.tr("no layer but the last ranks '{0}' first").format(shown.written)
        return self.tr("The model wrote '{0}' (p = {1:.3f}): {2}. Left: the probability each layer's stream gives "
                       "the model's final candidates.").format(shown.written, shown.layers[-1].written, settled)

    def plots(self) -> list[QWidget]:
        return [self.guesses, self.heads]

    def draw(self, context: ConceptContext) -> None:
        if context.hidden or not context.outputs:  # the lens names the written token: a quiz's answer
            self.shown = None
            for plot in (self.guesses, self.heads):
                plot.set_data(np.zeros((0, 0)), [], [])
            self.summary.setText(hidden_message() if context.hidden else self.tr(
                "Step in the explorer first: the lens reads the decoder at the step that wrote a token."))
            return
        shown = logit_lens(context.model, context.sentence, context.outputs[-1], k=CANDIDATES,
                           interventions=context.interventions)
        self.shown = shown
        vocab = context.model.tgt_vocab
        columns = list(dict.fromkeys([*shown.layers[-1].tokens, shown.written]))
        ids = [vocab.id_of(token) for token in columns]
        data = np.array([guess.distribution[ids] for guess in shown.layers])
        rows = [self.tr("layer {0}: '{1}'").format(i, guess.tokens[0]) for i, guess in enumerate(shown.layers)]
        # each row coloured by its own largest value: a faint early layer's ranking shows too
        self.guesses.set_data(data, rows, columns, levels=(0.0, 1.0),
                              colours=data / np.maximum(data.max(axis=1, keepdims=True), 1e-12))
        self.guesses.set_title(self.tr("What each layer would write after '{0}' (its own top token in the row's "
                                       "name; each row coloured to its largest value)").format(
            context.sentence.target[-1] if context.sentence.target else context.model.start_token()))
        self._draw_heads(shown, context)

    def _draw_heads(self, shown: LogitLens, context: ConceptContext) -> None:
        direct = shown.direct
        if direct is None:
            self.heads.set_data(np.zeros((0, 0)), [], [])
            self.summary.setText(self.tr("Not for this variant: a decoder-only model's cross-attention is the output "
                                         "rows' share of its one self-attention, whose heads read the source and the "
                                         "output at once; there is no cross-attention head to split off."))
            return
        layers, heads = direct.heads.shape
        self.heads.set_data(direct.heads, [str(i) for i in range(layers)], [str(h) for h in range(heads)],
                            levels=symmetric_levels(direct.heads))
        self.heads.set_title(self.tr("Each cross-attention head's direct share of the logit of '{0}'").format(
            shown.written))
        best = np.unravel_index(int(np.argmax(direct.heads)), direct.heads.shape)
        self.summary.setText(self.tr(
            "The logit of '{0}' is {1:.2f}: the cross-attention heads add {2:+.2f} directly, the largest layer {3} "
            "head {4} ({5:+.2f}); the rest is the embedding, self-attention, the feed-forward networks and the "
            "biases ({6:+.2f}). Terms and logit agree within {7:.0e}.").format(
                shown.written, direct.logit, float(direct.heads.sum()), int(best[0]), int(best[1]),
                float(direct.heads[best]), direct.total - float(direct.heads.sum()),
                max(abs(direct.total - direct.logit), 1e-7)))
