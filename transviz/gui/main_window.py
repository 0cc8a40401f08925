"""The main window: menus, tabs, loading and saving models off the GUI thread, drag and drop,
errors shown in a dialog that leaves the current model loaded, export of plots and traces; the
View menu's language, theme, colormap and presentation mode; what it remembers between runs.

It composes the panels and hands each the loaded model; the panels draw what the core computes.
The masks tab follows the explorer's sentence and target prefix.
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QCoreApplication, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import (
    QDialog, QDialogButtonBox, QFileDialog, QMainWindow, QMenu, QMenuBar, QMessageBox, QPlainTextEdit,
    QProgressBar, QSplitter, QTabWidget, QVBoxLayout, QWidget,
)

from .. import __version__, load_model, save_model
from ..core.bundle import Model
from ..core.checkpoint import description
from ..core.errors import InputError, TransvizError
from ..core.resources import DEFAULT_MODEL, shipped_models
from ..core.trace_files import SUFFIXES as TRACE_SUFFIXES
from ..core.trace_files import write_trace
from .core_messages import translated, translated_lines
from .drops import dropped_file
from .export import export_with_dialog, save_picture
from .help_texts import EXPLORER, LAB, MASKS, POSITIONAL, TRAINING, tab_help
from .labels import error_label, plain_label
from .language import Retranslated, current_language, set_language
from .panels.base import PlotPanel
from .panels.explorer import ExplorerPanel
from .panels.lab import LabPanel
from .panels.masks import MasksPanel
from .panels.positional import PositionalPanel
from .panels.training import TrainingPanel
from .settings import Preferences, SettingsStore, Stored, WindowLayout
from .theme import Appearance, apply_appearance, current_appearance, restyle
from .view_menu import ViewChoices
from .workers import TaskRunner, TaskState

log = logging.getLogger(__name__)

CHECKPOINT_SUFFIX = ".safetensors"
NOTICE_SECONDS = 60  # how long a warning about the settings stays in the status bar


def _load(source: str, state: TaskState) -> Model:
    """The loading task (worker thread): a checkpoint file or a shipped model's name."""
    state.set_status(source)
    return load_model(source)


def model_name(model: Model) -> str:
    return Path(model.path).stem if model.path else QCoreApplication.translate("MainWindow", "unsaved model")


def model_info(model: Model) -> str:
    """Everything Model > Info shows: the checkpoint's description and where the model runs, in
    the language in use."""
    device = QCoreApplication.translate("MainWindow", "device: {0}").format(model.device)
    return translated_lines(description(model)) + "\n" + device


class MainWindow(Retranslated, QMainWindow):
    """The desktop window. ``model`` is the loaded model, or None before the first load.

    Args:
        settings: where the window remembers the language, the look, the last model and sentence
            and its layout (:meth:`restore` reads them; choices and closing write them). None: it
            remembers nothing (tests, ``transviz render``, the self-test).

    Signals:
        model_changed(object): a model was loaded (the :class:`~transviz.core.bundle.Model`).
        load_failed(str): a file could not be opened; the message the error dialog shows.
    """

    model_changed = Signal(object)
    load_failed = Signal(str)

    def __init__(self, parent: QWidget | None = None, settings: SettingsStore | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.model: Model | None = None
        self.model_source: str | None = None  # the file or shipped model opened last
        self._pending_sentence: str | None = None  # the last run's sentence, typed once a model loads
        self._shipped: dict[str, Path] = {}
        self._was_maximized = False  # before presentation mode
        self.runner = TaskRunner(self)
        self.error_dialog: QMessageBox | None = None
        self.explorer = ExplorerPanel()
        self.positional = PositionalPanel()
        self.masks = MasksPanel()
        self.training = TrainingPanel()
        self.lab = LabPanel()
        self.tabs = QTabWidget()
        self.help_topics = {self.explorer: EXPLORER, self.positional: POSITIONAL, self.masks: MASKS,
                            self.training: TRAINING, self.lab: LAB}
        for panel, name in ((self.explorer, lambda: self.tr("Explorer")),
                            (self.positional, lambda: self.tr("Positional encoding")),
                            (self.masks, lambda: self.tr("Masks")), (self.training, lambda: self.tr("Training")),
                            (self.lab, lambda: self.tr("Lab"))):
            index = self.tabs.addTab(panel, "")
            self.bind_text(lambda text, i=index: self.tabs.setTabText(i, text), name)
        self.setCentralWidget(self.tabs)
        self.training.use_model.connect(self.use_trained_model)
        self.training.running_changed.connect(self._close_if_asked)
        self._close_after_training = False
        self._build_status_bar()
        self._build_menus()
        self.setAcceptDrops(True)
        self.resize(1400, 900)
        self.explorer.status.connect(lambda text: self.statusBar().showMessage(text, 8000))
        self.explorer.controller.session_changed.connect(self._follow_session)
        self.explorer.controller.changed.connect(self._follow_session)
        self._show_model()

    # -- construction --------------------------------------------------------------------------
    def _build_status_bar(self) -> None:
        self.notice = error_label()  # a warning about the settings, shown for a minute
        self.notice.setWordWrap(False)
        self.notice.setMaximumWidth(600)  # the whole text is in its tooltip
        self.statusBar().addPermanentWidget(self.notice)
        self.model_label = plain_label()
        self.busy = QProgressBar()
        self.busy.setRange(0, 0)  # indeterminate: checkpoints load in one piece
        self.busy.setMaximumWidth(160)
        self.busy.setVisible(False)
        self.statusBar().addPermanentWidget(self.busy)
        self.statusBar().addPermanentWidget(self.model_label)
        self.runner.busy_changed.connect(self.busy.setVisible)
        self.runner.status.connect(lambda text: self.statusBar().showMessage(self.tr("Loading {0}...").format(text)))

    def _menu(self, parent: QMenuBar | QMenu, title: Callable[[], str]) -> QMenu:
        menu = parent.addMenu("")
        self.bind_text(menu.setTitle, title)
        return menu

    def _action(self, menu: QMenu, text: Callable[[], str], slot: Callable[[], object],
                shortcut: QKeySequence | QKeySequence.StandardKey | str | None = None) -> QAction:
        action = menu.addAction("")
        self.bind_text(action.setText, text)
        action.triggered.connect(slot)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        return action

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file = self._menu(bar, lambda: self.tr("&File"))
        self._action(file, lambda: self.tr("Export current plot as &PNG..."), lambda: self._export_with_dialog(".png"))
        self._action(file, lambda: self.tr("Export current plot as S&VG..."), lambda: self._export_with_dialog(".svg"))
        self.export_trace_action = self._action(file, lambda: self.tr("Export &trace as .npz or JSON..."),
                                                self._export_trace_with_dialog, "Ctrl+E")
        file.addSeparator()
        self._action(file, lambda: self.tr("&Quit"), self.close, QKeySequence.StandardKey.Quit)

        model = self._menu(bar, lambda: self.tr("&Model"))
        self._action(model, lambda: self.tr("&Open checkpoint..."), self._open_with_dialog,
                     QKeySequence.StandardKey.Open)
        self.shipped_menu = self._menu(model, lambda: self.tr("Shipped &models"))
        self.populate_shipped_menu(shipped_models())
        self.save_action = self._action(model, lambda: self.tr("&Save model as..."), self._save_with_dialog,
                                        QKeySequence.StandardKey.SaveAs)
        model.addSeparator()
        self.info_action = self._action(model, lambda: self.tr("&Info..."), self.show_model_info, "Ctrl+I")

        view = self._menu(bar, lambda: self.tr("&View"))
        for index in range(self.tabs.count()):
            self._action(view, lambda i=index: self.tabs.tabText(i),
                         lambda _=False, i=index: self.tabs.setCurrentIndex(i), f"Ctrl+{index + 1}")
        view.addSeparator()
        self.view_choices = ViewChoices(view, self)
        self.view_choices.language_chosen.connect(self.choose_language)
        self.view_choices.appearance_chosen.connect(self.choose_appearance)
        self.view_choices.show_choices(current_language(), current_appearance())

        help_menu = self._menu(bar, lambda: self.tr("&Help"))
        self._action(help_menu, lambda: self.tr("How to read this &tab"), self.show_tab_help,
                     QKeySequence.StandardKey.HelpContents)
        self._action(help_menu, lambda: self.tr("&About transviz"), self.show_about)

    def retranslate(self) -> None:
        super().retranslate()  # tabs first: the View menu names them
        self.view_choices.retranslate()
        self.populate_shipped_menu(self._shipped)
        self._show_model()

    def populate_shipped_menu(self, models: dict[str, Path]) -> None:
        """List the shipped models by name (Model > Shipped models)."""
        self._shipped = dict(models)
        self.shipped_menu.clear()
        for name, path in models.items():  # a model's name is its file's: not translated
            self.shipped_menu.addAction(name).triggered.connect(lambda _=False, p=path: self.open_model(p))
        if not models:
            self.shipped_menu.addAction(self.tr("(none installed)")).setEnabled(False)

    # -- the model -----------------------------------------------------------------------------
    def open_initial_model(self, source: str | None) -> None:
        """At start-up: the model asked for, else the last run's (when it is still there), else the
        shipped default, else the "no model" state."""
        shipped = shipped_models()
        last = self.model_source
        if source is None and last is not None:
            if last in shipped or Path(last).is_file():
                source = last
            else:
                self.show_notice(self.tr("The last model, {0}, is not there any more.").format(last))
        if source is None and DEFAULT_MODEL in shipped:
            source = DEFAULT_MODEL
        if source is not None:
            self.open_model(source)

    def open_model(self, source: str | Path) -> None:
        """Load a checkpoint file or shipped model off the GUI thread; on success it replaces the
        current model (and is remembered), on failure an error dialog says why and the current
        model stays."""
        source = str(source)
        self.runner.start(lambda state: _load(source, state), lambda model: self._loaded(source, model),
                          lambda exc: self._load_failed(source, exc))

    def _loaded(self, source: str, model: Model) -> None:
        # a shipped model is remembered by name: the classroom bundle may move
        self.model_source = next((name for name, path in shipped_models().items() if str(path) == source), source)
        self.set_model(model)
        self.remember()

    def set_model(self, model: Model | None) -> None:
        self.model = model
        for panel in self._panels():
            panel.set_model(model)
        if model is not None and self._pending_sentence:
            self.explorer.source.sentence.setText(self._pending_sentence)  # the last run's sentence
            self._pending_sentence = None
        self._show_model()
        if model is not None:
            self.statusBar().showMessage(self.tr("Loaded {0}").format(model_name(model)), 5000)
            self.model_changed.emit(model)

    def use_trained_model(self, model: Model) -> None:
        """The training tab's "Use in explorer": a copy of the trained model becomes the window's model."""
        self.set_model(model)
        self.tabs.setCurrentWidget(self.explorer)
        self.statusBar().showMessage(self.tr("The trained model is now the explorer's model"), 5000)

    def _show_model(self) -> None:
        if self.model is None:
            self.model_label.setText(self.tr("No model loaded: Model > Open"))
            self.setWindowTitle(self.tr("transviz: no model loaded"))
        else:
            config = self.model.config
            self.model_label.setText(self.tr("Model: {0} ({1:,} parameters, {2} layers, {3} heads)").format(
                model_name(self.model), self.model.net.parameter_count(), config.n_encoder_layers, config.n_heads))
            self.setWindowTitle(self.tr("transviz: {0}").format(model_name(self.model)))
        self.save_action.setEnabled(self.model is not None)
        self.info_action.setEnabled(self.model is not None)
        self.export_trace_action.setEnabled(self.explorer.controller.session is not None)

    def _load_failed(self, source: str, exc: Exception) -> None:
        if isinstance(exc, TransvizError):
            reason = translated(exc)
        else:
            log.exception("unexpected error while loading %s", source, exc_info=exc)
            reason = self.tr("unexpected error: {0}").format(exc)
        kept = self.tr("The current model stays loaded.") if self.model else self.tr("No model is loaded.")
        message = self.tr("Could not open {0}.\n\n{1}\n\n{2}").format(Path(source).name, reason, kept)
        self.statusBar().showMessage(self.tr("Could not open {0}").format(Path(source).name), 8000)
        self.show_error(self.tr("Could not open the model"), message)
        self.load_failed.emit(message)

    def save_model_as(self, path: str | Path) -> None:
        """Write the current model to ``path`` (atomically, off the GUI thread)."""
        if self.model is None:
            return
        model, path = self.model, Path(path)
        self.runner.start(lambda state: save_model(model, path),
                          lambda saved: self.statusBar().showMessage(self.tr("Saved {0}").format(saved), 5000),
                          lambda exc: self.show_error(self.tr("Could not save the model"), str(exc)))

    # -- dialogs -----------------------------------------------------------------------------------
    def show_error(self, title: str, message: str) -> QMessageBox:
        """A window-modal error box that does not block the event loop (tests can find and close it)."""
        if self.error_dialog is not None:
            self.error_dialog.close()
        box = QMessageBox(QMessageBox.Icon.Critical, title, message, QMessageBox.StandardButton.Ok, self)
        box.setObjectName("error_dialog")
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.destroyed.connect(lambda: setattr(self, "error_dialog", None))
        box.open()
        self.error_dialog = box
        return box

    def _text_dialog(self, title: str, text: str, name: str) -> QDialog:
        dialog = QDialog(self)
        dialog.setObjectName(name)
        dialog.setWindowTitle(title)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        body = QPlainTextEdit(text)
        body.setReadOnly(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(dialog.close)
        layout = QVBoxLayout(dialog)
        layout.addWidget(body)
        layout.addWidget(buttons)
        dialog.resize(560, 420)
        dialog.open()
        return dialog

    def show_model_info(self) -> QDialog | None:
        if self.model is None:
            return None
        return self._text_dialog(self.tr("Model info: {0}").format(model_name(self.model)),
                                 model_info(self.model), "model_info")

    def show_tab_help(self) -> QDialog:
        """Help > How to read this tab, for the tab shown."""
        topic = self.help_topics.get(self.tabs.currentWidget(), "")
        return self._text_dialog(self.tr("How to read: {0}").format(self.tabs.tabText(self.tabs.currentIndex())),
                                 tab_help(topic), "tab_help")

    def show_about(self) -> None:
        QMessageBox.about(self, self.tr("About transviz"), self.tr(
            "transviz {0}: look inside a small encoder-decoder Transformer.").format(__version__))

    # -- files -------------------------------------------------------------------------------------
    def _open_with_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Open checkpoint"), "",
                                              self.tr("transviz checkpoints (*.safetensors)"))
        if path:
            self.open_model(path)

    def _save_with_dialog(self) -> None:
        if self.model is None:
            return
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Save model as"),
                                              model_name(self.model) + CHECKPOINT_SUFFIX,
                                              self.tr("transviz checkpoints (*.safetensors)"))
        if path:
            self.save_model_as(path if path.endswith(CHECKPOINT_SUFFIX) else path + CHECKPOINT_SUFFIX)

    def current_plot(self) -> QWidget:
        panel = self.tabs.currentWidget()
        return panel.current_plot() if isinstance(panel, PlotPanel) else panel

    def _plot_title(self) -> str:
        plot = self.current_plot()
        return getattr(plot, "title", "") or self.tabs.tabText(self.tabs.currentIndex())

    def export_current_plot(self, path: str | Path) -> Path:
        return save_picture(self.current_plot(), path, self._plot_title())

    def _export_with_dialog(self, suffix: str) -> None:
        export_with_dialog(self.current_plot(), suffix, self._plot_title(), parent=self)

    @staticmethod
    def _dropped_checkpoint(event: QDragEnterEvent | QDropEvent) -> str | None:
        return dropped_file(event, (CHECKPOINT_SUFFIX,))

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if self._dropped_checkpoint(event):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:
        path = self._dropped_checkpoint(event)
        if path:
            event.acceptProposedAction()
            self.open_model(path)

    # -- the explorer's trace -------------------------------------------------------------------------
    def _follow_session(self, *_: object) -> None:
        """The masks tab shows the explorer's sentence and the target written so far."""
        session = self.explorer.controller.session
        self.export_trace_action.setEnabled(session is not None)
        if session is not None:
            self.masks.follow(session.source, session.model.tgt_vocab.detokenize(session.target_tokens[1:]))

    def export_trace(self, path: str | Path) -> Path:
        """Write the explorer's trace (the best hypothesis so far) as .npz or JSON."""
        session = self.explorer.controller.session
        if session is None:
            raise InputError(self.tr("there is no trace to export: type a sentence in the explorer first"))
        return write_trace(session, path)

    def _export_trace_with_dialog(self) -> None:
        path, chosen = QFileDialog.getSaveFileName(self, self.tr("Export trace"), "trace.npz",
                                                   self.tr("NumPy arrays (*.npz);;JSON (*.json)"))
        if not path:
            return
        if not path.lower().endswith(TRACE_SUFFIXES):
            path += ".json" if "json" in chosen else ".npz"
        try:
            written = self.export_trace(path)
        except (OSError, TransvizError) as exc:
            self.show_error(self.tr("Could not export the trace"), str(exc))
            return
        self.statusBar().showMessage(self.tr("Exported {0}").format(written), 5000)

    # -- teardown ----------------------------------------------------------------------------------
    def _panels(self) -> list[PlotPanel]:
        return [self.explorer, self.positional, self.masks, self.training]

    def shutdown(self) -> None:
        """Stop the worker threads (quit + wait; a training run stops and saves first); safe to call twice."""
        self.training.shutdown()
        self.lab.shutdown()
        if self.runner.thread.isRunning():
            self.runner.shutdown()

    def ask_to_stop_training(self) -> QMessageBox:
        """Closing while a model trains: ask first; "Stop and close" stops it, saves, then closes."""
        box = QMessageBox(QMessageBox.Icon.Question, self.tr("Training is running"), self.tr(
            "A model is being trained. Stop the training and close transviz?\n\nThe model trained so far will "
            "be saved to:\n{0}").format(self.training.checkpoint), QMessageBox.StandardButton.Cancel, self)
        box.setObjectName("stop_training_question")
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        stop = box.addButton(self.tr("Stop training and close"), QMessageBox.ButtonRole.AcceptRole)
        stop.clicked.connect(self._stop_training_and_close)
        box.open()
        return box

    def _stop_training_and_close(self) -> None:
        self._close_after_training = True
        if not self.training.is_running():  # it ended while the question was open
            self.close()
            return
        self.statusBar().showMessage(self.tr("Stopping the training and saving to {0}...").format(
            self.training.checkpoint))
        self.training.stop()

    def _close_if_asked(self, running: bool) -> None:
        if not running and self._close_after_training:
            self.close()

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.training.is_running():
            event.ignore()
            self.ask_to_stop_training()
            return
        self.remember(with_layout=True)
        self.shutdown()
        super().closeEvent(event)

    # -- language, look and what is remembered ----------------------------------------------------
    def choose_language(self, code: str) -> None:
        """View > Language: every text of the window changes on the event loop's next pass."""
        set_language(code)
        self.view_choices.show_choices(code, current_appearance())
        self.remember()

    def choose_appearance(self, appearance: Appearance) -> None:
        """View > Theme, Colormap, Presentation mode: applied to every plot at once."""
        entering = appearance.presentation and not current_appearance().presentation
        leaving = current_appearance().presentation and not appearance.presentation
        apply_appearance(appearance)
        restyle(self)
        if entering:
            self._was_maximized = self.isMaximized()
            self.showFullScreen()
        elif leaving and self._was_maximized:
            self.showMaximized()
        elif leaving:
            self.showNormal()
        self.view_choices.show_choices(current_language(), appearance)
        self.remember()

    def show_as_chosen(self) -> None:
        """Show the window: full screen in presentation mode."""
        if current_appearance().presentation:
            self.showFullScreen()
        else:
            self.show()

    def preferences(self) -> Preferences:
        sentence = self.explorer.source.sentence.text()
        return Preferences(current_language(), current_appearance(), self.model_source,
                           sentence or self._pending_sentence)

    def layout_state(self) -> WindowLayout:
        # a splitter on a tab never shown this time has no sizes: its stored state stays as it was
        splitters = {splitter.objectName(): bytes(splitter.saveState().data())
                     for splitter in self.findChildren(QSplitter) if splitter.objectName() and sum(splitter.sizes())}
        return WindowLayout(bytes(self.saveGeometry().data()), splitters, self.tabs.currentIndex())

    def remember(self, with_layout: bool = False) -> None:
        """Write the preferences (and the layout) to the settings, if the window has settings."""
        if self.settings is None:
            return
        self.settings.save_preferences(self.preferences())
        if with_layout:
            self.settings.save_layout(self.layout_state())

    def restore(self, stored: Stored) -> None:
        """Take what the settings held: language, look, layout, the last model and sentence (call
        before showing the window and opening the initial model). Warnings show in the status bar."""
        preferences, layout = stored.preferences, stored.layout
        warnings = list(stored.warnings)
        set_language(preferences.language)
        apply_appearance(preferences.appearance)
        restyle(self)
        self.view_choices.show_choices(preferences.language, preferences.appearance)
        self.model_source, self._pending_sentence = preferences.last_model, preferences.last_sentence
        if layout.geometry is not None and not self.restoreGeometry(layout.geometry):
            warnings.append(self.tr("The saved window size could not be used."))
        for splitter in self.findChildren(QSplitter):
            state = layout.splitters.get(splitter.objectName())
            if state is not None and not splitter.restoreState(state):
                warnings.append(self.tr("The saved layout of {0} could not be used.").format(splitter.objectName()))
        if 0 <= layout.tab < self.tabs.count():
            self.tabs.setCurrentIndex(layout.tab)
        if warnings:
            self.show_notice(" ".join(warnings))

    def show_notice(self, text: str) -> None:
        """A warning in the status bar for a minute (the full text in its tooltip), and in the log."""
        log.warning("%s", text)
        self.notice.setText(text)
        self.notice.setToolTip(text)
        self.notice.setVisible(True)
        QTimer.singleShot(NOTICE_SECONDS * 1000, self.notice, lambda: self.notice.setVisible(False))
