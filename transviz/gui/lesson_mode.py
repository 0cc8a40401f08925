"""Lesson mode: the window steps through the slides of a lesson file, with the caption in a
banner above the tabs and "3 / 12" beside it.

Keys (what presentation clickers send): PageDown or Right = next slide, PageUp or Left = previous;
Esc leaves the slides to explore freely (every key does what it does outside a lesson) and, pressed
again, comes back to the slide as it was. The whole lesson is checked before its first slide shows
(:func:`transviz.core.teaching.lesson_run.check`): a lesson opens whole or not at all.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QRect, Qt, Signal
from PySide6.QtGui import QFont, QFontMetrics, QKeyEvent, QResizeEvent
from PySide6.QtWidgets import QApplication, QHBoxLayout, QMainWindow, QMenu, QPushButton, QToolBar, QWidget

from ..core.base.errors import TransvizError
from ..core.io.resources import shipped_lessons
from ..core.teaching.lesson import Lesson, read
from ..core.teaching.lesson_run import check
from .services.language import Retranslated, current_language
from .services.theme import apply_appearance, current_appearance, restyle
from .session_files import SessionFiles
from .widgets.labels import plain_label

NEXT_KEYS = (Qt.Key.Key_PageDown, Qt.Key.Key_Right)
PREVIOUS_KEYS = (Qt.Key.Key_PageUp, Qt.Key.Key_Left)
CAPTION_SCALE = 1.25  # the caption is read from the back of the room


def populate_lessons_menu(menu: QMenu, open_lesson: Callable[[Path], object]) -> None:
    """Help > Lessons: each shipped lesson by its title in the language in use."""
    menu.clear()
    for path in shipped_lessons().values():
        try:
            title = read(path).title(current_language()) or path.stem
        except TransvizError:  # a broken shipped file is named by its file, and says why when opened
            title = path.stem
        menu.addAction(title).triggered.connect(lambda _=False, p=path: open_lesson(p))
    if menu.isEmpty():
        menu.addAction(QCoreApplication.translate("LessonMode", "(none installed)")).setEnabled(False)


class LessonBanner(Retranslated, QWidget):
    """Previous, the caption, "n / N", Next, and the button that leaves the slides to explore.

    Signals:
        language_changed(): the texts that are not bound (the caption, the progress) need setting again.
    """

    language_changed = Signal()

    def retranslate(self) -> None:
        super().retranslate()
        self.language_changed.emit()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.previous = QPushButton()
        self.next = QPushButton()
        self.explore = QPushButton()
        self.explore.setCheckable(True)
        self.caption = plain_label(wrap=True)
        self._captions: list[str] = []  # the lesson's, in the language shown: the banner's height fits them all
        self._scale_caption()
        self.progress = plain_label()
        self.bind_text(self.previous.setText, lambda: self.tr("< Previous"))
        self.bind_text(self.previous.setToolTip, lambda: self.tr("The previous slide (PageUp or Left)"))
        self.bind_text(self.next.setText, lambda: self.tr("Next >"))
        self.bind_text(self.next.setToolTip, lambda: self.tr("The next slide (PageDown or Right)"))
        self.bind_text(self.explore.setText, lambda: self.tr("Explore (Esc)"))
        self.bind_text(self.explore.setToolTip, lambda: self.tr(
            "Leave the slides and explore freely; press Esc again to come back to this slide as it was"))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 2)
        layout.addWidget(self.previous)
        layout.addWidget(self.caption, 1)
        layout.addWidget(self.progress)
        layout.addWidget(self.next)
        layout.addWidget(self.explore)

    def changeEvent(self, event: QEvent) -> None:
        # the caption's font is set, so it no longer follows the application's (presentation mode, a
        # language's font): the banner's own still does, and the caption is scaled from it again
        if event.type() == QEvent.Type.FontChange:
            self._scale_caption()
        super().changeEvent(event)

    def _scale_caption(self) -> None:
        font = QFont(self.font())
        font.setPointSizeF(font.pointSizeF() * CAPTION_SCALE)
        self.caption.setFont(font)
        self._fit_caption()

    def set_captions(self, captions: Sequence[str]) -> None:
        """The lesson's captions: the banner keeps the height of the longest at its width, the same
        on every slide (it changed from slide to slide under the pointer), and no caption is cut."""
        self._captions = list(captions)
        self._fit_caption()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_caption()

    def _fit_caption(self) -> None:
        # The banner sits in a tool bar, which lays out no height for a width: a wrapped label there
        # took the height of its text at a narrow width, three times what it needs on a wide screen.
        width = self.caption.width()
        if width <= 0:
            return
        metrics = QFontMetrics(self.caption.font())
        flags = int(Qt.TextFlag.TextWordWrap)
        needed = max(metrics.boundingRect(QRect(0, 0, width, 100_000), flags, text).height()
                     for text in [*self._captions, self.caption.text()])
        if self.caption.minimumHeight() != needed or self.caption.maximumHeight() != needed:
            self.caption.setFixedHeight(needed)


class LessonMode(QObject):
    """Shows a lesson's slides in ``window`` through ``sessions``.

    A lesson's settings (a slide's colormap) last for the lesson: the user's colormap comes back
    when it ends, and ``active_changed`` lets the window keep the user's settings file as it was.

    Signals:
        slide_shown(int): slide ``index`` (from 0) is shown.
        exploring_changed(bool): the class left the slides (True) or came back (False).
        active_changed(bool): a lesson started (True, before its first slide shows) or ended (False).
    """

    slide_shown = Signal(int)
    exploring_changed = Signal(bool)
    active_changed = Signal(bool)

    def __init__(self, window: QMainWindow, sessions: SessionFiles) -> None:
        super().__init__(window)
        self.window, self.sessions = window, sessions
        self.lesson: Lesson | None = None
        self.index = 0
        self.exploring = False
        self._users_colormap = current_appearance().colormap  # to give back when the lesson ends
        self.banner = LessonBanner()
        self.bar = QToolBar()
        self.bar.setObjectName("lesson_banner")
        self.bar.setMovable(False)
        self.bar.addWidget(self.banner)
        self.bar.setVisible(False)
        window.addToolBar(Qt.ToolBarArea.TopToolBarArea, self.bar)
        self.banner.previous.clicked.connect(self.previous)
        self.banner.next.clicked.connect(self.next)
        self.banner.explore.clicked.connect(self.toggle_exploring)
        self.banner.language_changed.connect(self._show_banner)

    @property
    def active(self) -> bool:
        return self.lesson is not None

    def start(self, lesson: Lesson) -> None:
        """Check ``lesson`` whole (LessonError, and nothing changes, when a slide cannot be shown),
        then show its first slide."""
        check(lesson, self.sessions.models)
        starting = self.lesson is None  # a lesson opened over another: the user's colormap is the first's
        if starting:
            self._users_colormap = current_appearance().colormap
        self.lesson, self.exploring = lesson, False
        self.bar.setVisible(True)
        app = QApplication.instance()
        if app is not None:
            app.installEventFilter(self)
        if starting:
            self.active_changed.emit(True)
        self.go(0)

    def stop(self) -> None:
        """Leave lesson mode; the window keeps the last slide's state but the user's colormap."""
        if self.lesson is None:
            return
        app = QApplication.instance()
        if app is not None:
            app.removeEventFilter(self)
        self.lesson = None
        self.bar.setVisible(False)
        if current_appearance().colormap != self._users_colormap:
            apply_appearance(replace(current_appearance(), colormap=self._users_colormap))
            restyle(self.window)
        self.active_changed.emit(False)

    def grow(self, lesson: Lesson) -> None:
        """The lesson shown, with slides added at its end from the window (checked already: each is
        a state the window showed); the slide shown and the window stay as they are."""
        if self.lesson is not None:
            self.lesson = lesson
            self._show_banner()

    def go(self, index: int) -> None:
        """Show slide ``index`` (clamped to the lesson)."""
        if self.lesson is None:
            return
        self.index = max(0, min(index, len(self.lesson.slides) - 1))
        if self.exploring:
            self.exploring = False
            self.exploring_changed.emit(False)
        self.sessions.show_slide(self.lesson.slides[self.index], self.lesson.folder)
        self._show_banner()
        self.slide_shown.emit(self.index)

    def next(self) -> None:
        self.go(self.index + 1)

    def previous(self) -> None:
        self.go(self.index - 1)

    def toggle_exploring(self) -> None:
        """Leave the slides to explore, or come back to the current slide as it was."""
        if self.lesson is None:
            return
        if self.exploring:
            self.go(self.index)
            return
        self.exploring = True
        self._show_banner()
        self.exploring_changed.emit(True)

    def _show_banner(self) -> None:
        lesson = self.lesson
        if lesson is None:
            return
        slide = lesson.slides[self.index]
        count = len(lesson.slides)
        banner = self.banner
        banner.set_captions([other.caption(current_language()) for other in lesson.slides])
        banner.caption.setText(self.tr("Exploring freely: press Esc to come back to slide {0}").format(self.index + 1)
                               if self.exploring else slide.caption(current_language()))
        banner.progress.setText(self.tr("{0} / {1}").format(self.index + 1, count))
        banner.explore.setChecked(self.exploring)
        banner.previous.setEnabled(self.index > 0 and not self.exploring)
        banner.next.setEnabled(self.index < count - 1 and not self.exploring)
        self.window.setWindowTitle(self.tr("transviz lesson: {0}").format(lesson.title(current_language())))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """The slide keys, before any tab's own shortcuts (the explorer steps on Right): a
        ShortcutOverride accepted here turns the key into a plain key press, taken here too."""
        if event.type() not in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress) or not isinstance(
                event, QKeyEvent) or not isinstance(watched, QWidget) or watched.window() is not self.window:
            return False  # another window's keys (a dialog, a combo box's popup), or not a key
        key = event.key()
        if key == Qt.Key.Key_Escape or not self.exploring and key in (*NEXT_KEYS, *PREVIOUS_KEYS):
            event.accept()
            if event.type() == QEvent.Type.KeyPress:
                self._act(key)
            return True
        return False

    def _act(self, key: int) -> None:
        if key == Qt.Key.Key_Escape:
            self.toggle_exploring()
        elif key in NEXT_KEYS:
            self.next()
        else:
            self.previous()
