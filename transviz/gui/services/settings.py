"""What the window remembers between runs, in a QSettings INI file: the language, the look
(theme, colormap, presentation mode), the last model and sentence, and the window's layout.

A settings file that cannot be read, or a value that makes no sense, never stops the app: the
defaults are used and a warning says so (the window shows it in the status bar). The file's raw
bytes are checked before Qt reads them (:mod:`~transviz.gui.services.ini_scan`): a damaged file is set
aside (``transviz.ini.broken``) so that the next save starts clean. Something that is not a
plain file (a FIFO, a device, a folder) is never opened, read or written.
"""
from __future__ import annotations

import logging
import os
import stat
import sys
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from PySide6.QtCore import QByteArray, QCoreApplication, QSettings, QStandardPaths
from PySide6.QtGui import QGuiApplication

from ...core.base.files import NotARegularFile, open_regular
from ..style import COLORMAPS
from .ini_scan import MAX_FILE_BYTES
from .ini_scan import problem as raw_problem
from .language import LANGUAGES, system_language
from .theme import THEMES, Appearance

log = logging.getLogger(__name__)

T = TypeVar("T")
APP_NAME = "transviz"  # names the settings folder and file, and the application
LANGUAGE = "language"
THEME, COLORMAP, PRESENTATION = "appearance/theme", "appearance/colormap", "appearance/presentation"
LAST_MODEL, LAST_SENTENCE = "session/model", "session/sentence"
GEOMETRY, TAB, SPLITTERS = "window/geometry", "window/tab", "window/splitters"
RECENT_LESSONS = "lessons/recent"
MAX_RECENT = 8  # File > Recent lessons: a term's worth, newest first
BROKEN_SUFFIX = ".broken"
# A settings file to use instead of the user's (a shared classroom setup, tests); set but empty:
# remember nothing, start with the defaults.
SETTINGS_VARIABLE = "TRANSVIZ_SETTINGS"
# A folder for what the app writes (the training tab's runs) instead of the user's data folder.
DATA_VARIABLE = "TRANSVIZ_DATA"
# Qt platforms that show nothing on any screen: a window there (the bench, render, the self-test,
# tests) has no layout worth remembering, and its offscreen geometry would spoil the next real start.
HEADLESS_PLATFORMS = ("offscreen", "minimal")
SHOWN_CHARS = 80  # of a value a warning quotes


@dataclass(frozen=True)
class Preferences:
    """The choices a user makes (View menu) and what they worked on last.

    ``language`` is a key of :data:`~transviz.gui.services.language.LANGUAGES`; ``last_model`` a
    checkpoint file or a shipped model's name; ``recent_lessons`` the lesson files opened last
    (newest first, at most :data:`MAX_RECENT`).
    """

    language: str
    appearance: Appearance = Appearance()
    last_model: str | None = None
    last_sentence: str | None = None
    recent_lessons: tuple[str, ...] = ()


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


def _paths(value: object) -> tuple[str, ...]:
    """A list of file paths; Qt reads a list of one back as its one string."""
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(item, str) and item for item in items):
        raise ValueError(value)
    return tuple(items[:MAX_RECENT])


def _read_plain_file(path: str) -> bytes:
    """The first bytes of the file at ``path`` (one more than a settings file may hold); anything
    but a plain file raises :class:`NotARegularFile` unopened."""
    with open_regular(path) as file:
        return file.read(MAX_FILE_BYTES + 1)


def _short(value: object) -> object:
    """``value`` cut to what a warning can show."""
    if isinstance(value, QByteArray):
        value = bytes(value.data())
    if isinstance(value, str) and len(value) > SHOWN_CHARS:
        return value[:SHOWN_CHARS] + "..."
    if isinstance(value, bytes) and len(value) > SHOWN_CHARS:
        return value[:SHOWN_CHARS] + b"..."
    return value


MAX_SET_ASIDE = 1000  # damaged files kept side by side before transviz stops setting more aside


def _unused_name(name: str) -> str:
    """``name``, or ``name-2``, ``name-3``, ... : the first that names nothing yet (not even a link)."""
    for number in range(1, MAX_SET_ASIDE + 1):
        candidate = name if number == 1 else f"{name}-{number}"
        if not os.path.lexists(candidate):
            return candidate
    raise OSError(f"{name} and {MAX_SET_ASIDE - 1} more like it exist already")


class SettingsStore:
    """Reads and writes :class:`Preferences` and :class:`WindowLayout` in one QSettings file.

    The file is examined before Qt reads it (see the module's notes); one that cannot be used
    leaves the store without a file: it loads the defaults and saves nothing.

    Args:
        path: the INI file (default: the user's, :func:`user_settings_path`).
    """

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self._path = os.fspath(path) if path is not None else str(user_settings_path())
        self._warning, usable = self._examine()
        self._settings = QSettings(self._path, QSettings.Format.IniFormat) if usable else None

    @property
    def path(self) -> str:
        return self._path

    def _examine(self) -> tuple[str | None, bool]:
        """A warning about the file (None: nothing to say), and whether Qt may read and write it."""
        translate = QCoreApplication.translate
        try:
            data = _read_plain_file(self._path)
        except FileNotFoundError:
            return None, True  # a first start: the first save makes the file
        except NotARegularFile:
            log.warning("%s is not a plain file: it is neither read nor written", self._path)
            return translate("Settings", "The settings file {0} is not a plain file; transviz starts with its "
                                         "defaults and does not write it.").format(self._path), False
        except OSError as exc:
            log.warning("%s: %s", self._path, exc)
            return translate("Settings", "The settings file {0} cannot be read; transviz starts with its "
                                         "defaults.").format(self._path), False
        why = raw_problem(data)
        if why is None:
            return None, True
        log.warning("%s is damaged: %s", self._path, why)
        return self._set_aside()

    def _set_aside(self) -> tuple[str, bool]:
        """Move a damaged file out of the way, so that the next save starts clean; a file set aside
        before keeps its name (FILE.broken, then FILE.broken-2, ...)."""
        translate = QCoreApplication.translate
        try:
            aside = _unused_name(self._path + BROKEN_SUFFIX)
            os.rename(self._path, aside)  # checked free just now: nothing of the user's is replaced
        except OSError as exc:
            log.warning("%s: %s", self._path, exc)
            return translate("Settings", "The settings file {0} is damaged and could not be set aside; transviz "
                                         "starts with its defaults and leaves the file as it is.").format(
                self._path), False
        # short: the status bar shows one line, with the model's name beside it
        return translate("Settings", "Damaged settings set aside as {0}; starting with the defaults.").format(
            aside), True

    # -- reading -----------------------------------------------------------------------------------
    def load(self) -> Stored:
        """The stored settings; the defaults for whatever is missing or unusable (said in ``warnings``,
        which the window shows in its status bar and logs)."""
        defaults = Preferences(system_language())
        problem, self._warning = self._warning or self._unreadable(), None
        if problem or self._settings is None:  # the problem was logged where it was found
            return Stored(defaults, WindowLayout(), (problem,) if problem else ())
        settings = self._settings
        warnings: list[str] = []

        def read(key: str, parse: Callable[[object], T], default: T) -> T:
            value = settings.value(key)
            if value is None:
                return default
            try:
                return parse(value)
            except (ValueError, TypeError):
                warnings.append(QCoreApplication.translate(
                    "Settings", "The setting {0} = {1!r} makes no sense here; it was ignored.")
                                .format(key, _short(value)))
                return default

        appearance = Appearance(read(THEME, _one_of(THEMES), defaults.appearance.theme),
                                read(COLORMAP, _one_of(COLORMAPS), defaults.appearance.colormap),
                                read(PRESENTATION, _flag, defaults.appearance.presentation))
        preferences = Preferences(read(LANGUAGE, _one_of(LANGUAGES), defaults.language), appearance,
                                  read(LAST_MODEL, _text, None) or None, read(LAST_SENTENCE, _text, None),
                                  read(RECENT_LESSONS, _paths, ()))
        splitters = {}
        settings.beginGroup(SPLITTERS)
        names = settings.childKeys()
        settings.endGroup()
        for name in names:
            state = read(f"{SPLITTERS}/{name}", _bytes, b"")
            if state:
                splitters[name] = state
        layout = WindowLayout(read(GEOMETRY, _bytes, None), splitters, read(TAB, _whole, 0))
        return Stored(preferences, layout, tuple(warnings))

    def _unreadable(self) -> str | None:
        """Why Qt could not use the file after all (None: it could); one it cannot parse is set aside."""
        if self._settings is None:
            return None
        status = self._settings.status()
        if status == QSettings.Status.NoError:
            return None
        if status == QSettings.Status.AccessError:
            log.warning("%s: Qt cannot read it", self.path)
            self._settings = None
            return QCoreApplication.translate(
                "Settings", "The settings file {0} cannot be read; transviz starts with its defaults."
            ).format(self.path)
        log.warning("%s: Qt cannot parse it", self.path)
        warning, usable = self._set_aside()
        self._settings = QSettings(self.path, QSettings.Format.IniFormat) if usable else None
        return warning

    # -- writing -----------------------------------------------------------------------------------
    def _writable(self) -> QSettings | None:
        """The QSettings to write through, unless the path stopped being a plain file (or absent)."""
        if self._settings is None:
            return None
        try:
            plain = stat.S_ISREG(os.stat(self._path).st_mode)
        except FileNotFoundError:
            plain = True
        except OSError:
            plain = False
        if not plain:
            log.warning("%s is no longer a plain file: settings are not saved", self._path)
            self._settings = None
        return self._settings

    def save_preferences(self, preferences: Preferences) -> None:
        settings = self._writable()
        if settings is None:
            return
        appearance = preferences.appearance
        for key, value in ((LANGUAGE, preferences.language), (THEME, appearance.theme),
                           (COLORMAP, appearance.colormap), (PRESENTATION, appearance.presentation),
                           (LAST_MODEL, preferences.last_model), (LAST_SENTENCE, preferences.last_sentence),
                           (RECENT_LESSONS, list(preferences.recent_lessons) or None)):
            if value is None:
                settings.remove(key)
            else:
                settings.setValue(key, value)
        settings.sync()

    def save_layout(self, layout: WindowLayout) -> None:
        """Write the layout; splitters it does not name keep their stored state."""
        settings = self._writable()
        if settings is None:
            return
        if layout.geometry is not None:
            settings.setValue(GEOMETRY, QByteArray(layout.geometry))
        settings.setValue(TAB, layout.tab)
        for name, state in layout.splitters.items():
            settings.setValue(f"{SPLITTERS}/{name}", QByteArray(state))
        settings.sync()


def user_settings_path() -> Path:
    """The user's settings file, where QSettings keeps an application's INI settings in the user
    scope (``~/.config/transviz/transviz.ini``, ``%APPDATA%\\transviz\\transviz.ini``). Found
    without Qt: a QSettings made for that scope reads the file, and others, at once."""
    if sys.platform == "win32":
        base = os.environ.get("APPDATA") or str(Path.home() / "AppData" / "Roaming")
    elif sys.platform == "darwin":
        chosen = os.environ.get("XDG_CONFIG_HOME", "")
        base = chosen if chosen.startswith("/") else str(Path.home() / (chosen or ".config"))
    else:
        base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.GenericConfigLocation)
    return Path(base) / APP_NAME / f"{APP_NAME}.ini"


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


def saved_language() -> str:
    """The language the window would open in: the one saved in the settings file (the file
    :data:`SETTINGS_VARIABLE` names, else the user's), else the system's. For commands that draw
    without a window, where :func:`user_settings` gives no file."""
    chosen = os.environ.get(SETTINGS_VARIABLE)
    if chosen == "":
        return system_language()
    return SettingsStore(chosen).load().preferences.language


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
