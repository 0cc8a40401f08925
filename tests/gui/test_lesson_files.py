"""Lessons a teacher writes, from the window: File > Open lesson, a lesson file dropped on the window,
File > Recent lessons (kept in a settings file of the test's own), File > Close lesson, and File > Add
the current state as a slide, which appends to a lesson file and keeps the file's own text."""
from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import QApplication, QDialogButtonBox

from transviz.core.teaching import lesson
from transviz.gui.main_window import MainWindow
from transviz.gui.services.language import ENGLISH
from transviz.gui.services.settings import Preferences, SettingsStore

LESSON = '''format = "transviz-lesson"
version = 1
title_en = "Mine"

# the teacher's own note, kept when slides are added
[[slide]]
model = "default"
sentence = "ein bier"
steps = 1
caption_en = "First"
'''


@pytest.fixture
def ini(tmp_path: Path) -> Path:
    path = tmp_path / "transviz.ini"
    SettingsStore(path).save_preferences(Preferences(ENGLISH))
    return path


@pytest.fixture
def windows(qtbot):
    opened = []

    def open_window(ini: Path) -> MainWindow:
        window = MainWindow(settings=SettingsStore(ini))
        qtbot.addWidget(window)
        opened.append(window)
        window.restore(window.settings.load())
        window.resize(1366, 768)
        window.show()
        qtbot.waitExposed(window)
        return window

    yield open_window
    for window in opened:
        window.lesson_mode.stop()
        window.shutdown()


@pytest.fixture
def mine(tmp_path: Path) -> Path:
    path = tmp_path / "lessons" / "mine.toml"
    path.parent.mkdir()
    path.write_text(LESSON, encoding="utf-8")
    return path


def entries(menu) -> list[str]:
    return [a.text().replace("&", "") for a in menu.actions() if not a.isSeparator()]


def test_the_file_menu_opens_lessons_with_keys(windows, ini) -> None:
    window = windows(ini)
    file = window.menuBar().actions()[0].menu()
    texts = entries(file)
    for text in ("Open lesson...", "Recent lessons", "Add the current state as a slide...", "Close lesson"):
        assert text in texts
    shortcuts = {a.text().replace("&", ""): a.shortcut() for a in file.actions()}
    assert shortcuts["Open lesson..."] == QKeySequence("Ctrl+L")
    assert shortcuts["Add the current state as a slide..."] == QKeySequence("Ctrl+Shift+L")
    assert not window.menus.add_slide_action.isEnabled()  # nothing decoded yet: nothing to add
    assert not window.menus.close_lesson_action.isEnabled()


def test_an_opened_lesson_is_in_recent_lessons_next_time(windows, ini, mine) -> None:
    first = windows(ini)
    assert entries(first.menus.recent_menu) == ["(none yet)"]
    assert first.open_lesson(mine)
    assert first.lesson_mode.banner.caption.text() == "First"
    assert entries(first.menus.recent_menu) == ["1 mine.toml"]
    assert first.menus.close_lesson_action.isEnabled()
    first.menus.close_lesson_action.trigger()
    assert not first.lesson_mode.active and not first.lesson_mode.bar.isVisible()
    first.close()
    assert SettingsStore(ini).load().preferences.recent_lessons == (str(mine.resolve()),)

    second = windows(ini)
    recent = second.menus.recent_menu.actions()
    assert [a.text() for a in recent] == ["&1 mine.toml"] and recent[0].toolTip() == str(mine.resolve())
    recent[0].trigger()
    assert second.lesson_mode.active and second.lesson_mode.banner.caption.text() == "First"


def test_a_recent_lesson_that_is_gone_says_so_and_leaves_the_list(windows, ini, mine) -> None:
    window = windows(ini)
    assert window.open_lesson(mine)
    window.lesson_mode.stop()
    mine.unlink()
    window.menus.recent_menu.actions()[0].trigger()
    assert not window.lesson_mode.active
    assert "mine.toml" in window.error_dialog.text() and "Nothing in the window changed" in window.error_dialog.text()
    assert entries(window.menus.recent_menu) == ["(none yet)"]
    assert SettingsStore(ini).load().preferences.recent_lessons == ()


def drop(window: MainWindow, path: Path) -> None:
    """Drag ``path`` over the window (accepted), then drop it, as a file manager does."""
    data = QMimeData()  # held here: the events do not own it
    data.setUrls([QUrl.fromLocalFile(str(path))])
    enter = QDragEnterEvent(QPoint(100, 100), Qt.DropAction.CopyAction, data, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window, enter)
    assert enter.isAccepted()
    event = QDropEvent(QPointF(100, 100), Qt.DropAction.CopyAction, data, Qt.MouseButton.LeftButton,
                       Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window, event)


def test_a_lesson_dropped_on_the_window_opens(windows, ini, mine) -> None:
    window = windows(ini)
    drop(window, mine)
    assert window.lesson_mode.active and window.lesson_mode.banner.caption.text() == "First"
    assert window.memory.recent_lessons == [str(mine.resolve())]


def test_a_broken_lesson_dropped_names_its_line_and_changes_nothing(windows, ini, tmp_path) -> None:
    window = windows(ini)
    bad = tmp_path / "bad.toml"
    bad.write_text(LESSON.replace("steps = 1", "stepz = 1"), encoding="utf-8")
    drop(window, bad)
    assert not window.lesson_mode.active and window.workspace.model is None
    assert "bad.toml, line 9: unknown key 'stepz' (known: model, sentence, reference," in window.error_dialog.text()


def add_with_dialog(window: MainWindow, path: Path | None, caption: str, title: str = "") -> bool:
    dialog = window.lesson_files.add_slide_with_dialog()
    if path is not None:
        dialog.file.setText(str(path))
    dialog.caption_en.setText(caption)
    if dialog.title_en.isEnabled():
        dialog.title_en.setText(title)
    ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
    if not ok.isEnabled():
        return False
    ok.click()
    return True


def test_slides_added_from_the_window_make_a_lesson_that_opens(windows, ini, tmp_path, shipped_model) -> None:
    window = windows(ini)
    window.workspace.set_model(shipped_model, "default", sentence="ich mochte ein bier")
    explorer = window.panels["explorer"]
    explorer.controller.step()
    explorer.controller.step()
    assert window.menus.add_slide_action.isEnabled()
    path = tmp_path / "built.toml"
    assert add_with_dialog(window, path, "Two steps in", "Built in the window")
    explorer.controller.step()
    window.tabs.setCurrentWidget(window.panels["masks"])
    assert add_with_dialog(window, None, "Three steps, the masks")  # the same file is offered again
    assert window.statusBar().currentMessage() == "Added slide 2 to built.toml"

    built = lesson.read(path)
    assert built.title_en == "Built in the window"
    assert [(s.caption_en, s.steps, s.tab, s.sentence, s.model) for s in built.slides] == [
        ("Two steps in", 2, "explorer", "ich mochte ein bier", "default"),
        ("Three steps, the masks", 3, "masks", "ich mochte ein bier", "default")]
    window.workspace.open("ein bier")  # something else shown before the lesson opens
    assert window.open_lesson(path)
    window.lesson_mode.go(1)
    assert window.workspace.session.position == 3 and window.tabs.currentWidget() is window.panels["masks"]
    assert window.lesson_mode.banner.caption.text() == "Three steps, the masks"


def test_a_slide_added_to_a_teachers_file_keeps_its_text(windows, ini, mine, shipped_model) -> None:
    window = windows(ini)
    assert window.open_lesson(mine)  # the lesson shown is offered as the file to add to
    window.panels["explorer"].controller.step()
    before = mine.read_text(encoding="utf-8")
    assert add_with_dialog(window, None, "A second step")
    after = mine.read_text(encoding="utf-8")
    assert after.startswith(before)  # the note and the layout as the teacher wrote them
    assert [s.caption_en for s in lesson.read(mine).slides] == ["First", "A second step"]
    assert lesson.read(mine).slides[1].steps == 2
    banner = window.lesson_mode.banner  # the lesson shown has the slide too, and the window stays on its own
    assert banner.progress.text() == "1 / 2" and banner.next.isEnabled()
    assert window.workspace.session.position == 2
    window.lesson_mode.next()
    assert banner.caption.text() == "A second step" and window.workspace.session.position == 2


@pytest.mark.parametrize("text", ["not a lesson at all\n", LESSON.replace("[[slide]]", "[slide]")])
def test_a_file_that_is_no_lesson_is_never_changed(windows, ini, tmp_path, shipped_model, text) -> None:
    window = windows(ini)
    window.workspace.set_model(shipped_model, "default", sentence="ein bier")
    path = tmp_path / "notes.toml"
    path.write_text(text, encoding="utf-8")
    assert add_with_dialog(window, path, "lost?")
    assert path.read_text(encoding="utf-8") == text
    assert "notes.toml" in window.error_dialog.text() and "was not changed" in window.error_dialog.text()


def test_opening_a_lesson_as_a_session_names_the_lesson_menu(windows, ini, mine, tmp_path) -> None:
    two = tmp_path / "two.toml"
    two.write_text(LESSON + LESSON[LESSON.index("[[slide]]"):], encoding="utf-8")
    window = windows(ini)
    assert not window.sessions.open_reporting(two)
    assert "open it as a lesson (File > Open lesson)" in window.error_dialog.text()


def test_recent_lessons_round_trip_through_the_settings_file(ini, tmp_path) -> None:
    paths = (str(tmp_path / "a, with a comma.toml"), str(tmp_path / "b.toml"))
    store = SettingsStore(ini)
    store.save_preferences(Preferences(ENGLISH, recent_lessons=paths))
    assert SettingsStore(ini).load().preferences.recent_lessons == paths
    store.save_preferences(Preferences(ENGLISH))
    assert SettingsStore(ini).load().preferences.recent_lessons == ()


def test_a_lessons_warnings_show_in_the_status_bar(windows, ini, mine) -> None:
    mine.write_text(LESSON + 'tab = "masks"\nquiz = { ask = "token" }\n', encoding="utf-8")
    window = windows(ini)
    assert window.open_lesson(mine)
    assert not window.notice.isHidden()
    assert "mine.toml, line 11: tab = 'masks' gives the quiz's answer away" in window.notice.toolTip()


def test_ctrl_shift_l_asks_for_the_caption_from_the_sentence_field(open_window, shipped_model, qtbot) -> None:
    window = open_window(size=None, model=shipped_model, source="default", sentence="ein bier")
    window.activateWindow()  # a window shortcut: the window must be the active one
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=5000)
    field = window.panels["explorer"].source.sentence
    field.setFocus()
    qtbot.keyClick(field, Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert window.lesson_files.dialog is not None and window.lesson_files.dialog.isVisible()
    assert field.text() == "ein bier"  # the key did not type into the field
    window.lesson_files.dialog.reject()
