"""What every tab shares: the model it shows (or none), the plot the user last pointed at, which
File > Export writes, and a right-click menu that exports any of its plots."""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QLabel, QLayout, QVBoxLayout, QWidget

from ...core.bundle import Model
from ..export import add_export_actions, name_export_actions


class PlotPanel(QWidget):
    """A tab of plots. Subclasses call :meth:`track` on their plots and implement :meth:`set_model`."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._plots: list[QWidget] = []
        self._current: QWidget | None = None
        self._export_actions: list[QAction] = []
        self.model: Model | None = None

    def set_model(self, model: Model | None) -> None:
        self.model = model

    def arrange(self, controls: QLayout, error: QLabel, body: QLayout | QWidget) -> None:
        """The layout of every tab: its controls, an inline error line, then the plots."""
        layout = QVBoxLayout(self)
        layout.addLayout(controls)
        layout.addWidget(error)
        if isinstance(body, QLayout):
            layout.addLayout(body, 1)
        else:
            layout.addWidget(body, 1)

    def track(self, *plots: QWidget) -> None:
        """Remember these plots; the one the mouse last entered is the panel's current plot. Each
        gets a right-click menu that exports it (the heatmaps bring their own)."""
        for plot in plots:
            self._plots.append(plot)
            plot.installEventFilter(self)
            if not plot.actions():
                self._export_actions += add_export_actions(plot)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            name_export_actions(self._export_actions)
        super().changeEvent(event)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Enter and watched in self._plots:
            self._current = watched  # type: ignore[assignment]
        return False

    def current_plot(self) -> QWidget:
        """The plot File > Export writes: the last one pointed at, else the first one shown."""
        if self._current is not None and self._current.isVisible():
            return self._current
        return next((p for p in self._plots if p.isVisible()), self._plots[0] if self._plots else self)

