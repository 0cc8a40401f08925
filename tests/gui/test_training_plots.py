"""Live plots keep every point and redraw at a frame rate, not once per point; the studio's
strings are all translatable in named contexts."""
from __future__ import annotations

import math
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from transviz.gui.panels.training import duration_text
from transviz.gui.widgets.plots import FrameClock, LivePlot, Series

GUI = Path(__file__).resolve().parents[2] / "transviz" / "gui"


def test_a_series_keeps_every_point_as_it_grows():
    series = Series("loss")
    values = np.random.default_rng(0).normal(size=1000)
    for i, v in enumerate(values):
        series.append(i + 1, v)
    assert len(series) == 1000 and series.version == 1000
    np.testing.assert_array_equal(series.x, np.arange(1, 1001))
    np.testing.assert_array_equal(series.y, values)
    series.clear()
    assert len(series) == 0 and series.version == 1001


def test_many_marks_make_one_redraw_per_frame(qtbot):
    plot = LivePlot("Loss", "loss", "step")
    qtbot.addWidget(plot)
    series = Series("training loss")
    plot.add_series(series, "#0072B2")
    clock = FrameClock(plot.redraw)
    for step in range(1, 501):  # 500 steps arrive between two frames
        series.append(step, 1.0 / step)
        clock.mark()
    assert clock.frames == 0 and plot.points(series) == 0  # nothing drawn yet: marks only ask for a frame
    qtbot.waitUntil(lambda: clock.frames == 1, timeout=2000)
    assert plot.points(series) == 500  # one frame drew all of them
    qtbot.wait(150)  # several frame periods with nothing new
    assert clock.frames == 1
    series.append(501, 0.001)
    clock.mark()
    clock.flush()  # at the end of a run: draw now, not at the next frame
    assert clock.frames == 2 and plot.points(series) == 501


def test_log_plots_leave_out_what_a_log_axis_cannot_show_and_the_top_grows_in_steps(qtbot):
    log = LivePlot("Loss", "loss", "step", log_y=True)
    qtbot.addWidget(log)
    series = Series("run")
    log.add_series(series, "#0072B2")
    for step, value in enumerate([3.5, 2.0, math.nan, math.inf, 0.0, 1.0], start=1):
        series.append(step, value)
    log.redraw()
    assert log.points(series) == 3  # 3.5, 2.0, 1.0
    linear = LivePlot("Loss", "loss", "step", top=1.0)
    qtbot.addWidget(linear)
    values = Series("loss")
    linear.add_series(values, "#0072B2")
    values.append(1, 0.5)
    linear.redraw()
    assert linear.viewRange()[1] == pytest.approx([0.0, 1.0])
    values.append(2, 8.0)
    linear.redraw()
    assert linear.viewRange()[1] == pytest.approx([0.0, 12.0])  # half again above the highest value
    values.append(3, 9.0)
    linear.redraw()
    assert linear.viewRange()[1] == pytest.approx([0.0, 12.0])  # still inside: the axis stays
    linear.reset_axes(400, top=3e-3)  # a new run: its steps and, known in advance, its peak
    assert linear.viewRange()[1] == pytest.approx([0.0, 3e-3])
    assert linear.viewRange()[0] == pytest.approx([-8.0, 408.0])  # 0..400 with 2% padding
    linear.reset_axes(50)
    assert linear.viewRange()[1] == pytest.approx([0.0, 1.0])  # back to the first top


@pytest.mark.parametrize("seconds,text", [(0.4, "0 s"), (42, "42 s"), (187, "3 min 07 s"), (3900, "1 h 05 min")])
def test_durations_read_naturally(seconds, text):
    assert duration_text(seconds) == text


@pytest.mark.process
def test_the_studios_strings_are_found_by_lupdate_in_named_contexts(tmp_path):
    lupdate = Path(sys.executable).parent / "pyside6-lupdate"
    if not lupdate.exists():
        pytest.skip("pyside6-lupdate is not installed")
    sources = [GUI / "panels" / "training.py", GUI / "panels" / "lab.py", GUI / "widgets" / "training_form.py",
               GUI / "widgets" / "timeline.py", GUI / "services" / "lab_runs.py",
               GUI / "widgets" / "labels.py"]  # the durations both tabs write
    ts = tmp_path / "studio.ts"
    result = subprocess.run([str(lupdate), *map(str, sources), "-ts", str(ts)], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    contexts = {c.findtext("name"): {m.findtext("source") for m in c.iter("message")}
                for c in ET.parse(ts).getroot().iter("context")}
    assert "" not in contexts and None not in contexts
    assert {"TrainingPanel", "TrainingForm", "LabPanel", "SnapshotTimeline"} <= set(contexts)
    assert {"Start", "Use in explorer", "{0} min {1:02d} s",
            "paused at step {0:,} of {1:,}"} <= contexts["TrainingPanel"]
    assert {"Learning rate", "auto: {0}"} <= contexts["TrainingForm"]
    assert {"Quick preset", "list the values to try, separated by commas"} <= contexts["LabPanel"]


def _lines(text, font, width):
    """The lines Qt wraps ``text`` into at ``width`` pixels (as a word-wrapped label does)."""
    from PySide6.QtGui import QTextLayout

    layout = QTextLayout(text, font)
    layout.beginLayout()
    lines = []
    while (line := layout.createLine()).isValid():
        line.setLineWidth(width)
        lines.append(text[line.textStart():line.textStart() + line.textLength()])
    layout.endLayout()
    return lines


def test_a_caption_with_end_tokens_never_breaks_inside_a_token_at_a_narrow_width(show):
    from transviz.core.training.snapshots import Snapshot
    from transviz.gui.widgets.labels import WORD_JOINER
    from transviz.gui.widgets.timeline import SnapshotTimeline

    source, target = ["ich", "mochte", "ein", "bier", "</s>"], ["<s>", "i", "want", "a", "beer"]
    predicted = ["i", "want", "a", "beer", "</s>"]
    maps = (np.full((1, 1, 5, 5), 0.2, np.float32),) * 3
    timeline = show(SnapshotTimeline(), 300, 400)
    timeline.set_snapshots([Snapshot(7, source, target, predicted, *maps)])
    label = timeline.prediction
    assert label.text().replace(WORD_JOINER, "") == (
        "At step 7 the model predicts after each target token: i want a beer </s>")
    for width in range(20, 240, 4):
        lines = [line.replace(WORD_JOINER, "").strip() for line in _lines(label.text(), label.font(), width)]
        assert not any(line.endswith("</") or line.startswith("s>") for line in lines), (width, lines)
        assert "</s>" in lines[-1]
