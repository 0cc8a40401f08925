"""The languages of the interface: English (the source strings) and Simplified Chinese
(``resources/i18n/transviz_zh_CN.qm``), switched while the app runs.

Installing a translator makes Qt send ``QEvent.LanguageChange`` to every widget; the widgets of
transviz derive from :class:`Retranslated` and set their texts again in ``retranslate()``. Qt's
own strings (standard buttons, file dialogs) come from Qt's translations (``qtbase_*.qm``).
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, QLibraryInfo, QLocale, QTranslator
from PySide6.QtWidgets import QComboBox

from ...core.base.errors import ConfigError
from ...core.io.resources import resource_dir

log = logging.getLogger(__name__)

ENGLISH, CHINESE = "en", "zh_CN"
# code -> the language's name in itself (never translated: a reader finds their own language)
LANGUAGES = {ENGLISH: "English", CHINESE: "简体中文"}
CATALOGUE = "transviz"  # resources/i18n/transviz_<code>.qm
# Qt's own strings its Chinese catalogue lacks (it has "Look in:", the file dialog shows "&Look in:"):
# marked here, transviz's catalogue carries them, and Qt looks a string up in every translator
QT_GAPS = (QT_TRANSLATE_NOOP("QFileDialog", "&Look in:"), QT_TRANSLATE_NOOP("QFileDialog", "Files of &type:"))


def system_language(locale: QLocale | None = None) -> str:
    """The language of the interface for ``locale`` (default: the system's): Chinese for any
    Chinese locale (the only Chinese there is), else English."""
    locale = locale or QLocale.system()
    return CHINESE if locale.language() == QLocale.Language.Chinese else ENGLISH


class _State:
    language = ENGLISH
    translators: list[QTranslator] = []
    loaded: dict[str, QTranslator] = {}  # translation_in's, by language: read once


def current_language() -> str:
    return _State.language


def _catalogues() -> list[tuple[str, str]]:
    """(catalogue, folder) of the translations: transviz's own, then Qt's."""
    qt_folder = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    return [(CATALOGUE, str(resource_dir() / "i18n")), ("qtbase", qt_folder)]


def set_language(code: str) -> None:
    """Show the interface in ``code`` (a key of :data:`LANGUAGES`) from now on; every widget
    retranslates itself on the next pass of the event loop. ConfigError for another code."""
    if code not in LANGUAGES:
        raise ConfigError(f"unknown language {code!r}; choose one of {', '.join(LANGUAGES)}")
    app = QCoreApplication.instance()
    assert app is not None, "set_language needs the QApplication"
    for translator in _State.translators:
        app.removeTranslator(translator)
    _State.translators = []
    if code != ENGLISH:  # English is the source text
        for catalogue, folder in _catalogues():
            translator = QTranslator(app)
            if translator.load(QLocale(code), catalogue, "_", folder):
                app.installTranslator(translator)
                _State.translators.append(translator)
            else:
                log.warning("no %s translation %s_%s.qm in %s", LANGUAGES[code], catalogue, code, folder)
    _State.language = code


Translate = Callable[[str, str], str]  # (context, source text) -> the text in one language


def translation_in(code: str) -> Translate:
    """A translate function for ``code`` whatever the interface's language: English is the source
    text; another language reads the shipped catalogue through a translator of its own, never
    installed (the window stays in its language). A text the catalogue lacks stays English."""
    if code == ENGLISH:
        return _source_text
    translator = _State.loaded.get(code)
    if translator is None:
        translator = QTranslator()
        if not translator.load(QLocale(code), CATALOGUE, "_", str(resource_dir() / "i18n")):
            log.warning("no %s translation %s_%s.qm", LANGUAGES.get(code, code), CATALOGUE, code)
        _State.loaded[code] = translator
    return lambda context, text: translator.translate(context, text) or text


def _source_text(context: str, text: str) -> str:
    return text


T = TypeVar("T")


class Retranslated:
    """For widgets whose texts are translated: their texts are set again on every language change.

    Put it first among the bases (``class Panel(Retranslated, QWidget)``). A text that never
    changes otherwise is bound once, where the widget is built::

        self.bind_text(button.setText, lambda: self.tr("Step (Space)"))

    (set now, and again in the new language after each change); texts that depend on what is
    shown are redrawn by overriding :meth:`retranslate` (call ``super().retranslate()`` first).
    """

    def bind_text(self, setter: Callable[[T], object], text: Callable[[], T]) -> None:
        setter(text())
        bound = self.__dict__.setdefault("_bound_texts", [])
        bound.append((setter, text))

    def choice_box(self, texts: Callable[[], Mapping[Any, str]]) -> QComboBox:
        """A combo box with an entry for each key of ``texts()`` (the entry's item data), named by
        its value in the language in use, again after each change."""
        combo = QComboBox()
        for data in texts():
            combo.addItem("", data)
        self.bind_text(lambda names: set_items_by_data(combo, names), texts)
        return combo

    def retranslate(self) -> None:
        for setter, text in self.__dict__.get("_bound_texts", []):
            setter(text())

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)  # type: ignore[misc]  # a mixin: the QWidget after it in the MRO has it


def set_items(combo: QComboBox, texts: list[str]) -> None:
    """Name a combo box's entries (adding them the first time), keeping the one chosen."""
    if combo.count() == 0:
        combo.addItems(texts)
        return
    for index, text in enumerate(texts):
        combo.setItemText(index, text)


def set_items_by_data(combo: QComboBox, texts: Mapping[Any, str]) -> None:
    """Name a combo box's entries by their item data (``texts[data]``), keeping the one chosen."""
    for index in range(combo.count()):
        combo.setItemText(index, texts[combo.itemData(index)])
