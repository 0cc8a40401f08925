"""The numbers behind the Concepts tab, for notebooks and scripts (no Qt)::

    import transviz
    from transviz import concepts
    model = transviz.load_model("default")
    counts = concepts.flops(model.config, source_len=20, target_len=20)
    counts["ffn"] / sum(counts.values())  # the FFN's share of one forward pass
    concepts.measured_seconds(model, "ich mochte ein bier")  # where its time goes, measured
"""
from __future__ import annotations

from collections.abc import Sequence

from .core.analysis.concepts.component_time import PARTS, component_times
from .core.analysis.concepts.cost import COMPONENTS, flops
from .core.analysis.concepts.forward import Sentence, model_inputs
from .core.model.bundle import Model

__all__ = ["COMPONENTS", "PARTS", "flops", "measured_seconds"]


def measured_seconds(model: Model, source: str, target: Sequence[str] = ()) -> dict[str, float]:
    """Median wall-clock seconds per part (:data:`PARTS`: the components and "other") of one
    teacher-forced pass of ``source`` with decoder inputs ``target`` (after the start token)."""
    times = component_times(model, model_inputs(model, Sentence(source, tuple(target))))
    assert times is not None, "nothing cancels it"
    return times.seconds
