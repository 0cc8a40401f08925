"""Animations of a decoding run: each frame is the view as a fresh render shows it at that step,
the window's session is left exactly as it was, and the files hold a frame per step."""
from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageSequence
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication

from transviz import cli
from transviz.core.base.errors import InputError
from transviz.gui.animations import AnimationOptions, grab_rgb, record_run, step_caption
from transviz.gui.render import Slide, build

SENTENCE = "ich mochte ein bier"


def gif_frames(path) -> list[np.ndarray]:
    return [np.asarray(frame.convert("RGB")) for frame in ImageSequence.Iterator(Image.open(path))]


def differ(frames: list[np.ndarray]) -> bool:
    return all(not np.array_equal(a, b) for a, b in zip(frames, frames[1:], strict=False))


def caption_band(widget) -> int:
    """The band above each frame that holds its caption: two lines of the widget's font."""
    return 2 * widget.fontMetrics().height()


def test_each_grid_frame_is_a_fresh_render_of_that_step(show, shipped_model):
    """Frames come from going back through one session; a separate widget that decodes k steps
    from scratch must show the same pixels as frame k."""
    slide = Slide("grid", SENTENCE, shipped_model, 900, 520, step=3)
    widget = show(build(slide), 900, 520)
    frames = record_run(widget.controller.session, lambda: grab_rgb(widget))
    assert frames is not None and len(frames) == 4 and differ(frames)
    for step, frame in enumerate(frames):
        fresh = show(build(Slide("grid", SENTENCE, shipped_model, 900, 520, step=step)), 900, 520)
        np.testing.assert_array_equal(frame, grab_rgb(fresh), err_msg=f"step {step}")


def test_each_head_frame_shows_that_steps_map(show, shipped_model):
    """The large view's axes keep the width the widest labels needed (pyqtgraph's axes grow, and
    a steady layout suits an animation), so its frames are compared by the map they show."""
    widget = show(build(Slide("head", SENTENCE, shipped_model, 900, 520, step=3)), 900, 520)
    shown = []

    def grab() -> np.ndarray:
        frame = grab_rgb(widget)
        shown.append(widget.large.data.copy())
        return frame

    frames = record_run(widget.controller.session, grab)
    assert frames is not None and len(frames) == 4 and differ(frames)
    for step, data in enumerate(shown[::-1]):
        fresh = show(build(Slide("head", SENTENCE, shipped_model, 900, 520, step=step)), 900, 520)
        np.testing.assert_array_equal(data, fresh.large.data, err_msg=f"step {step}")


def test_the_window_exports_its_run_and_keeps_its_session(shipped_window, tmp_path):
    explorer = shipped_window.panels["explorer"]
    explorer.controller.step()
    explorer.controller.force("beer")
    explorer.controller.step()
    session = shipped_window.workspace.session
    records, grid = session.history, explorer.attention.grid.maps.copy()
    path = shipped_window.animations.export(tmp_path / "run.gif")
    frames = gif_frames(path)
    assert len(frames) == 4 and differ(frames)
    plot = explorer.current_plot()
    assert frames[0].shape[:2] == (plot.height() + caption_band(plot), plot.width())
    assert session.history == records and all(a is b for a, b in zip(session.history, records, strict=True))
    np.testing.assert_array_equal(explorer.attention.grid.maps, grid)
    assert explorer.controller.session is session


def test_to_the_end_and_the_whole_window(shipped_window, tmp_path):
    explorer = shipped_window.panels["explorer"]
    explorer.controller.step()
    frames = shipped_window.animations.record(whole_window=True, to_end=True)
    ended = explorer.controller.session
    assert ended.position == 1  # back where it was
    probe = ended.history[0]
    ended.run_to_end()
    assert len(frames) == ended.position + 1 and differ(frames)
    assert frames[0].shape[:2] == (shipped_window.height() + caption_band(shipped_window), shipped_window.width())
    assert ended.history[0] is probe


def test_quiz_mode_refuses_to_give_the_answer_away(shipped_window, tmp_path):
    explorer = shipped_window.panels["explorer"]
    explorer.set_quiz(True)
    explorer.controller.step()
    with pytest.raises(InputError, match="quiz mode"):
        shipped_window.animations.export(tmp_path / "run.gif")
    assert not (tmp_path / "run.gif").exists()
    assert explorer.quiz.question is not None  # still asked


def test_a_concept_view_is_drawn_at_every_step(shipped_window, tmp_path):
    explorer = shipped_window.panels["explorer"]
    for _ in range(3):
        explorer.controller.step()
    concepts = shipped_window.panels["concepts"]
    shipped_window.tabs.setCurrentWidget(concepts)
    concepts.select("lookup")
    frames = shipped_window.animations.record()
    # before the first step and after it, the query that looks up is the start token's
    assert frames is not None and len(frames) == 4 and differ(frames[1:])
    plot = concepts.current_plot()  # and the view is back at step 3 (under the frame's caption)
    assert np.array_equal(frames[-1][caption_band(plot):], grab_rgb(plot))


def test_the_menu_action_needs_a_run(show, shipped_model):
    from transviz.gui.main_window import MainWindow

    window = show(MainWindow(), 1366, 768)
    assert not window.menus.animate_action.isEnabled()
    window.workspace.set_model(shipped_model, "default", sentence=SENTENCE)
    assert window.menus.animate_action.isEnabled()
    window.shutdown()


def test_render_animate_writes_a_frame_per_step(tmp_path, capsys):
    out = tmp_path / "run.gif"
    assert cli.main(["render", SENTENCE, "--view", "head", "--step", "2", "--animate", "--size", "400x300",
                     "--frame-ms", "300", "--hold-ms", "900", "--out", str(out)]) == 0
    frames = gif_frames(out)
    assert len(frames) == 3 and differ(frames) and frames[0].shape == (300, 400, 3)
    gif = Image.open(out)
    gif.seek(2)
    assert gif.info["duration"] == 1200


def test_render_animate_refuses_still_views(tmp_path, capsys):
    assert cli.main(["render", SENTENCE, "--view", "masks", "--animate", "--out", str(tmp_path / "x.gif")]) == 1
    assert "only a view that decodes step by step" in capsys.readouterr().err
    assert not (tmp_path / "x.gif").exists()


def test_playing_stops_before_frames_are_taken(shipped_window):
    explorer = shipped_window.panels["explorer"]
    explorer.controller.step()
    explorer.controls.toggle_play()
    assert explorer.controls.playing
    frames = shipped_window.animations.record()
    assert not explorer.controls.playing
    assert len(frames) == 2 and shipped_window.workspace.session.position == 1


def test_ctrl_shift_a_exports_while_the_sentence_box_has_the_focus(open_window, shipped_model, qtbot):
    """The focus is in the sentence box after every model, example and slide; the box took
    Ctrl+Shift+A as Deselect and the window's shortcut never ran. (Only where the platform binds
    Deselect to those keys, as Linux desktops and X servers do; the offscreen platform binds
    nothing, so there this checks that the keys reach the window and leave the sentence alone.)"""
    window = open_window((1366, 768), active=True, model=shipped_model, source="default", sentence=SENTENCE)
    sentence = window.panels["explorer"].source.sentence
    qtbot.waitUntil(sentence.hasFocus)
    asked = []

    def answer() -> None:  # the options dialog is modal: note it and close it
        dialog = QApplication.activeModalWidget()
        asked.append(type(dialog).__name__)
        if dialog is not None:
            dialog.reject()

    QTimer.singleShot(0, answer)
    with qtbot.waitSignal(window.menus.animate_action.triggered, timeout=3000):
        qtbot.keyClick(sentence, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert asked == ["AnimationOptions"] and sentence.text() == SENTENCE


def test_the_plots_have_plain_names_and_frames_a_step_caption_without_hints(shipped_window):
    """The dialog once offered "the plot shown: <its whole caption>" (the plot the pointer last
    entered); frames carried "Click a head..." and no step or token."""
    explorer = shipped_window.panels["explorer"]
    explorer.controller.step()
    explorer.controller.step()
    names = [explorer.plot_name(plot) for plot in explorer.shown_plots()]
    assert names == ["the grid of every layer and head", "the head shown large", "the next-token candidates"]
    options = AnimationOptions([(p, explorer.plot_name(p)) for p in explorer.shown_plots()],
                               explorer.attention.large, 2)
    assert [options.picture.itemText(i) for i in range(options.picture.count())] == [*names, "the whole window"]
    assert options.plot() is explorer.attention.large  # the plot last pointed at comes first
    grid = explorer.attention.grid
    with explorer.drawn_at_once():
        assert not grid._readout.isVisible() and "click" not in grid.title.lower()
        assert grid.title == "cross-attention: every layer (rows) and head (columns)."
    assert grid._readout.isVisible() and "click one to open it large" in grid.title
    session = explorer.controller.session
    captions = []
    record_run(session, lambda: captions.append(step_caption(session, 2)) or grab_rgb(grid))
    tokens = session.output_tokens
    assert captions[::-1] == ["Step 0 of 2: before the first token", f"Step 1 of 2: wrote '{tokens[0]}'",
                              f"Step 2 of 2: wrote '{tokens[1]}'"]
    frames = shipped_window.animations.record(plot=grid)
    band = caption_band(grid)
    assert len(frames) == 3 and frames[0].shape[0] == grid.height() + band
    assert all(not np.array_equal(a[:band], b[:band]) for a, b in zip(frames, frames[1:], strict=False))
