"""The keyboard as a class meets it: the first start puts the focus in the sentence box, typing
types (spaces too), Enter hands the keys to the decoder; Space, P and Home act on the decoder only
when no text or number box has the focus; Ctrl+= / Ctrl+- / Ctrl+0 zoom the plots and grids."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from transviz.gui.services.theme import current_appearance


@pytest.fixture
def window(open_window):
    return open_window(size=None, active=True)


@pytest.fixture
def started(window, qtbot):
    """The window as `transviz` opens it: the shipped default model, its first example ready."""
    with qtbot.waitSignal(window.model_changed, timeout=20000):
        window.open_initial_model(None)
    return window


def typed(window, keys: str) -> None:
    """Keys as a user types them: to whichever widget has the focus."""
    for key in keys:
        QTest.keyClicks(QApplication.focusWidget() or window, key)


def press(window, key: Qt.Key) -> None:
    QTest.keyClick(QApplication.focusWidget() or window, key)


def test_typing_at_the_first_start_goes_into_the_sentence_box(started, qtbot):
    explorer = started.panels["explorer"]
    sentence, session = explorer.source.sentence, explorer.controller.session
    assert QApplication.focusWidget() is sentence
    assert sentence.selectedText() == sentence.text() != ""  # typing replaces the example
    typed(started, "ein bier bitte")
    assert sentence.text() == "ein bier bitte"  # the spaces were typed, not steps
    assert explorer.controller.session.source == "ein bier bitte" and not explorer.controller.session.history
    assert session is not explorer.controller.session
    press(started, Qt.Key.Key_Return)  # Enter: the keys are the decoder's now
    assert QApplication.focusWidget() is not sentence
    press(started, Qt.Key.Key_Space)
    press(started, Qt.Key.Key_Space)
    assert len(explorer.controller.session.history) == 2 and sentence.text() == "ein bier bitte"


def test_space_p_and_home_belong_to_a_focused_text_or_number_box(started, qtbot):
    explorer = started.panels["explorer"]
    controller, strategy = explorer.controller, explorer.controls.strategy
    press(started, Qt.Key.Key_Return)  # from the sentence box: the decoder's keys
    press(started, Qt.Key.Key_Space)
    press(started, Qt.Key.Key_Space)
    assert len(controller.session.history) == 2
    strategy.choice.setCurrentIndex(2)  # beam search: its width box
    steps = len(controller.session.history)
    box = strategy.beam_width
    box.setFocus()
    qtbot.waitUntil(box.hasFocus)
    box.lineEdit().setCursorPosition(1)
    press(started, Qt.Key.Key_Home)  # the spin box's: to the start of its text
    assert box.lineEdit().cursorPosition() == 0 and len(controller.session.history) == steps
    press(started, Qt.Key.Key_P)
    assert not explorer.controls.playing
    explorer.source.sentence.setFocus()
    qtbot.waitUntil(explorer.source.sentence.hasFocus)
    explorer.source.sentence.end(False)
    typed(started, " p")
    assert explorer.source.sentence.text().endswith(" p") and not explorer.controls.playing


def test_ctrl_plus_minus_and_zero_zoom_the_plots_and_grids(started, qtbot):
    explorer = started.panels["explorer"]
    press(started, Qt.Key.Key_Return)
    press(started, Qt.Key.Key_Space)
    grid, large = explorer.attention.grid.canvas, explorer.attention.large
    window_points = QApplication.font().pointSizeF()
    grid_points, tick_points = grid.font().pointSizeF(), large.axis("left").style["tickFont"]
    tick_points = (tick_points or large.axis("left").font()).pointSizeF()
    view = started.view_choices
    assert view.zoom_in.shortcuts()[0] == QKeySequence("Ctrl+=") and view.zoom_out.shortcut() == QKeySequence("Ctrl+-")
    assert view.zoom_reset.shortcut() == QKeySequence("Ctrl+0")
    view_menu = started.menuBar().actions()[2].menu()
    assert {view.zoom_in, view.zoom_out, view.zoom_reset} <= set(view_menu.actions())

    QTest.keyClick(started, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
    QTest.keyClick(started, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
    assert current_appearance().zoom == 1.5
    qtbot.waitUntil(lambda: grid.font().pointSizeF() == pytest.approx(1.5 * grid_points), timeout=5000)
    assert large.axis("left").style["tickFont"].pointSizeF() == pytest.approx(1.5 * tick_points)
    assert QApplication.font().pointSizeF() == window_points  # the menus and buttons keep their size

    QTest.keyClick(started, Qt.Key.Key_Minus, Qt.KeyboardModifier.ControlModifier)
    assert grid.font().pointSizeF() == pytest.approx(1.25 * grid_points)
    QTest.keyClick(started, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)
    assert current_appearance().zoom == 1.0
    assert grid.font().pointSizeF() == pytest.approx(grid_points)
    assert large.axis("left").style["tickFont"].pointSizeF() == pytest.approx(tick_points)
