"""The View menu's choices for a classroom: the language, the theme, the colormap of attention
plots, presentation mode (F11) and the zoom of plots and grids (Ctrl+= / Ctrl+- / Ctrl+0), applied
to the whole application and its window at once."""
from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu

from ..services.language import LANGUAGES, Retranslated, current_language, set_language
from ..services.theme import (
    CONTRAST,
    DARK,
    LIGHT,
    ZOOMS,
    Appearance,
    apply_appearance,
    current_appearance,
    restyle,
    with_changes,
)
from ..style import COLORMAPS

PRESENTATION_KEY = "F11"
ZOOM_IN_KEYS, ZOOM_OUT_KEYS, ZOOM_RESET_KEYS = ("Ctrl+=", "Ctrl++"), ("Ctrl+-",), ("Ctrl+0",)


def _fixed(text: str) -> Callable[[], str]:
    """A text that is the same in every language (a language's own name)."""
    return lambda: text


class ViewChoices(Retranslated, QObject):
    """Adds Language, Theme and Colormap submenus and a Presentation mode toggle to ``menu``;
    a choice applies to the application and to ``window`` (presentation mode: full screen).

    Its texts are retranslated by the window that owns it (:meth:`retranslate`): a QObject gets
    no language-change event.

    Signals:
        chosen(): a choice was applied (the window remembers it).
    """

    chosen = Signal()

    def __init__(self, menu: QMenu, window: QMainWindow) -> None:
        super().__init__(window)
        self.window = window
        self._was_maximized = False  # before presentation mode
        # the languages' names are in their own language: never translated
        self.languages = self._choices(menu, lambda: self.tr("&Language"),
                                       {code: _fixed(name) for code, name in LANGUAGES.items()},
                                       self.choose_language)
        self.themes = self._choices(menu, lambda: self.tr("&Theme"), {
            LIGHT: lambda: self.tr("Light"), CONTRAST: lambda: self.tr("Light, high contrast (projector)"),
            DARK: lambda: self.tr("Dark")}, lambda theme: self._choose(theme=theme))
        colormap_names = {"viridis": lambda: self.tr("viridis (the default)"),
                          "cividis": lambda: self.tr("cividis (for red-green colour blindness)"),
                          "magma": lambda: self.tr("magma")}
        self.colormaps = self._choices(menu, lambda: self.tr("&Colormap of attention"),
                                       {name: colormap_names[name] for name in COLORMAPS},
                                       lambda name: self._choose(colormap=name))
        self.presentation = QAction(self)
        self.presentation.setCheckable(True)
        self.presentation.setShortcut(QKeySequence(PRESENTATION_KEY))
        self.bind_text(self.presentation.setText, lambda: self.tr("&Presentation mode (full screen, large text)"))
        self.presentation.triggered.connect(lambda on: self._choose(presentation=on))
        menu.addAction(self.presentation)
        menu.addSeparator()
        self.zoom_in = self._zoom_action(menu, lambda: self.tr("&Zoom in on plots and grids"), ZOOM_IN_KEYS, +1)
        self.zoom_out = self._zoom_action(menu, lambda: self.tr("Zoom &out of plots and grids"), ZOOM_OUT_KEYS, -1)
        self.zoom_reset = self._zoom_action(menu, lambda: self.tr("&Reset the zoom"), ZOOM_RESET_KEYS, 0)

    def _zoom_action(self, menu: QMenu, text: Callable[[], str], keys: tuple[str, ...], step: int) -> QAction:
        """A View > Zoom entry: ``step`` steps along :data:`ZOOMS` (0: back to 1)."""
        action = QAction(self)
        action.setShortcuts([QKeySequence(key) for key in keys])
        self.bind_text(action.setText, text)
        action.triggered.connect(lambda: self.zoom(step))
        menu.addAction(action)
        return action

    def zoom(self, step: int) -> None:
        """Make the text of every plot and grid larger (step > 0), smaller (< 0), or as the window's (0)."""
        current = ZOOMS.index(current_appearance().zoom)
        zoom = 1.0 if step == 0 else ZOOMS[max(0, min(len(ZOOMS) - 1, current + step))]
        if zoom != current_appearance().zoom:
            self._choose(zoom=zoom)

    def _choices(self, menu: QMenu, title: Callable[[], str], entries: dict[str, Callable[[], str]],
                 chosen: Callable[[str], object]) -> dict[str, QAction]:
        """A submenu of mutually exclusive, checkable entries (key -> action)."""
        submenu = menu.addMenu("")
        self.bind_text(submenu.setTitle, title)
        group = QActionGroup(self)
        actions = {}
        for key, text in entries.items():
            action = submenu.addAction("")
            self.bind_text(action.setText, text)
            action.setCheckable(True)
            action.setData(key)
            group.addAction(action)
            action.triggered.connect(lambda _=False, k=key: chosen(k))
            actions[key] = action
        return actions

    def _choose(self, **changes: object) -> None:
        self.choose_appearance(with_changes(**changes))

    def choose_language(self, code: str) -> None:
        """Every text of the application changes on the event loop's next pass."""
        set_language(code)
        self.show_choices(code, current_appearance())
        self.chosen.emit()

    def choose_appearance(self, appearance: Appearance) -> None:
        """The theme, colormap and presentation mode, applied to every plot of the window at once."""
        was_presenting = current_appearance().presentation
        apply_appearance(appearance)
        restyle(self.window)
        if appearance.presentation and not was_presenting:
            self._was_maximized = self.window.isMaximized()
            self.window.showFullScreen()
        elif was_presenting and not appearance.presentation and self._was_maximized:
            self.window.showMaximized()
        elif was_presenting and not appearance.presentation:
            self.window.showNormal()
        self.show_choices(current_language(), appearance)
        self.chosen.emit()

    def show_window(self) -> None:
        """Show the window: full screen in presentation mode."""
        if current_appearance().presentation:
            self.window.showFullScreen()
        else:
            self.window.show()

    def show_choices(self, language: str, appearance: Appearance) -> None:
        """Tick what is in use."""
        self.languages[language].setChecked(True)
        self.themes[appearance.theme].setChecked(True)
        self.colormaps[appearance.colormap].setChecked(True)
        self.presentation.setChecked(appearance.presentation)
