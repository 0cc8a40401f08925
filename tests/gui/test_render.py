"""`transviz render` and plain `transviz`: real pictures from the real widgets, offscreen."""
from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtGui import QImage

import transviz
from transviz import cli
from transviz.core.decoding.session import DecodingSession
from transviz.core.io.resources import shipped_models
from transviz.core.model.positional import sinusoidal_table
from transviz.gui.render import Slide, build

ROOT = Path(__file__).resolve().parents[2]


def distinct_colours(image: QImage) -> int:
    return len({image.pixel(x, y) for x in range(0, image.width(), 4) for y in range(0, image.height(), 4)})


def test_render_masks_with_a_model_to_png(tmp_path, model_file, capsys):
    out = tmp_path / "slide.png"
    code = cli.main(["render", "ich mochte ein bier", "--view", "masks", "--model", str(model_file),
                     "--kind", "cross", "--layer", "1", "--head", "1", "--out", str(out), "--size", "1280x720"])
    assert code == 0 and capsys.readouterr().out.strip() == str(out)
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1280, 720)
    assert distinct_colours(image) > 50


def test_render_masks_to_svg_holds_tokens_and_shapes(tmp_path, model_file):
    out = tmp_path / "slide.svg"
    assert cli.main(["render", "ich mochte ein bier", "--view", "masks", "--model", str(model_file),
                     "--out", str(out)]) == 0
    texts = {"".join(t.itertext()).strip() for t in ET.parse(out).getroot().iter("{http://www.w3.org/2000/svg}text")}
    assert {"1: ich mochte ein bier <pad>", "<s>", "want", "beer"} <= texts  # source rows, decoder inputs
    assert any("(3, 1, 1, 5)" in t.replace("\u00a0", " ") for t in texts)  # shapes never break over lines


def test_render_masks_without_a_model_walks_through_the_default_model(tmp_path):
    """The issue's example command has no --model: the masks view falls back to the shipped default
    model like the explorer's views, so the walkthrough and the translated batch are drawn."""
    out = tmp_path / "slide.svg"
    assert cli.main(["render", "ich mochte ein bier", "--view", "masks", "--kind", "cross", "--layer", "0",
                     "--head", "1", "--step", "3", "--out", str(out)]) == 0
    texts = {"".join(t.itertext()).strip() for t in ET.parse(out).getroot().iter("{http://www.w3.org/2000/svg}text")}
    config = transviz.load_model("default").config
    assert f"2. scaled by 1/sqrt(d_k) = 1/sqrt({config.d_model // config.n_heads})" in texts
    assert {"V: one value vector per key", "dimensions of d_k"} <= texts  # drawn only with a model
    assert not any("cannot be translated" in t for t in texts)


def test_positional_slide_is_the_table(qtbot, make_model):
    panel = build(Slide("positional", "ignored"))
    qtbot.addWidget(panel)
    np.testing.assert_array_equal(panel.table_view.displayed_image(), sinusoidal_table(20, 512).numpy())
    model = make_model()
    with_model = build(Slide("positional", "ignored", model))
    qtbot.addWidget(with_model)
    # a model's slide shows every position the model reads
    np.testing.assert_array_equal(with_model.table_view.displayed_image(),
                                  model.net.positional[:model.config.max_len].numpy())


def test_masks_slide_takes_sentence_kind_layer_head_target(show, make_model):
    panel = build(Slide("masks", "ein bier", make_model(layers=2, heads=2), kind="cross", layer=1, head=1, target="i"))
    show(panel, 1200, 800)
    assert panel.steps.kind == "cross" and (panel.steps.layer, panel.steps.head) == (1, 1)
    assert panel.softmax_view.row_labels() == ["<s>", "i"] and panel.softmax_view.column_labels() == ["ein", "bier"]


def test_a_masks_slide_of_a_model_with_examples_keeps_its_own_sentence(show):
    """The shipped models open on their first example, which the tab followed once it was shown."""
    panel = build(Slide("masks", "ein bier bitte", transviz.load_model("default"), kind="decoder_self",
                        target="a beer"))
    show(panel, 1200, 800)
    assert (panel.sentence.text(), panel.target.text()) == ("ein bier bitte", "a beer")
    assert panel.softmax_view.row_labels() == ["<s>", "a", "beer"]


@pytest.mark.parametrize("view", ["grid", "head", "window", "positional", "masks"])
def test_every_view_renders_to_png_and_svg(tmp_path, model_file, view):
    for suffix in (".png", ".svg"):
        out = tmp_path / f"{view}{suffix}"
        assert cli.main(["render", "ich mochte ein bier", "--view", view, "--model", str(model_file), "--step", "2",
                         "--out", str(out), "--size", "1280x720"]) == 0
        if suffix == ".png":
            image = QImage(str(out))
            assert (image.width(), image.height()) == (1280, 720) and distinct_colours(image) > 20
        else:
            root = ET.parse(out).getroot()  # a well-formed SVG
            texts = {"".join(t.itertext()).strip() for t in root.iter("{http://www.w3.org/2000/svg}text")}
            expected = {"grid": {"layer 0", "head 1"}, "positional": {"positions (rows)"},
                        "masks": {"1: ich mochte ein bier <pad>", "<s>", "want"}}
            assert expected.get(view, {"ich", "mochte", "bier"}) <= texts
            assert root.find("{http://www.w3.org/2000/svg}title").text == f"transviz: {view}"


def test_grid_slide_is_the_sessions_attention_after_the_steps(show, make_model):
    model = make_model(layers=2, heads=2)
    view = show(build(Slide("grid", "ich mochte ein bier", model, kind="decoder_self", step=3, layer=1, head=1)),
                900, 600)
    expected = DecodingSession(model, "ich mochte ein bier")
    for _ in range(3):
        expected.step()
    maps = expected.decoder_self_attention()  # (2, 2, 3, 3)
    below = np.tri(3, dtype=bool)
    assert view.grid.isVisible() and not view.large.isVisible() and not view.choices.isVisible()
    # the window may step on other torch threads than this session (core.base.cores): equal to float rounding
    np.testing.assert_allclose(view.grid.maps[..., below], maps[..., below], rtol=0, atol=1e-6)
    assert np.isnan(view.grid.maps[..., ~below]).all()
    np.testing.assert_allclose(view.large.data[below], maps[1, 1][below], rtol=0, atol=1e-6)


def test_head_slide_of_a_summary(show, make_model):
    model = make_model(layers=2, heads=2)
    view = show(build(Slide("head", "ich mochte ein bier", model, kind="encoder_self", layer=1, head="max")), 900, 600)
    encoder = DecodingSession(model, "ich mochte ein bier").encoder_attention
    np.testing.assert_array_equal(view.large.data, np.maximum(encoder[1, 0], encoder[1, 1]))
    assert view.large.title == "encoder self-attention, layer 1: max of heads"


@pytest.mark.parametrize("args,message", [
    (["--view", "grid", "--step", "99"], "cannot take step"),
    (["--view", "head", "--head", "7"], "head 7 does not exist"),
    (["--view", "grid", "--head", "median"], "--head takes a number or one of mean, max, rollout"),
    (["--view", "masks", "--head", "mean"], "--head takes a number"),
    (["--view", "window", "--step", "-1"], "--step must be 0 or more"),
    (["--view", "grid", "--patch", "decoder"], "--patch goes with --view patching"),
    (["--view", "grid", "--compare", "ich mochte ein brot"], "--compare goes with --view compare or patching"),
    (["--view", "patching"], "give --compare B"),
    (["--view", "patching", "--compare", "ich mochte ein bier trinken"], "source tokens"),
])
def test_impossible_slides_print_one_line(tmp_path, model_file, capsys, args, message):
    assert cli.main(["render", "ich mochte ein bier", "--model", str(model_file), *args,
                     "--out", str(tmp_path / "x.png")]) == 1
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err
    assert not (tmp_path / "x.png").exists()


@pytest.mark.parametrize("args,message", [
    (["--view", "masks", "--out", "x.jpg"], "must end in .png or .svg"),
    (["--view", "masks", "--out", "x.png", "--size", "big"], "WIDTHxHEIGHT"),
    # each drew a picture too large to allocate, or overflowed (issue 41)
    (["--view", "masks", "--out", "x.png", "--size", "20000x20000"], "both from 100 to 8192"),
    (["--view", "masks", "--out", "x.png", "--size", "2147483648x100"], "both from 100 to 8192"),
    (["--view", "masks", "--out", "x.png", "--model", "nowhere.safetensors"], "no such file"),
])
def test_bad_requests_print_one_line_and_fail(tmp_path, capsys, args, message):
    args = [a if a not in ("x.jpg", "x.png") else str(tmp_path / a) for a in args]
    assert cli.main(["render", "ich mochte ein bier", *args]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("transviz: ") and message in err and "\n" not in err


@pytest.mark.parametrize("steps", [["-1", "0"], ["9223372036854775808", "0"], ["0", "1000000001"]])
def test_snapshot_steps_out_of_range_are_named(tmp_path, capsys, steps):
    """``--snapshots -1 0`` said "the sentence is empty"; a step past int64 overflowed (issue 41)."""
    assert cli.main(["render", "--view", "compare", "--snapshots", *steps, "--out", str(tmp_path / "x.png")]) == 1
    err = capsys.readouterr().err.strip()
    assert f"--snapshots takes two training steps from 0 to 1,000,000,000, not {steps[0]} {steps[1]}" in err
    assert "\n" not in err and not (tmp_path / "x.png").exists()


def test_render_layer_out_of_range(tmp_path, model_file, capsys):
    assert cli.main(["render", "ich", "--view", "masks", "--model", str(model_file), "--layer", "5",
                     "--out", str(tmp_path / "x.png")]) == 1
    assert "layer 5 does not exist" in capsys.readouterr().err


@pytest.mark.parametrize("view", ["grid", "masks", "compare", "lookup"])
def test_render_checks_layers_against_each_kinds_own_stack(tmp_path, capsys, make_model, view):
    """One encoder layer, two decoder layers: layer 1 is drawn for the decoder's kinds and refused
    for the encoder's, the message naming the stack that lacks it."""
    path = transviz.save_model(make_model(layers=1, decoder_layers=2), tmp_path / "uneven.safetensors")
    common = ["render", "ich mochte ein bier", "--model", str(path), "--view", view, "--layer", "1", "--head", "0"]
    common += {"grid": ["--step", "2"], "lookup": ["--step", "2"], "masks": [],
               "compare": ["--compare", "ich mochte ein bier bitte"]}[view]
    drawn, refused = tmp_path / "drawn.png", tmp_path / "refused.png"
    assert cli.main([*common, "--kind", "cross" if view != "masks" else "decoder_self", "--out", str(drawn)]) == 0
    assert drawn.exists()
    capsys.readouterr()
    assert cli.main([*common, "--kind", "encoder_self", "--out", str(refused)]) == 1
    err = capsys.readouterr().err.strip()
    assert "layer 1 does not exist: the encoder_self attention of this model has layers 0..0" in err
    assert "\n" not in err and not refused.exists()


def test_a_grid_slide_of_a_deeper_decoder_shows_its_layers(show, make_model):
    model = make_model(layers=1, decoder_layers=2)
    view = show(build(Slide("grid", "ich mochte ein bier", model, kind="cross", step=2, layer=1, head=0)), 900, 600)
    expected = DecodingSession(model, "ich mochte ein bier")
    for _ in range(2):
        expected.step()
    assert view.grid.maps.shape[:2] == (2, 2)
    np.testing.assert_allclose(view.grid.maps, expected.cross_attention(), rtol=0, atol=1e-6)
    np.testing.assert_allclose(view.large.data, expected.cross_attention()[1, 0], rtol=0, atol=1e-6)


@pytest.mark.process
def test_render_runs_without_a_display(tmp_path):
    """A real process with no display and no QT_QPA_PLATFORM: render picks offscreen itself."""
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY")}
    env["PYTHONPATH"] = str(ROOT)
    out = tmp_path / "pe.png"
    command = [sys.executable, "-m", "transviz", "render", "x", "--view", "positional", "--out", str(out)]
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str(out) and result.stderr == ""
    assert distinct_colours(QImage(str(out))) > 50


PLAIN_TRANSVIZ = """
import sys
import time
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
import transviz
from transviz import cli
from transviz.gui.app import application
from transviz.gui.main_window import MainWindow

application()  # before the timer: a timer needs the application's event dispatcher
started = time.monotonic()


def close_when_ready():
    windows = [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()]
    waiting = not windows or (windows[0].files.runner.is_busy() and time.monotonic() - started < 60)
    if waiting:  # the shipped default model is still loading
        QTimer.singleShot(50, close_when_ready)
        return
    session = windows[0].workspace.session
    print("windows:", len(windows), windows[0].windowTitle(), "|", session.source if session else "-", flush=True)
    for window in windows:
        window.close()  # the last window closed: the application quits

QTimer.singleShot(100, close_when_ready)
sys.exit(cli.main([]))
"""


@pytest.mark.process
def test_plain_transviz_opens_the_window_with_the_default_model():
    """`transviz` with no command in a real process (its own QApplication: quitting it must not
    disturb this test session's event loop): the shipped default model, its first example open."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen"}
    result = subprocess.run([sys.executable, "-c", PLAIN_TRANSVIZ], env=env, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert "default" in shipped_models()
    assert result.stdout.strip() == "windows: 1 transviz: default | ich mochte ein bier"
