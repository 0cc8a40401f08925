"""What transviz remembers between runs: preferences and layout round-trip through a real INI file
(read back with configparser as well as with Qt), a window restores language, look, size, splitters,
tab, last model and sentence; broken or nonsensical settings give the defaults with a warning,
never a crash, also when the real app starts from a damaged file. Every test uses its own file."""
from __future__ import annotations

import configparser
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtWidgets import QSplitter

from transviz.core.io.resources import shipped_models
from transviz.gui.main_window import MainWindow
from transviz.gui.services.language import CHINESE, ENGLISH, current_language, system_language
from transviz.gui.services.settings import BROKEN_SUFFIX, SETTINGS_VARIABLE, Preferences, SettingsStore, WindowLayout
from transviz.gui.services.theme import DARK, Appearance, current_appearance

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def ini(tmp_path) -> Path:
    return tmp_path / "transviz.ini"


def test_preferences_and_layout_round_trip(ini):
    preferences = Preferences(CHINESE, Appearance(DARK, "magma", True), "/models/toy.safetensors", "ein bier bitte")
    layout = WindowLayout(b"\x01\xd9\xd0\xcb geometry", {"masks_and_walkthrough": b"\x00\xff state"}, 2)
    store = SettingsStore(ini)
    store.save_preferences(preferences)
    store.save_layout(layout)
    stored = SettingsStore(ini).load()  # a new reader, as at the next start
    assert stored.preferences == preferences and stored.layout == layout and stored.warnings == ()
    written = configparser.ConfigParser(interpolation=None)
    written.read(ini, encoding="utf-8")  # the file is plain INI, readable without Qt
    assert written["General"]["language"] == CHINESE
    assert (written["appearance"]["theme"], written["appearance"]["colormap"]) == (DARK, "magma")
    assert written["appearance"]["presentation"] == "true"
    assert written["session"]["sentence"] == "ein bier bitte"


def test_no_settings_file_means_the_defaults_in_the_system_language(ini):
    stored = SettingsStore(ini).load()
    assert stored.preferences == Preferences(system_language()) and stored.layout == WindowLayout()
    assert stored.warnings == () and not ini.exists()


def test_a_damaged_file_is_set_aside_with_a_warning_and_the_next_save_works(ini):
    ini.write_text("[General\nlanguage=zh_CN\n[[[ this is not a settings file\n")
    store = SettingsStore(ini)
    stored = store.load()
    assert stored.preferences == Preferences(system_language()) and stored.layout == WindowLayout()
    assert len(stored.warnings) == 1 and str(ini) + BROKEN_SUFFIX in stored.warnings[0]
    assert (ini.parent / (ini.name + BROKEN_SUFFIX)).read_text().startswith("[General\n")
    store.save_preferences(Preferences(CHINESE))
    assert SettingsStore(ini).load() == type(stored)(Preferences(CHINESE), WindowLayout(), ())


def test_a_file_set_aside_before_is_kept_when_another_is(ini):
    """The older FILE.broken was replaced by the next damaged file (issue 41)."""
    older = ini.parent / (ini.name + BROKEN_SUFFIX)
    older.write_text("the first damaged settings: kept\n")
    (ini.parent / (older.name + "-2")).symlink_to(ini.parent / "nowhere")  # a name in use, if only by a link
    ini.write_text("[General\nsecond damaged file\n")
    stored = SettingsStore(ini).load()
    third = ini.parent / (older.name + "-3")
    assert older.read_text() == "the first damaged settings: kept\n"
    assert third.read_text() == "[General\nsecond damaged file\n" and not ini.exists()
    assert len(stored.warnings) == 1 and str(third) in stored.warnings[0]


def test_nonsense_values_are_ignored_one_by_one(ini):
    ini.write_text("[General]\nlanguage=klingon\n[appearance]\ntheme=purple\ncolormap=jet\npresentation=maybe\n"
                   "[session]\nsentence=ich mochte ein bier\nmodel=default\n"
                   "[window]\ntab=second\ngeometry=plain text\n")
    stored = SettingsStore(ini).load()
    assert stored.preferences == Preferences(system_language(), Appearance(), "default", "ich mochte ein bier")
    assert stored.layout == WindowLayout()
    assert len(stored.warnings) == 6
    assert any("klingon" in warning for warning in stored.warnings)


def test_a_settings_file_that_cannot_be_read(tmp_path):
    folder = tmp_path / "transviz.ini"
    folder.mkdir()  # not a file
    stored = SettingsStore(folder).load()
    assert stored.preferences == Preferences(system_language()) and len(stored.warnings) == 1


@pytest.fixture
def close_later():
    windows = []
    yield windows.append
    for window in windows:
        window.shutdown()


def open_window(qtbot, close_later, ini: Path) -> MainWindow:
    window = MainWindow(settings=SettingsStore(ini))
    qtbot.addWidget(window)
    close_later(window)
    window.restore(window.settings.load())
    window.view_choices.show_window()
    qtbot.waitExposed(window)
    return window


def splitter(window: MainWindow, name: str) -> QSplitter:
    return next(s for s in window.findChildren(QSplitter) if s.objectName() == name)


def test_the_window_remembers_language_look_layout_model_and_sentence(qtbot, close_later, ini, model_file):
    first = open_window(qtbot, close_later, ini)
    first.resize(1100, 700)
    with qtbot.waitSignal(first.model_changed, timeout=10000):
        first.files.open(model_file)
    first.panels["explorer"].source.sentence.setText("ein bier bitte")
    first.tabs.setCurrentWidget(first.panels["masks"])
    qtbot.waitUntil(lambda: splitter(first, "masks_and_walkthrough").width() > 0)
    splitter(first, "masks_and_walkthrough").setSizes([300, 700])
    sizes = splitter(first, "masks_and_walkthrough").sizes()
    first.view_choices.languages[CHINESE].trigger()
    first.view_choices.themes[DARK].trigger()
    first.view_choices.colormaps["cividis"].trigger()
    size = (first.width(), first.height())  # at least the window's minimum size
    first.close()

    from transviz.gui.services.language import set_language
    from transviz.gui.services.theme import apply_appearance

    set_language(ENGLISH)  # as a new process starts
    apply_appearance(Appearance())
    second = open_window(qtbot, close_later, ini)
    assert current_language() == CHINESE and current_appearance() == Appearance(DARK, "cividis", False)
    assert second.view_choices.themes[DARK].isChecked() and second.view_choices.colormaps["cividis"].isChecked()
    canvas = second.panels["explorer"].attention.grid.canvas
    assert canvas.grab().toImage().pixelColor(2, 2).lightness() < 40  # plots restyled too
    assert (second.width(), second.height()) == size
    assert second.tabs.currentWidget() is second.panels["masks"]
    restored_splitter = splitter(second, "masks_and_walkthrough")
    restored = restored_splitter.sizes()
    # as stored, as far as the Chinese labels' minimum widths allow at this window width
    room = sum(sizes) - restored_splitter.widget(1).minimumSizeHint().width()
    assert sum(restored) == sum(sizes) and abs(restored[0] - min(sizes[0], room)) <= 8
    second.open_initial_model(None)  # what `transviz` does: the last model, not the shipped default
    # (which stands in while the file loads)
    qtbot.waitUntil(lambda: second.workspace.model_source == str(model_file), timeout=10000)
    assert second.workspace.model.path == str(model_file)
    assert second.panels["explorer"].source.sentence.text() == "ein bier bitte"
    assert second.panels["explorer"].controller.session.source == "ein bier bitte"


def test_presentation_mode_is_remembered(qtbot, close_later, ini):
    first = open_window(qtbot, close_later, ini)
    first.view_choices.presentation.trigger()
    qtbot.waitUntil(first.isFullScreen, timeout=5000)
    first.close()
    second = open_window(qtbot, close_later, ini)
    assert current_appearance().presentation
    qtbot.waitUntil(second.isFullScreen, timeout=5000)
    assert second.view_choices.presentation.isChecked()


def test_a_last_model_that_is_gone_opens_the_default_with_a_notice(qtbot, close_later, ini):
    SettingsStore(ini).save_preferences(Preferences(ENGLISH, last_model=str(ini.parent / "deleted.safetensors")))
    window = open_window(qtbot, close_later, ini)
    with qtbot.waitSignal(window.model_changed, timeout=30000):
        window.open_initial_model(None)
    assert "default" in shipped_models() and window.workspace.model_source == "default"
    assert not window.notice.isHidden() and "deleted.safetensors" in window.notice.text()


def test_a_damaged_settings_file_shows_a_notice_and_the_defaults(qtbot, close_later, ini):
    ini.write_bytes(b"[window\ngeometry=\x00\x01\x02 [[[")
    window = open_window(qtbot, close_later, ini)
    assert not window.notice.isHidden() and BROKEN_SUFFIX in window.notice.text()
    assert current_appearance() == Appearance() and current_language() == system_language()


# The real app, in its own process: `transviz` with TRANSVIZ_SETTINGS naming the file.
REAL_APP = r"""
import json, sys, time
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
from transviz import cli
from transviz.gui.app import application
from transviz.gui.services.language import current_language
from transviz.gui.main_window import MainWindow
from transviz.gui.services.theme import current_appearance

application()
started = time.monotonic()
action = sys.argv[1]


def when_ready():
    windows = [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()]
    if not windows or (windows[0].files.runner.is_busy() and time.monotonic() - started < 60):
        QTimer.singleShot(50, when_ready)
        return
    window = windows[0]
    if action == "choose":
        window.panels["explorer"].source.sentence.setText("ein bier bitte")
        window.view_choices.languages["zh_CN"].trigger()
        window.view_choices.themes["dark"].trigger()
    QApplication.processEvents()
    sentence = window.panels["explorer"].source.sentence.text()
    print(json.dumps([f"{current_language()} {current_appearance().theme} {sentence}",
                      window.tabs.tabText(0), window.notice.text()]), flush=True)
    window.close()

QTimer.singleShot(100, when_ready)
sys.exit(cli.main([]))
"""


def run_app(action: str, ini: Path) -> list[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen", SETTINGS_VARIABLE: str(ini),
           "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
    result = subprocess.run([sys.executable, "-c", REAL_APP, action], env=env, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.process
def test_the_real_app_remembers_and_survives_a_damaged_file(ini):
    assert run_app("look", ini)[:2] == ["en light ich mochte ein bier", "Explorer"]  # a first start: defaults
    run_app("choose", ini)
    assert run_app("look", ini)[:2] == ["zh_CN dark ein bier bitte", "探索"]  # the next start remembers
    ini.write_text("[General\nlanguage=zh_CN\n[appearance]\ntheme=dark\n")  # a section never closed
    shown = run_app("look", ini)
    assert shown[:2] == ["en light ich mochte ein bier", "Explorer"]  # the defaults, no crash
    assert BROKEN_SUFFIX in shown[2]
    ini.write_bytes(b"\x00\x9c[[[ binary \xff\xfe" * 50)  # Qt reads no setting at all in this one
    assert run_app("look", ini)[:2] == ["en light ich mochte ein bier", "Explorer"]


def test_a_tab_not_shown_this_time_keeps_its_stored_layout(qtbot, close_later, ini):
    first = open_window(qtbot, close_later, ini)
    first.tabs.setCurrentWidget(first.panels["masks"])
    qtbot.waitUntil(lambda: splitter(first, "masks_and_walkthrough").width() > 0)
    splitter(first, "masks_and_walkthrough").setSizes([500, 500])
    first.tabs.setCurrentWidget(first.panels["explorer"])
    first.close()
    stored = SettingsStore(ini).load().layout.splitters["masks_and_walkthrough"]
    second = open_window(qtbot, close_later, ini)  # the masks tab is never shown this time
    second.close()
    assert SettingsStore(ini).load().layout.splitters["masks_and_walkthrough"] == stored


def test_a_tab_built_after_the_start_takes_its_stored_layout(qtbot, close_later, ini):
    first = open_window(qtbot, close_later, ini)
    first.tabs.setCurrentWidget(first.panels["masks"])
    qtbot.waitUntil(lambda: splitter(first, "masks_and_walkthrough").width() > 0)
    splitter(first, "masks_and_walkthrough").setSizes([500, 500])
    sizes = splitter(first, "masks_and_walkthrough").sizes()
    first.tabs.setCurrentWidget(first.panels["explorer"])
    first.close()
    second = open_window(qtbot, close_later, ini)
    assert not second.panels.is_built("masks")  # built when shown, after the settings were read
    second.tabs.setCurrentWidget(second.panels["masks"])
    qtbot.waitUntil(lambda: splitter(second, "masks_and_walkthrough").width() > 0)
    restored = splitter(second, "masks_and_walkthrough").sizes()
    assert sum(restored) == sum(sizes) and abs(restored[0] - sizes[0]) <= 8


def test_a_stored_layout_that_a_tab_built_later_cannot_use_is_named_then(qtbot, close_later, ini):
    SettingsStore(ini).save_layout(WindowLayout(None, {"masks_and_walkthrough": b"not a splitter state"}, 0))
    window = open_window(qtbot, close_later, ini)
    assert window.notice.isHidden()
    window.tabs.setCurrentWidget(window.panels["masks"])
    assert not window.notice.isHidden() and "masks_and_walkthrough" in window.notice.text()


def test_a_remembered_sentence_the_model_cannot_read_gives_way_to_its_first_example(qtbot, close_later, ini):
    """Issue 14, item 4: ``model=default`` with a sentence typed for another model (digits)."""
    SettingsStore(ini).save_preferences(Preferences(ENGLISH, last_model="default", last_sentence="0123456789"))
    window = open_window(qtbot, close_later, ini)
    with qtbot.waitSignal(window.model_changed, timeout=30000):
        window.open_initial_model(None)
    first = window.workspace.examples[0]
    assert window.workspace.session is not None and window.workspace.session.source == first.source
    assert window.panels["explorer"].source.sentence.text() == first.source
    assert window.workspace.error is None
    assert "0123456789" in window.statusBar().currentMessage()


def test_a_remembered_sentence_belongs_to_its_model_only(qtbot, close_later, ini, model_file):
    """A model asked for by name does not take the last model's sentence."""
    SettingsStore(ini).save_preferences(Preferences(ENGLISH, last_model=str(model_file), last_sentence="ein bier"))
    window = open_window(qtbot, close_later, ini)
    with qtbot.waitSignal(window.model_changed, timeout=30000):
        window.open_initial_model("default")
    assert window.workspace.sentence == window.workspace.examples[0].source
