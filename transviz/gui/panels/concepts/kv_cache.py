"""The KV cache at the current step: the chosen layer's cached keys of the chosen head's key/value
head (the source's rows, computed once, then one row per decoder input), the bytes of the whole
cache, the check against recomputing everything, and the bytes per token of the shipped multi-head,
grouped-query and multi-query siblings (:func:`transviz.core.analysis.concepts.kv_cache.cache_contents`)."""
from __future__ import annotations

import functools

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QHBoxLayout, QVBoxLayout, QWidget

from ....core.analysis.concepts.forward import Sentence
from ....core.analysis.concepts.kv_cache import CacheContents, cache_contents
from ....core.io import checkpoint
from ....core.io.resources import shipped_models
from ...style import BLUE, GREY, ORANGE
from ...widgets.heatmap import AxisNames, HeatmapWidget, symmetric_levels
from ...widgets.labels import plain_label
from ...widgets.plots import curve_plot
from .base import ConceptContext, ConceptView

SIBLINGS = ("default", "gqa", "mqa")  # multi-head, grouped-query and multi-query, otherwise alike
SIBLING_SENTENCE = Sentence("ich mochte ein bier", ("i", "want"))  # what the siblings' caches are measured on


@functools.cache
def sibling_bytes_per_token(name: str) -> float | None:
    """What each decoder input adds to a shipped sibling's cache, counted from its tensors once: it
    does not depend on the sentence (None where the sibling is not shipped)."""
    path = shipped_models().get(name)
    return None if path is None else cache_contents(checkpoint.load(path), SIBLING_SENTENCE).bytes_per_token


def cache_axes() -> AxisNames:
    translate = QCoreApplication.translate
    return AxisNames(translate("KVCacheView", "cached row"), translate("KVCacheView", "dimension"),
                     translate("KVCacheView", "rows: the source's (computed once), then one per decoder input"),
                     translate("KVCacheView", "dimensions of d_k (columns)"),
                     translate("KVCacheView", "{row_name} '{row}', {column_name} {column}: {value}"))


class KVCacheView(ConceptView):
    """What the cache holds now, and what it costs per token."""

    name = "kv-cache"
    from_tutorial = False

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.shown: CacheContents | None = None
        self.siblings: dict[str, float] = {}
        self.keys = HeatmapWidget(value_format="{:.3f}", diverging=True)
        self.bind_text(self.keys.set_axes, cache_axes)
        self.bytes = curve_plot()
        self.summary = plain_label(wrap=True)
        side = QVBoxLayout()
        side.addWidget(self.bytes, 1)
        side.addWidget(self.summary)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.keys, 3)
        layout.addLayout(side, 2)

    def title(self) -> str:
        return self.tr("The KV cache")

    def claim(self) -> str:
        return self.tr("Decoding one token at a time, a Transformer keeps every layer's keys and values: those of the "
                       "source are computed once per sentence, and each decoder input adds one row of its own, so a "
                       "step computes only its new position. Grouped-query and multi-query attention share keys "
                       "and values between query heads, and the cache shrinks by the same factor.")

    def caption(self) -> str:
        shown = self.shown
        if shown is None:
            return self.tr("The cached keys of the chosen layer and head, and the cache's bytes.")
        return self.tr("After {0} decoder inputs the cache holds {1:,} bytes of the decoder's own keys and values "
                       "({2:,.0f} per input) and {3:,} bytes from the source, computed once. The cached step's "
                       "logits equal a full recomputation's within {4:.1e}.").format(
            len(shown.target_tokens), shown.own_bytes, shown.bytes_per_token, shown.source_bytes, shown.difference)

    def plots(self) -> list[QWidget]:
        return [self.keys, self.bytes]

    def draw(self, context: ConceptContext) -> None:
        shown = cache_contents(context.model, context.sentence)
        self.shown = shown
        layer = min(context.layer, len(shown.layers) - 1)  # the chooser may span the encoder
        group = shown.n_heads // shown.kv_heads
        kv_head = context.head // group
        cached = shown.layers[layer]
        data = np.vstack([cached.source_keys[kv_head], cached.own_keys[kv_head]])
        rows = [self.tr("source: {0}").format(t) for t in shown.source_tokens] + list(shown.target_tokens)
        self.keys.set_data(data, rows, [str(i) for i in range(data.shape[1])], levels=symmetric_levels(data))
        sharing = self.tr("shared by query heads {0}-{1}").format(kv_head * group, kv_head * group + group - 1) \
            if group > 1 else self.tr("query head {0}'s own").format(context.head)
        self.keys.set_title(self.tr("Decoder layer {0}, key/value head {1} ({2}): its cached keys").format(
            layer, kv_head, sharing))
        self._draw_bytes(shown)

    def _draw_bytes(self, shown: CacheContents) -> None:
        """Bytes per decoder input: this model's and the shipped siblings', from their own caches."""
        names, values = [self.tr("this model")], [shown.bytes_per_token]
        for name in SIBLINGS:
            measured = sibling_bytes_per_token(name)
            if measured is not None:
                names.append(name)
                values.append(measured)
        self.siblings = dict(zip(names[1:], values[1:], strict=True))
        plot = self.bytes
        plot.clear()
        x = np.arange(len(values))
        brushes = [ORANGE] + [BLUE if value == min(values[1:] or values) else GREY for value in values[1:]]
        plot.addItem(pg.BarGraphItem(x=x, height=values, width=0.6, brushes=brushes, pen=None))
        plot.getAxis("bottom").setTicks([list(enumerate(names))])
        plot.getAxis("left").setTicks([[(0.0, "0"), *((value, f"{value:,.0f}") for value in sorted(set(values)))]])
        plot.setLabel("left", self.tr("bytes per decoder input"))
        plot.setTitle(self.tr("Bytes each decoder input adds to the cache"))
        self.summary.setText(self.tr(
            "Measured from the caches' own tensors: multi-head (default) {0}, grouped-query "
            "(gqa, 2 key/value heads) {1}, multi-query (mqa, 1) {2} bytes per token.").format(
                *(f"{self.siblings.get(name, float('nan')):,.0f}" for name in SIBLINGS)))
