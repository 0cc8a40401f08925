"""Plain labels give way: a long text elides (each line) instead of widening the window, and its
tooltip then shows the whole text."""
from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QApplication, QLabel, QToolTip

from transviz.gui.widgets.labels import plain_label

LONG = "Source sentences:\n1: " + " ".join(["0 1 2 3 4 5 6 7 8 9 a b c d e f g h i j"] * 3) + " <pad> <pad>"


def test_a_long_plain_label_elides_instead_of_widening(show, qtbot):
    label = show(plain_label(LONG), 900, 80)
    full = max(label.fontMetrics().horizontalAdvance(line) for line in LONG.split("\n"))
    assert full > 300 and label.minimumSizeHint().width() < 150  # a layout may shrink it that far
    assert QLabel(LONG).minimumSizeHint().width() >= full  # what QLabel alone demands
    label.resize(full + 20, 80)
    assert not label.is_elided()
    label.resize(200, 80)
    assert label.is_elided() and label.text() == LONG  # the text itself is kept
    event = QHelpEvent(QEvent.Type.ToolTip, QPoint(5, 5), label.mapToGlobal(QPoint(5, 5)))
    QApplication.sendEvent(label, event)
    qtbot.waitUntil(QToolTip.isVisible, timeout=3000)
    assert QToolTip.text() == LONG
    QToolTip.hideText()


def test_a_wrapping_label_keeps_qlabels_behaviour(show):
    label = show(plain_label(LONG, wrap=True), 200, 200)
    reference = QLabel(LONG)
    reference.setWordWrap(True)
    assert label.minimumSizeHint() == reference.minimumSizeHint() and not label.is_elided()
