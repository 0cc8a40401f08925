"""What every tab shares: the workspace it shows, the plot the user last pointed at, which
File > Export writes, a right-click menu that exports any of its plots, and what the main window
asks of every tab (messages for the status bar, shutting down, closing)."""
from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from PySide6.QtCore import QEvent, QObject, QSize, Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFrame, QLabel, QLayout, QScrollArea, QVBoxLayout, QWidget

from ...core.model.bundle import Model
from ...core.teaching.lesson import Quiz, View
from ...core.teaching.workspace import Workspace
from ..services.export import add_export_actions, name_export_actions
from ..services.observe import subscribe


class VerticalScroll(QScrollArea):
    """A column of plots and texts that cannot shrink in height: on a short screen it scrolls instead
    of making the window taller than the screen. It is as wide as its content needs."""

    def __init__(self, content: QWidget) -> None:
        super().__init__()
        self._content = content
        self.setWidget(content)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

    def minimumSizeHint(self) -> QSize:
        content = self._content.minimumSizeHint()
        bar = self.verticalScrollBar().sizeHint().width()
        return QSize(content.width() + bar, min(content.height(), 4 * bar))

    def sizeHint(self) -> QSize:
        return self._content.sizeHint()


class PlotPanel(QWidget):
    """A tab of plots, showing the ``workspace``. Subclasses call :meth:`track` on their plots,
    override :meth:`set_model` to follow the workspace's model, and call :meth:`watch_model` at
    the end of their constructor.

    Signals:
        status(str): a message for the status bar ("" clears it).
        show_panel(str): the id of the tab the user should see now (e.g. the explorer, after
            "Use in explorer").
    """

    status = Signal(str)
    show_panel = Signal(str)

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.workspace = workspace
        self._plots: list[QWidget] = []
        self._current: QWidget | None = None
        self._export_actions: list[QAction] = []

    @property
    def model(self) -> Model | None:
        return self.workspace.model

    def watch_model(self) -> None:
        """Show the workspace's model now, and each model it takes from now on."""
        subscribe(self, self.workspace.model_changed, self.set_model)
        self.set_model(self.model)

    def set_model(self, model: Model | None) -> None:
        """Show ``model`` (the workspace's new model, or None)."""

    def view_state(self) -> View | None:
        """How the tab shows attention, for a saved session or a lesson (None: nothing to keep)."""
        return None

    def apply_view(self, view: View) -> None:
        """Show attention as ``view`` says (a reopened session, a lesson's slide), from the
        workspace's next ``session_changed`` on: the caller opens the slide's session next."""

    def current_page(self) -> str | None:
        """The page shown, for a tab with several (:data:`~transviz.core.teaching.tabs.TAB_PAGES`)."""
        return None

    def show_page(self, page: str) -> None:
        """Show ``page`` (one of the tab's :data:`~transviz.core.teaching.tabs.TAB_PAGES`): a lesson's slide."""

    def apply_quiz(self, quiz: Quiz | None) -> None:
        """Ask the class ``quiz`` (a lesson slide's question, after its session is open), or nothing."""

    def view_actions(self) -> list[QAction]:
        """Actions of this tab that the window's View menu lists too (e.g. the explorer's quiz mode)."""
        return []

    @contextmanager
    def drawn_at_once(self) -> Iterator[None]:
        """While an animation's frames are taken: every change drawn before the call that made it returns."""
        yield

    def refuses_animation(self) -> str | None:
        """Why stepping through the run for an animation would spoil this tab now (None: it would not)."""
        return None

    def shutdown(self) -> None:
        """Stop the tab's worker threads before the application quits (safe to call twice)."""

    def confirm_close(self, close_again: Callable[[], object]) -> bool:
        """Whether the window may close now; a tab with work to finish first may ask the user and
        call ``close_again`` once it is done."""
        return True

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
        if event.type() == QEvent.Type.Enter and isinstance(watched, QWidget) and watched in self._plots:
            self._current = watched
        return False

    def shown_plots(self) -> list[QWidget]:
        """The tab's plots on screen now, in the order they were tracked."""
        return [plot for plot in self._plots if plot.isVisible()]

    def plot_name(self, plot: QWidget) -> str:
        """A short plain name of ``plot`` for a list of plots (its title up to the first colon)."""
        title = str(getattr(plot, "title", "") or "")
        name = title.split(":")[0].split(" (")[0].strip()
        return name if 0 < len(name) <= 40 else self.tr("plot {0}").format(self._plots.index(plot) + 1)

    def current_plot(self) -> QWidget:
        """The plot File > Export writes: the last one pointed at, else the first one shown."""
        if self._current is not None and self._current.isVisible():
            return self._current
        return next((p for p in self._plots if p.isVisible()), self._plots[0] if self._plots else self)

