"""File > Save session / Open session: the window's state as a one-slide lesson file
(``.transviz``, the format of :mod:`transviz.core.teaching.lesson`), and a slide put back into the window.

The state is the workspace's (model, sentence, reference, strategy, steps and forced tokens,
interventions) and the tabs' (which tab shows; how the explorer shows attention, through each
panel's :meth:`~transviz.gui.panels.base.PlotPanel.view_state`). A file is checked whole before
anything in the window changes, so a bad file, or one whose model is gone, leaves the window as
it was.
"""
from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QFileDialog, QTabWidget, QWidget

from ..core.base.errors import TransvizError
from ..core.model.bundle import Model
from ..core.teaching.lesson import SESSION_SUFFIX, Forced, Lesson, Slide, read, write
from ..core.teaching.lesson_run import Models, check, model_source, show
from ..core.teaching.workspace import Workspace
from .panels.lazy_tabs import LazyPanels
from .panels.registry import PANELS
from .services.core_messages import translated
from .services.theme import apply_appearance, current_appearance, restyle


class SessionFiles(QObject):
    """Saves and reopens the window's state.

    Signals:
        status(str): a message for the status bar.
        error(str, str): the title and the message of an error box.
    """

    status = Signal(str)
    error = Signal(str, str)

    def __init__(self, workspace: Workspace, tabs: QTabWidget, panels: LazyPanels, window: QWidget) -> None:
        super().__init__(window)
        self.workspace, self.tabs, self.panels, self.window = workspace, tabs, panels, window
        self.models = Models()

    # -- the state -------------------------------------------------------------------------------------
    def capture(self, folder: Path) -> Slide | None:
        """The window's state as a slide whose model path is relative to ``folder`` where it can be
        (None: no model, or no session to save)."""
        workspace, session = self.workspace, self.workspace.session
        if workspace.model_source is None or session is None:
            return None
        tab = PANELS[self.tabs.currentIndex()].id
        explorer = self.panels["explorer"].view_state()
        assert explorer is not None  # the explorer always shows attention
        history = session.history
        # the session's own strategy: a sampling seed drawn at random is written down
        strategy = workspace.strategy if session.teacher_forcing else session.strategy
        return Slide(model=_relative(workspace.model_source, folder), sentence=workspace.sentence,
                     reference=workspace.reference or None, teacher_forcing=workspace.teacher_forcing,
                     strategy=strategy, steps=len(history),
                     forced=tuple(Forced(r.index, r.token) for r in history if r.forced), tab=tab,
                     page=self.panels[tab].current_page(),
                     view=replace(explorer, colormap=current_appearance().colormap),
                     interventions=workspace.interventions)

    def show_slide(self, slide: Slide, folder: Path) -> None:
        """Put ``slide`` into the window (checked already: raises LessonError otherwise)."""
        source = model_source(slide, folder)
        workspace = self.workspace
        if workspace.model is not None and workspace.decoding_model is not None and workspace.model_source == source:
            loaded: tuple[Model, Model] = (workspace.model, workspace.decoding_model)
        else:
            loaded = self.models.get(source)
        if slide.view.colormap is not None and slide.view.colormap != current_appearance().colormap:
            apply_appearance(replace(current_appearance(), colormap=slide.view.colormap))
            restyle(self.window)
        shown = self.panels[slide.tab]  # built now if it was not: a tab built later takes the workspace as it is
        for panel in self.panels.built():  # before the session: its views then draw once
            panel.apply_view(slide.view)
        show(slide, workspace, source, loaded)
        if slide.page is not None:
            shown.show_page(slide.page)
        self.tabs.setCurrentWidget(shown)
        for panel in self.panels.built():
            panel.apply_quiz(slide.quiz)

    # -- files -----------------------------------------------------------------------------------------
    def save(self, path: str | Path) -> Path:
        """Write the window's state to ``path`` (TransvizError when there is nothing to save)."""
        path = Path(path)
        slide = self.capture(path.resolve().parent)
        if slide is None:
            raise TransvizError(self.tr("there is nothing to save: open a model and type a sentence first"))
        return write(Lesson((slide,), name=path.name), path)

    def open(self, path: str | Path) -> None:
        """Check the file at ``path`` whole, then show it; LessonError (the window unchanged) if it
        cannot be read, its model is gone or it does not run."""
        lesson = read(path)
        if len(lesson.slides) != 1:
            raise TransvizError(self.tr("{0} holds {1} slides: open it as a lesson (File > Open lesson)").format(
                Path(path).name, len(lesson.slides)))
        QGuiApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)  # loading a model, decoding twice
        try:
            check(lesson, self.models)
            self.show_slide(lesson.slides[0], lesson.folder)
        finally:
            QGuiApplication.restoreOverrideCursor()

    def save_with_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self.window, self.tr("Save session"), "session" + SESSION_SUFFIX,
                                              self.tr("transviz sessions (*.transviz)"))
        if not path:
            return
        path = path if path.endswith(SESSION_SUFFIX) else path + SESSION_SUFFIX
        try:
            written = self.save(path)
        except TransvizError as exc:
            self.error.emit(self.tr("Could not save the session"), translated(exc))
            return
        self.status.emit(self.tr("Saved {0}").format(written))

    def open_with_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self.window, self.tr("Open session"), "",
                                              self.tr("transviz sessions (*.transviz);;lessons (*.toml)"))
        if path:
            self.open_reporting(path)

    def open_reporting(self, path: str | Path) -> bool:
        """:meth:`open`, with an error box instead of an exception."""
        try:
            self.open(path)
        except TransvizError as exc:
            self.error.emit(self.tr("Could not open the session"), self.tr("{0}\n\nNothing in the window changed.")
                            .format(translated(exc)))
            return False
        self.status.emit(self.tr("Opened {0}").format(Path(path).name))
        return True


def _relative(source: str, folder: Path) -> str:
    """A checkpoint's path relative to ``folder`` when it lies inside it (the two move together),
    else absolute; a shipped model's name as it is."""
    path = Path(source)
    if not path.is_absolute() and not path.exists():
        return source  # a shipped model's name
    path = path.resolve()
    try:
        return path.relative_to(folder.resolve()).as_posix()
    except ValueError:
        return os.fspath(path)
