"""Figures of interventions: switching a head off and decoding again (the explorer does it on every
click), and measuring every cross-attention head's importance over the test split."""
from __future__ import annotations

import statistics

from ..core.analysis.head_importance import head_importance
from ..core.decoding.interventions import AblateHead, Intervention
from ..core.decoding.session import DecodingSession
from . import LOADED_SLOWDOWN, figure, seconds, size
from .session import _default_model


@figure("intervene_redecode_ms_default", "ms", 100.0, "lower", loaded_limit=LOADED_SLOWDOWN)
def redecode() -> float:
    """Switch one cross-attention head off or on again and decode the sentence again to the current
    step (its translation, to the end), shipped default model; median of 20 toggles."""
    model = _default_model()
    session = DecodingSession(model, model.facts.get("probe", "ich mochte ein bier"), max_len=20)
    session.run_to_end()
    off: list[Intervention] = [AblateHead("cross", 1, 2)]

    def toggle(i: int) -> float:
        return seconds(lambda: session.set_interventions(off if i % 2 == 0 else []))

    return 1000 * statistics.median(toggle(i) for i in range(size(20, 2)))


@figure("head_importance_s_default", "s", 60.0, "lower", loaded_limit=LOADED_SLOWDOWN)
def importance() -> float:
    """The exact-match importance of all 12 cross-attention heads of the shipped default model over
    its task's test split (13 greedy decodings of 500 sentences, batched); median of 3."""
    model = _default_model()
    return statistics.median(seconds(lambda: head_importance(model, "cross")) for _ in range(size(3)))
