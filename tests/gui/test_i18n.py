"""The Chinese edition: every visible string is translated (the sources, the core's messages
included, are scanned afresh with Qt's lupdate and compared with the shipped catalogue), the
shipped .qm is the catalogue compiled, a real window switches language while it runs, and back,
and the core's messages shown in it follow. Expected texts are read from the .ts catalogue with
an XML parser, independently of Qt's translator."""
from __future__ import annotations

import math
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from pathlib import Path

import pytest
import torch
from PySide6.QtCore import QLocale
from PySide6.QtWidgets import QPlainTextEdit

from transviz import load_model
from transviz.core.base.errors import CheckpointError, ConfigError, TransvizError
from transviz.core.io.checkpoint import describe
from transviz.core.io.endings import DIVERGED, LOSS, diverged
from transviz.core.model.config import ModelConfig
from transviz.core.teaching.workspace import Workspace
from transviz.core.training.devices import available_devices
from transviz.gui.main_window import MainWindow
from transviz.gui.panels.registry import PANELS
from transviz.gui.services.core_messages import translated
from transviz.gui.services.files import model_info
from transviz.gui.services.help_texts import help_sections
from transviz.gui.services.language import CHINESE, ENGLISH, current_language, set_language, system_language
from transviz.gui.widgets.labels import unbreakable

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


def catalogue_problems(needed: Iterable[tuple[str, str]],
                       catalogue: dict[tuple[str, str], tuple[str, str]]) -> list[str]:
    """What is wrong with ``catalogue``'s translations of the ``needed`` (context, source) texts:
    missing, unfinished or empty, a {placeholder} changed, a menu's &-key lost."""
    problems = []
    for key in needed:
        translation, kind = catalogue.get(key, ("", "missing"))
        context, source = key
        if kind or not translation.strip():
            problems.append(f"{context}: {source!r} is {kind or 'empty'}")
        elif sorted(PLACEHOLDER.findall(source)) != sorted(PLACEHOLDER.findall(translation)):
            problems.append(f"{context}: {source!r} -> {translation!r} changes the placeholders")
        elif ACCELERATOR.search(source) and not ACCELERATOR.search(translation):
            problems.append(f"{context}: {source!r} -> {translation!r} loses its keyboard accelerator")
    return problems


def scanned(folder: Path) -> dict[tuple[str, str], tuple[str, str]]:
    """What lupdate finds in transviz's sources, as the manual's Internationalisation page runs it (the core's marker
    read as QT_TRANSLATE_NOOP), written to a fresh catalogue in ``folder``."""
    fresh = folder / "fresh.ts"
    sources = sorted(str(p) for p in (ROOT / "transviz").rglob("*.py"))
    result = subprocess.run([qt_tool("pyside6-lupdate"), *sources, "-tr-function-alias",
                             "QT_TRANSLATE_NOOP+=translate_noop", "-ts", str(fresh)], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    return messages(fresh)


@pytest.mark.process
def test_every_visible_string_has_a_finished_chinese_translation(tmp_path):
    needed = scanned(tmp_path)
    assert len(needed) > 200  # the scan found the window's texts
    core = {source for context, source in needed if context == "CoreMessages"}
    assert "d_model ({0}) must be divisible by n_heads ({1}): each head gets d_model / n_heads dimensions" in core
    assert len(core) > 130  # and the core's messages, through its marker
    problems = catalogue_problems(needed, SHIPPED)
    assert not problems, "\n".join(problems)
    stale = sorted(set(SHIPPED) - set(needed))  # obsolete: the README's lupdate drops them
    assert not stale, stale


def test_a_missing_translation_is_caught(tmp_path):
    """The check above can fail: the same comparison on a catalogue that lacks one text, leaves one
    unfinished, drops a placeholder from one and the &-key from another finds exactly those four."""
    tree = ET.parse(CATALOGUE)
    everything = list(tree.getroot().iter("message"))
    first, second = everything[:2]
    with_placeholder = next(m for m in everything if "{0}" in (m.findtext("source") or ""))
    with_key = next(m for m in everything if ACCELERATOR.search(m.findtext("source") or ""))
    first.find("translation").set("type", "unfinished")  # type: ignore[union-attr]
    parent = next(c for c in tree.getroot().iter("context") if second in list(c))
    parent.remove(second)
    placeholder_text = with_placeholder.find("translation")
    placeholder_text.text = placeholder_text.text.replace("{0}", "")  # type: ignore[union-attr]
    key_text = with_key.find("translation")
    key_text.text = ACCELERATOR.sub("", key_text.text or "")  # type: ignore[union-attr]
    broken = tmp_path / "broken.ts"
    tree.write(broken, encoding="utf-8")
    problems = catalogue_problems(SHIPPED, messages(broken))
    assert len(problems) == 4, problems
    for message, what in ((first, "is unfinished"), (second, "is missing"),
                          (with_placeholder, "changes the placeholders"), (with_key, "loses its keyboard accelerator")):
        source = repr(message.findtext("source"))
        assert any(source in problem and what in problem for problem in problems), (source, what, problems)
    assert not catalogue_problems(SHIPPED, SHIPPED)  # the shipped catalogue has none of them


@pytest.mark.process
def test_the_shipped_qm_is_the_catalogue_compiled(tmp_path):
    compiled = tmp_path / "transviz_zh_CN.qm"
    result = subprocess.run([qt_tool("pyside6-lrelease"), str(CATALOGUE), "-qm", str(compiled)], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert compiled.read_bytes() == COMPILED.read_bytes(), "run pyside6-lrelease (docs/developers/i18n.md)"


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
    explorer, masks, positional = window.panels["explorer"], window.panels["masks"], window.panels["positional"]
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
        ("AttentionView", "queries: decoder input -> token written (rows)"):
            explorer.attention.large.axis("left").labelText,
        ("AttentionView", "cross-attention"): explorer.attention.kind.currentText(),
        # "-inf" is filled in whole (it never breaks across lines): the template is what was translated
        ("HeatmapWidget", "grey hatched cells: masked ({0})"):
            masks.masked_view._masked_legend.text().replace(unbreakable("-inf"), "{0}"),
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
    assert CJK.search(window.panels["explorer"].candidates.title)  # a text made from the session, redrawn
    assert CJK.search(window.model_label.text())
    assert window.view_choices.languages[CHINESE].isChecked()
    window.view_choices.languages[ENGLISH].trigger()
    qtbot.waitUntil(lambda: window.tabs.tabText(0) == "Explorer", timeout=5000)
    assert shown_texts(window) == english
    assert window.panels["explorer"].candidates.title.startswith("Step 1: the model's")


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
    sections = [help_sections(spec.id) for spec in PANELS]  # each paragraph one translated text
    assert english == ["\n\n".join(paragraphs) for paragraphs in sections]
    set_language(CHINESE)
    qtbot.waitUntil(lambda: window.tabs.tabText(0) == zh("MainWindow", "Explorer"), timeout=5000)
    chinese = help_texts(window)
    assert chinese == ["\n\n".join(zh("TabHelp", text) for text in paragraphs) for paragraphs in sections]
    assert all(len(CJK.findall(text)) > 100 for text in chinese)


# -- the core's messages ---------------------------------------------------------------------------
def core(template: str, *args: object) -> str:
    """The shipped Chinese of one of the core's templates, filled in."""
    return zh("CoreMessages", template).format(*args)


def test_the_core_messages_follow_the_language_with_their_parts():
    """Real messages of the core, translated by their template: an error, how a run diverged (the
    quantity inside is a message too), a device, a line of Model > Info; English as the core says
    them; text that is no message of the core passes unchanged."""
    with pytest.raises(ConfigError) as caught:
        ModelConfig(9, 9, d_model=128, n_heads=3)
    error = caught.value
    exploded = diverged(7, LOSS, math.nan, 6, 0.5)
    cpu = available_devices()[-1].description
    text_error = TransvizError("lr and warm-up must be numbers {like 1e-3}")  # a widget's own words
    samples = [error, exploded, cpu, "an OS error: Permission denied", text_error]
    assert [translated(m) for m in samples] == [str(error), str(exploded), str(cpu), samples[3], str(text_error)]
    set_language(CHINESE)
    assert translated(error) == "d_model（128）必须能被 n_heads（3）整除：每个头分到 d_model / n_heads 维"
    assert translated(exploded) == core(DIVERGED, 7, zh("CoreMessages", "the loss"), "nan", 6, 7, "0.5")
    assert translated(exploded).startswith("训练在第 7 步发散：损失变成了 nan")
    assert translated(cpu) == core("CPU, {0} threads", torch.get_num_threads())
    assert translated(samples[3]) == samples[3] and translated(text_error) == str(text_error)


def test_model_info_of_the_shipped_model_is_chinese_to_the_last_line():
    """The shipped models were saved before a checkpoint kept its run's message: how the run
    ended comes back from its status and steps."""
    model = load_model("default")
    english = model_info(model).split("\n")
    assert "training.message: finished 1200 steps" in english and english == describe(model).split("\n") + [
        "device: cpu"]
    set_language(CHINESE)
    chinese = model_info(model).split("\n")
    assert len(chinese) == len(english) and all(CJK.search(line) for line in chinese), chinese
    assert core("training.{0}: {1}", "message", core("finished {0} steps", 1200)) in chinese
    word_level = zh("CoreMessages", "word level")
    assert core("source vocabulary: {0} tokens ({1})", len(model.src_vocab), word_level) in chinese


def test_the_explorer_says_in_chinese_why_it_cannot_read_a_sentence(window, qtbot):
    source = window.panels["explorer"].source
    window.view_choices.languages[CHINESE].trigger()
    qtbot.waitUntil(lambda: window.tabs.tabText(0) == zh("MainWindow", "Explorer"), timeout=5000)
    source.sentence.setText("   ")
    assert source.error.isVisible() and source.error.text() == "句子为空：请至少输入一个词"
    assert source.error.text() == zh("CoreMessages", "the sentence is empty: type at least one word")
    source.sentence.setText("zebra giraffe")
    assert source.error.text() == core("none of the words ({0}) is in this model's vocabulary: it would read only "
                                       "<unk>", "zebra, giraffe")
    window.view_choices.languages[ENGLISH].trigger()
    source.sentence.setText("")
    assert source.error.text() == "the sentence is empty: type at least one word"


def test_model_open_says_in_chinese_why_a_file_is_refused(window, qtbot, model_file, tmp_path):
    cut = tmp_path / "cut.safetensors"
    cut.write_bytes(model_file.read_bytes()[: model_file.stat().st_size // 2])
    with pytest.raises(CheckpointError) as caught:
        load_model(cut)
    size, needed = caught.value.message.args[1:]
    set_language(CHINESE)
    with qtbot.waitSignal(window.load_failed, timeout=10000) as failed:
        window.files.open(cut)
    said = core("{0}: the file is truncated or damaged: it ends after {1} bytes; a complete file holds {2} bytes",
                cut.name, size, needed)
    assert said.startswith("cut.safetensors：文件不完整或已损坏") and said in failed.args[0]
    qtbot.waitUntil(lambda: window.error_dialog is not None, timeout=5000)
    assert said in window.error_dialog.text()
    window.error_dialog.close()


def test_the_self_test_checks_the_chinese_catalogue_and_its_font():
    from transviz.selftest import Report, check_languages

    report = Report()
    check_languages(report)
    assert report.failures == 0
    assert report.lines == ["ok    languages: Chinese catalogue translates; fonts: WenQuanYi Micro Hei, "
                            "WenQuanYi Micro Hei Mono"]
    assert current_language() == ENGLISH  # put back as it was


def test_the_training_form_lab_devices_and_model_info_follow_the_language(window, qtbot):
    form, lab = window.panels["training"].form, window.panels["lab"]
    cpu = form.device.findData("cpu")
    threads = re.fullmatch(r"cpu: CPU, (\d+) threads", form.device.itemText(cpu))[1]
    form.d_model.setValue(128)
    form.heads.setValue(3)  # 128 / 3 heads: impossible
    lab.table_choice.setCurrentIndex(lab.table_choice.findData("custom"))
    lab.vary.setCurrentIndex(lab.vary.findData("layers"))
    lab.values.setText("2, 0")  # no layers: impossible
    english = "d_model (128) must be divisible by n_heads (3): each head gets d_model / n_heads dimensions"
    assert not form.valid and form.error.text() == english
    assert lab.error.text() == "Custom sweep: layers must be a positive integer, got 0"
    window.view_choices.languages[CHINESE].trigger()
    qtbot.waitUntil(lambda: window.tabs.tabText(0) == zh("MainWindow", "Explorer"), timeout=5000)
    assert not form.error.isHidden() and form.error.text() == zh("CoreMessages", english.replace("128", "{0}").replace(
        "(3)", "({1})")).format(128, 3) == "d_model（128）必须能被 n_heads（3）整除：每个头分到 d_model / n_heads 维"
    assert lab.error.text() == zh("LabPanel", "Custom sweep: {0}").format(
        zh("CoreMessages", "{0} must be a positive integer, got {1}").format("layers", 0))
    assert form.device.itemText(cpu) == lab.device.itemText(cpu) == "cpu: " + zh(
        "CoreMessages", "CPU, {0} threads").format(threads)
    dialog = window.show_model_info()
    info = dialog.findChild(QPlainTextEdit).toPlainText().split("\n")
    dialog.close()
    assert all(CJK.search(line) for line in info), info
    assert zh("CoreMessages", "config.{0}: {1}").format("d_model", 16) in info
    assert zh("CoreMessages", "source vocabulary: {0} tokens ({1})").format(
        len(window.workspace.model.src_vocab), zh("CoreMessages", "word level")) in info
    assert info[-1] == zh("MainWindow", "device: {0}").format("cpu") == "设备：cpu"
    window.view_choices.languages[ENGLISH].trigger()
    qtbot.waitUntil(lambda: window.tabs.tabText(0) == "Explorer", timeout=5000)
    assert form.error.text() == english and form.device.itemText(cpu) == f"cpu: CPU, {threads} threads"


PAIRS = [f"ich {word}\ti {word}" for word in "du er sie wir ihr bier wein brot haus hund katze maus".split()]


def test_the_training_tab_says_in_chinese_why_a_run_diverged_or_could_not_start(qtbot, show, tmp_path):
    from transviz.gui.panels.training import TrainingPanel

    set_language(CHINESE)
    panel = show(TrainingPanel(Workspace(), runs_dir=tmp_path / "runs"), 1400, 900)
    form = panel.form
    try:
        broken = tmp_path / "broken.tsv"
        broken.write_text(f"{PAIRS[0]}\n{PAIRS[1]}\nno tab on this line\n", encoding="utf-8")
        form.set_tsv(str(broken))
        with qtbot.waitSignal(panel.run_failed, timeout=30000):
            panel.start()
        line_3 = zh("CoreMessages", "line {0}: no tab; expected one tab between source and target").format(3)
        assert panel.error.text() == zh("TrainingPanel", "Training: {0}").format(line_3)
        set_language(ENGLISH)
        qtbot.waitUntil(lambda: panel.error.text() == "Training: line 3: no tab; expected one tab between source "
                                                      "and target", timeout=5000)
        set_language(CHINESE)
        form.set_task("reverse")
        for spin, value in ((form.layers, 1), (form.heads, 2), (form.d_model, 16), (form.d_ff, 32),
                            (form.steps, 60), (form.batch_size, 16), (form.snapshot_every, 0), (form.eval_every, 0)):
            spin.setValue(value)
        form.lr.setText("1e6")
        form.schedule.setCurrentIndex(form.schedule.findData("constant"))
        form.device.setCurrentIndex(form.device.findData("cpu"))
        with qtbot.waitSignal(panel.run_finished, timeout=60000) as finished:
            panel.start()
        result = finished.args[0]
        assert result.status == "diverged", result.message
        explained = panel.notice.text().split("\n")[0]
        assert explained == translated(result.message) and CJK.search(explained)
        failed_step = re.match(r"training diverged at step (\d+)", str(result.message))[1]
        assert explained.startswith(f"训练在第 {failed_step} 步发散") and "试试预热或更低的学习率" in explained
        set_language(ENGLISH)
        qtbot.waitUntil(lambda: panel.notice.text().startswith("Training diverged at step"), timeout=5000)
    finally:
        panel.shutdown()


def test_the_lab_rows_legends_cancel_message_task_and_init_names_are_chinese(qtbot, show):
    from transviz.gui.panels.lab import LabPanel
    from transviz.gui.widgets.training_form import TrainingForm

    set_language(CHINESE)
    lab = show(LabPanel(Workspace()), 1400, 800)
    form = show(TrainingForm(), 600, 800)
    try:
        assert form.task.itemText(form.task.findData("reverse")) == "倒序" == zh("CoreMessages", "reverse")
        assert form.init.itemText(form.init.findData("default")) == "默认" == zh("CoreMessages", "default")
        lab.table_choice.setCurrentIndex(lab.table_choice.findData("lr"))
        lab.device.setCurrentIndex(lab.device.findData("cpu"))
        lab.set_length(30, 1)
        english = ["lr=1e-3, no warm-up", "lr=1e-4, no warm-up", "lr=1e-5, no warm-up", "lr=1e-3, 1% warm-up"]
        chinese = [zh("CoreMessages", label) for label in english]
        assert all(CJK.search(label) for label in chinese)
        assert [lab.table.item(line, 0).text() for line in range(4)] == chinese  # before the run, too
        second = []
        lab.worker.stepped.connect(lambda index, step, loss: index == 1 and second.append(step))
        lab.run_button.click()
        qtbot.waitUntil(lambda: len(second) >= 2, timeout=120000)
        with qtbot.waitSignal(lab.worker.all_done, timeout=60000):
            lab.cancel_button.click()
        cancelled = zh("LabPanel", "cancelled: {0} of {1} runs finished").format(1, 4)
        assert lab.progress_text.text() == cancelled and CJK.search(cancelled)
        legend = [label.text for _, label in lab.plot.plotItem.legend.items]
        assert legend == chinese and [series.name for series in lab.curves] == chinese
        set_language(ENGLISH)
        qtbot.waitUntil(lambda: lab.progress_text.text() == "cancelled: 1 of 4 runs finished", timeout=5000)
        assert [label.text for _, label in lab.plot.plotItem.legend.items] == english
        assert form.task.itemText(form.task.findData("reverse")) == "reverse"
        set_language(CHINESE)
        qtbot.waitUntil(lambda: lab.progress_text.text() == cancelled, timeout=5000)  # said again in the language
        assert [lab.table.item(line, 0).text() for line in range(4)] == chinese
    finally:
        lab.shutdown()
        set_language(ENGLISH)


def test_qts_own_file_dialog_reads_in_chinese_throughout(qapp):
    """Qt's Chinese catalogue lacks two of its file dialog's labels; transviz's carries them."""
    from PySide6.QtWidgets import QFileDialog, QLabel

    from transviz.gui.services.language import CHINESE, ENGLISH, set_language

    set_language(CHINESE)
    try:
        dialog = QFileDialog(None, "x")
        dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
        labels = [label.text() for label in dialog.findChildren(QLabel) if label.text()]
        assert len(labels) == 3 and not any(re.search("[A-Za-z]{2,}", text) for text in labels), labels
        dialog.deleteLater()
    finally:
        set_language(ENGLISH)
