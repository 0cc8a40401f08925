"""The main window: the menus, the tabs of :data:`~transviz.gui.panels.registry.PANELS` around
one :class:`~transviz.core.teaching.workspace.Workspace`, the status bar, the View menu's language, theme
and presentation mode, and what the window remembers between runs.

The window only composes: the workspace holds the model and the session, the panels draw it,
:class:`~transviz.gui.services.files.ModelFiles` opens and saves files (dropped ones too),
:class:`~transviz.gui.window_menus.WindowMenus` builds the menu bar.
"""
from __future__ import annotations

import logging
from functools import partial
from pathlib import Path

from PySide6.QtCore import QSize, QTimer, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QMainWindow, QMessageBox, QProgressBar, QTabWidget, QWidget

from .. import __version__
from ..core.base.errors import TransvizError
from ..core.model.bundle import Model
from ..core.model.variants import variant_parts
from ..core.teaching.lesson import read as read_lesson
from ..core.teaching.workspace import Workspace
from .animations import AnimationExport
from .class_student import StudentClass
from .class_teacher import TeacherClass
from .lesson_files import LessonFiles
from .lesson_mode import LessonMode
from .panels.base import PlotPanel
from .panels.lazy_tabs import LazyPanels
from .panels.registry import PANELS
from .services.core_messages import translated
from .services.export import export_with_dialog, save_picture
from .services.files import ModelFiles, model_info, model_name
from .services.help_texts import tab_help
from .services.language import Retranslated, current_language, set_language
from .services.manual import manual_folder, manual_page, open_page
from .services.observe import subscribe
from .services.screen_fit import available_size, fit_to_screen
from .services.settings import SettingsStore, Stored
from .services.theme import apply_appearance, current_appearance, restyle
from .services.wheel_focus import WheelNeedsFocus, wheel_only_with_focus
from .services.window_memory import WindowMemory
from .session_files import SessionFiles
from .widgets.dialogs import error_box, text_dialog
from .widgets.labels import TimedNotice, plain_label
from .widgets.view_menu import ViewChoices
from .window_menus import WindowMenus

log = logging.getLogger(__name__)

NOTICE_SECONDS = 60  # how long a warning about the settings stays in the status bar
STATUS_MS = 8000  # how long a message stays in the status bar
START_SIZE = QSize(1400, 900)  # at most: the screen's available geometry


class MainWindow(Retranslated, QMainWindow):
    """The desktop window around ``workspace`` (a new, empty one by default).

    Args:
        settings: where the window remembers the language, the look, the last model and sentence
            and its layout (:meth:`restore` reads them; choices and closing write them). None: it
            remembers nothing (tests, ``transviz render``, the self-test).
        on_screen: whether the window keeps to its screen (shrinks into its available geometry after
            a change of content); False for a window drawn to a picture.

    Signals:
        model_changed(object): the workspace took another model (a Model, or None).
        load_failed(str): a file could not be opened; the message the error box shows.
    """

    model_changed = Signal(object)
    load_failed = Signal(str)

    def __init__(self, parent: QWidget | None = None, settings: SettingsStore | None = None,
                 workspace: Workspace | None = None, on_screen: bool = True) -> None:
        super().__init__(parent)
        self.settings = settings
        self.on_screen = on_screen  # False: drawn to a picture at the size it is given (transviz render)
        self.workspace = workspace or Workspace()
        self.error_dialog: QMessageBox | None = None
        self.manual = manual_folder()  # Help > Manual's pages (another folder in tests)
        self.files = ModelFiles(self.workspace, self)
        self.tabs = QTabWidget()
        self.memory = WindowMemory(self, self.tabs, self.workspace, settings,
                                   awaited=lambda: self.files.awaited)
        self._build_status_bar()
        self.wheel_keeper = WheelNeedsFocus(self)
        self.panels = LazyPanels(self.tabs, self.workspace, self._panel_built)  # the first tab's built now
        for index, spec in enumerate(PANELS):
            self.bind_text(partial(self.tabs.setTabText, index), spec.shown_title)
        self.setCentralWidget(self.tabs)
        self.sessions = SessionFiles(self.workspace, self.tabs, self.panels, self)
        self.animations = AnimationExport(self.workspace, self.tabs, self.panels, self)
        self.lesson_mode = LessonMode(self, self.sessions)
        self.lesson_mode.active_changed.connect(self._lesson_active)
        self.lesson_files = LessonFiles(self, self, self.lesson_mode, self.sessions, self.memory)
        self.teacher_class = TeacherClass(self, self)  # a live class: this window teaches it ...
        self.student_class = StudentClass(self, self)  # ... or sits in a teacher's
        self.menus = WindowMenus(self)
        self.lesson_mode.active_changed.connect(self.menus.follow_lesson)
        self.view_choices = ViewChoices(self.menus.view, self)
        self.view_choices.chosen.connect(self.memory.remember)
        self.view_choices.chosen.connect(self.refit)
        self.view_choices.show_choices(current_language(), current_appearance())
        self.files.take_drops(self)
        self.lesson_files.take_drops(self)  # after the models': lesson and session files are its
        self.resize(START_SIZE.boundedTo(available_size(self)))
        self.refit()  # once shown: the frame's size is known then
        for source in (self.files, self.sessions, self.animations, self.lesson_files):
            source.error.connect(self.show_error)
            source.status.connect(lambda text: self.statusBar().showMessage(text, STATUS_MS))
        self.files.failed.connect(self.load_failed)
        subscribe(self, self.workspace.model_changed, self._on_model_changed)
        subscribe(self, self.workspace.session_changed, lambda _: self._show_model())
        # "head 1 is switched off" must not outlive Clear all
        subscribe(self, self.workspace.interventions_changed,
                  lambda items: None if items else self.statusBar().clearMessage())
        self._show_model()

    # -- construction --------------------------------------------------------------------------
    def _panel_built(self, panel: PlotPanel) -> None:
        """Wire a tab's panel as it is built (at the start, or when its tab is first shown): its
        messages and requests for a tab, the look in use, the wheel of its spin boxes, its stored
        splitter sizes, the window's fit."""
        panel.status.connect(lambda text: self.statusBar().showMessage(text, STATUS_MS))
        panel.show_panel.connect(lambda name: self.tabs.setCurrentWidget(self.panels[name]))
        restyle(panel)
        wheel_only_with_focus(panel, self.wheel_keeper)
        warnings = self.memory.restore_splitters(panel)
        if warnings:
            self.show_notice(" ".join(warnings))
        self.refit()

    def _build_status_bar(self) -> None:
        self.notice = TimedNotice()  # a warning about the settings
        self.notice.setWordWrap(False)
        self.notice.setVisible(False)
        self.notice.setMaximumWidth(600)
        self.model_label = plain_label()
        self.busy = QProgressBar()
        self.busy.setRange(0, 0)  # indeterminate: checkpoints load in one piece
        self.busy.setMaximumWidth(160)
        self.busy.setVisible(False)
        for widget in (self.notice, self.busy, self.model_label):
            self.statusBar().addPermanentWidget(widget)
        self.files.runner.busy_changed.connect(self.busy.setVisible)

    def retranslate(self) -> None:
        super().retranslate()
        self.menus.retranslate()
        self.view_choices.retranslate()
        self._show_model()
        self.refit()

    def refit(self) -> None:
        """Fit the window to its screen once the layout has taken the new content (a language,
        presentation mode, a model): content that grew the window may have shrunk since."""
        if self.on_screen:
            QTimer.singleShot(0, self, partial(fit_to_screen, self))

    # -- the model -----------------------------------------------------------------------------
    def open_initial_model(self, source: str | None) -> None:
        """At start-up: the model asked for, else the last run's, else the shipped default."""
        notice = self.files.open_initial(source, self.memory.last_model, self.memory.pending_sentence)
        if notice:
            self.show_notice(notice)

    def _on_model_changed(self, model: Model | None) -> None:
        self._show_model()
        self.refit()
        self.memory.remember()
        self.model_changed.emit(model)

    def _show_model(self) -> None:
        model = self.workspace.model
        if model is None:
            self.model_label.setText(self.tr("No model loaded: Model > Open"))
            self.setWindowTitle(self.tr("transviz: no model loaded"))
        else:
            config = model.config
            name, parameters = model_name(model), model.net.parameter_count()
            parts = [translated(part) for part in variant_parts(config)]  # a sibling says which it is
            variants = self.tr("; {0}").format(self.tr(", ").join(parts)) if parts else ""
            if config.n_encoder_layers == config.n_decoder_layers:
                self.model_label.setText(self.tr("Model: {0} ({1:,} parameters, {2} layers, {3} heads{4})").format(
                    name, parameters, config.n_encoder_layers, config.n_heads, variants))
            else:  # an imported model's stacks may differ: one count would misname the other
                self.model_label.setText(self.tr("Model: {0} ({1:,} parameters, {2} encoder and {3} decoder layers, "
                                                 "{4} heads{5})").format(name, parameters, config.n_encoder_layers,
                                                                         config.n_decoder_layers, config.n_heads,
                                                                         variants))
            self.setWindowTitle(self.tr("transviz: {0}").format(model_name(model)))
        self.menus.follow(self.workspace)

    # -- dialogs -----------------------------------------------------------------------------------
    def show_error(self, title: str, message: str) -> QMessageBox:
        if self.error_dialog is not None:
            self.error_dialog.close()
        self.error_dialog = error_box(self, title, message)
        self.error_dialog.destroyed.connect(lambda: setattr(self, "error_dialog", None))
        return self.error_dialog

    def show_model_info(self) -> QWidget | None:
        model = self.workspace.model
        return None if model is None else text_dialog(
            self, self.tr("Model info: {0}").format(model_name(model)), model_info(model), "model_info")

    def show_manual(self, this_tab: bool = False) -> None:
        """Help > Manual (the first page) and F1 (``this_tab``: the page of the tab shown)."""
        tab = PANELS[self.tabs.currentIndex()].id if this_tab else None
        page = manual_page(tab, current_language(), self.manual)
        if page is None:
            self.show_error(self.tr("The manual is not installed"), self.tr(
                "This installation has no manual (looked for it in {0}). In a copy of the source, build it with: "
                "python docs/build_manual.py").format(self.manual))
        elif not open_page(page):
            self.show_error(self.tr("Could not open the manual"), self.tr(
                "No web browser opened the page. Open this file in one: {0}").format(page))

    def show_tab_help(self) -> QWidget:
        """Help > How to read this tab, for the tab shown."""
        spec = PANELS[self.tabs.currentIndex()]
        return text_dialog(self, self.tr("How to read: {0}").format(spec.shown_title()), tab_help(spec.id), "tab_help")

    def open_lesson(self, path: str | Path) -> bool:
        """Present the lesson at ``path`` (checked whole first: an error box, and nothing changes);
        its warnings (allowed, likely not meant) show in the status bar."""
        try:
            lesson = read_lesson(path)
            self.lesson_mode.start(lesson)
        except TransvizError as exc:
            self.show_error(self.tr("Could not open the lesson"), self.tr("{0}\n\nNothing in the window changed.")
                            .format(translated(exc)))
            self.lesson_files.failed(path)
            return False
        self.lesson_files.opened(path)
        if lesson.warnings:
            self.show_notice(" ".join(translated(w) for w in lesson.warnings))
        return True

    def _lesson_active(self, active: bool) -> None:
        """A lesson's settings are not the user's: the settings file keeps the user's meanwhile."""
        if active:
            self.memory.hold()
        else:
            self.memory.release()
            self.view_choices.show_choices(current_language(), current_appearance())  # the user's colormap again

    def show_about(self) -> None:
        QMessageBox.about(self, self.tr("About transviz"), self.tr(
            "transviz {0}: look inside a small encoder-decoder Transformer.").format(__version__))

    # -- pictures ------------------------------------------------------------------------
    def current_plot(self) -> QWidget:
        return self.panels[PANELS[self.tabs.currentIndex()].id].current_plot()

    def _plot_title(self) -> str:
        return getattr(self.current_plot(), "title", "") or self.tabs.tabText(self.tabs.currentIndex())

    def export_current_plot(self, path: str | Path) -> Path:
        return save_picture(self.current_plot(), path, self._plot_title())

    def export_plot_with_dialog(self, suffix: str) -> None:
        export_with_dialog(self.current_plot(), suffix, self._plot_title(), parent=self)

    # -- closing -----------------------------------------------------------------------------------
    def shutdown(self, wait: bool = True) -> None:
        """Stop the worker threads (quit + wait; a training run stops and saves first); safe to call
        twice. Without ``wait``, a model still loading is dropped but not waited for; call again
        with ``wait`` before the window is deleted (``gui.app.run`` does)."""
        self.teacher_class.stop()  # the port closes with the window
        self.student_class.leave()
        for panel in self.panels.built():  # a tab never shown has no threads
            panel.shutdown()
        self.files.shutdown(wait)

    def closeEvent(self, event: QCloseEvent) -> None:
        if not all(panel.confirm_close(self.close) for panel in self.panels.built()):
            event.ignore()
            return
        self.memory.remember(with_layout=True)
        self.shutdown(wait=False)  # a large model loading does not keep the window open
        super().closeEvent(event)

    # -- what is remembered ----------------------------------------------------------------------
    def restore(self, stored: Stored) -> None:
        """Take what the settings held: language, look, layout, the last model and sentence (call
        before showing the window and opening the initial model). Warnings show in the status bar."""
        preferences = stored.preferences
        set_language(preferences.language)
        apply_appearance(preferences.appearance)
        restyle(self)
        self.view_choices.show_choices(preferences.language, preferences.appearance)
        warnings = [*stored.warnings, *self.memory.restore(preferences, stored.layout)]
        self.lesson_files.recent_changed.emit()  # File > Recent lessons lists the stored ones
        fit_to_screen(self)  # a geometry saved on a larger screen
        if warnings:
            self.show_notice(" ".join(warnings))

    def show_notice(self, text: str) -> None:
        """A warning in the status bar for a minute (the full text in its tooltip), and in the log."""
        log.warning("%s", text)
        self.notice.show_for(text, NOTICE_SECONDS)
