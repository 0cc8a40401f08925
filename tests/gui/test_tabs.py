"""One list of tabs (transviz.core.teaching.tabs.TABS): the registry gives each id, in that order, its panel,
the window shows exactly those tabs, and every id has its help text in English and in Chinese."""
from __future__ import annotations

import re

from transviz.core.teaching.tabs import TABS
from transviz.gui.main_window import MainWindow
from transviz.gui.panels.registry import PANELS
from transviz.gui.services.help_texts import TAB_TOPICS, tab_texts
from transviz.gui.services.language import CHINESE, ENGLISH, set_language

CJK = re.compile(r"[\u4e00-\u9fff]")


def test_the_registry_gives_every_tab_its_panel_in_the_declared_order():
    assert tuple(spec.id for spec in PANELS) == TABS
    assert len({spec.panel_class() for spec in PANELS}) == len(TABS)  # a panel class of its own each


def test_the_window_shows_the_declared_tabs(qtbot):
    window = MainWindow()
    qtbot.addWidget(window)
    try:
        assert tuple(window.panels) == TABS
        assert [window.tabs.tabText(i) for i in range(window.tabs.count())] == [s.shown_title() for s in PANELS]
        panels = [window.panels[t] for t in TABS]  # each built as it is looked up
        assert [window.tabs.widget(i) for i in range(window.tabs.count())] == panels
        assert [type(panel) for panel in panels] == [spec.panel_class() for spec in PANELS]
        view = window.menus.view.actions()[:len(TABS)]  # View > a tab, by its title, Ctrl+1 to Ctrl+9
        assert [a.text() for a in view] == [spec.shown_title() for spec in PANELS]
        keys = [f"Ctrl+{i}" if i < 10 else "" for i in range(1, len(TABS) + 1)]  # Ctrl+0 resets the zoom
        assert [a.shortcut().toString() for a in view] == keys
    finally:
        window.shutdown()


def test_every_tab_has_its_help_in_both_languages(qapp):
    assert set(tab_texts()) == set(TABS) and set(TAB_TOPICS) <= set(TABS)
    english = tab_texts()
    set_language(CHINESE)
    try:
        chinese = tab_texts()
    finally:
        set_language(ENGLISH)
    for tab in TABS:
        assert len(english[tab]) > 300 and not CJK.search(english[tab]), tab
        assert len(CJK.findall(chinese[tab])) > 50, tab
    assert len(set(english.values())) == len(set(chinese.values())) == len(TABS)  # each tab its own


def test_the_pictures_inside_a_step_each_have_a_paragraph_of_help():
    from transviz.gui.services.help_texts import tab_help

    assert "The logit lens\n" in tab_help("concepts") and "Heads that align\n" in tab_help("concepts")
    assert "Activation patching\n" in tab_help("compare")
