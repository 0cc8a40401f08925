"""The main window with real checkpoint files: the no-model state, loading off the GUI thread,
bad files (error dialog, old model kept), drag and drop, save as, export, info, teardown."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QCursor, QDragEnterEvent, QDropEvent, QImage
from PySide6.QtWidgets import QApplication, QMessageBox, QPlainTextEdit
from safetensors.torch import save_file

import transviz
from transviz.gui.services.language import set_language


@pytest.fixture
def window(open_window):
    return open_window(size=None)


def load(window, qtbot, path):
    with qtbot.waitSignal(window.model_changed, timeout=10000) as signal:
        window.files.open(path)
    return signal.args[0]


def error_dialog(window, qtbot):
    qtbot.waitUntil(lambda: window.error_dialog is not None and window.error_dialog.isVisible(), timeout=10000)
    return window.error_dialog


def test_opens_without_a_model(window):
    assert window.workspace.model is None
    assert "No model loaded: Model > Open" in window.model_label.text()
    assert [window.tabs.tabText(i) for i in range(window.tabs.count())] == [
        "Explorer", "Positional encoding", "Masks", "Heads", "Why", "Concepts", "Compare", "Variants", "Training",
        "Lab"]
    assert window.panels["explorer"].pages.currentWidget() is window.panels["explorer"].no_model
    assert window.panels["masks"].walk_pages.currentWidget() is window.panels["masks"].no_model
    window.tabs.setCurrentWidget(window.panels["why"])
    assert window.panels["why"].positions.pages.currentWidget() is window.panels["why"].positions.no_model
    assert not window.menus.save_action.isEnabled() and not window.menus.info_action.isEnabled()


def test_starts_with_the_shipped_default_model_ready_to_step(window, qtbot):
    with qtbot.waitSignal(window.model_changed, timeout=20000):
        window.open_initial_model(None)  # what `transviz` does at start
    assert window.windowTitle() == "transviz: default" and window.workspace.model.facts["task"] == "toy-de-en"
    explorer = window.panels["explorer"]
    assert explorer.controller.session.source == "ich mochte ein bier"  # the task's first example, open
    assert explorer.source.sentence.hasFocus()  # typing types; Enter hands the keys to the decoder


def test_menus(window):
    titles = [a.text().replace("&", "") for a in window.menuBar().actions()]
    assert titles == ["File", "Model", "View", "Help"]
    file_menu, model_menu = (action.menu() for action in window.menuBar().actions()[:2])
    texts = [a.text().replace("&", "") for a in file_menu.actions() if not a.isSeparator()]
    assert texts == ["Open session...", "Save session...", "Open lesson...", "Recent lessons",
                     "Add the current state as a slide...", "Close lesson", "Start a class...", "Stop the class",
                     "Join a class...", "Leave the class", "Export current plot as PNG...",
                     "Export current plot as SVG...", "Export animation (GIF or MP4)...",
                     "Export trace as .npz or JSON...", "Quit"]
    texts = [a.text().replace("&", "") for a in model_menu.actions() if not a.isSeparator()]
    assert texts == ["Open checkpoint...", "Open folder (Hugging Face)...", "Shipped models", "Save model as...",
                     "Info..."]
    assert not window.menus.export_trace_action.isEnabled()  # no sentence decoded yet
    assert not window.menus.animate_action.isEnabled()


def mnemonics(menu) -> list[str]:
    """The letters after '&' in a menu's entries (Alt+letter chooses an entry; '&&' is a plain '&')."""
    found = []
    for action in menu.actions():
        text = action.text().replace("&&", "")
        if "&" in text:
            found.append(text[text.index("&") + 1].lower())
    return found


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_no_two_entries_of_a_menu_share_a_mnemonic(window, language):
    set_language(language)  # the english_and_the_default_look fixture sets English back
    QApplication.processEvents()
    for top in window.menuBar().actions():
        letters = mnemonics(top.menu())
        assert len(letters) == len(set(letters)), (top.text(), sorted(letters))


def test_loading_replaces_the_model_off_the_gui_thread(window, qtbot, model_file):
    window.files.open(model_file)
    assert window.files.runner.is_busy() and window.workspace.model is None  # the GUI thread did not block on it
    qtbot.waitSignal(window.model_changed, timeout=10000).wait()
    assert window.workspace.model is not None and window.workspace.model.path == str(model_file)
    assert "Model: tiny" in window.model_label.text() and window.windowTitle() == "transviz: tiny"
    assert window.panels["masks"].walk_pages.currentIndex() == 1
    assert window.panels["masks"].steps is None  # the walkthrough runs the model only once its tab shows
    window.tabs.setCurrentWidget(window.panels["masks"])
    assert window.panels["masks"].steps is not None
    assert window.panels["positional"].source.model().item(1).isEnabled()
    assert window.menus.save_action.isEnabled() and not window.busy.isVisible()


def foreign(path):
    save_file({"weight": torch.zeros(3)}, str(path))  # valid safetensors, another program's


@pytest.mark.parametrize("make_bad,expected", [
    (lambda p, good: p.write_bytes(b"this is a text file, not a checkpoint"), "is not a safetensors file"),
    (lambda p, good: p.write_bytes(good.read_bytes()[: good.stat().st_size // 2]), "the file is truncated or damaged"),
    (lambda p, good: foreign(p), "another program"),
])
def test_a_bad_file_shows_an_error_and_the_model_stays(window, qtbot, model_file, tmp_path, make_bad, expected):
    model = load(window, qtbot, model_file)
    bad = tmp_path / "bad.safetensors"
    make_bad(bad, model_file)
    with qtbot.waitSignal(window.load_failed, timeout=10000) as signal:
        window.files.open(bad)
    box = error_dialog(window, qtbot)
    assert isinstance(box, QMessageBox) and box.icon() == QMessageBox.Icon.Critical
    assert "bad.safetensors" in box.text() and "The current model stays loaded." in box.text()
    assert signal.args[0] == box.text()
    assert expected in box.text()
    assert window.workspace.model is model  # the old model stays
    box.close()
    qtbot.waitUntil(lambda: window.error_dialog is None, timeout=2000)


def test_a_missing_file_without_a_model(window, qtbot, tmp_path):
    window.files.open(tmp_path / "nowhere.safetensors")
    box = error_dialog(window, qtbot)
    assert "no such file" in box.text() and "No model is loaded." in box.text()
    assert window.workspace.model is None
    box.close()


def drop_event(cls, path):
    """A drag event carrying one file; the mime data is returned too, since the event does not
    own it (Python must keep it alive while the event is sent)."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    if cls is QDragEnterEvent:
        event = QDragEnterEvent(QPoint(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                                Qt.KeyboardModifier.NoModifier)
    else:
        event = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                           Qt.KeyboardModifier.NoModifier)
    return event, mime


def test_drag_and_drop_a_checkpoint(window, qtbot, model_file, tmp_path):
    enter, mime = drop_event(QDragEnterEvent, model_file)
    QApplication.sendEvent(window, enter)
    assert enter.isAccepted()
    other = tmp_path / "notes.txt"
    other.write_text("hello")
    refused, other_mime = drop_event(QDragEnterEvent, other)
    QApplication.sendEvent(window, refused)
    assert not refused.isAccepted()
    drop, drop_mime = drop_event(QDropEvent, model_file)
    with qtbot.waitSignal(window.model_changed, timeout=10000):
        QApplication.sendEvent(window, drop)
    assert window.workspace.model.path == str(model_file)


def test_save_as_writes_a_loadable_copy(window, qtbot, model_file, tmp_path):
    model = load(window, qtbot, model_file)
    target = tmp_path / "copy.safetensors"
    with qtbot.waitSignal(window.files.runner.done, timeout=10000):
        window.files.save_as(target)
    copy = transviz.load_model(str(target))
    assert copy.config == model.config and copy.src_vocab == model.src_vocab
    for name, tensor in model.net.state_dict().items():
        assert torch.equal(copy.net.state_dict()[name], tensor)


def test_model_info_lists_config_sizes_device_and_facts(window, qtbot, model_file):
    load(window, qtbot, model_file)
    dialog = window.show_model_info()
    text = dialog.findChild(QPlainTextEdit).toPlainText()
    for fact in ("parameters:", "config.d_model: 16", "source vocabulary: 9 tokens", "target vocabulary: 9 tokens",
                 "device: cpu", "training.task: unit-test"):
        assert fact in text
    dialog.close()


def test_export_current_plot(window, tmp_path):
    QCursor.setPos(window.mapToGlobal(QPoint(-100, -100)))  # a test before may have left it over a plot
    window.tabs.setCurrentWidget(window.panels["masks"])
    path = window.export_current_plot(tmp_path / "plot.png")
    image = QImage(str(path))
    assert image.size() == window.panels["masks"].padding_view.size()  # the tab's first plot, nothing pointed at yet
    pixels = {image.pixel(x, y) for x in range(0, image.width(), 5) for y in range(0, image.height(), 5)}
    assert len(pixels) > 5
    svg = window.export_current_plot(tmp_path / "plot.svg").read_text()
    assert "Padding mask" in svg


def test_shipped_models_menu_lists_names_and_loads(window, qtbot, model_file):
    # each named with what it translates, read from the file's header
    assert [a.text() for a in window.menus.shipped_menu.actions()] == [
        "dates: dates → YYYY-MM-DD", "default: German → English", "zh-en: Chinese → English",
        "Variants of attention: the default with one change",  # a section, then the siblings in the recipes' order
        "gqa: grouped-query attention, 2 key/value heads", "mqa: multi-query attention, 1 key/value head",
        "rope: rotary positions (RoPE)", "alibi: ALiBi positions", "window: sliding window of 3 keys",
        "pre-norm: pre-LN with RMSNorm, no warm-up", "decoder-only: one stack reads source and output, a prefix LM"]
    assert window.menus.shipped_menu.actions()[3].isSeparator()
    with qtbot.waitSignal(window.model_changed, timeout=10000):
        window.menus.shipped_menu.actions()[5].trigger()
    assert window.workspace.model.config.n_kv_heads == 1
    assert window.model_label.text() == "Model: mqa (1,304,286 parameters, 3 layers, 4 heads; multi-query attention)"
    window.menus.populate_shipped_menu({})
    texts = [a.text() for a in window.menus.shipped_menu.actions()]
    assert texts == ["(none installed)"] and not window.menus.shipped_menu.actions()[0].isEnabled()
    window.menus.populate_shipped_menu({"tiny": model_file})
    action = window.menus.shipped_menu.actions()[0]
    assert action.text() == "tiny"
    with qtbot.waitSignal(window.model_changed, timeout=10000):
        action.trigger()
    config = window.workspace.model.config  # the positional tab opens on the loaded model's own table
    np.testing.assert_array_equal(window.panels["positional"].table_view.displayed_image().shape,
                                  (config.max_len, config.d_model))


def test_tab_help_explains_the_current_tab(window):
    window.tabs.setCurrentWidget(window.panels["masks"])
    dialog = window.show_tab_help()
    assert "sums to 1" in dialog.findChild(QPlainTextEdit).toPlainText()
    dialog.close()


def test_every_plot_of_every_tab_exports_from_its_right_click_menu(window, tmp_path):
    """Issue 5: any plot exports to PNG and SVG from its context menu (and from File)."""
    from transviz.gui.services.export import save_picture

    attention = window.panels["explorer"].attention
    asking = (attention.grid, attention.large)  # their menu starts with "Why here?", then these actions
    for panel in window.panels.values():
        assert panel._plots, panel
        for plot in panel._plots:
            menu = Qt.ContextMenuPolicy.CustomContextMenu if plot in asking else Qt.ContextMenuPolicy.ActionsContextMenu
            assert plot.contextMenuPolicy() == menu, plot
            texts = [action.text() for action in plot.actions()]
            assert texts == ["Export as PNG...", "Export as SVG..."], (plot, texts)
    written = save_picture(window.panels["training"].lr_plot, tmp_path / "lr.svg")
    assert written.read_text().startswith("<?xml")



def test_the_transviz_icon_draws_an_attention_matrix():
    from transviz.gui.app import app_icon

    image = app_icon().pixmap(64, 64).toImage()
    assert image.width() == 64 and image.height() == 64
    assert image.pixelColor(32, 0).name() == "#1e1e1e"  # the dark card
    assert image.pixelColor(7, 7).name() == "#fde725"  # query 0 attends to key 0 (viridis' top)
    assert image.pixelColor(20, 7).name() == "#3b528b"


def test_clear_all_also_clears_the_message_that_a_head_is_off(shipped_window):
    from transviz.core.decoding.interventions import AblateHead

    window = shipped_window
    window.workspace.set_interventions((AblateHead("cross", 0, 1),))
    window.statusBar().showMessage("cross-attention, layer 0, head 1 is switched off in the explorer", 8000)
    window.workspace.set_interventions(())
    assert window.statusBar().currentMessage() == ""


def test_a_second_notice_gets_its_whole_time(qtbot):
    from transviz.gui.widgets.labels import TimedNotice

    notice = TimedNotice()
    qtbot.addWidget(notice)
    notice.show_for("first", 0.05)
    notice.show_for("second", 0.4)
    qtbot.wait(150)  # past the first one's time
    assert notice.text() == "second" and not notice.isHidden()
    qtbot.waitUntil(notice.isHidden, timeout=2000)
