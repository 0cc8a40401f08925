"""Lessons a teacher writes, opened and built from the window: File > Open lesson (and a lesson file
dropped on the window), File > Recent lessons (remembered in the settings), File > Close lesson,
and File > Add the current state as a slide, which appends the window's state with a caption to a
lesson file (:func:`transviz.core.teaching.lesson.append`: the file's own text is kept, the slide is
added after it, atomically; a file that is no lesson is never replaced).
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QEvent, QObject, Signal
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QMenu,
    QPushButton,
    QWidget,
)

from ..core.base.errors import TransvizError
from ..core.io.resources import shipped_lessons
from ..core.teaching.lesson import SESSION_SUFFIX, SUFFIX, Lesson, append
from .lesson_mode import LessonMode
from .services.core_messages import translated
from .services.drops import dropped_file
from .services.language import Retranslated
from .services.window_memory import WindowMemory
from .session_files import SessionFiles
from .widgets.labels import plain_label

LESSON_FILTER = "*" + SUFFIX


class LessonHost(Protocol):
    """The main window as the lesson files see it."""

    def open_lesson(self, path: str | Path) -> bool: ...


class AddSlideDialog(Retranslated, QDialog):
    """The caption of the slide to add (English, and Chinese if wanted), the lesson file it is
    added to (one that does not exist yet is made, with the title given)."""

    def __init__(self, parent: QWidget | None, path: str = "") -> None:
        super().__init__(parent)
        self.setObjectName("add_slide")
        self.caption_en = QLineEdit()
        self.caption_zh = QLineEdit()
        self.file = QLineEdit(path)
        self.choose = QPushButton()
        self.title_en = QLineEdit()
        self.note = plain_label(wrap=True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.bind_text(self.setWindowTitle, lambda: self.tr("Add the current state as a slide"))
        self.bind_text(self.choose.setText, lambda: self.tr("Choose..."))
        self.bind_text(self.caption_zh.setPlaceholderText, lambda: self.tr("optional: shown in a Chinese interface"))
        self.bind_text(self.title_en.setPlaceholderText, lambda: self.tr("for a new lesson file"))
        self.bind_text(self.note.setText, lambda: self.tr(
            "The window's state (model, sentence, steps, strategy, interventions, tab and view) becomes a slide "
            "at the end of the lesson file, whose own text is kept; a file that does not exist yet is made."))
        row = QHBoxLayout()
        row.addWidget(self.file, 1)
        row.addWidget(self.choose)
        form = QFormLayout(self)
        labels = [plain_label() for _ in range(4)]
        for label, text in zip(labels, (lambda: self.tr("Caption (English):"), lambda: self.tr("Caption (Chinese):"),
                                        lambda: self.tr("Lesson file:"), lambda: self.tr("Title of a new lesson:")),
                               strict=True):
            self.bind_text(label.setText, text)
        form.addRow(labels[0], self.caption_en)
        form.addRow(labels[1], self.caption_zh)
        form.addRow(labels[2], row)
        form.addRow(labels[3], self.title_en)
        form.addRow(self.note)
        form.addRow(self.buttons)
        self.choose.clicked.connect(self.choose_file)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.file.textChanged.connect(self._follow_file)
        self._follow_file()
        self.resize(560, self.sizeHint().height())
        self.caption_en.setFocus()

    def choose_file(self) -> None:
        # not confirmed as an overwrite: the slide is added to the file chosen, which is kept
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Lesson file to add the slide to"),
                                              self.file.text() or "lesson" + SUFFIX,
                                              self.tr("lessons (*.toml)"),
                                              options=QFileDialog.Option.DontConfirmOverwrite)
        if path:
            self.file.setText(path if path.endswith(SUFFIX) else path + SUFFIX)

    def path(self) -> Path:
        return Path(self.file.text().strip())

    def _follow_file(self) -> None:
        """A title only for a file not made yet; OK only with a file named."""
        text = self.file.text().strip()
        self.title_en.setEnabled(bool(text) and not Path(text).exists())
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(bool(text))


class LessonFiles(QObject):
    """Opens lesson files (a dialog, a drop, the recent list), ends the lesson shown, and adds the
    window's state to a lesson file.

    Signals:
        status(str): a message for the status bar.
        error(str, str): the title and the message of an error box.
        recent_changed(): the list of recent lessons changed (File > Recent lessons is rebuilt).
    """

    status = Signal(str)
    error = Signal(str, str)
    recent_changed = Signal()

    def __init__(self, host: LessonHost, window: QWidget, mode: LessonMode, sessions: SessionFiles,
                 memory: WindowMemory) -> None:
        super().__init__(window)
        self.host, self.window, self.mode, self.sessions, self.memory = host, window, mode, sessions, memory
        self.dialog: AddSlideDialog | None = None
        self.last_added: Path | None = None  # where the last slide went: the next goes there too by default

    # -- opening -----------------------------------------------------------------------------------
    def open_with_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self.window, self.tr("Open lesson"), self._folder(),
                                              self.tr("lessons (*.toml)"))
        if path:
            self.host.open_lesson(path)

    def _folder(self) -> str:
        recent = self.memory.recent_lessons
        return str(Path(recent[0]).parent) if recent else ""

    def opened(self, path: str | Path) -> None:
        """``path`` was opened as a lesson: first in the recent list (the shipped lessons are in Help > Lessons)."""
        resolved = Path(path).resolve()
        if resolved in {p.resolve() for p in shipped_lessons().values()}:
            return
        self.memory.add_recent_lesson(str(resolved))
        self.recent_changed.emit()

    def failed(self, path: str | Path) -> None:
        """``path`` could not be opened: a file that is gone leaves the recent list."""
        if not Path(path).exists() and str(Path(path).resolve()) in self.memory.recent_lessons:
            self.memory.forget_recent_lesson(str(Path(path).resolve()))
            self.recent_changed.emit()

    def populate_recent_menu(self, menu: QMenu) -> None:
        """File > Recent lessons: each by its file's name, the whole path in its tooltip."""
        for old in menu.actions():  # not clear(): the entry chosen may still be emitting its triggered()
            menu.removeAction(old)
            old.deleteLater()
        for index, path in enumerate(self.memory.recent_lessons):
            action = menu.addAction(f"&{index + 1} {Path(path).name}" if index < 9 else Path(path).name)
            action.setToolTip(path)
            action.setStatusTip(path)
            action.triggered.connect(lambda _=False, p=path: self.host.open_lesson(p))
        if menu.isEmpty():
            menu.addAction(self.tr("(none yet)")).setEnabled(False)
        menu.setToolTipsVisible(True)

    # -- dropped files -------------------------------------------------------------------------------
    def take_drops(self, widget: QWidget) -> None:
        """A lesson (.toml) or a session (.transviz) dropped on ``widget`` opens; other drops go on to
        the next filter (models: :class:`~transviz.gui.services.files.ModelFiles`)."""
        widget.setAcceptDrops(True)
        widget.installEventFilter(self)  # installed after the models' filter: asked first

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind not in (QEvent.Type.DragEnter, QEvent.Type.DragMove, QEvent.Type.Drop) or not isinstance(
                event, QDropEvent):
            return super().eventFilter(watched, event)
        path = dropped_file(event, (SUFFIX, SESSION_SUFFIX))
        if path is None:
            return False
        event.acceptProposedAction()
        if kind == QEvent.Type.Drop:
            if path.lower().endswith(SUFFIX):
                self.host.open_lesson(path)
            else:
                self.sessions.open_reporting(path)
        return True

    # -- the lesson shown --------------------------------------------------------------------------
    def close_lesson(self) -> None:
        if self.mode.active:
            self.mode.stop()
            self.status.emit(self.tr("The lesson ended; the window keeps its last slide"))

    # -- adding slides -------------------------------------------------------------------------------
    def default_file(self) -> str:
        """Where a slide goes unless the teacher says otherwise: where the last one went, else the
        lesson shown when it is a file of the teacher's (never a shipped lesson)."""
        if self.last_added is not None:
            return str(self.last_added)
        lesson = self.mode.lesson
        if lesson is not None:
            path = (lesson.folder / lesson.name).resolve()
            if path.suffix == SUFFIX and path not in {p.resolve() for p in shipped_lessons().values()}:
                return str(path)
        return ""

    def add_slide(self, path: str | Path, caption_en: str, caption_zh: str = "", title_en: str = "") -> Lesson:
        """Add the window's state with its captions at the end of the lesson at ``path`` (made when
        missing); TransvizError, and the file unchanged, when that cannot be done."""
        path = Path(path)
        slide = self.sessions.capture(path.resolve().parent)
        if slide is None:
            raise TransvizError(self.tr("there is nothing to add: open a model and type a sentence first"))
        lesson = append(path, replace(slide, caption_en=caption_en, caption_zh=caption_zh), title_en)
        self.last_added = path.resolve()
        shown = self.mode.lesson
        if shown is not None and (shown.folder / shown.name).resolve() == path.resolve():
            self.mode.grow(lesson)  # the banner counts the new slide; Next reaches it
        return lesson

    def add_slide_with_dialog(self) -> AddSlideDialog:
        """The caption dialog, not modal: the window stays usable behind it (tests read it too)."""
        if self.dialog is not None:
            self.dialog.close()
        dialog = self.dialog = AddSlideDialog(self.window, self.default_file())
        dialog.accepted.connect(lambda: self.add_from(dialog))
        dialog.show()
        return dialog

    def add_from(self, dialog: AddSlideDialog) -> bool:
        """Add the slide the dialog describes; an error box (the file unchanged) when it cannot be."""
        path = dialog.path()
        try:
            lesson = self.add_slide(path, dialog.caption_en.text().strip(), dialog.caption_zh.text().strip(),
                                    dialog.title_en.text().strip())
        except TransvizError as exc:
            self.error.emit(self.tr("Could not add the slide"), self.tr("{0}\n\nThe lesson file was not changed.")
                            .format(translated(exc)))
            return False
        self.status.emit(self.tr("Added slide {0} to {1}").format(len(lesson.slides), path.name))
        return True
