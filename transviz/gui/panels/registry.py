"""Every tab of the main window: the panel and title of each id of :data:`transviz.core.teaching.tabs.TABS`,
in that order (tests/gui/test_tabs.py checks it). The window builds its tabs, the View menu's
entries, Help > How to read this tab, settings restore and shutdown from :data:`PANELS`: a new
tab is its id in ``core/teaching/tabs.py``, one module, one line here and its help text."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from ...core.teaching.tabs import Tab
from ...core.teaching.workspace import Workspace
from .base import PlotPanel
from .compare import ComparePanel
from .concepts.panel import ConceptsPanel
from .explorer import ExplorerPanel
from .heads import HeadsPanel
from .lab import LabPanel
from .masks import MasksPanel
from .positional import PositionalPanel
from .training import TrainingPanel
from .why import WhyPanel


@dataclass(frozen=True)
class PanelSpec:
    """A tab: ``id`` names it in code and its help topic (:func:`transviz.gui.services.help_texts.tab_help`);
    ``title`` is marked for translation and shown translated (:meth:`shown_title`)."""

    id: Tab
    title: str
    build: Callable[[Workspace], PlotPanel]

    def shown_title(self) -> str:
        return QCoreApplication.translate("MainWindow", self.title)


# QT_TRANSLATE_NOOP marks a title for lupdate and returns it; str(): PySide6's stub says it returns object
PANELS = (
    PanelSpec("explorer", str(QT_TRANSLATE_NOOP("MainWindow", "Explorer")), ExplorerPanel),
    PanelSpec("positional", str(QT_TRANSLATE_NOOP("MainWindow", "Positional encoding")), PositionalPanel),
    PanelSpec("masks", str(QT_TRANSLATE_NOOP("MainWindow", "Masks")), MasksPanel),
    PanelSpec("heads", str(QT_TRANSLATE_NOOP("MainWindow", "Heads")), HeadsPanel),
    PanelSpec("why", str(QT_TRANSLATE_NOOP("MainWindow", "Why")), WhyPanel),
    PanelSpec("concepts", str(QT_TRANSLATE_NOOP("MainWindow", "Concepts")), ConceptsPanel),
    PanelSpec("compare", str(QT_TRANSLATE_NOOP("MainWindow", "Compare")), ComparePanel),
    PanelSpec("training", str(QT_TRANSLATE_NOOP("MainWindow", "Training")), TrainingPanel),
    PanelSpec("lab", str(QT_TRANSLATE_NOOP("MainWindow", "Lab")), LabPanel),
)
