"""Every slide of every shipped lesson, in both languages, on a 1366 x 768 screen and in
presentation mode on a 1920 x 1080 one: its caption is not cut, its tab (and page) is the one it
names, and a quiz's choices show whole (issue 34, item 7).

The window runs in a process of its own (tests/gui/lesson_fit_probe.py) whose offscreen screen
has the size given: presentation mode sizes its text from the screen."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

PROBE = Path(__file__).with_name("lesson_fit_probe.py")

pytestmark = pytest.mark.process


@pytest.mark.parametrize(("width", "height", "mode"), [(1366, 768, "desktop"), (1920, 1080, "presentation")])
def test_every_slide_shows_as_written_and_whole(tmp_path, width, height, mode):
    config = tmp_path / "screen.json"
    config.write_text(json.dumps({"screens": [{"name": "screen", "x": 0, "y": 0, "width": width, "height": height,
                                               "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}))
    env = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={config}", "TRANSVIZ_SETTINGS": "",
           "PYTHONPATH": os.pathsep.join([str(Path(__file__).parents[2]), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, str(PROBE), mode], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report == {}, report
