"""The attribution view in the real window with the shipped model: it computes on its own worker
thread, shows the core's numbers for the tokens the explorer has chosen, drops a result for a
step the explorer has left, says why there is nothing before a step, and stops its thread when
the window shuts down."""
from __future__ import annotations

import numpy as np

from transviz.core.analysis.concepts.attribution import attribute
from transviz.core.analysis.concepts.forward import Sentence

SOURCE = "ich mochte ein bier"


def attribution_tab(window):
    panel = window.panels["concepts"]
    window.tabs.setCurrentWidget(panel)
    panel.select("attribution")
    return panel, panel.current


def test_the_view_shows_the_cores_numbers_for_the_chosen_tokens(qtbot, shipped_window, shipped_model):
    panel, view = attribution_tab(shipped_window)
    assert "take a decoding step first" in panel.error.text() and not panel.pages.isVisibleTo(panel)
    controller = shipped_window.panels["explorer"].controller
    for _ in range(3):
        controller.step()  # each step starts a task; the ones before are dropped
    chosen = tuple(shipped_window.workspace.session.output_tokens)
    assert len(chosen) == 3
    qtbot.waitUntil(lambda: view.shown is not None and tuple(view.shown.output_tokens) == chosen, timeout=20000)
    expected = attribute(shipped_model, Sentence(SOURCE, chosen), layer=0)
    np.testing.assert_allclose(view.attribution.data, expected.attribution, atol=1e-4)
    np.testing.assert_allclose(view.attention.data, expected.attention, atol=1e-6)
    np.testing.assert_allclose(view.rollout.data, expected.rollout, atol=1e-6)
    assert view.attribution.row_labels() == list(chosen)
    assert view.attribution.levels[0] == -view.attribution.levels[1]  # centred at 0
    assert f"mean {expected.mean_correlation:+.2f}" in view.summary.text()
    assert not view.background.bar.isVisibleTo(view)

    view.baseline.setCurrentIndex(1)  # the padding token's embedding
    qtbot.waitUntil(lambda: view.shown.baseline == "pad", timeout=20000)
    padded = attribute(shipped_model, Sentence(SOURCE, chosen), layer=0, baseline="pad")
    np.testing.assert_allclose(view.attribution.data, padded.attribution, atol=1e-4)


def test_the_worker_stops_with_the_window(qtbot, shipped_window):
    _, view = attribution_tab(shipped_window)
    shipped_window.panels["explorer"].controller.step()
    runner = view.background.runner
    assert runner is not None and runner.worker_thread.isRunning()
    shipped_window.shutdown()
    assert runner.worker_thread.isFinished()
