"""Interventions in the explorer, with the shipped model in the real window: a head's right-click
menu edits attention exactly as the core's own decode does, the bar lists and removes what is in
force, Ctrl+Z brings back bit-identical pictures, and the output tokens the edit changed are
marked with the log-probability change computed here independently (a step-by-step teacher-forced
session, not the one forward pass the explorer uses)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QAction, QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMenu

import transviz
from transviz import AblateHead, EditAttention, ScaleScores, TieQueryKey
from transviz.core.analysis.walkthrough import KINDS
from transviz.core.decoding.session import DecodingSession
from transviz.gui.main_window import MainWindow
from transviz.gui.services.intervention_list import InterventionList, edited_heads, toggled
from transviz.gui.widgets.grid import SUMMARY_COLUMN

# the shipped model translates it "the dog sees the cat"; without cross-attention head 0 of the
# last layer it drops "sees" (found by trying every head)
SENTENCE = "der hund sieht die katze"
ORIGINAL = ["the", "dog", "sees", "the", "cat", "</s>"]
HEAD_OFF = AblateHead("cross", 2, 0)


@pytest.fixture(scope="module")
def model():
    return transviz.load_model("default")


@pytest.fixture
def explorer(qtbot, model):
    """The explorer of a shown, active window, the sentence translated to the end."""
    window = MainWindow()
    qtbot.addWidget(window)
    window.resize(1400, 900)
    window.show()
    window.activateWindow()
    qtbot.waitActive(window)  # Ctrl+Z is a window shortcut
    window.workspace.set_model(model, "default")
    panel = window.panels["explorer"]
    panel.source.sentence.setText(SENTENCE)
    panel.source.submitted.emit()  # what Enter does: the keys go to the explorer
    assert panel.controller.run_to_end()
    panel.attention.kind.setCurrentIndex(KINDS.index("cross"))
    settle()
    yield panel
    window.shutdown()


def settle():
    for _ in range(3):
        QApplication.processEvents()


def actions(menu: QMenu) -> list[QAction]:
    """Every entry of ``menu`` and its submenus."""
    found = []
    for action in menu.actions():
        found.append(action)
        if action.menu() is not None:
            found += actions(action.menu())
    return found


def choose(explorer, plot, point: QPoint, text: str) -> None:
    """Right-click ``point`` of ``plot`` (the menu the explorer builds there) and trigger ``text``."""
    menu = explorer.explain_menu.build_menu(plot, point)
    action = next(a for a in actions(menu) if a.text() == text)
    assert action.isEnabled()
    action.trigger()
    menu.deleteLater()
    settle()


def on_tile(explorer, layer: int, head: int) -> QPoint:
    return explorer.attention.grid.tile_position(layer, head, 0, 0).toPoint()


def output(explorer) -> list[str]:
    return [chip.text for chip in explorer.output.chips[1:]]  # after the start token


def pictures(explorer) -> tuple[np.ndarray, bytes, np.ndarray, bytes, list]:
    """What the grid and the large head show: data and the pixels drawn."""
    settle()
    view = explorer.attention
    grid_pixels = view.grid.grab().toImage()
    large_pixels = view.large.grab().toImage()
    return (view.grid.mosaic().copy(), bytes(grid_pixels.constBits()), view.large.displayed_image().copy(),
            bytes(large_pixels.constBits()), list(explorer.output.chips))


def test_right_click_turning_a_head_off_decodes_as_the_core_does(explorer, model):
    assert output(explorer) == ORIGINAL
    choose(explorer, explorer.attention.grid, on_tile(explorer, 2, 0), "Turn off (zero output)")

    assert explorer.controller.interventions.items == (HEAD_OFF,)
    expected = transviz.decode(model, SENTENCE, interventions=[HEAD_OFF])
    assert output(explorer) == expected.output_tokens != ORIGINAL
    np.testing.assert_array_equal(explorer.attention.grid.maps, expected.cross_attention)
    assert explorer.attention.grid.marked == [(2, 0)]  # the edited head is framed
    assert explorer.attention.interventions.texts() == ["cross L2 H0 off (zero)"]


def test_right_click_on_the_large_head_makes_its_attention_uniform(explorer, model):
    view = explorer.attention
    view.select(1, 3)
    choose(explorer, view.large, view.large.cell_position(0, 0), "Turn off (uniform attention)")

    item = AblateHead("cross", 1, 3, "uniform")
    assert explorer.controller.interventions.items == (item,)
    keys = len(explorer.controller.session.source_tokens)
    np.testing.assert_allclose(view.large.data, 1.0 / keys, rtol=1e-6)  # every query spreads evenly
    expected = transviz.decode(model, SENTENCE, interventions=[item])
    np.testing.assert_array_equal(view.grid.maps, expected.cross_attention)
    assert "(edited: cross L1 H3 off (uniform))" in view.large.title


def test_undo_and_redo_bring_back_bit_identical_pictures(explorer, qtbot):
    before = pictures(explorer)
    choose(explorer, explorer.attention.grid, on_tile(explorer, 2, 0), "Turn off (zero output)")
    edited = pictures(explorer)
    assert not np.array_equal(before[0], edited[0], equal_nan=True)

    explorer.setFocus()
    QTest.keyClick(explorer, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert explorer.controller.interventions.items == () and explorer.controller.session.interventions == ()
    after = pictures(explorer)
    np.testing.assert_array_equal(after[0], before[0])
    np.testing.assert_array_equal(after[2], before[2])
    assert after[1] == before[1] and after[3] == before[3]  # the very pixels
    assert after[4] == before[4]  # chips: tokens, tooltips, marks

    QTest.keyClick(explorer, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    redone = pictures(explorer)
    assert explorer.controller.interventions.items == (HEAD_OFF,)
    np.testing.assert_array_equal(redone[0], edited[0])
    assert redone[1] == edited[1] and redone[4] == edited[4]
    QTest.keyClick(explorer, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    QTest.keyClick(explorer, Qt.Key.Key_Y, Qt.KeyboardModifier.ControlModifier)  # redo, the other way
    assert explorer.controller.interventions.items == (HEAD_OFF,)


def test_the_bar_lists_removes_and_clears(explorer, model):
    grid, bar = explorer.attention.grid, explorer.attention.interventions
    assert bar.isHidden()
    choose(explorer, grid, on_tile(explorer, 2, 0), "Turn off (zero output)")
    choose(explorer, grid, on_tile(explorer, 1, 3), "Tie Q = K (this head)")
    choose(explorer, grid, on_tile(explorer, 0, SUMMARY_COLUMN), "× 0.5")  # a layer's summary tile scales it
    assert not bar.isHidden()
    assert bar.texts() == ["cross L2 H0 off (zero)", "Q = K: cross L1 H3", "scores × 0.5: cross L0"]
    assert grid.marked == [(0, 0), (0, 1), (0, 2), (0, 3), (1, 3), (2, 0)]

    bar.chips[1].remove.click()
    settle()
    items = (HEAD_OFF, ScaleScores(0.5, "cross", 0))
    assert explorer.controller.interventions.items == items == explorer.controller.session.interventions
    assert output(explorer) == transviz.decode(model, SENTENCE, interventions=items).output_tokens

    bar.clear_all.click()
    settle()
    assert bar.isHidden() and explorer.controller.session.interventions == ()
    assert output(explorer) == ORIGINAL and grid.marked == []


def test_a_second_choice_for_a_head_replaces_the_first_and_a_checked_one_removes_it(explorer):
    grid = explorer.attention.grid
    choose(explorer, grid, on_tile(explorer, 2, 0), "Turn off (zero output)")
    choose(explorer, grid, on_tile(explorer, 2, 0), "Turn off (uniform attention)")
    assert explorer.controller.interventions.items == (AblateHead("cross", 2, 0, "uniform"),)
    menu = explorer.explain_menu.build_menu(grid, on_tile(explorer, 2, 0))
    checked = [a.text() for a in actions(menu) if a.isChecked()]
    menu.deleteLater()
    assert checked == ["Turn off (uniform attention)"]
    choose(explorer, grid, on_tile(explorer, 2, 0), "Turn off (uniform attention)")
    assert explorer.controller.interventions.items == ()


def test_a_summary_tile_offers_only_the_layer_wide_entries_and_why_here_stays_first(explorer):
    menu = explorer.explain_menu.build_menu(explorer.attention.grid, on_tile(explorer, 1, SUMMARY_COLUMN))
    enabled = {a.text(): a.isEnabled() for a in actions(menu)}
    texts = [a.text() for a in menu.actions()]
    menu.deleteLater()
    assert texts[0].startswith("Why here?") and texts[-2:] == ["Export as PNG...", "Export as SVG..."]
    assert not enabled["Turn off (zero output)"] and not enabled["Tie Q = K (this head)"]
    assert enabled["Scale this layer's scores"] and enabled["× 10"]


def test_changed_tokens_are_marked_with_the_log_probability_change(explorer, model):
    choose(explorer, explorer.attention.grid, on_tile(explorer, 2, 0), "Turn off (zero output)")
    written = output(explorer)
    changed = [chip.changed for chip in explorer.output.chips[1:]]
    assert changed == [a != b for a, b in zip(written, ORIGINAL, strict=False)] and any(changed)

    # independently: the reference fed step by step on the cache, with and without the edit
    reference = " ".join(ORIGINAL[:-1])
    plain = DecodingSession(model, SENTENCE, reference=reference)
    edited = DecodingSession(model, SENTENCE, reference=reference, interventions=[HEAD_OFF])
    plain.run_to_end()
    edited.run_to_end()
    for i, comparison in enumerate(explorer.controller.comparison()):
        assert comparison.original == ORIGINAL[i]
        delta = math.log(edited.history[i].gold_probability) - math.log(plain.history[i].gold_probability)
        assert comparison.delta == pytest.approx(delta, abs=2e-4)
        tooltip = explorer.output.tooltip_at(i + 1)
        if comparison.changed:
            assert f"without the interventions: '{ORIGINAL[i]}'" in tooltip
        assert f"log p('{ORIGINAL[i]}') {comparison.delta:+.3f}" in tooltip


def test_an_intervention_the_model_lacks_is_refused_and_nothing_changes(explorer, qtbot):
    controller = explorer.controller
    choose(explorer, explorer.attention.grid, on_tile(explorer, 2, 0), "Turn off (zero output)")
    with qtbot.waitSignal(controller.refused) as refusal:
        assert not controller.toggle_intervention(AblateHead("cross", 7, 0))
    assert "no layer 7" in refusal.args[0]
    assert controller.interventions.items == (HEAD_OFF,) == controller.session.interventions


def test_a_new_sentence_keeps_the_interventions_and_a_new_model_drops_them(explorer, model, make_model):
    choose(explorer, explorer.attention.grid, on_tile(explorer, 2, 0), "Turn off (zero output)")
    explorer.source.sentence.setText("ich mochte ein bier")
    explorer.source.submitted.emit()
    settle()
    assert explorer.controller.session.source == "ich mochte ein bier"
    assert explorer.controller.session.interventions == (HEAD_OFF,)
    explorer.workspace.set_model(make_model(layers=2, heads=2))
    settle()
    assert explorer.controller.interventions.items == () and explorer.attention.interventions.isHidden()
    assert not explorer.controller.interventions.can_undo


def test_the_list_toggles_replaces_and_undoes_in_order():
    zero, uniform, scale = AblateHead("cross", 0, 1), AblateHead("cross", 0, 1, "uniform"), ScaleScores(2.0, "cross", 0)
    assert toggled((zero, scale), uniform) == (uniform, scale)  # in place
    assert toggled((zero, scale), zero) == (scale,)
    assert toggled((scale,), ScaleScores(10.0, "cross", 0)) == (ScaleScores(10.0, "cross", 0),)
    history = InterventionList()
    for items in ((zero,), (zero, scale), (scale,)):
        history.change(items)
    assert history.undo() == (zero, scale) and history.undo() == (zero,) and history.redo() == (zero, scale)
    history.change(())
    assert history.redo() is None and history.undo() == (zero, scale)
    assert edited_heads([TieQueryKey("cross", 1), zero, ScaleScores(0.5, "encoder_self")], "cross", 2, 2) == {
        (1, 0), (1, 1), (0, 1)}


def test_undo_midway_decodes_as_far_as_before_even_after_an_edit_ended_it_sooner(explorer, qtbot):
    controller = explorer.controller
    controller.rewind(4)  # "the dog sees the": not finished
    settle()
    before = pictures(explorer)
    view = explorer.attention
    view.kind.setCurrentIndex(KINDS.index("decoder_self"))
    choose(explorer, view.grid, on_tile(explorer, 0, 0), "Turn off (zero output)")
    assert output(explorer) == ["the", "dog", "</s>"]  # it ends sooner without that head
    view.kind.setCurrentIndex(KINDS.index("cross"))
    explorer.setFocus()
    QTest.keyClick(explorer, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    after = pictures(explorer)
    assert output(explorer) == ORIGINAL[:4]
    np.testing.assert_array_equal(after[0], before[0])
    assert after[1] == before[1] and after[4] == before[4]


def test_many_interventions_never_widen_the_window(explorer):
    window = explorer.window()
    before = window.minimumSizeHint()
    for head in range(4):
        for kind in ("cross", "decoder_self"):
            explorer.controller.toggle_intervention(TieQueryKey(kind, 1, head))
    settle()
    assert len(explorer.attention.interventions.chips) == 8
    after = window.minimumSizeHint()
    assert after.width() <= before.width() and after.width() <= 1366 and after.height() <= 768


def test_interventions_set_on_the_workspace_show_in_the_bar_and_undo(explorer, model):
    """The Heads tab switches a head off through the workspace: the explorer lists it, decodes
    with it, and Ctrl+Z takes it back like one of its own."""
    explorer.controller.workspace.set_interventions((HEAD_OFF,))
    settle()
    assert explorer.attention.interventions.texts() == ["cross L2 H0 off (zero)"]
    assert explorer.attention.grid.marked == [(2, 0)]  # framed, though the list learnt of it last
    assert output(explorer) == transviz.decode(model, SENTENCE, interventions=[HEAD_OFF]).output_tokens

    explorer.setFocus()
    QTest.keyClick(explorer, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    settle()
    assert explorer.controller.workspace.interventions == () == explorer.controller.session.interventions
    assert explorer.attention.interventions.isHidden() and output(explorer) == ORIGINAL


def test_mean_and_replace_by_head_from_the_menu_decode_as_the_core_does(explorer, model):
    grid = explorer.attention.grid
    choose(explorer, grid, on_tile(explorer, 2, 0), "Turn off (mean output)")
    mean = AblateHead("cross", 2, 0, "mean")
    assert explorer.controller.interventions.items == (mean,)
    np.testing.assert_array_equal(grid.maps, transviz.decode(model, SENTENCE, interventions=[mean]).cross_attention)
    assert explorer.attention.interventions.texts() == ["cross L2 H0 off (mean)"]

    choose(explorer, grid, on_tile(explorer, 2, 0), "L1 H3")  # the entry of "Replace by head"
    copy = AblateHead("cross", 2, 0, "copy", (1, 3))
    assert explorer.controller.interventions.items == (copy,)  # a head is replaced one way at a time
    expected = transviz.decode(model, SENTENCE, interventions=[copy])
    assert output(explorer) == expected.output_tokens
    np.testing.assert_array_equal(grid.maps, expected.cross_attention)
    np.testing.assert_array_equal(grid.maps[2, 0], grid.maps[1, 3])  # the pattern is the source's
    assert explorer.attention.interventions.texts() == ["cross L2 H0 uses L1 H3's pattern"]
    menu = explorer.explain_menu.build_menu(grid, on_tile(explorer, 1, 0))
    sources = [a.text() for a in actions(menu) if a.text().startswith("L")]
    menu.deleteLater()
    assert sources == ["L0 H0", "L0 H1", "L0 H2", "L0 H3", "L1 H1", "L1 H2", "L1 H3"]  # no later layer, not itself


def drag(plot, row: int, columns: list[int]) -> None:
    """Press on (row, first column), move through the others, release: real mouse events."""
    canvas = plot.canvas()

    def send(kind, column: int, buttons) -> None:
        point = QPointF(canvas.mapFrom(plot, plot.cell_position(row, column)))
        QApplication.sendEvent(canvas, QMouseEvent(kind, point, canvas.mapToGlobal(point), Qt.MouseButton.LeftButton,
                                                   buttons, Qt.KeyboardModifier.NoModifier))
    held = Qt.MouseButton.LeftButton
    send(QEvent.Type.MouseButtonPress, columns[0], held)
    for column in columns[1:]:
        send(QEvent.Type.MouseMove, column, held)
    send(QEvent.Type.MouseButtonRelease, columns[-1], Qt.MouseButton.NoButton)
    settle()


def test_dragging_along_a_row_paints_it_and_decodes_again(explorer, model):
    view = explorer.attention
    view.select(2, 0)
    drag(view.large, 1, [0, 1, 2])  # "dog" looks at "der hund sieht" evenly

    item = explorer.controller.interventions.items[0]
    assert isinstance(item, EditAttention) and (item.kind, item.layer, item.head, item.query) == ("cross", 2, 0, 1)
    keys = len(explorer.controller.session.source_tokens)
    weights = np.zeros(keys)
    weights[:3] = 1 / 3
    np.testing.assert_allclose(item.weights, weights)
    np.testing.assert_allclose(view.large.data[1], weights, atol=1e-6)  # the model's own row, after the edit
    expected = transviz.decode(model, SENTENCE, interventions=[item])
    assert output(explorer) == expected.output_tokens
    np.testing.assert_array_equal(view.grid.maps, expected.cross_attention)
    assert view.interventions.texts() == ["cross L2 H0 row 1 painted"]

    drag(view.large, 1, [4, 3])  # painting the row again replaces the first painting
    (again,) = explorer.controller.interventions.items
    assert np.flatnonzero(again.weights).tolist() == [3, 4]


def test_a_click_on_the_large_head_paints_nothing(explorer):
    view = explorer.attention
    view.select(2, 0)
    drag(view.large, 1, [0])
    assert explorer.controller.interventions.items == ()


def test_painting_a_summary_or_only_masked_keys_is_refused(explorer, qtbot):
    view = explorer.attention
    view.select(1, SUMMARY_COLUMN)
    with qtbot.waitSignal(explorer.controller.refused) as refusal:
        drag(view.large, 1, [0, 1])
    assert "summary" in refusal.args[0] and explorer.controller.interventions.items == ()

    view.kind.setCurrentIndex(KINDS.index("decoder_self"))
    view.select(0, 1)
    with qtbot.waitSignal(explorer.controller.refused) as refusal:
        drag(view.large, 1, [3, 4])  # the query of step 1 sees keys 0 and 1 only
    assert "may not see" in refusal.args[0] and explorer.controller.interventions.items == ()


def test_a_head_scales_its_own_scores_from_its_menu(explorer):
    menu = explorer.explain_menu.build_menu(explorer.attention.grid, on_tile(explorer, 1, 3))
    submenu = next(a.menu() for a in actions(menu) if a.text() == "Scale this head's scores")
    action = next(a for a in submenu.actions() if a.text() == "× 2")
    assert action.isEnabled()
    action.trigger()
    menu.deleteLater()
    settle()
    assert explorer.attention.interventions.texts() == ["scores × 2: cross L1 H3"]
    summary = explorer.explain_menu.build_menu(explorer.attention.grid, on_tile(explorer, 1, SUMMARY_COLUMN))
    enabled = {a.text(): a.isEnabled() for a in actions(summary)}
    summary.deleteLater()
    assert not enabled["Scale this head's scores"]  # a layer's summary tile has no one head to scale
