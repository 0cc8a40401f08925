"""The explorer's right-click menu of a head: "Why here?" (right-click a cell of the attention
grid or of the large head and ask for the arithmetic behind that query row of that head, the masks
tab's walkthrough), then the sections others add for the head (interventions), then the plot's
own actions (export)."""
from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QObject, QPoint, QPointF, Qt, Signal
from PySide6.QtWidgets import QMenu, QWidget

from ...core.analysis.walkthrough import Kind
from .attention_view import AttentionView
from .grid import SUMMARY_COLUMN
from .intervention_menu import HeadTarget

Section = Callable[[QMenu, HeadTarget | None], None]  # adds entries about the head right-clicked


class ExplainMenu(QObject):
    """Puts "Why here?" first in the right-click menus of ``view``'s grid and large head, then
    ``sections``, then their own actions (export). Make it after the plots' actions are added.

    Signals:
        asked(str, int, int, int): the kind, layer, head and query of the cell right-clicked.
    """

    asked = Signal(str, int, int, int)

    def __init__(self, view: AttentionView, sections: Sequence[Section] = ()) -> None:
        super().__init__(view)
        self.view = view
        self.sections = list(sections)
        for plot in (view.grid, view.large):
            # the menu is built at each right-click: its first entry depends on the cell clicked
            plot.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
            plot.customContextMenuRequested.connect(lambda point, plot=plot: self.show_menu(plot, point))
        self.menu: QMenu | None = None  # the menu shown, while it is shown (tests pick from it)

    def pointed(self, plot: QWidget, point: QPointF) -> tuple[Kind, int, int, int] | None:
        """(kind, layer, head, query) of the head's cell under ``point`` of ``plot``; None off the
        cells or on a summary of heads, which no single head's arithmetic explains."""
        shown = self.view.shown
        if shown is None:
            return None
        if plot is self.view.grid:
            cell = self.view.grid.cell_under(point)
            if cell is None or cell[1] == SUMMARY_COLUMN:
                return None
            return shown.kind, cell[0], cell[1], cell[2]
        row_column = self.view.large.cell_under(point)
        layer, head = self.view.selected()
        if row_column is None or head == SUMMARY_COLUMN:
            return None
        return shown.kind, layer, head, row_column[0]

    def pointed_head(self, plot: QWidget, point: QPointF) -> HeadTarget | None:
        """The head (or a layer's summary) under ``point`` of the grid, or the one the large view
        shows wherever it is right-clicked; None off the grid's tiles."""
        shown = self.view.shown
        if shown is None:
            return None
        layers, heads = shown.maps.shape[:2]
        if plot is self.view.grid:
            cell = self.view.grid.cell_under(point)
            return None if cell is None else HeadTarget(shown.kind, cell[0], cell[1], layers, heads)
        layer, head = self.view.selected()
        return HeadTarget(shown.kind, layer, head, layers, heads)

    def build_menu(self, plot: QWidget, point: QPoint) -> QMenu:
        """The right-click menu of ``plot`` at ``point``: "Why here?", the sections, then the
        plot's own actions. Its entries act when triggered (shown or not)."""
        target = self.pointed(plot, QPointF(point))
        menu = QMenu(plot)
        why = menu.addAction(self.tr("Why here? Walk through this query in the Masks tab"))
        why.setEnabled(target is not None)
        if target is None:
            why.setToolTip(self.tr("Right-click a cell of one head (not a summary of heads)"))
        else:
            why.triggered.connect(lambda: self.asked.emit(*target))
        head = self.pointed_head(plot, QPointF(point))
        for section in self.sections:
            menu.addSeparator()
            section(menu, head)
        menu.addSeparator()
        menu.addActions(plot.actions())
        return menu

    def show_menu(self, plot: QWidget, point: QPoint) -> None:
        self.menu = self.build_menu(plot, point)
        self.menu.exec(plot.mapToGlobal(point))
        self.menu.deleteLater()
        self.menu = None
