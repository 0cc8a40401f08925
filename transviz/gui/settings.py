"""What the window remembers between runs, in a QSettings INI file: the language, the look
(theme, colormap, presentation mode), the last model and sentence, and the window's layout.

A settings file that cannot be read, or a value that makes no sense, never stops the app: the
defaults are used and a warning says so (the window shows it in the status bar). A file Qt
cannot parse is set aside (``transviz.ini.broken``) so that the next save starts clean.
"""
from __future__ import annotations

import logging
import os
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from PySide6.QtCore import QByteArray, QCoreApplication, QSettings, QStandardPaths
from PySide6.QtGui import QGuiApplication

from .language import LANGUAGES, system_language
from .style import COLORMAPS
from .theme import THEMES, Appearance

log = logging.getLogger(__name__)

T = TypeVar("T")
APP_NAME = "transviz"  # names the settings folder and file, and the application
LANGUAGE = "language"
THEME, COLORMAP, PRESENTATION = "appearance/theme", "appearance/colormap", "appearance/presentation"
LAST_MODEL, LAST_SENTENCE = "session/model", "session/sentence"
GEOMETRY, TAB, SPLITTERS = "window/geometry", "window/tab", "window/splitters"
BROKEN_SUFFIX = ".broken"
# A settings file to use instead of the user's (a shared classroom setup, tests); set but empty:
# remember nothing, start with the defaults.
SETTINGS_VARIABLE = "TRANSVIZ_SETTINGS"
# A folder for what the app writes (the training tab's runs) instead of the user's data folder.
DATA_VARIABLE = "TRANSVIZ_DATA"
# Qt platforms that show nothing on any screen: a window there (the bench, render, the self-test,
# tests) has no layout worth remembering, and its offscreen geometry would spoil the next real start.
HEADLESS_PLATFORMS = ("offscreen", "minimal")


@dataclass(frozen=True)
class Preferences:
    """The choices a user makes (View menu) and what they worked on last.

    ``language`` is a key of :data:`~transviz.gui.language.LANGUAGES`; ``last_model`` a
    checkpoint file or a shipped model's name.
    """

    language: str
    appearance: Appearance = Appearance()
    last_model: str | None = None
    last_sentence: str | None = None


@dataclass(frozen=True)
class WindowLayout:
    """The window's geometry (``QWidget.saveGeometry``), splitter states by object name, the tab shown."""

    geometry: bytes | None = None
    splitters: Mapping[str, bytes] = field(default_factory=dict)
    tab: int = 0


@dataclass(frozen=True)
class Stored:
    """What :meth:`SettingsStore.load` read, and the warnings about what it could not use."""

    preferences: Preferences
    layout: WindowLayout
    warnings: tuple[str, ...] = ()


def _flag(value: object) -> bool:
    if isinstance(value, bool):
        return value
    if str(value).lower() in ("true", "1"):
        return True
    if str(value).lower() in ("false", "0"):
        return False
    raise ValueError(value)


def _bytes(value: object) -> bytes:
    if isinstance(value, QByteArray):
        return bytes(value.data())
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    raise ValueError(value)


def _whole(value: object) -> int:
    """An int written this session, or its text read back from the file."""
    if isinstance(value, (int, str)):
        return int(value)
    raise ValueError(value)


def _one_of(choices: Collection[str]) -> Callable[[object], str]:
    def check(value: object) -> str:
        if isinstance(value, str) and value in choices:
            return value
        raise ValueError(value)
    return check


def _text(value: object) -> str:
    if isinstance(value, str):
        return value
    raise ValueError(value)


class SettingsStore:
    """Reads and writes :class:`Preferences` and :class:`WindowLayout` in one QSettings file.

    Args:
        path: the INI file (default: the user's, e.g. ``~/.config/transviz/transviz.ini``).
    """

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        if path is None:
            self._settings = QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, APP_NAME, APP_NAME)
        else:
            self._settings = QSettings(str(path), QSettings.Format.IniFormat)

    @property
    def path(self) -> str:
        return self._settings.fileName()

    # -- reading -----------------------------------------------------------------------------------
    def load(self) -> Stored:
        """The stored settings; the defaults for whatever is missing or unusable (said in ``warnings``)."""
        defaults = Preferences(system_language())
        problem = self._unreadable()
        if problem:
            log.warning("%s", problem)
            return Stored(defaults, WindowLayout(), (problem,))
        warnings: list[str] = []

        def read(key: str, parse: Callable[[object], T], default: T) -> T:
            value = self._settings.value(key)
            if value is None:
                return default
            try:
                return parse(value)
            except (ValueError, TypeError):
                warnings.append(QCoreApplication.translate(
                    "Settings", "The setting {0} = {1!r} makes no sense here; it was ignored.")
                                .format(key, value))
                return default

        appearance = Appearance(read(THEME, _one_of(THEMES), defaults.appearance.theme),
                                read(COLORMAP, _one_of(COLORMAPS), defaults.appearance.colormap),
                                read(PRESENTATION, _flag, defaults.appearance.presentation))
        preferences = Preferences(read(LANGUAGE, _one_of(LANGUAGES), defaults.language), appearance,
                                  read(LAST_MODEL, _text, None) or None, read(LAST_SENTENCE, _text, None))
        splitters = {}
        self._settings.beginGroup(SPLITTERS)
        names = self._settings.childKeys()
        self._settings.endGroup()
        for name in names:
            state = read(f"{SPLITTERS}/{name}", _bytes, b"")
            if state:
                splitters[name] = state
        layout = WindowLayout(read(GEOMETRY, _bytes, None), splitters, read(TAB, _whole, 0))
        for warning in warnings:
            log.warning("%s: %s", self.path, warning)
        return Stored(preferences, layout, tuple(warnings))

    def _unreadable(self) -> str | None:
        """Why the file cannot be used at all (None: it can); a file Qt cannot parse is set aside."""
        status = self._settings.status()
        if status == QSettings.Status.NoError:
            return None
        if status == QSettings.Status.AccessError:
            return QCoreApplication.translate(
                "Settings", "The settings file {0} cannot be read; transviz starts with its defaults."
            ).format(self.path)
        aside = self.path + BROKEN_SUFFIX
        try:
            os.replace(self.path, aside)
        except OSError:
            aside = self.path
        self._settings = QSettings(self.path, QSettings.Format.IniFormat)
        return QCoreApplication.translate(
            "Settings", "The settings file was damaged and has been set aside as {0}; transviz starts with its "
                        "defaults.").format(aside)

    # -- writing -----------------------------------------------------------------------------------
    def save_preferences(self, preferences: Preferences) -> None:
        appearance = preferences.appearance
        for key, value in ((LANGUAGE, preferences.language), (THEME, appearance.theme),
                           (COLORMAP, appearance.colormap), (PRESENTATION, appearance.presentation),
                           (LAST_MODEL, preferences.last_model), (LAST_SENTENCE, preferences.last_sentence)):
            if value is None:
                self._settings.remove(key)
            else:
                self._settings.setValue(key, value)
        self._settings.sync()

    def save_layout(self, layout: WindowLayout) -> None:
        """Write the layout; splitters it does not name keep their stored state."""
        if layout.geometry is not None:
            self._settings.setValue(GEOMETRY, QByteArray(layout.geometry))
        self._settings.setValue(TAB, layout.tab)
        for name, state in layout.splitters.items():
            self._settings.setValue(f"{SPLITTERS}/{name}", QByteArray(state))
        self._settings.sync()


def user_settings() -> SettingsStore | None:
    """The settings the app uses: the file :data:`SETTINGS_VARIABLE` names (None when it is set but
    empty), else the user's file, except on a platform that shows nothing (:data:`HEADLESS_PLATFORMS`):
    None there, so that a headless run never creates or writes the user's settings."""
    chosen = os.environ.get(SETTINGS_VARIABLE)
    if chosen is not None:
        return SettingsStore(chosen) if chosen else None
    if platform() in HEADLESS_PLATFORMS:
        log.info("the %s platform shows no window: its settings are not remembered", platform())
        return None
    return SettingsStore()


def data_dir() -> Path:
    """Where the app writes its files: the folder :data:`DATA_VARIABLE` names, else the user's
    data folder with one ``transviz`` level (Qt's AppDataLocation adds the organisation's name
    and the application's, both "transviz")."""
    chosen = os.environ.get(DATA_VARIABLE)
    if chosen:
        return Path(chosen)
    generic = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.GenericDataLocation)
    return Path(generic) / APP_NAME


def platform() -> str:
    """The Qt platform in use, e.g. ``xcb`` or ``offscreen`` (before the QApplication exists: the one
    ``QT_QPA_PLATFORM`` asks for, or "" for Qt's default)."""
    chosen = QGuiApplication.platformName() or os.environ.get("QT_QPA_PLATFORM", "")
    return chosen.split(":")[0].split(";")[0]
