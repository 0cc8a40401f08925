"""Help > How to read this tab (Shift+F1): on each tab it opens that tab's help, which explains, in
English and in Chinese, the row labels ("input -> written token"), the colour legend, the summaries
and rollout, sampling (temperature, top-k, top-p) and beam scores where the tab shows them. The facts are those of
the core: rollout's 0.5·A + 0.5·I (core/analysis/aggregate.py), beam's sum of log-probabilities divided
by length^penalty (core/decoding/strategies.py), sampling's order of operations (Sampling.distribution)."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QCoreApplication, QEvent, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QDialog, QPlainTextEdit

from transviz.core.analysis.aggregate import RESIDUAL_WEIGHT
from transviz.gui.panels.registry import PANELS
from transviz.gui.services.help_texts import tab_help
from transviz.gui.services.language import CHINESE, set_language

EXPLORER_FACTS = ("input -> written token", "to -> drink", "Yellow chip", "not in the model's vocabulary",
                  "Orange: the current query", "Dashed chip: a token forced by you", "Hatched cells: masked",
                  "Rollout (Abnar & Zuidema, 2020)", f"{1 - RESIDUAL_WEIGHT}·A + {RESIDUAL_WEIGHT}·I",
                  "normalised to sum to 1", "temperature divides the logits before the softmax",
                  "Top-k keeps only the k most probable", "Top-p keeps the smallest set",
                  "renormalised to sum to 1", "sum of the natural log-probabilities", "divided by length^penalty")
CHINESE_FACTS = ("输入 -> 写出的词元", "黄色词块", "橙色", "虚线词块", "斜线格",
                 "注意力展开（Abnar 与 Zuidema，2020）", "0.5·A + 0.5·I", "温度",
                 "Top-k", "Top-p", "束搜索", "对数概率", "length^penalty")


@pytest.fixture
def window(open_window, make_model):
    return open_window(size=None, active=True, model=make_model())


def tab_help_shown(window, qtbot, index: int) -> tuple[str, str]:
    """Show tab ``index``, press Shift+F1: the title and text of the help that opens."""
    window.tabs.setCurrentIndex(index)
    QTest.keyClick(QApplication.focusWidget() or window, Qt.Key.Key_F1, Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: window.findChild(QDialog, "tab_help") is not None, timeout=5000)
    dialog = window.findChild(QDialog, "tab_help")
    shown = dialog.windowTitle(), dialog.findChild(QPlainTextEdit).toPlainText()
    dialog.close()  # deleted on close: the next Shift+F1 opens a new one
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    assert window.findChild(QDialog, "tab_help") is None
    return shown


def test_shift_f1_opens_the_help_of_the_tab_shown_with_its_topics(window, qtbot):
    texts = {}
    for index, spec in enumerate(PANELS):
        title, texts[spec.id] = tab_help_shown(window, qtbot, index)
        assert spec.shown_title() in title and texts[spec.id] == tab_help(spec.id)
    assert len(set(texts.values())) == len(PANELS)  # each tab its own
    for fact in EXPLORER_FACTS:
        assert fact in texts["explorer"], fact
    for fact in ("input -> written token", "Hatched cells: masked", "Yellow chip"):
        assert fact in texts["masks"] and fact in texts["training"], fact
    assert "Rollout (Abnar & Zuidema, 2020)" in texts["training"]


def test_the_help_topics_in_chinese(window, qtbot):
    set_language(CHINESE)
    qtbot.waitUntil(lambda: window.tabs.tabText(0) != "Explorer", timeout=5000)
    title, text = tab_help_shown(window, qtbot, 0)
    assert PANELS[0].shown_title() in title
    for fact in CHINESE_FACTS:
        assert fact in text, fact
    for english in ("Row labels", "Colours", "Sampling:", "Beam search and its scores", "Summaries and rollout"):
        assert english not in text
