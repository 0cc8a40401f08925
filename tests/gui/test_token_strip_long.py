"""A strip of hundreds of tokens shows three lines at a time, keeps the current chip in view, and
scrolls with the wheel; clicks and tooltips still find the chip under the mouse."""
from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication

from transviz.gui.widgets.token_strip import MAX_LINES, Chip, TokenStrip


def wheel(widget, notches: int) -> None:
    centre = QPointF(widget.width() / 2, widget.height() / 2)
    event = QWheelEvent(centre, widget.mapToGlobal(centre), QPoint(), QPoint(0, 120 * notches),
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(widget, event)


def lines(strip: TokenStrip) -> list[int]:
    return sorted({strip.chip_rect(i).top() for i in range(len(strip.chips))})


def test_a_long_strip_shows_three_lines_and_follows_the_current_chip(show):
    strip = show(TokenStrip(), 500, 60)
    chips = [Chip(f"word{i}") for i in range(300)]
    strip.set_chips(chips)
    strip.resize(500, strip.heightForWidth(500))
    QApplication.processEvents()
    tops = lines(strip)
    assert len(tops) > 10
    assert strip.height() == tops[MAX_LINES] - tops[0] - 4 + 2  # three lines and their bottom margin
    for current in (0, 150, 299):
        strip.set_chips([Chip(c.text, current=i == current) for i, c in enumerate(chips)])
        assert strip.rect().contains(strip.chip_rect(current)), current


def test_the_wheel_scrolls_and_clicks_find_the_chip_under_the_mouse(show, qtbot):
    strip = show(TokenStrip(), 500, 60)
    strip.set_chips([Chip(f"word{i}") for i in range(300)])
    strip.resize(500, strip.heightForWidth(500))
    first = strip.chip_rect(0).top()
    wheel(strip, -2)  # down
    assert strip.chip_rect(0).top() < first
    visible = next(i for i in range(300) if strip.rect().contains(strip.chip_rect(i)) and i > 30)
    with qtbot.waitSignal(strip.chip_clicked) as clicked:
        qtbot.mouseClick(strip, Qt.MouseButton.LeftButton, pos=strip.chip_rect(visible).center())
    assert clicked.args == [visible]
    wheel(strip, 100)  # far up: stops at the top
    assert strip.chip_rect(0).top() == first


def test_a_short_strip_does_not_scroll(show):
    strip = show(TokenStrip(), 500, 60)
    strip.set_chips([Chip(w) for w in "ich mochte ein bier".split()])
    strip.resize(500, strip.heightForWidth(500))
    before = strip.chip_rect(0)
    wheel(strip, -3)
    assert strip.chip_rect(0) == before
