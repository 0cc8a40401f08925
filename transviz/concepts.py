"""The numbers behind the Concepts tab, for notebooks and scripts (no Qt)::

    import transviz
    from transviz import concepts
    counts = concepts.flops(transviz.load_model("default").config, source_len=20, target_len=20)
    counts["ffn"] / sum(counts.values())  # the FFN's share of one forward pass
"""
from __future__ import annotations

from .core.concepts.cost import COMPONENTS, flops

__all__ = ["COMPONENTS", "flops"]
