"""The View menu's choices for a classroom: the language, the theme, the colormap of attention
plots and presentation mode (F11). Choosing one only says so (signals); the window applies it
and remembers it."""
from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMenu

from .app import COLORMAPS
from .language import LANGUAGES, Retranslated
from .theme import CONTRAST, DARK, LIGHT, Appearance, with_changes

PRESENTATION_KEY = "F11"


class ViewChoices(Retranslated, QObject):
    """Adds Language, Theme and Colormap submenus and a Presentation mode toggle to ``menu``.

    Its texts are retranslated by the window that owns it (:meth:`retranslate`): a QObject gets
    no language-change event.

    Signals:
        language_chosen(str): a key of :data:`~transviz.gui.language.LANGUAGES`.
        appearance_chosen(object): the :class:`~transviz.gui.theme.Appearance` asked for.
    """

    language_chosen = Signal(str)
    appearance_chosen = Signal(object)

    def __init__(self, menu: QMenu, parent: QObject | None = None) -> None:
        super().__init__(parent)
        # the languages' names are in their own language: never translated
        self.languages = self._choices(menu, lambda: self.tr("&Language"),
                                       {code: (lambda n=name: n) for code, name in LANGUAGES.items()},
                                       self.language_chosen.emit)
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
        self.appearance_chosen.emit(with_changes(**changes))

    def show_choices(self, language: str, appearance: Appearance) -> None:
        """Tick what is in use."""
        self.languages[language].setChecked(True)
        self.themes[appearance.theme].setChecked(True)
        self.colormaps[appearance.colormap].setChecked(True)
        self.presentation.setChecked(appearance.presentation)
