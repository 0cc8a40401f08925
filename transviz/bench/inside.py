"""Figures of what happens inside one decoding step: activation patching between two sentences,
the logit lens with the cross-attention heads' direct terms, and the heads scored as aligners."""
from __future__ import annotations

import functools

from ..core.base.cores import computing
from . import figure, median_seconds
from .session import _default_model

PAIR = ("ich möchte ein bier trinken", "ich möchte ein wasser trinken")  # 5 words; the outputs differ at one step


@figure("patching_grid_s_default", "s", 2.0, "lower")
def patching_grid() -> float:
    """The patching map of the minimal pair "ich möchte ein bier trinken" / "... wasser ..." on the
    shipped default model at the step where their outputs differ, as the Compare tab draws it: the
    slowest of its three kinds (encoder positions, cross-attention heads, decoder layers); the
    median of 3 runs each."""
    from ..core.analysis.patching import PATCH_KINDS, activation_patching
    from ..core.decoding.inference import decode

    model = _default_model()
    a, b = (decode(model, sentence).output_tokens for sentence in PAIR)
    step = next(i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y)
    with computing():
        return max(median_seconds(functools.partial(activation_patching, model, *PAIR, step, kind), repeat=3)
                   for kind in PATCH_KINDS)


@figure("lens_step_ms_default", "ms", 20.0, "lower")
def lens_step() -> float:
    """The logit lens of every decoder layer and the cross-attention heads' direct terms at one step
    (the fourth of "ich möchte ein bier trinken") on the shipped default model, as the Concepts
    tab's lens view computes them on the window's thread; the median of 15 runs."""
    from ..core.analysis.concepts.forward import Sentence
    from ..core.analysis.lens import logit_lens
    from ..core.decoding.inference import decode

    model = _default_model()
    output = decode(model, PAIR[0]).output_tokens
    sentence = Sentence(PAIR[0], tuple(output[:3]))
    with computing():
        return 1000 * median_seconds(lambda: logit_lens(model, sentence, output[3]), repeat=15)


@figure("alignment_scores_s_default", "s", 10.0, "lower")
def alignment_scores() -> float:
    """Every cross-attention head and layer mean of the shipped default model scored against the
    gold alignments of its task's test split, from nothing (the pairs read and tokenized too), as
    the Concepts tab's alignment view's worker does; the median of 3 runs."""
    from ..core.analysis.alignment_heads import alignment_heads, gold_pairs

    model = _default_model()
    with computing(spare=1):  # as the view's worker does
        return median_seconds(lambda: alignment_heads(model, gold_pairs(model)), repeat=3)
