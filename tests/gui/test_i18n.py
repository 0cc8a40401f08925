"""The Chinese edition: every visible string is translated (the sources are scanned afresh with
Qt's lupdate and compared with the shipped catalogue), the shipped .qm is the catalogue compiled,
and a real window switches language while it runs, and back. Expected texts are read from the
.ts catalogue with an XML parser, independently of Qt's translator."""
from __future__ import annotations

import math
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
from PySide6.QtCore import QLocale
from PySide6.QtWidgets import QPlainTextEdit
from safetensors.torch import save_file

from transviz.core.workspace import Workspace
from transviz import load_model, save_model
from transviz.core.checkpoint import describe
from transviz.core.config import ModelConfig, TrainConfig
from transviz.core.corpus import MAX_BYTES, MAX_LINES, load_tsv
from transviz.core.decoding import DecodingSession
from transviz.core.devices import available_devices
from transviz.core.errors import CheckpointError, ConfigError, InputError
from transviz.core.lab import LabSettings
from transviz.core.train import Trainer, TrainObserver, build_model
from transviz.core.vocab import EOS, PAD
from transviz.gui.core_messages import _rules, translated
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


def test_every_visible_string_has_a_finished_chinese_translation(tmp_path):
    fresh = tmp_path / "fresh.ts"
    sources = sorted(str(p) for p in (ROOT / "transviz" / "gui").rglob("*.py"))
    result = subprocess.run([qt_tool("pyside6-lupdate"), *sources, "-ts", str(fresh)], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    needed = messages(fresh)
    assert len(needed) > 200  # the scan found the window's texts
    assert ("CoreMessages", "d_model ({0}) must be divisible by n_heads ({1}): each head gets d_model / n_heads "
                            "dimensions") in needed  # and the core's messages
    problems = catalogue_problems(needed, SHIPPED)
    assert not problems, "\n".join(problems)


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
    set_language(CHINESE)
    qtbot.waitUntil(lambda: window.tabs.tabText(0) == zh("MainWindow", "Explorer"), timeout=5000)
    chinese = help_texts(window)
    assert chinese == [zh("TabHelp", text) for text in english]
    assert all(len(CJK.findall(text)) > 100 for text in chinese)


# -- the core's messages ---------------------------------------------------------------------------
def refused(action: Callable[[], object], error: type[Exception] = InputError) -> str:
    """The message of the ``error`` that ``action`` raises."""
    with pytest.raises(error) as caught:
        action()
    return str(caught.value)


def core_messages(make_model) -> list[str]:
    """Make the core say each of the messages a student meets (each message as the core words it)."""
    model = make_model(layers=1, heads=2, max_len=8)
    said = []
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
    said.append(refused(lambda: DecodingSession(model, "ich mochte").force(PAD)))  # before the end
    reference = DecodingSession(model, "ich mochte", reference="i want")
    reference.run_to_end()
    said.append(reference.cant_step())
    said += [refused(lambda s=s: DecodingSession(model, s)) for s in ("", "ich " * 9, "ich\x07 bier", "qqq zzz")]
    said.append(refused(lambda: DecodingSession(model, "ich", reference="i want a beer please i want a")))
    said.append(refused(lambda: DecodingSession(model, "ich", reference=" ")))
    return [message for message in said if message]


def checkpoint_messages(make_model, folder: Path) -> list[str]:
    """Every way Model > Open refuses a file, as the core words it (real files)."""
    good = save_model(make_model(layers=1, heads=2), folder / "good.safetensors")
    (folder / "cut.safetensors").write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    (folder / "text.safetensors").write_text("this is a text file, not a checkpoint")
    save_file({"weight": torch.zeros(3)}, str(folder / "foreign.safetensors"))
    names = ("cut", "text", "foreign", "missing")
    said = [refused(lambda n=n: load_model(folder / f"{n}.safetensors"), CheckpointError) for n in names]
    return said + [refused(lambda: load_model(folder), CheckpointError)]


def settings_messages() -> list[str]:
    """The impossible settings of the training form and the lab's custom sweeps, as the core words them."""
    def model(**bad):
        return lambda: ModelConfig(9, 9, **bad)

    def train(**bad):
        return lambda: TrainConfig(**bad)

    actions = [model(d_model=128, n_heads=3), model(d_ff=0), model(n_encoder_layers=0), model(dropout=1.0),
               model(norm="middle"), model(layer_norm_eps=0.0), model(pad_id=9),
               lambda: ModelConfig(9, 8, share_embeddings=True),
               train(lr=-0.001), train(seed=-1), train(label_smoothing=1.5), train(schedule="cosine"),
               train(schedule="noam", warmup_steps=0), train(schedule="warmup-decay", steps=100, warmup_steps=100),
               train(clip_norm=-1.0), train(probe="  "), train(init="orthogonal"), train(init="xavier_uniform:0.1"),
               train(init="normal:abc"), train(init="uniform:-0.5"),
               lambda: LabSettings(warmup=2.0), lambda: LabSettings(layers=0)]
    return [refused(action, ConfigError) for action in actions]


PAIRS = [f"ich {word}\ti {word}" for word in "du er sie wir ihr bier wein brot haus hund katze maus".split()]


def corpus_messages(folder: Path) -> list[str]:
    """Every way a TSV corpus is refused (transviz.core.corpus.load_tsv)."""
    texts = {"empty.tsv": "\n\n", "few.tsv": "\n".join(PAIRS[:3]), "no-tab.tsv": f"{PAIRS[0]}\nich bier\n",
             "tabs.tsv": f"{PAIRS[0]}\nich\tbier\tbeer\n", "no-source.tsv": " \tbeer\n",
             "no-target.tsv": f"{PAIRS[0]}\n{PAIRS[1]}\nich bier\t \n",
             "twice.tsv": "ich bier\ti beer\nich du\tyou\nich bier\ti want a beer\n",
             "long.tsv": "\n" * (MAX_LINES + 1)}
    for name, text in texts.items():
        (folder / name).write_text(text, encoding="utf-8")
    (folder / "latin1.tsv").write_bytes(f"{PAIRS[0]}\nk\xe4se\tcheese\n".encode("latin-1"))
    with (folder / "huge.tsv").open("wb") as sparse:
        sparse.truncate(MAX_BYTES + 2**20)  # a sparse file: its size is refused before anything is read
    paths = [folder / name for name in (*texts, "latin1.tsv", "huge.tsv", "missing.tsv")] + [folder]
    return [refused(lambda path=path: load_tsv(path)) for path in paths]


TINY = dict(d_model=8, n_heads=2, n_encoder_layers=1, n_decoder_layers=1, d_ff=16, dropout=0.0)


def training_messages(folder: Path) -> list[str]:
    """How tiny real runs end (diverged, stopped, finished), and the lines Model > Info shows of the
    finished one's checkpoint."""
    corpus = folder / "pairs.tsv"
    corpus.write_text("\n".join(PAIRS) + "\n", encoding="utf-8")
    data = load_tsv(corpus)
    config = TrainConfig(steps=3, batch_size=4, eval_every=0, snapshot_every=0, device="cpu")

    class Poison(TrainObserver):
        def on_step(self, metrics):  # an infinite weight after step 1: step 2's loss is NaN
            if metrics.step == 1:
                with torch.no_grad():
                    poisoned.net.generator.weight[0, 0] = math.inf

    poisoned = build_model(data, config, **TINY)
    diverged = Trainer(poisoned, data, config, Poison()).run()
    stopping = Trainer(build_model(data, config, **TINY), data, config)
    stopping.stop()
    finished = Trainer(build_model(data, config, **TINY), data, config, checkpoint_path=folder / "m.safetensors").run()
    assert [diverged.status, finished.status] == ["diverged", "finished"]
    description = describe(load_model(str(finished.checkpoint))).split("\n")
    assert description[0].startswith("file:") and "training.message: finished 3 steps" in description
    return [diverged.message, stopping.run().message, finished.message, *description]


def device_descriptions(monkeypatch) -> list[str]:
    """The devices torch can use, as the core describes them; a GPU and Apple's Metal made present in torch."""
    properties = SimpleNamespace(name="NVIDIA H200", total_memory=150_000_000_000)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda index: properties)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: True)
    return [device.description for device in available_devices()]


def test_the_core_messages_a_student_meets_are_translated(make_model, tmp_path, monkeypatch):
    said = core_messages(make_model)
    assert len(said) == 11
    said += checkpoint_messages(make_model, tmp_path)
    assert len(said) == 16
    said += settings_messages() + corpus_messages(tmp_path) + training_messages(tmp_path)
    said += device_descriptions(monkeypatch)
    assert said[-3:] == ["NVIDIA H200, 150.0 GB", "Apple GPU (Metal)", f"CPU, {torch.get_num_threads()} threads"]
    unmatched = [pattern.pattern for pattern, _ in _rules() if not any(pattern.fullmatch(m) for m in said)]
    assert not unmatched, "rules no message here needs"
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
        failed_step = re.match(r"training diverged at step (\d+)", result.message)[1]
        assert explained.startswith(f"训练在第 {failed_step} 步发散") and "试试预热或更低的学习率" in explained
        set_language(ENGLISH)
        qtbot.waitUntil(lambda: panel.notice.text().startswith("Training diverged at step"), timeout=5000)
    finally:
        panel.shutdown()
