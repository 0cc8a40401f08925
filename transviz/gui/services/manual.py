"""Help > Manual and F1: the HTML manual built from ``docs/`` (shipped in the wheel and the
classroom bundle as ``resources/manual``), opened offline in the computer's web browser at the
page of the tab shown, in the interface's language where that page exists in it."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices

from ...core.io.resources import resource_dir
from ...core.teaching.tabs import Tab

LANGUAGE_FOLDERS = {"zh": "zh"}  # the manual's pages in another language: a folder of its own


def manual_folder() -> Path:
    return resource_dir() / "manual"


def page_name(tab: Tab | None) -> str:
    """The page of ``tab`` inside the manual (None: its first page); docs/tabs/<id>.md builds it."""
    return "index.html" if tab is None else f"tabs/{tab}.html"


def manual_page(tab: Tab | None, language: str, folder: Path | None = None) -> Path | None:
    """The page for ``tab`` (None: the first page) in ``language``, else in English; None when
    the manual is not installed."""
    folder = manual_folder() if folder is None else folder
    page = page_name(tab)
    own = LANGUAGE_FOLDERS.get(language.split("_")[0])
    candidates = ([folder / own / page] if own else []) + [folder / page]
    return next((path for path in candidates if path.is_file()), None)


def open_page(page: Path) -> bool:
    """Show ``page`` in the web browser; False when the system has none to open it with."""
    return QDesktopServices.openUrl(QUrl.fromLocalFile(str(page)))
