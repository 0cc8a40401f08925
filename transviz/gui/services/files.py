"""The window's files: models opened (a dialog, a drop, a shipped model's name) and saved off
the GUI thread, and the explorer's trace exported. A file that cannot be used leaves the
workspace's model as it was; the window shows why."""
from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Signal
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QFileDialog, QWidget

from ... import load_model, save_model
from ...core.base.errors import InputError, TransvizError
from ...core.decoding.trace_files import SUFFIXES as TRACE_SUFFIXES
from ...core.decoding.trace_files import write_trace
from ...core.io.checkpoint import SUFFIX as CHECKPOINT_SUFFIX
from ...core.io.checkpoint import description
from ...core.io.resources import default_model, shipped_models
from ...core.model.bundle import Model, decoding_copy
from ...core.teaching.workspace import Workspace
from .core_messages import translated, translated_lines
from .drops import dropped_file, dropped_folder
from .language import current_language
from .workers import TaskRunner, TaskState

log = logging.getLogger(__name__)


def model_name(model: Model) -> str:
    return Path(model.path).stem if model.path else QCoreApplication.translate("MainWindow", "unsaved model")


def model_info(model: Model) -> str:
    """Everything Model > Info shows: the checkpoint's description and where the model runs, in
    the language in use."""
    device = QCoreApplication.translate("MainWindow", "device: {0}").format(model.device)
    return translated_lines(description(model)) + "\n" + device


Loaded = tuple[Model, Model]  # a model and the copy its sessions decode with


def _load(source: str, state: TaskState) -> Loaded | None:
    """The loading task (worker thread): a checkpoint file or a shipped model's name, and its
    decoding copy (copying a large model on the GUI thread would hold the window up). None when
    the load was cancelled meanwhile: another model was asked for, or the window closed."""
    state.set_status(Path(source).name)
    model = load_model(source)
    if state.is_cancelled():
        return None
    return model, decoding_copy(model)


class ModelFiles(QObject):
    """Opens and saves the workspace's model, and exports its session's trace.

    Signals:
        loaded(object): a model was opened and is now the workspace's.
        failed(str): a file could not be opened; the message the error box shows.
        status(str): a message for the status bar.
        error(str, str): something went wrong: the title and the message of an error box.
    """

    loaded = Signal(object)
    failed = Signal(str)
    status = Signal(str)
    error = Signal(str, str)

    def __init__(self, workspace: Workspace, window: QWidget) -> None:
        super().__init__(window)
        self.workspace = workspace
        self.window = window
        self.runner = TaskRunner(self)
        self.runner.status.connect(lambda text: self.status.emit(self.tr("Loading {0}...").format(text)))
        # the model asked for at start-up while the shipped default stands in for it (None: none)
        self.awaited: str | None = None

    # -- opening -----------------------------------------------------------------------------------
    def open(self, source: str | Path, sentence: str | None = None, fall_back: bool = False) -> None:
        """Load a checkpoint file or shipped model off the GUI thread; on success it becomes the
        workspace's model (with ``sentence``, else its first example; with ``fall_back``, the first
        example when the model cannot read ``sentence``), on failure ``error`` says why and the
        current model stays. A model still loading is abandoned, the one awaited since start-up too."""
        self.awaited = None
        self._start(str(source), sentence, fall_back)

    def _start(self, source: str, sentence: str | None = None, fall_back: bool = False,
               then: Callable[[], None] | None = None) -> None:
        """Load ``source``; then ``then()``, unless another load was started meanwhile."""
        def done(loaded: Loaded | None) -> None:
            self._loaded(source, sentence, loaded, fall_back)
            if then is not None:
                then()

        def failed(exc: Exception) -> None:
            self._failed(source, exc)
            if then is not None:
                then()

        self.runner.start(lambda state: _load(source, state), done, failed)

    def open_initial(self, source: str | None, last: str | None, sentence: str | None) -> str | None:
        """At start-up: ``source`` if given, else the last run's model (with its ``sentence``) when
        it is still there, else the shipped default, else nothing; a notice when the last model
        is gone. A checkpoint file may be large: the shipped default is shown while it loads."""
        notice, shipped, remembered = None, shipped_models(), None
        default = default_model(current_language(), shipped)  # a Chinese window opens on zh-en
        if source is None and last is not None:
            if last in shipped or Path(last).exists():  # a file, or a Hugging Face folder
                source, remembered = last, sentence  # a remembered sentence belongs to its model
            else:
                notice = self.tr("The last model, {0}, is not there any more.").format(last)
        if source is None and default in shipped:
            source = default
        if source is None:
            return notice
        if source in shipped or default not in shipped:
            self._start(source, remembered, fall_back=True)
        else:
            self.awaited = source
            self._start(default, then=lambda: self._load_awaited(remembered))
        return notice

    def _load_awaited(self, sentence: str | None) -> None:
        if self.awaited is not None:
            self._start(self.awaited, sentence, fall_back=True)

    def _loaded(self, source: str, sentence: str | None, loaded: Loaded | None, fall_back: bool = False) -> None:
        if loaded is None:
            return
        if source == self.awaited:
            self.awaited = None  # before the workspace changes: the window remembers this model now
        model, decoding = loaded
        # a shipped model is remembered by name: the classroom bundle may move
        name = next((name for name, path in shipped_models().items() if str(path) == source), source)
        if self.workspace.set_model(model, name, sentence, fall_back, decoding):
            self.status.emit(self.tr("Loaded {0}; it cannot read the remembered sentence \"{1}\", so it starts with "
                                     "its first example").format(model_name(model), sentence))
        else:
            self.status.emit(self.tr("Loaded {0}").format(model_name(model)))
        self.loaded.emit(model)

    def _failed(self, source: str, exc: Exception) -> None:
        if source == self.awaited:
            self.awaited = None
        if isinstance(exc, TransvizError):
            reason = translated(exc)
        else:
            log.exception("unexpected error while loading %s", source, exc_info=exc)
            reason = self.tr("unexpected error: {0}").format(exc)
        kept = self.tr("The current model stays loaded.") if self.workspace.model else self.tr("No model is loaded.")
        message = self.tr("Could not open {0}.\n\n{1}\n\n{2}").format(Path(source).name, reason, kept)
        self.status.emit(self.tr("Could not open {0}").format(Path(source).name))
        self.error.emit(self.tr("Could not open the model"), message)
        self.failed.emit(message)

    def open_with_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self.window, self.tr("Open checkpoint"), "",
                                              self.tr("transviz checkpoints (*.safetensors)"))
        if path:
            self.open(path)

    def open_folder_with_dialog(self) -> None:
        """A Hugging Face model's folder (MarianMT, BART, saved with save_pretrained)."""
        path = QFileDialog.getExistingDirectory(self.window, self.tr("Open a Hugging Face model folder"))
        if path:
            self.open(path)

    @staticmethod
    def dropped_checkpoint(event: QDragEnterEvent | QDropEvent) -> str | None:
        """A checkpoint file, or a folder (a Hugging Face model), the drag carries."""
        return dropped_file(event, (CHECKPOINT_SUFFIX,)) or dropped_folder(event)

    def take_drops(self, widget: QWidget) -> None:
        """Open a checkpoint or a model folder dropped on ``widget`` (the window); other drags are refused."""
        widget.setAcceptDrops(True)
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind not in (QEvent.Type.DragEnter, QEvent.Type.Drop) or not isinstance(event, QDropEvent):
            return super().eventFilter(watched, event)
        path = self.dropped_checkpoint(event)
        if path:
            event.acceptProposedAction()
            if kind == QEvent.Type.Drop:
                self.open(path)
        elif kind == QEvent.Type.DragEnter:
            event.ignore()
        return True

    # -- saving ------------------------------------------------------------------------------------
    def save_as(self, path: str | Path) -> None:
        """Write the workspace's model to ``path`` (atomically, off the GUI thread)."""
        model, path = self.workspace.model, Path(path)
        if model is None:
            return
        self.runner.start(lambda state: save_model(model, path),
                          lambda saved: self.status.emit(self.tr("Saved {0}").format(saved)),
                          lambda exc: self.error.emit(self.tr("Could not save the model"), translated(exc)))

    def save_with_dialog(self) -> None:
        if self.workspace.model is None:
            return
        path, _ = QFileDialog.getSaveFileName(self.window, self.tr("Save model as"),
                                              model_name(self.workspace.model) + CHECKPOINT_SUFFIX,
                                              self.tr("transviz checkpoints (*.safetensors)"))
        if path:
            self.save_as(path if path.endswith(CHECKPOINT_SUFFIX) else path + CHECKPOINT_SUFFIX)

    # -- the explorer's trace ----------------------------------------------------------------------
    def export_trace(self, path: str | Path) -> Path:
        """Write the explorer's trace (the best hypothesis so far) as .npz or JSON."""
        session = self.workspace.session
        if session is None:
            raise InputError(self.tr("there is no trace to export: type a sentence in the explorer first"))
        return write_trace(session, path)

    def export_trace_with_dialog(self) -> None:
        path, chosen = QFileDialog.getSaveFileName(self.window, self.tr("Export trace"), "trace.npz",
                                                   self.tr("NumPy arrays (*.npz);;JSON (*.json)"))
        if not path:
            return
        if not path.lower().endswith(TRACE_SUFFIXES):
            path += ".json" if "json" in chosen else ".npz"
        try:
            written = self.export_trace(path)
        except (OSError, TransvizError) as exc:
            self.error.emit(self.tr("Could not export the trace"), translated(exc))
            return
        self.status.emit(self.tr("Exported {0}").format(written))

    def shutdown(self, wait: bool = True) -> None:
        """Cancel what the worker does (a model loading is dropped) and end its thread; without
        ``wait``, the thread ends when the task it runs returns (call again with ``wait`` later)."""
        if not self.runner.worker_thread.isRunning():
            return
        if wait:
            self.runner.shutdown()
        else:
            self.runner.stop()
