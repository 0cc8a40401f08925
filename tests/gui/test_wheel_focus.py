"""Spin boxes and drop-down lists take the wheel only once they have focus (issue 35, item 6):
scrolling the Training tab's form over its numbers and choices changes none of them and leaves the
wheel to the form; the explorer's temperature box likewise. Focused, they take it as before."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QComboBox

from transviz.core.decoding.strategies import Sampling


@pytest.fixture
def window(open_window, make_model):
    return open_window(size=(1366, 768), active=True, model=make_model())


def wheel(widget, notches: int = -1) -> bool:
    """Turn the wheel over the middle of ``widget`` (negative: towards the user, scrolling down);
    whether the widget took it. One it leaves is offered to its parent, for an event from the
    mouse (not for one sent, as here: Qt passes on only spontaneous wheel events)."""
    centre = QPointF(widget.rect().center())
    event = QWheelEvent(centre, QPointF(widget.mapToGlobal(centre.toPoint())), QPoint(0, 0), QPoint(0, 120 * notches),
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(widget, event)
    return event.isAccepted()


def test_scrolling_the_training_form_changes_no_number_and_leaves_the_wheel_to_the_form(window, qtbot):
    window.tabs.setCurrentWidget(window.panels["training"])
    panel = window.panels["training"]
    boxes = [box for box in panel.form.findChildren(QAbstractSpinBox) if box.isVisible() and box.isEnabled()]
    choices = [box for box in panel.form.findChildren(QComboBox) if box.isVisible() and box.isEnabled()]
    assert len(boxes) >= 5 and len(choices) >= 3 and panel.form_scroll.verticalScrollBar().maximum() > 0
    for box in boxes:
        value = box.value()
        assert not wheel(box) and box.value() == value, box.toolTip() or type(box).__name__
    for choice in choices:
        index = choice.currentIndex()
        assert not wheel(choice, notches=-1) and not wheel(choice, notches=1) and choice.currentIndex() == index
    box = boxes[0]
    box.setFocus()
    qtbot.waitUntil(box.hasFocus, timeout=2000)
    value = box.value()
    assert wheel(box, notches=1) and box.value() != value  # focused, it takes the wheel


def test_the_temperature_box_keeps_its_value_under_a_passing_wheel(window):
    temperature = window.panels["explorer"].controls.strategy.temperature
    value = temperature.value()
    assert not wheel(temperature, notches=3) and temperature.value() == value
    assert temperature.focusPolicy() == Qt.FocusPolicy.StrongFocus  # the wheel does not give it focus


def test_after_enter_in_a_number_field_space_steps_again(window, qtbot):
    explorer = window.panels["explorer"]
    model = window.workspace.model
    window.workspace.open(" ".join(model.src_vocab.itos[4:7]))  # three words it knows
    explorer.controls.strategy.show_strategy(Sampling(temperature=1.0, seed=1))
    temperature = explorer.controls.strategy.temperature
    temperature.setFocus()
    qtbot.waitUntil(temperature.hasFocus, timeout=2000)
    temperature.selectAll()
    QTest.keyClicks(temperature, "0.7")
    QTest.keyClick(temperature, Qt.Key.Key_Return)
    assert temperature.value() == pytest.approx(0.7) and not temperature.hasFocus()
    session = explorer.controller.session
    steps = session.position
    QTest.keyClick(QApplication.focusWidget() or window, Qt.Key.Key_Space)
    assert session.position == steps + 1
