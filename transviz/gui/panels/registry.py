"""Every tab of the main window: the panel and title of each id of :data:`transviz.core.teaching.tabs.TABS`,
in that order (tests/gui/test_tabs.py checks it). The window builds its tabs, the View menu's
entries, Help > How to read this tab, settings restore and shutdown from :data:`PANELS`: a new
tab is its id in ``core/teaching/tabs.py``, one module, one line here and its help text.

A panel's module is named, not imported: the window imports it when it builds the tab, the
first time the tab is shown (:class:`~transviz.gui.panels.lazy_tabs.LazyPanels`)."""
from __future__ import annotations

import importlib
from dataclasses import dataclass

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from ...core.teaching.tabs import Tab
from ...core.teaching.workspace import Workspace
from .base import PlotPanel


@dataclass(frozen=True)
class PanelSpec:
    """A tab: ``id`` names it in code and its help topic (:func:`transviz.gui.services.help_texts.tab_help`);
    ``title`` is marked for translation and shown translated (:meth:`shown_title`); the panel is
    class ``name`` of ``module`` (relative to this package)."""

    id: Tab
    title: str
    module: str
    name: str

    def shown_title(self) -> str:
        return QCoreApplication.translate("MainWindow", self.title)

    def panel_class(self) -> type[PlotPanel]:
        """The panel's class (its module is imported now, if it was not yet)."""
        panel = getattr(importlib.import_module(self.module, __package__), self.name)
        assert isinstance(panel, type) and issubclass(panel, PlotPanel), f"{self.module}.{self.name} is not a panel"
        return panel

    def build(self, workspace: Workspace) -> PlotPanel:
        return self.panel_class()(workspace)


# QT_TRANSLATE_NOOP marks a title for lupdate and returns it; str(): PySide6's stub says it returns object
PANELS = (
    PanelSpec("explorer", str(QT_TRANSLATE_NOOP("MainWindow", "Explorer")), ".explorer", "ExplorerPanel"),
    PanelSpec("positional", str(QT_TRANSLATE_NOOP("MainWindow", "Positional encoding")), ".positional",
              "PositionalPanel"),
    PanelSpec("masks", str(QT_TRANSLATE_NOOP("MainWindow", "Masks")), ".masks", "MasksPanel"),
    PanelSpec("heads", str(QT_TRANSLATE_NOOP("MainWindow", "Heads")), ".heads", "HeadsPanel"),
    PanelSpec("why", str(QT_TRANSLATE_NOOP("MainWindow", "Why")), ".why", "WhyPanel"),
    PanelSpec("concepts", str(QT_TRANSLATE_NOOP("MainWindow", "Concepts")), ".concepts.panel", "ConceptsPanel"),
    PanelSpec("compare", str(QT_TRANSLATE_NOOP("MainWindow", "Compare")), ".compare", "ComparePanel"),
    PanelSpec("variants", str(QT_TRANSLATE_NOOP("MainWindow", "Variants")), ".variants", "VariantsPanel"),
    PanelSpec("training", str(QT_TRANSLATE_NOOP("MainWindow", "Training")), ".training", "TrainingPanel"),
    PanelSpec("lab", str(QT_TRANSLATE_NOOP("MainWindow", "Lab")), ".lab", "LabPanel"),
)
