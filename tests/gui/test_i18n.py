"""The Chinese edition: every visible string is translated (the sources are scanned afresh with
Qt's lupdate and compared with the shipped catalogue), the shipped .qm is the catalogue compiled,
and a real window switches language while it runs, and back. Expected texts are read from the
.ts catalogue with an XML parser, independently of Qt's translator."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import torch
from PySide6.QtCore import QLocale
from PySide6.QtWidgets import QPlainTextEdit

from transviz.core.decoding import DecodingSession
from transviz.core.errors import InputError
from transviz.core.vocab import EOS, PAD
from transviz.gui.core_messages import translated
from transviz.gui.language import CHINESE, ENGLISH, current_language, set_language, system_language
from transviz.gui.main_window import MainWindow

ROOT = Path(__file__).resolve().parents[2]
CATALOGUE = ROOT / "resources" / "i18n" / "transviz_zh_CN.ts"
COMPILED = CATALOGUE.with_suffix(".qm")
PLACEHOLDER = re.compile(r"\{[^{}]*\}")
ACCELERATOR = re.compile(r"&[A-Za-z]")
CJK = re.compile(r"[\u4e00-\u9fff]")


def qt_tool(name: str) -> str:
    candidates = [Path(sys.executable).parent / name, shutil.which(name)]
    found = next((str(c) for c in candidates if c and Path(c).exists()), None)
    if found is None:
        pytest.skip(f"{name} is not installed")
    return found


def messages(ts: Path) -> dict[tuple[str, str], tuple[str, str]]:
    """(context, source) -> (translation, its type: "" when finished)."""
    found = {}
    for context in ET.parse(ts).getroot().iter("context"):
        name = context.findtext("name") or ""
        for message in context.iter("message"):
            translation = message.find("translation")
            assert translation is not None
            found[(name, message.findtext("source") or "")] = (translation.text or "", translation.get("type", ""))
    return found


SHIPPED = messages(CATALOGUE)


def zh(context: str, source: str) -> str:
    """The shipped Chinese translation of one text."""
    return SHIPPED[(context, source)][0]


def test_every_visible_string_has_a_finished_chinese_translation(tmp_path):
    fresh = tmp_path / "fresh.ts"
    sources = sorted(str(p) for p in (ROOT / "transviz" / "gui").rglob("*.py"))
    result = subprocess.run([qt_tool("pyside6-lupdate"), *sources, "-ts", str(fresh)], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    needed = messages(fresh)
    assert len(needed) > 200  # the scan found the window's texts
    problems = []
    for key, _ in needed.items():
        translation, kind = SHIPPED.get(key, ("", "missing"))
        context, source = key
        if kind or not translation.strip():
            problems.append(f"{context}: {source!r} is {kind or 'empty'}")
        elif sorted(PLACEHOLDER.findall(source)) != sorted(PLACEHOLDER.findall(translation)):
            problems.append(f"{context}: {source!r} -> {translation!r} changes the placeholders")
        elif ACCELERATOR.search(source) and not ACCELERATOR.search(translation):
            problems.append(f"{context}: {source!r} -> {translation!r} loses its keyboard accelerator")
    assert not problems, "\n".join(problems)


def test_a_missing_translation_is_caught(tmp_path):
    """The check above can fail: a catalogue that lacks one text or leaves one unfinished."""
    tree = ET.parse(CATALOGUE)
    first, second = list(tree.getroot().iter("message"))[:2]
    first.find("translation").set("type", "unfinished")  # type: ignore[union-attr]
    parent = next(c for c in tree.getroot().iter("context") if second in list(c))
    parent.remove(second)
    broken = tmp_path / "broken.ts"
    tree.write(broken, encoding="utf-8")
    found = messages(broken)
    assert found[(tree.getroot().find("context").findtext("name"), first.findtext("source"))][1] == "unfinished"
    assert len(found) == len(SHIPPED) - 1


def test_the_shipped_qm_is_the_catalogue_compiled(tmp_path):
    compiled = tmp_path / "transviz_zh_CN.qm"
    result = subprocess.run([qt_tool("pyside6-lrelease"), str(CATALOGUE), "-qm", str(compiled)], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert compiled.read_bytes() == COMPILED.read_bytes(), "run pyside6-lrelease (README: Languages)"


@pytest.mark.parametrize("locale,language", [
    (QLocale(QLocale.Language.Chinese, QLocale.Country.China), CHINESE),
    (QLocale(QLocale.Language.Chinese, QLocale.Country.Taiwan), CHINESE),  # the only Chinese there is
    (QLocale(QLocale.Language.German, QLocale.Country.Germany), ENGLISH),
    (QLocale(QLocale.Language.English, QLocale.Country.UnitedStates), ENGLISH),
])
def test_the_language_follows_the_system_locale(locale, language):
    assert system_language(locale) == language


@pytest.fixture
def window(stepped_window):
    return stepped_window(steps=1)


def shown_texts(window: MainWindow) -> dict[tuple[str, str], str]:
    """(context, source) of a sample of the window's texts -> what the window shows for each."""
    explorer, masks, positional = window.explorer, window.masks, window.positional
    menus = [a.text() for a in window.menuBar().actions()]
    view_menu = window.menuBar().actions()[2].menu()
    return {
        ("MainWindow", "&File"): menus[0],
        ("MainWindow", "&Model"): menus[1],
        ("MainWindow", "&View"): menus[2],
        ("MainWindow", "&Help"): menus[3],
        ("MainWindow", "Explorer"): window.tabs.tabText(0),
        ("MainWindow", "Masks"): window.tabs.tabText(2),
        ("MainWindow", "Positional encoding"): view_menu.actions()[1].text(),  # View menu names the tabs
        ("ViewChoices", "&Language"): window.view_choices.languages[ENGLISH].parent().title(),
        ("ViewChoices", "Dark"): window.view_choices.themes["dark"].text(),
        ("DecodingControls", "Step (Space)"): explorer.controls.step_button.text(),
        ("StrategyEditor", "beam search"): explorer.controls.strategy.choice.itemText(2),
        ("SourceBox", "Teacher forcing with the reference"): explorer.source.teacher.text(),
        ("AttentionView", "queries: decoder inputs (rows)"): explorer.attention.large.axis("left").labelText,
        ("AttentionView", "cross-attention"): explorer.attention.kind.currentText(),
        ("HeatmapWidget", "grey hatched cells: masked (-inf)"): masks.masked_view._masked_legend.text(),
        ("MasksPanel", "Masks on a batch (True = may attend)"): masks.padding_view.parent().title(),
        ("MasksPanel", "key positions"): masks.padding_view.axis("bottom").labelText,
        ("PositionalPanel", "the formula"): positional.source.itemText(0),
        ("AttentionGrid", "Click a head to open it large."): explorer.attention.grid.readout_text(),
    }


def test_the_window_switches_to_chinese_and_back_while_it_runs(window, qtbot):
    english = shown_texts(window)
    assert english == {key: key[1] for key in english}
    assert window.windowTitle() == "transviz: unsaved model"
    window.view_choices.languages[CHINESE].trigger()  # View > Language > 简体中文
    assert current_language() == CHINESE
    qtbot.waitUntil(lambda: window.tabs.tabText(0) == zh("MainWindow", "Explorer"), timeout=5000)
    chinese = shown_texts(window)
    assert chinese == {key: zh(*key) for key in chinese}
    assert window.windowTitle() == zh("MainWindow", "transviz: {0}").format(zh("MainWindow", "unsaved model"))
    assert window.windowTitle() == "transviz：未保存的模型"
    assert chinese[("MainWindow", "&File")] == "文件(&F)"
    assert CJK.search(window.explorer.candidates.title)  # a text made from the session, redrawn
    assert CJK.search(window.model_label.text())
    assert window.view_choices.languages[CHINESE].isChecked()
    window.view_choices.languages[ENGLISH].trigger()
    qtbot.waitUntil(lambda: window.tabs.tabText(0) == "Explorer", timeout=5000)
    assert shown_texts(window) == english
    assert window.explorer.candidates.title.startswith("Step 1: the model's")


def help_texts(window: MainWindow) -> list[str]:
    texts = []
    for index in range(window.tabs.count()):
        window.tabs.setCurrentIndex(index)
        dialog = window.show_tab_help()
        texts.append(dialog.findChild(QPlainTextEdit).toPlainText())
        dialog.close()
    return texts


def test_every_tab_has_help_in_both_languages(window, qtbot):
    english = help_texts(window)
    assert all(len(text) > 300 for text in english)
    assert "sums to 1" in english[0] and "query" in english[0] and "mask" in english[2]
    set_language(CHINESE)
    qtbot.waitUntil(lambda: window.tabs.tabText(0) == zh("MainWindow", "Explorer"), timeout=5000)
    chinese = help_texts(window)
    assert chinese == [zh("TabHelp", text) for text in english]
    assert all(len(CJK.findall(text)) > 100 for text in chinese)


# -- the core's messages ---------------------------------------------------------------------------
def core_messages(make_model) -> list[str]:
    """Make the core say each of the messages a student meets (each message as the core words it)."""
    model = make_model(layers=1, heads=2, max_len=8)
    said = []

    def refused(action) -> str:
        with pytest.raises(InputError) as caught:
            action()
        return str(caught.value)

    with torch.no_grad():
        model.net.generator.bias[model.tgt_vocab.stoi[EOS]] += 1e4  # the model ends at once
    ending = DecodingSession(model, "ich mochte")
    said.append(ending.cant_back())
    ending.step()
    said.append(ending.cant_step())
    with torch.no_grad():
        model.net.generator.bias[model.tgt_vocab.stoi[EOS]] -= 2e4  # ... and now never
    endless = DecodingSession(model, "ich mochte", max_len=2)
    endless.run_to_end()
    said.append(endless.cant_step())
    said.append(refused(lambda: endless.force(PAD)))
    reference = DecodingSession(model, "ich mochte", reference="i want")
    reference.run_to_end()
    said.append(reference.cant_step())
    said += [refused(lambda s=s: DecodingSession(model, s)) for s in ("", "ich " * 9, "ich\x07 bier", "qqq zzz")]
    said.append(refused(lambda: DecodingSession(model, "ich", reference="i want a beer please i want a")))
    return [message for message in said if message]


def test_the_core_messages_a_student_meets_are_translated(make_model):
    said = core_messages(make_model)
    assert len(said) == 10
    assert all(translated(message) == message for message in said)  # English: as the core wrote them
    set_language(CHINESE)
    for message in said:
        chinese = translated(message)
        assert CJK.search(chinese), message
        numbers_and_tokens = re.findall(r"\d+|<[^>]+>|U\+[0-9A-F]+", message)
        assert all(part in chinese for part in numbers_and_tokens), (message, chinese)


def test_an_unknown_message_stays_as_the_core_wrote_it():
    set_language(CHINESE)
    assert translated("a message nobody translated") == "a message nobody translated"


def test_the_self_test_checks_the_chinese_catalogue_and_its_font():
    from transviz.selftest import Report, check_languages

    report = Report()
    check_languages(report)
    assert report.failures == 0
    assert report.lines == ["ok    languages: Chinese catalogue translates; fonts: WenQuanYi Micro Hei, "
                            "WenQuanYi Micro Hei Mono"]
    assert current_language() == ENGLISH  # put back as it was
