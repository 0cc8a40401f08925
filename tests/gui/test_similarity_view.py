"""The heads-similarity view in the real window with the shipped model: it measures on its worker
thread with a progress bar, then shows the clustered matrix of the chosen kind with its heads named
and the most alike pair; a result for a kind no longer chosen is dropped; a click on a cell opens
the pair of heads side by side (the most alike before any click), and its button makes the explorer's
session decode with the later head copying the earlier one's pattern."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF, Qt, QThread

from transviz.core.analysis.concepts.similarity import head_similarity, measure_similarity
from transviz.core.analysis.walkthrough import KINDS
from transviz.core.decoding.inference import teacher_force
from transviz.core.decoding.interventions import AblateHead

WAIT_MS = 60_000  # a kind's first measurement: about a second, more on a busy machine


def measured(qtbot, view) -> None:
    """Wait until the view shows a finished matrix."""
    qtbot.waitUntil(lambda: view.shown is not None and not view.background.bar.isVisibleTo(view), timeout=WAIT_MS)


def open_view(window, kind: str):
    panel = window.panels["concepts"]
    window.tabs.setCurrentWidget(panel)
    panel.select("heads-similarity")
    panel.kind.setCurrentIndex(KINDS.index(kind))
    return panel, panel.current


def click_cell(qtbot, heatmap, row: int, column: int) -> None:
    """A real left click at the centre of a cell, through pyqtgraph's scene."""
    box = heatmap._plot.getViewBox()
    point = heatmap._view.mapFromScene(box.mapViewToScene(QPointF(column + 0.5, row + 0.5)))
    qtbot.mouseClick(heatmap._view.viewport(), Qt.MouseButton.LeftButton, pos=point)


def test_the_view_shows_every_head_of_the_chosen_kind_clustered(shipped_window, shipped_model, qtbot):
    panel, view = open_view(shipped_window, "decoder_self")
    measured(qtbot, view)
    names = [f"L{layer} H{head}" for layer in range(3) for head in range(4)]
    assert sorted(view.matrix.row_labels()) == sorted(names) and view.matrix.column_labels() == view.matrix.row_labels()
    assert panel.kind.isVisibleTo(panel) and not panel.layer.isVisibleTo(panel) and not panel.head.isVisibleTo(panel)
    expected = head_similarity(shipped_model, "decoder_self")
    a, b, _ = expected.most_alike()
    shown = np.array([[expected.divergence[expected.heads.index(_head(r)), expected.heads.index(_head(c))]
                       for c in view.matrix.column_labels()] for r in view.matrix.row_labels()])
    np.testing.assert_allclose(view.matrix.data, shown, atol=1e-6)
    assert f"Most alike: L{a[0]} H{a[1]} and L{b[0]} H{b[1]}" in view.summary.text()


def _head(name: str) -> tuple[int, int]:
    layer, head = name.split()
    return int(layer[1:]), int(head[1:])


def jsd(p: np.ndarray, q: np.ndarray) -> float:
    """Mean over rows of the Jensen-Shannon divergence (nats), written out: KL of each to the mixture."""
    m = (p + q) / 2

    def kl(a: np.ndarray) -> np.ndarray:
        return np.sum(np.where(a > 0, a * np.log(np.where(a > 0, a, 1.0) / np.where(m > 0, m, 1.0)), 0.0), axis=-1)
    return float(np.mean((kl(p) + kl(q)) / 2))


def reference_maps(model, view, kind: str, heads) -> list[np.ndarray]:
    """The heads' maps for the explorer's sentence and step, from a teacher-forced pass of the whole model."""
    sentence = view._context.sentence
    trace = teacher_force(model, sentence.source, model.tgt_vocab.detokenize(list(sentence.target)))
    maps = {"encoder_self": trace.encoder_self_attention, "decoder_self": trace.decoder_self_attention,
            "cross": trace.cross_attention}[kind]
    return [maps[layer, head] for layer, head in heads]


def test_before_a_click_the_most_alike_pair_is_open_side_by_side(shipped_window, shipped_model, qtbot):
    for _ in range(3):
        shipped_window.panels["explorer"].controller.step()
    panel, view = open_view(shipped_window, "cross")
    measured(qtbot, view)
    expected = head_similarity(shipped_model, "cross")
    far = expected.divergence + np.diag(np.full(len(expected.heads), np.inf))
    i, j = np.unravel_index(np.argmin(far), far.shape)
    a, b = sorted((expected.heads[i], expected.heads[j]))
    assert (view.pair.pair.a, view.pair.pair.b) == (a, b)
    maps = reference_maps(shipped_model, view, "cross", (a, b))
    assert maps[0].shape[0] == 3  # after three steps the decoder reads <s> and the first two tokens
    for heatmap, reference, head in zip(view.pair.maps, maps, (a, b), strict=True):
        np.testing.assert_allclose(heatmap.data, reference, atol=1e-5)
        assert heatmap.isVisibleTo(view) and f"L{head[0]} H{head[1]}" in heatmap.title
        assert heatmap.levels == view.pair.maps[0].levels  # one colour scale
    text = view.pair.divergence.text()
    assert f"{jsd(*[m.astype(np.float64) for m in maps]):.3f} on this sentence" in text
    assert f"{far[i, j]:.3f} over the test sentences" in text
    assert shipped_window.workspace.interventions == ()


def test_clicking_a_cell_opens_its_pair_and_the_button_lets_the_later_copy(shipped_window, shipped_model, qtbot):
    for _ in range(2):
        shipped_window.panels["explorer"].controller.step()
    panel, view = open_view(shipped_window, "cross")
    measured(qtbot, view)
    labels = view.matrix.row_labels()
    row, column = labels.index("L2 H1"), labels.index("L0 H3")
    click_cell(qtbot, view.matrix, row, column)
    assert (view.pair.pair.a, view.pair.pair.b) == ((0, 3), (2, 1))
    for heatmap, reference in zip(view.pair.maps, reference_maps(shipped_model, view, "cross", ((0, 3), (2, 1))),
                                  strict=True):
        np.testing.assert_allclose(heatmap.data, reference, atol=1e-5)
    assert shipped_window.workspace.interventions == ()  # a click only opens the pair
    assert view.pair.button.text() == "Replace L2 H1 by L0 H3"
    qtbot.mouseClick(view.pair.button, Qt.MouseButton.LeftButton)
    copy = AblateHead("cross", 2, 1, "copy", (0, 3))
    assert shipped_window.workspace.interventions == (copy,)
    assert "L2 H1 now copies L0 H3's pattern" in view.summary.text()  # both heads named, at once
    session = shipped_window.workspace.session
    assert session.interventions == (copy,)
    shipped_window.panels["explorer"].controller.step()
    record = session.history[-1]
    assert record.interventions == (copy,)
    np.testing.assert_allclose(record.cross_rows[2, 1], record.cross_rows[0, 3], atol=1e-6)  # the copied pattern
    assert shipped_window.panels["explorer"].attention.grid.marked == [(2, 1)]  # framed in the explorer
    click_cell(qtbot, view.matrix, row, row)  # a head with itself: no pair
    assert (view.pair.pair.a, view.pair.pair.b) == ((0, 3), (2, 1))
    qtbot.mouseClick(view.pair.button, Qt.MouseButton.LeftButton)  # the same copy again: added once
    assert shipped_window.workspace.interventions == (copy,)
    assert shipped_window.panels["explorer"].controller.undo_intervention()  # undone like any other
    assert shipped_window.workspace.interventions == ()


def test_the_measurement_runs_off_the_gui_thread_with_progress(shipped_window, qtbot, monkeypatch):
    """The view shows a progress bar and the pairs done while the worker measures, on its own
    thread, a copy of the model; then the matrix. The real measurement runs, watched on its way."""
    threads, nets, reports = [], [], []
    real = measure_similarity

    def watched(model, kind, *args, **kwargs):
        threads.append(QThread.currentThread())
        nets.append(model.net)
        return real(model, kind, *args, **kwargs)

    monkeypatch.setattr("transviz.gui.panels.concepts.similarity.measure_similarity", watched)
    panel, view = open_view(shipped_window, "encoder_self")
    assert view.background.bar.isVisibleTo(view) and not view.matrix.isVisibleTo(view)
    view.background.runner.status.connect(reports.append)
    measured(qtbot, view)
    assert set(threads) == {view.background.runner.worker_thread} and threads[0] is not QThread.currentThread()
    assert shipped_window.workspace.decoding_model.net not in nets  # the worker's own copy
    assert reports and reports[-1] == "Test sentence 64 of 64" and view.background.progress.value() == 100
    assert view.matrix.isVisibleTo(view) and len(view.matrix.row_labels()) == 12


def test_a_result_for_a_kind_no_longer_chosen_is_dropped(shipped_window, qtbot):
    panel, view = open_view(shipped_window, "encoder_self")
    assert view.background.runner.is_busy()
    panel.kind.setCurrentIndex(KINDS.index("cross"))  # before the encoder's result came
    measured(qtbot, view)
    assert view.shown.kind == "cross"
    qtbot.wait(200)  # anything still queued from the first task arrives now, and must change nothing
    assert view.shown.kind == "cross" and "L0 H0" in view.matrix.row_labels()
    assert ("encoder_self" not in {key[1] for key in view.background.results})
