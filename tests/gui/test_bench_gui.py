"""The GUI bench figures run in a real process and that process exits cleanly (a closed
pyqtgraph view left to interpreter shutdown used to crash it with a segmentation fault). Quick
runs: what is checked is that a figure runs and reports, not its value."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from itertools import pairwise
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.process
def test_grid_redraw_figure_runs_and_exits_cleanly():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("QT_QPA_PLATFORM", None)  # the bench chooses offscreen itself
    result = subprocess.run([sys.executable, "-m", "transviz", "bench", "gui_grid_redraw_ms_6x8", "--quick", "--json"],
                            env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    [figure] = json.loads(result.stdout)
    assert figure["name"] == "gui_grid_redraw_ms_6x8" and figure["unit"] == "ms" and figure["target"] == 16.0
    assert figure["value"] > 0 and figure["quick"] is True


@pytest.mark.process
def test_step_redraw_figure_runs_and_exits_cleanly():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("QT_QPA_PLATFORM", None)
    command = [sys.executable, "-m", "transviz", "bench", "gui_step_redraw_ms_default", "--quick", "--json"]
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    [figure] = json.loads(result.stdout)
    assert figure["name"] == "gui_step_redraw_ms_default" and figure["target"] == 16.0 and figure["value"] > 0
    assert figure["quick"] is True


@pytest.mark.process
def test_cold_start_reaches_a_window_with_the_model(model_file):
    """One launch as gui_cold_start_s measures it, through the program's entry: the marks come in start-up order."""
    from transviz.bench.gui import _cold_start_marks

    marks = _cold_start_marks(str(model_file))
    order = ["python", "torch", "window", "ready"]
    assert list(marks) == order
    assert all(marks[a] <= marks[b] for a, b in pairwise(order)) and marks["ready"] > 0
