"""The main window's tabs, each panel built the first time it is needed.

Every tab of :data:`~transviz.gui.panels.registry.PANELS` is in the tab bar from the start, but a
tab's panel (its module, its plots) is built only when the tab is first shown or the panel is
first looked up: the window opens with the one tab it shows. Until then an empty page stands in
for it. A panel built late reads what the workspace holds then, as it does when built first.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from PySide6.QtWidgets import QTabWidget, QWidget

from ...core.teaching.workspace import Workspace
from .base import PlotPanel
from .registry import PANELS


class LazyPanels(Mapping[str, PlotPanel]):
    """The panels of ``tabs`` by tab id, in tab order: ``panels["masks"]`` builds that tab's panel
    if it was not built yet, so a caller always gets a real panel; iterating over ``values()``
    builds them all. :meth:`built` lists the panels built so far (those that may have state,
    threads, view entries). Each new panel goes to ``on_built`` before its tab shows it."""

    def __init__(self, tabs: QTabWidget, workspace: Workspace, on_built: Callable[[PlotPanel], None]) -> None:
        self.tabs, self.workspace, self.on_built = tabs, workspace, on_built
        self._built: dict[str, PlotPanel] = {}
        self._index: dict[str, int] = {spec.id: index for index, spec in enumerate(PANELS)}
        for _ in PANELS:
            tabs.addTab(QWidget(), "")  # titles are the window's (they follow the language)
        tabs.currentChanged.connect(self._on_current_changed)
        self._on_current_changed(tabs.currentIndex())

    def __getitem__(self, tab: str) -> PlotPanel:
        panel = self._built.get(tab)
        if panel is None:
            panel = self._build(tab)
        return panel

    def __iter__(self) -> Iterator[str]:
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)

    def built(self) -> list[PlotPanel]:
        """The panels built so far, in tab order."""
        return [self._built[tab] for tab in self._index if tab in self._built]

    def is_built(self, tab: str) -> bool:
        return tab in self._built

    def _on_current_changed(self, index: int) -> None:
        if 0 <= index < len(PANELS) and not self.is_built(PANELS[index].id):
            self._build(PANELS[index].id)

    def _build(self, tab: str) -> PlotPanel:
        index = self._index[tab]  # KeyError for a tab that does not exist, as in a dict
        panel = self._built[tab] = PANELS[index].build(self.workspace)
        self.on_built(panel)
        self._replace_page(index, panel)
        return panel

    def _replace_page(self, index: int, panel: PlotPanel) -> None:
        """Put ``panel`` in place of the empty page at ``index``. Inserted before it, then the page
        removed once it is not the current one: removing the current page would show another tab's
        panel for a moment (which would draw), and the window sees no change of tab."""
        tabs = self.tabs
        page, current = tabs.widget(index), tabs.currentIndex()
        assert page is not None  # the empty page, there since the start
        blocked = tabs.blockSignals(True)
        try:
            tabs.insertTab(index, panel, tabs.tabText(index))
            if current == index:
                tabs.setCurrentIndex(index)
            tabs.removeTab(index + 1)
        finally:
            tabs.blockSignals(blocked)
        page.deleteLater()
