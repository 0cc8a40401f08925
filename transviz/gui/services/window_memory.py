"""What the main window remembers between runs: the language and look, the last model and
sentence, the window's geometry, its splitters and the tab shown (in a
:class:`~transviz.gui.services.settings.SettingsStore`; none: it remembers nothing)."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QMainWindow, QSplitter, QTabWidget, QWidget

from ...core.teaching.workspace import Workspace
from .language import current_language
from .settings import MAX_RECENT, Preferences, SettingsStore, WindowLayout
from .theme import current_appearance


class WindowMemory:
    """Reads and writes what ``window`` remembers.

    ``last_model`` and ``pending_sentence`` are the last run's, until the workspace has a model
    of its own: then the workspace's are remembered. While the model asked for at start-up still
    loads (``awaited()``; the shipped default stands in for it), that model is remembered.

    While a lesson is shown (:meth:`hold` to :meth:`release`) what it sets is not the user's: the
    colormap, model and sentence and the tab remembered are those from before it started; the
    language, theme and presentation mode chosen meanwhile are remembered as always.
    """

    def __init__(self, window: QMainWindow, tabs: QTabWidget, workspace: Workspace,
                 settings: SettingsStore | None, awaited: Callable[[], str | None] = lambda: None) -> None:
        self.window, self.tabs, self.workspace, self.settings = window, tabs, workspace, settings
        self.awaited = awaited
        self.last_model: str | None = None
        self.pending_sentence: str | None = None
        self._splitters: dict[str, bytes] = {}  # the stored states, by splitter name
        self._held: tuple[Preferences, int] | None = None  # the user's, while a lesson is shown
        self.recent_lessons: list[str] = []  # File > Recent lessons, newest first

    def add_recent_lesson(self, path: str) -> None:
        """``path`` opened as a lesson: first in File > Recent lessons, remembered at once."""
        self.recent_lessons = [path, *(p for p in self.recent_lessons if p != path)][:MAX_RECENT]
        self.remember()

    def forget_recent_lesson(self, path: str) -> None:
        """``path`` is no lesson any more (gone, moved): off the list."""
        self.recent_lessons = [p for p in self.recent_lessons if p != path]
        self.remember()

    def hold(self) -> None:
        """A lesson starts: keep the user's colormap, model, sentence and tab as they are now."""
        if self._held is None:
            self._held = self.preferences(), self.tabs.currentIndex()

    def release(self) -> None:
        """The lesson ended: remember the window's state again."""
        self._held = None

    def preferences(self) -> Preferences:
        if self._held is not None:
            held = self._held[0]
            return replace(held, language=current_language(),
                           appearance=replace(current_appearance(), colormap=held.appearance.colormap),
                           recent_lessons=tuple(self.recent_lessons))
        model: str | None
        sentence: str | None
        awaited = self.awaited()
        if awaited is not None:  # the remembered sentence belongs to the last run's model only
            model, sentence = awaited, self.pending_sentence if awaited == self.last_model else None
        elif self.workspace.model is None:
            model, sentence = self.last_model, self.pending_sentence
        else:
            model, sentence = self.workspace.model_source, self.workspace.sentence
        return Preferences(current_language(), current_appearance(), model, sentence or None,
                           tuple(self.recent_lessons))

    def layout(self) -> WindowLayout:
        # a splitter on a tab never shown this time has no sizes: its stored state stays as it was
        splitters = {splitter.objectName(): bytes(splitter.saveState().data())
                     for splitter in self.window.findChildren(QSplitter)
                     if splitter.objectName() and sum(splitter.sizes())}
        tab = self.tabs.currentIndex() if self._held is None else self._held[1]
        return WindowLayout(bytes(self.window.saveGeometry().data()), splitters, tab)

    def remember(self, with_layout: bool = False) -> None:
        """Write the preferences (and the layout) to the settings, if there are settings."""
        if self.settings is None:
            return
        self.settings.save_preferences(self.preferences())
        if with_layout:
            self.settings.save_layout(self.layout())

    def restore(self, preferences: Preferences, layout: WindowLayout) -> list[str]:
        """Take the last model and sentence, the geometry, the tab and the splitters (those of a tab
        built later when it is built: :meth:`restore_splitters`); the warnings about what could not be used."""
        self.last_model, self.pending_sentence = preferences.last_model, preferences.last_sentence
        self.recent_lessons = list(preferences.recent_lessons)
        warnings = []
        if layout.geometry is not None and not self.window.restoreGeometry(layout.geometry):
            warnings.append(QCoreApplication.translate("MainWindow", "The saved window size could not be used."))
        if 0 <= layout.tab < self.tabs.count():
            self.tabs.setCurrentIndex(layout.tab)  # first: the tab is built, and its splitters restored below
        self._splitters = dict(layout.splitters)
        return warnings + self.restore_splitters(self.window)

    def restore_splitters(self, root: QWidget) -> list[str]:
        """Give the splitters in ``root`` (the window, or a tab as it is built) their stored states;
        the warnings about states that could not be used."""
        warnings = []
        for splitter in root.findChildren(QSplitter):
            state = self._splitters.get(splitter.objectName())
            if state is not None and not splitter.restoreState(state):
                warnings.append(QCoreApplication.translate(
                    "MainWindow", "The saved layout of {0} could not be used.").format(splitter.objectName()))
        return warnings
