"""Figures of the Concepts tab: how long each view takes to follow the explorer's step."""
from __future__ import annotations

import statistics

from . import figure, seconds
from .session import _default_model

STEPS = 8  # decoding steps per view; the figure is the slowest view's median over them


@figure("concept_redraw_ms_default", "ms", 50.0, "lower")
def concept_redraw() -> float:
    """After one decoding step, the Concepts view shown updates and the window paints: the median
    over the steps of each view, then the slowest view (shipped default model, 1400 x 900). Each
    view draws once before it is timed: what it computes once per model or sentence is not counted."""
    from ..core.workspace import Workspace
    from ..gui.app import application, dispose, use_offscreen_platform
    from ..gui.panels.concepts.panel import ConceptsPanel

    use_offscreen_platform()
    app = application()
    workspace = Workspace()
    panel = ConceptsPanel(workspace)
    panel.resize(1400, 900)
    panel.show()
    workspace.set_model(_default_model(), sentence="ich mochte ein bier trinken")
    app.processEvents()

    def step_and_redraw() -> None:
        assert workspace.session is not None
        workspace.session.step()  # the panel redraws the view shown
        for _ in range(2):
            app.processEvents()

    medians = []
    try:
        for view in panel.views:
            panel.select(view.name)
            app.processEvents()
            session = workspace.session
            assert session is not None
            session.reset()
            times = [seconds(step_and_redraw) for _ in range(STEPS) if session.cant_step() is None]
            medians.append(statistics.median(times))
        return 1000 * max(medians)
    finally:
        panel.shutdown()  # the views' worker threads
        dispose(panel)
