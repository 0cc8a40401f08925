"""Figures of the Concepts tab: how long each view takes to follow the explorer's step."""
from __future__ import annotations

import statistics

from ..core.base.cores import computing
from . import LOADED_SLOWDOWN, figure, median_seconds, seconds, size
from .session import _default_model

STEPS = 8  # decoding steps per view; the figure is the slowest view's median over them
ON_A_WORKER = ("attribution",)  # views that compute on a thread of their own: not a redraw


@figure("concept_redraw_ms_default", "ms", 50.0, "lower", loaded_limit=LOADED_SLOWDOWN)
def concept_redraw() -> float:
    """After one decoding step, the Concepts view shown updates and the window paints: the median
    over the steps of each view, then the slowest view (shipped default model, 1400 x 900). Each
    view draws once before it is timed: what it computes once per model or sentence is not counted.
    The attribution view computes on a worker (attribution_step_s_default) and is left out."""
    from ..core.teaching.workspace import Workspace
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
            if view.name in ON_A_WORKER:
                continue
            panel.select(view.name)
            app.processEvents()
            session = workspace.session
            assert session is not None
            session.reset()
            times = [seconds(step_and_redraw) for _ in range(size(STEPS, 2)) if session.cant_step() is None]
            medians.append(statistics.median(times))
        return 1000 * max(medians)
    finally:
        panel.shutdown()  # the views' worker threads
        dispose(panel)


@figure("attribution_step_s_default", "s", 1.0, "lower")
def attribution_step() -> float:
    """Integrated gradients (64 steps, one batch) of every output token of one decoding step, with
    the attention beside them, as the attribution view's worker computes them: the shipped default
    model, "ich mochte ein bier trinken" after its last step, torch leaving a core to the window;
    the median of 5 runs."""
    from ..core.analysis.concepts.attribution import STEPS as IG_STEPS
    from ..core.analysis.concepts.attribution import attribute
    from ..core.analysis.concepts.forward import Sentence
    from ..core.decoding.inference import decode
    model = _default_model()
    source = "ich mochte ein bier trinken"
    sentence = Sentence(source, tuple(decode(model, source).output_tokens))
    with computing(spare=1):  # as the view's worker does
        return median_seconds(lambda: attribute(model, sentence, steps=IG_STEPS), repeat=5)
