"""The window builds a tab's panel the first time the tab is shown or the panel is asked for
(transviz.gui.panels.lazy_tabs), and opens with the first tab only. What a user sees and can do is
the same as with every tab built at the start: every title and menu entry is there, a tab is built
whichever way it is reached (a click, the View menu, a session, a lesson), and a tab built late
shows the workspace, the language and the look in use then."""
from __future__ import annotations

import re

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QMenu

from transviz.core.io.resources import shipped_lessons
from transviz.core.teaching import lesson
from transviz.core.teaching.tabs import TABS
from transviz.gui.panels.registry import PANELS
from transviz.gui.services.language import CHINESE, ENGLISH
from transviz.gui.services.theme import CONTRAST
from transviz.gui.style import diverging_lookup_table, lookup_table
from transviz.gui.widgets.heatmap import HeatmapWidget

CJK = re.compile(r"[\u4e00-\u9fff]")


def built(window) -> list[str]:
    return [tab for tab in TABS if window.panels.is_built(tab)]


def menu_entries(menu: QMenu) -> list[tuple]:
    """Every entry of ``menu`` and its submenus as a user sees it: text, key, checked, enabled."""
    entries = []
    for action in menu.actions():
        entries.append((action.text(), action.shortcut().toString(), action.isChecked(), action.isEnabled()))
        if action.menu() is not None:
            entries.append(menu_entries(action.menu()))
    return entries


def all_menus(window) -> list[tuple]:
    return [(action.text(), menu_entries(action.menu())) for action in window.menuBar().actions()]


class Shows(QObject):
    """Counts the Show events of the widgets it watches."""

    def __init__(self, *widgets) -> None:
        super().__init__()
        self.count = 0
        for widget in widgets:
            widget.installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:
        self.count += event.type() == QEvent.Type.Show
        return False


def test_the_window_opens_with_every_title_and_only_the_first_tab_built(open_window):
    window = open_window()
    assert [window.tabs.tabText(i) for i in range(window.tabs.count())] == [s.shown_title() for s in PANELS]
    assert built(window) == ["explorer"]
    assert window.tabs.currentWidget() is window.panels["explorer"]


def test_a_tab_is_built_when_first_shown_and_the_window_sees_one_change_of_tab(open_window):
    window = open_window()
    changes = []
    window.tabs.currentChanged.connect(changes.append)
    for index, spec in enumerate(PANELS[1:], start=1):
        assert not window.panels.is_built(spec.id)
        window.tabs.setCurrentIndex(index)
        panel = window.tabs.currentWidget()
        assert panel is window.panels[spec.id] and type(panel) is spec.panel_class() and panel.isVisible()
        assert window.tabs.tabText(index) == spec.shown_title()
    assert changes == list(range(1, len(TABS))) and window.tabs.count() == len(TABS)


def test_building_a_tab_shows_no_other_tab_meanwhile(open_window):
    window = open_window()
    heads = TABS.index("heads")
    shows = Shows(window.panels[TABS[heads - 1]], window.panels[TABS[heads + 1]])  # built, hidden, either side
    window.tabs.setCurrentIndex(heads)
    assert window.tabs.currentWidget() is window.panels["heads"]
    assert shows.count == 0  # a neighbour shown for a moment would have drawn (the masks tab runs the model)


def test_a_panel_looked_up_is_built_in_its_place_and_the_tab_shown_stays(open_window):
    window = open_window()
    changes = []
    window.tabs.currentChanged.connect(changes.append)
    lab = window.panels["lab"]
    assert window.tabs.widget(TABS.index("lab")) is lab and not lab.isVisible()
    assert window.tabs.currentWidget() is window.panels["explorer"] and changes == []
    with pytest.raises(KeyError):
        window.panels["no such tab"]


def test_the_view_menu_shows_a_tab_not_built_yet(open_window):
    window = open_window()
    title = PANELS[TABS.index("lab")].shown_title()
    next(action for action in window.menus.view.actions() if action.text() == title).trigger()
    assert window.tabs.currentWidget() is window.panels["lab"] and window.panels["lab"].isVisible()


def test_the_menus_are_the_same_before_and_after_every_tab_is_built(open_window, make_model):
    window = open_window(model=make_model())
    before = all_menus(window)
    for index in range(len(TABS)):
        window.tabs.setCurrentIndex(index)
    assert built(window) == list(TABS) and all_menus(window) == before
    listed = window.menus.view.actions()  # every tab's own View entries, whenever it was built
    assert all(action in listed for panel in window.panels.values() for action in panel.view_actions())


def test_a_tab_built_late_shows_what_the_workspace_holds(open_window, shipped_model, qtbot):
    """The masks and compare tabs of a window whose tabs were all built before the model and its
    steps, and of one whose tabs are built after them, show the same sentence and walkthrough."""
    early, late = open_window(), open_window()
    list(early.panels.values())
    for window in (early, late):
        window.workspace.set_model(shipped_model, "default", sentence="ich mochte ein bier")
        for _ in range(2):
            assert window.panels["explorer"].controller.step()
    assert built(late) == ["explorer"]
    for window in (early, late):
        window.tabs.setCurrentWidget(window.panels["masks"])
        qtbot.waitUntil(lambda window=window: window.panels["masks"].steps is not None, timeout=10000)
    masks = [window.panels["masks"] for window in (early, late)]
    target = late.workspace.session.model.tgt_vocab.detokenize(late.workspace.session.target_tokens[1:])
    assert target  # what the explorer has written in its two steps
    assert [(m.sentence.text(), m.target.text()) for m in masks] == [("ich mochte ein bier", target)] * 2
    np.testing.assert_array_equal(masks[0].softmax_view.data, masks[1].softmax_view.data)
    compare = [window.panels["compare"] for window in (early, late)]
    assert [c.run_a.sentence.text() for c in compare] == ["ich mochte ein bier"] * 2


def test_a_session_opened_builds_the_tab_it_shows(shipped_window, open_window, tmp_path):
    shipped_window.tabs.setCurrentWidget(shipped_window.panels["masks"])
    path = shipped_window.sessions.save(tmp_path / "masks.transviz")
    other = open_window((1366, 768))
    assert not other.panels.is_built("masks")
    other.sessions.open(path)
    assert other.tabs.currentWidget() is other.panels["masks"] and other.panels["masks"].isVisible()
    assert other.panels["masks"].sentence.text() == "ich mochte ein bier"


def test_a_lesson_builds_each_tab_as_its_slide_shows_it(open_window):
    window = open_window((1366, 768))
    read = lesson.read(shipped_lessons()["02-masks"])
    assert read.slides[0].tab == "masks"
    window.lesson_mode.start(read)
    try:
        assert built(window) == ["explorer", "masks"]
        assert window.tabs.currentWidget() is window.panels["masks"]
    finally:
        window.lesson_mode.stop()


def test_a_tab_built_in_another_language_is_in_it_and_follows_the_next_change(open_window, qtbot):
    window = open_window()
    window.view_choices.languages[CHINESE].trigger()
    masks = window.panels["masks"]
    assert CJK.search(masks.following.text())
    window.view_choices.languages[ENGLISH].trigger()
    qtbot.waitUntil(lambda: masks.following.text() == "Follow the explorer", timeout=5000)


def test_a_tab_built_after_a_change_of_look_is_drawn_in_it(open_window):
    window = open_window()
    window.view_choices.themes[CONTRAST].trigger()
    window.view_choices.colormaps["cividis"].trigger()
    masks = window.panels["masks"]
    axes = [item for view in masks.findChildren(pg.GraphicsView) for item in view.scene().items()
            if isinstance(item, pg.AxisItem)]
    assert axes and all(axis.pen().widthF() == 2.0 for axis in axes)  # the contrast theme's heavy lines
    heatmaps = masks.findChildren(HeatmapWidget)
    assert heatmaps
    for heatmap in heatmaps:
        expected = diverging_lookup_table() if heatmap._diverging else lookup_table()
        np.testing.assert_array_equal(heatmap._image.lut, expected)


def test_closing_the_window_builds_no_tab(open_window):
    window = open_window()
    window.close()
    window.shutdown()
    assert built(window) == ["explorer"]
