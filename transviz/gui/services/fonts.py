"""The fonts shipped in ``resources/fonts``, registered at start-up as a fallback, so that Chinese
text (the UI in Chinese, Chinese tokens on plot axes) renders on a machine without a CJK font
instead of as empty boxes.

Qt draws a character missing from a font with the next family of that font's family list, then
with the platform's fallbacks; a classroom Linux box often has no Chinese font at all. So the
shipped families are appended to the application font's list (and to any font built from
another family, see :func:`with_fallback`) unless the system already has a Simplified Chinese
font, which then keeps being used.
"""
from __future__ import annotations

import functools
import logging
from pathlib import Path

from PySide6.QtGui import QFont, QFontDatabase, QFontInfo, QGuiApplication

from ...core.io.resources import resource_dir

log = logging.getLogger(__name__)

FONT_PATTERNS = ("*.ttf", "*.otf", "*.ttc")


def shipped_font_files() -> list[Path]:
    folder = resource_dir() / "fonts"
    return sorted(p for pattern in FONT_PATTERNS for p in folder.glob(pattern)) if folder.is_dir() else []


@functools.cache
def shipped_families() -> tuple[str, ...]:
    """Register every shipped font with Qt (once per process); the families they hold."""
    families: list[str] = []
    for path in shipped_font_files():
        font_id = QFontDatabase.addApplicationFont(str(path))
        if font_id < 0:
            log.warning("Qt could not load the font %s", path)
            continue
        families += [f for f in QFontDatabase.applicationFontFamilies(font_id) if f not in families]
    return tuple(families)


def fallback_families() -> tuple[str, ...]:
    """The shipped families to fall back on: none when the system has its own Chinese font."""
    ours = shipped_families()
    system = set(QFontDatabase.families(QFontDatabase.WritingSystem.SimplifiedChinese)) - set(ours)
    return () if system else ours


def with_fallback(font: QFont) -> QFont:
    """``font`` with the fallback families (if any) after its own, resolved family."""
    extra = fallback_families()
    if not extra:
        return font
    families = [QFontInfo(font).family(), *extra]
    fallback = QFont(font)
    fallback.setFamilies(list(dict.fromkeys(families)))
    return fallback


def install_fonts() -> tuple[str, ...]:
    """Register the shipped fonts and make the application font fall back on them when needed
    (call once the QGuiApplication exists). Returns the fallback families in use."""
    shipped_families()
    fallback = fallback_families()
    if fallback:
        QGuiApplication.setFont(with_fallback(QGuiApplication.font()))
    return fallback
