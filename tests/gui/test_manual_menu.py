"""Help > Manual and F1 open the manual's page in the web browser: the first page, or the page of
the tab shown, in the interface's language where the manual has it; without a manual, an error
that says where it was looked for. The browser is Qt's URL handler for files, taken over here."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QObject, Qt, QUrl, Slot
from PySide6.QtGui import QDesktopServices
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from transviz.core.teaching.tabs import TABS
from transviz.gui.panels.registry import PANELS
from transviz.gui.services.language import CHINESE, ENGLISH, set_language


class Browser(QObject):
    """Where QDesktopServices sends file URLs while a test runs."""

    def __init__(self) -> None:
        super().__init__()
        self.opened: list[str] = []

    @Slot(QUrl)
    def open(self, url: QUrl) -> None:
        self.opened.append(url.toLocalFile())


@pytest.fixture
def browser():
    handler = Browser()
    QDesktopServices.setUrlHandler("file", handler, "open")
    yield handler
    QDesktopServices.unsetUrlHandler("file")


@pytest.fixture
def manual(tmp_path):
    """A manual's layout: first pages in English and Chinese, a page per tab in English only."""
    for page in ["index.html", "zh/index.html", *(f"tabs/{tab}.html" for tab in TABS)]:
        (tmp_path / page).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / page).write_text("<html></html>", encoding="utf-8")
    return tmp_path


@pytest.fixture
def window(open_window, make_model, manual):
    window = open_window(size=None, active=True, model=make_model())
    window.manual = manual
    yield window
    set_language(ENGLISH)


def press(window, key, modifier=Qt.KeyboardModifier.NoModifier) -> None:
    QTest.keyClick(QApplication.focusWidget() or window, key, modifier)


def help_action(window, text: str):
    """The menu entry shown as ``text`` (without its & key)."""
    menus = [action.menu() for action in window.menuBar().actions() if action.menu() is not None]
    return next(action for menu in menus for action in menu.actions() if action.text().replace("&", "") == text)


def test_f1_opens_the_page_of_the_tab_shown(window, browser, manual):
    for index, spec in enumerate(PANELS):
        window.tabs.setCurrentIndex(index)
        press(window, Qt.Key.Key_F1)
        assert browser.opened[-1] == str(manual / "tabs" / f"{spec.id}.html")
    assert len(browser.opened) == len(PANELS)


def test_help_manual_opens_the_first_page_in_the_interfaces_language(window, browser, manual, qtbot):
    help_action(window, "Manual").trigger()
    set_language(CHINESE)
    qtbot.waitUntil(lambda: window.tabs.tabText(0) != "Explorer", timeout=5000)
    help_action(window, "手册(M)").trigger()
    press(window, Qt.Key.Key_F1)  # no Chinese page for a tab: the English one
    assert browser.opened == [str(manual / "index.html"), str(manual / "zh" / "index.html"),
                              str(manual / "tabs" / "explorer.html")]


def test_without_a_manual_it_says_where_it_looked_and_opens_nothing(window, browser, tmp_path):
    window.manual = tmp_path / "nowhere"
    press(window, Qt.Key.Key_F1)
    assert browser.opened == []
    assert window.error_dialog is not None and str(tmp_path / "nowhere") in window.error_dialog.text()

