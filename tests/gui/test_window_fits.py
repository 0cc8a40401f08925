"""The window fits a 1366 x 768 screen in every language, with presentation mode on and off, on
every tab, with the shipped models and a model with long token lists (a 27-character sentence of
the reverse task), and shrinks back when it leaves presentation mode.

The window runs in a process of its own (tests/gui/window_fit_probe.py) whose offscreen screen is
1366 x 768: presentation mode sizes its text from the screen's height."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from run_once import once_per_run
from transviz.core.teaching.tabs import TABS
from transviz.gui import CONCEPTS

SCREEN = (1366, 768)
MODELS = ("default", "dates", "reverse")
LANGUAGES = ("en", "zh_CN")
PROBE = Path(__file__).with_name("window_fit_probe.py")


pytestmark = pytest.mark.process


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    """The probe's measurements of one model's window, run once per model and test run."""
    config = tmp_path_factory.mktemp("screen") / "screen.json"
    config.write_text(json.dumps({"screens": [{"name": "laptop", "x": 0, "y": 0, "width": SCREEN[0],
                                               "height": SCREEN[1], "logicalDpi": 96, "logicalBaseDpi": 96,
                                               "dpr": 1}]}))
    env = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={config}", "TRANSVIZ_SETTINGS": "",
           "PYTHONPATH": os.pathsep.join([str(Path(__file__).parents[2]), os.environ.get("PYTHONPATH", "")])}

    def probe(model: str, folder: Path) -> None:
        done = subprocess.run([sys.executable, str(PROBE), model], env=env, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        (folder / "sizes.json").write_text(done.stdout.strip().splitlines()[-1], encoding="utf-8")

    def measure(model: str) -> dict:
        folder = once_per_run(tmp_path_factory, f"window-fit-{model}", lambda out: probe(model, out))
        return json.loads((folder / "sizes.json").read_text(encoding="utf-8"))

    return measure


def fits(size: list[int], room: tuple[int, int] = SCREEN) -> bool:
    return size[0] <= room[0] and size[1] <= room[1]


@pytest.mark.parametrize("model", MODELS)
def test_the_window_starts_within_the_screen(measured, model):
    start = measured(model)["start"]
    assert start["available"] == list(SCREEN)
    assert {key for key in start if key.startswith("tab ")} == {f"tab {tab}" for tab in TABS}  # the window's tabs
    assert fits(start["size"]) and start["on_screen"] == [1], start


@pytest.mark.parametrize("tab", TABS)
@pytest.mark.parametrize("mode", ("presentation", "desktop"))
@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("model", MODELS)
def test_the_window_fits_the_screen(measured, model, language, mode, tab):
    """Desktop mode is measured after presentation mode: the window has shrunk back."""
    sizes = measured(model)[f"{language} {mode} {tab}"]
    assert fits(sizes["hint"]) and fits(sizes["minimum"]), sizes
    assert fits(sizes["size"]) and sizes["on_screen"] == [1], sizes  # what the window really takes
    assert fits(sizes[f"tab {tab}"]), sizes  # the tab itself, not only the window around it


@pytest.mark.parametrize("model", MODELS)
def test_every_concept_view_fits_the_screen(measured, model):
    views = {key: sizes for key, sizes in measured(model).items() if " concepts " in key}
    assert len(views) == len(CONCEPTS) * len(LANGUAGES) * 2  # every view, language and mode was measured
    too_large = {key: sizes["hint"] for key, sizes in views.items()
                 if not (fits(sizes["hint"]) and fits(sizes["minimum"]) and fits(sizes["size"]))}
    assert not too_large
