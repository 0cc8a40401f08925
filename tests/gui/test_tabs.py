"""One list of tabs (transviz.core.tabs.TABS): the registry gives each id, in that order, its panel,
and the window shows exactly those tabs."""
from __future__ import annotations

from transviz.core.tabs import TABS
from transviz.gui.main_window import MainWindow
from transviz.gui.panels.registry import PANELS


def test_the_registry_gives_every_tab_its_panel_in_the_declared_order():
    assert tuple(spec.id for spec in PANELS) == TABS
    assert len({spec.build for spec in PANELS}) == len(TABS)  # a panel class of its own each


def test_the_window_shows_the_declared_tabs(qtbot):
    window = MainWindow()
    qtbot.addWidget(window)
    try:
        assert tuple(window.panels) == TABS
        assert [window.tabs.widget(i) for i in range(window.tabs.count())] == [window.panels[t] for t in TABS]
    finally:
        window.shutdown()

