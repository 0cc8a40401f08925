"""The Concepts tab opened on one view and one head, as a test needs it before it looks."""
from __future__ import annotations

from transviz.core.analysis.walkthrough import KINDS


def concept_head(window, view: str, kind: str, layer: int, head: int):
    """``window``'s Concepts tab, shown, on ``view`` for ``head`` of the ``kind`` attention in ``layer``."""
    panel = window.panels["concepts"]
    window.tabs.setCurrentWidget(panel)
    panel.select(view)
    panel.kind.setCurrentIndex(KINDS.index(kind))
    panel.layer.setValue(layer)
    panel.head.setValue(head)
    return panel
