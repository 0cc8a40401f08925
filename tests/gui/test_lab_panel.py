"""The lab tab with real (short) runs of the seed's experiment: rows fill as runs end, beside the
seed's published values; curves hold every loss; cancel keeps finished rows; CSV and plot export."""
from __future__ import annotations

import csv
import math
import re

import pyqtgraph as pg
import pytest
from PySide6.QtGui import QImage, QPainter

from transviz.core.base.cores import fixed_threads
from transviz.core.teaching.workspace import Workspace
from transviz.core.training.lab import run_lab
from transviz.gui.panels.lab import FAILED_FILL, LabPanel
from transviz.gui.services.lab_runs import VARIED
from transviz.gui.services.theme import apply_appearance, restyle, with_changes

# the seed's five tables, as its text prints them (000_d44500b147c75d2f.txt)
SEED_LR_TABLE = [("lr=1e-3, no warm-up", 3.37), ("lr=1e-4, no warm-up", 0.56), ("lr=1e-5, no warm-up", 2.31),
                 ("lr=1e-3, 1% warm-up", 0.10)]


@pytest.fixture
def lab(qtbot, show):
    panel = show(LabPanel(Workspace()), 1400, 800)
    yield panel
    panel.shutdown()
    assert panel.worker.worker_thread.isFinished()


def sweep(lab, vary, values, steps=20, test_batches=4, layers=1, lr="1e-3"):
    lab.table_choice.setCurrentIndex(lab.table_choice.findData("custom"))
    lab.vary.setCurrentIndex(lab.vary.findData(vary))
    lab.values.setText(values)
    lab.base_lr.setText(lr)
    lab.base_layers.setValue(layers)
    lab.set_length(steps, test_batches)
    lab.device.setCurrentIndex(lab.device.findData("cpu"))
    assert lab.run_button.isEnabled(), lab.error.text()


def run(lab, qtbot, timeout=120000):
    with qtbot.waitSignal(lab.worker.all_done, timeout=timeout) as done:
        lab.run_button.click()
    return done.args[0]


def cells(lab, row):
    return [lab.table.item(row, column).text() for column in range(lab.table.columnCount())]


@pytest.fixture
def same_threads():
    """The window's worker and this test's thread on one torch thread each: a run repeated here
    then equals the window's to the last bit (threads split sums differently)."""
    with fixed_threads(1):
        yield


@pytest.mark.training
def test_a_run_of_two_tiny_configurations_fills_two_rows_and_exports_csv(lab, qtbot, tmp_path, same_threads):
    sweep(lab, "lr", "1e-3, 10")
    assert lab.table.rowCount() == 2 and cells(lab, 0)[:2] == ["lr=1e-3", ""]  # planned before it runs
    measured_seen = []
    lab.worker.row_done.connect(lambda index, result: measured_seen.append(
        [lab.table.item(line, 1).text() != "" for line in range(lab.table.rowCount())]))
    assert run(lab, qtbot) is False  # not cancelled
    assert measured_seen == [[True, False], [True, True]]  # each row's MSE appeared as its run ended
    assert lab.table.rowCount() == 2 and "all 2 runs finished" in lab.progress_text.text()
    (first, good), (second, wild) = lab.results
    # the same configuration run directly by the core gives the same test MSE (seeded, CPU)
    again = run_lab(first.settings)
    assert again.test_mse == good.test_mse and again.train_losses == good.train_losses
    assert cells(lab, 0)[:2] == ["lr=1e-3", f"{good.test_mse:.3f}"] and cells(lab, 0)[4] == ""
    assert cells(lab, 0)[2] == "-"  # the seed has no 1-layer run
    assert wild.status in ("stuck", "diverged") and cells(lab, 1)[4].startswith(wild.status)
    assert lab.table.item(1, 0).background().color() == FAILED_FILL
    # every training loss is a point of its curve (the log plot leaves out non-finite ones)
    assert lab.plot.points(lab.curves[0]) == 20 and list(lab.curves[0].y) == list(good.train_losses)
    finite = [x for x in wild.train_losses if math.isfinite(x) and x > 0]
    assert lab.plot.points(lab.curves[1]) == len(finite)
    path = lab.export_csv(tmp_path / "lab.csv")
    with path.open(encoding="utf-8") as f:
        table = list(csv.DictReader(f))
    assert [r["setting"] for r in table] == ["lr=1e-3", "lr=10"]
    assert float(table[0]["test_mse"]) == pytest.approx(good.test_mse, rel=1e-5)
    assert table[0]["lr"] == "0.001" and table[1]["lr"] == "10" and table[0]["status"] == "ok"
    assert table[0]["layers"] == "1" and table[0]["steps"] == "20" and table[0]["test_batches"] == "4"
    assert table[0]["seed_mse"] == "" and table[1]["status"] == wild.status


@pytest.mark.training
def test_a_row_the_seed_published_shows_its_value(lab, qtbot):
    sweep(lab, "layers", "2", steps=3, test_batches=2)  # lr=1e-3, no warm-up, 2 layers: the seed's 0.086
    run(lab, qtbot)
    assert cells(lab, 0)[0] == "layers=2" and cells(lab, 0)[2] == "0.086"


@pytest.mark.training
def test_cancel_mid_run_keeps_the_finished_rows_and_the_tab_stays_usable(lab, qtbot):
    sweep(lab, "lr", "1e-3, 1e-4, 1e-5", steps=300, test_batches=2)
    steps_of_second = []
    lab.worker.stepped.connect(lambda index, step, loss: index == 1 and steps_of_second.append(step))
    with qtbot.waitSignal(lab.worker.row_done, timeout=120000):
        lab.run_button.click()
    qtbot.waitUntil(lambda: len(steps_of_second) >= 3, timeout=60000)
    with qtbot.waitSignal(lab.worker.all_done, timeout=60000) as done:
        lab.cancel_button.click()
    assert done.args[0] is True  # cancelled
    assert lab.table.rowCount() == 3 and cells(lab, 0)[4] == "" and cells(lab, 1)[4] == "stopped (cancelled)"
    assert cells(lab, 2)[1] == ""  # never run
    assert [result.status for _, result in lab.results][1] == "stopped"
    assert "cancelled: 1 of 3 runs finished" in lab.progress_text.text()
    assert lab.run_button.isEnabled() and not lab.cancel_button.isEnabled() and lab.csv_button.isEnabled()
    sweep(lab, "batch", "8", steps=5, test_batches=2)  # usable: another run goes through
    assert run(lab, qtbot) is False and lab.table.rowCount() == 1 and cells(lab, 0)[0] == "batch=8"


@pytest.mark.training
def test_the_plot_exports_as_png_and_svg(lab, qtbot, tmp_path):
    sweep(lab, "lr", "1e-3, 1e-4", steps=5, test_batches=2)
    run(lab, qtbot)
    image = QImage(str(lab.export_plot(tmp_path / "lab.png")))
    assert image.size() == lab.plot.size()
    svg = lab.export_plot(tmp_path / "lab.svg").read_text(encoding="utf-8")
    for text in ("Training loss of each run (log scale)", "lr=1e-3", "lr=1e-4", "predicting the mean"):
        assert text in svg


def test_the_seed_tables_and_the_quick_preset_say_what_they_are(lab):
    lab.table_choice.setCurrentIndex(lab.table_choice.findData("lr"))
    assert [(r.label, r.published) for r in lab.planned_rows()] == SEED_LR_TABLE
    assert [r.settings.warmup_steps for r in lab.planned_rows()] == [0, 0, 0, 100]
    assert not lab.custom.isVisible()
    assert (lab.steps.value(), lab.test_batches.value()) == (1000, 1000)
    assert lab.length_note.text().startswith("the tutorial's setting")
    lab.quick_button.click()
    assert (lab.steps.value(), lab.test_batches.value()) == (300, 200)
    assert "quick preset: NOT the tutorial's setting" in lab.length_note.text()
    assert all(r.settings.steps == 300 and r.settings.test_batches == 200 for r in lab.planned_rows())
    lab.seed_button.click()
    assert lab.is_seed_length()
    lab.table_choice.setCurrentIndex(lab.table_choice.findData("init"))
    assert len(lab.planned_rows()) == 11 and lab.planned_rows()[5].settings.init == "normal:0.1"
    lab.table_choice.setCurrentIndex(lab.table_choice.findData("norm"))  # the seed's warm-up rows, pre-LN too
    assert [(r.settings.norm, r.settings.warmup_steps, r.published) for r in lab.planned_rows()] == [
        ("post", 0, 3.37), ("post", 100, 0.10), ("pre", 0, None), ("pre", 100, None)]
    assert [cells(lab, line)[2] for line in range(lab.table.rowCount())] == ["3.37", "0.1", "-", "-"]


@pytest.mark.parametrize("vary,values,message", [
    ("lr", "fast", "is not a number"),
    ("layers", "1.5", "is not a whole number"),
    ("init", "bogus", "unknown initialisation"),
    ("lr", " , ", "list the values"),
    ("layers", "0", "layers must be a positive integer"),
])
def test_a_bad_custom_sweep_is_explained_inline(lab, vary, values, message):
    assert [lab.vary.itemData(i) for i in range(lab.vary.count())] == list(VARIED)  # what a custom sweep may vary
    lab.table_choice.setCurrentIndex(lab.table_choice.findData("custom"))
    lab.vary.setCurrentIndex(lab.vary.findData(vary))
    lab.values.setText(values)
    assert lab.error.isVisible() and message in lab.error.text() and not lab.run_button.isEnabled()
    lab.values.setText("1" if vary != "init" else "default")
    assert not lab.error.isVisible() and lab.run_button.isEnabled()


def test_before_anything_runs_the_table_holds_the_tutorials_rows_and_published_values(lab):
    lab.table_choice.setCurrentIndex(lab.table_choice.findData("lr"))
    assert [(cells(lab, line)[0], cells(lab, line)[2]) for line in range(lab.table.rowCount())] == [
        (label, f"{value:.3g}") for label, value in SEED_LR_TABLE]
    assert all(cells(lab, line)[1] == "" for line in range(lab.table.rowCount()))  # nothing measured yet
    assert lab.table.horizontalHeaderItem(2).text() == "tutorial's value"
    assert lab.table.horizontalHeaderItem(1).text() == "test loss (½ MSE)"  # the tutorial's loss, half the MSE


def test_the_tab_names_the_tutorial_and_describes_the_task_and_what_3_5_means(lab):
    about = lab.about.text()
    for words in ("Transformer简述", "y = (a+1)² + b", "test loss", "half the mean squared error", "3.5",
                  "is stuck: it learned nothing", "attention runs across the batch dimension, not the sequence"):
        assert words in about
    # 0.5 * Var((a+1)^2 + b) for a, b standard normal: (a+1)^2 is non-central chi-square, variance 2(1 + 2) = 6
    assert 0.5 * (2 * (1 + 2 * 1) + 1) == 3.5
    texts = [lab.seed_button.text(), lab.length_note.text(), lab.table_choice.itemText(0)]
    assert not any("seed" in text for text in texts)


@pytest.mark.training
def test_the_run_time_estimate_comes_from_a_run_timed_on_this_machine(lab, qtbot):
    with qtbot.waitSignal(lab.worker.calibrated, timeout=120000, check_params_cb=lambda device, _: device == "cpu") \
            as calibrated:  # the tab times a short run once it is shown, for the device chosen
        lab.device.setCurrentIndex(lab.device.findData("cpu"))
        lab.table_choice.setCurrentIndex(lab.table_choice.findData("lr"))
        lab.quick_button.click()
    device, per_unit = calibrated.args
    assert device == "cpu" and per_unit > 0
    # 4 rows of 6 layers x batch 16; a training step costs about 3 forward passes, a test batch one
    expected = per_unit * 4 * 6 * 16 * (3 * 300 + 200)
    shown = f"about {round(expected / 60)} min" if expected >= 90 else f"about {round(expected)} s"
    assert shown in lab.estimate.text() and "4 runs" in lab.estimate.text()


def test_long_notes_wrap_instead_of_widening_the_tab(lab):
    lab.seed_button.click()
    short = lab.minimumSizeHint().width()
    lab.quick_button.click()  # the long "NOT the tutorial's setting ..." note
    assert lab.minimumSizeHint().width() == short <= 1366
    assert lab.about.minimumSizeHint().width() < 400


@pytest.mark.parametrize("presentation", (False, True))
def test_the_mean_predictors_label_stays_inside_the_plot(qtbot, show, presentation):
    """On a 1366 px screen the larger text of presentation mode once pushed "predicting the mean: 3.5"
    past the plot's right edge."""
    panel = show(LabPanel(Workspace()), 1366, 700)
    apply_appearance(with_changes(presentation=presentation))  # the GUI tests' fixture sets it back
    restyle(panel)  # as View > Presentation mode does
    try:
        (level,) = [item for item in panel.plot.plotItem.items if isinstance(item, pg.InfiniteLine)]
        plot_area, label = panel.plot.plotItem.vb, level.label
        # the label takes its place, on the right, once the plot's range is laid out
        qtbot.waitUntil(lambda: label.sceneBoundingRect().right() > plot_area.sceneBoundingRect().center().x())
        assert plot_area.sceneBoundingRect().contains(label.sceneBoundingRect())
    finally:
        panel.shutdown()


def tick_texts(axis):
    """The tick labels ``axis`` draws now."""
    image = QImage(axis.size().toSize(), QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        _, _, texts = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    return [text for _, _, text in texts]


def tick_value(text):
    """pyqtgraph's log-axis labels ("0.5", "10¹", "2·10¹") as numbers."""
    mantissa, _, power = text.rpartition("10") if "10" in text and text[-1] in SUPERSCRIPTS else ("", "", "")
    if not power:
        return float(text)
    return float(mantissa.rstrip("·") or 1) * 10 ** int(power.translate(str.maketrans(SUPERSCRIPTS, "-0123456789")))


SUPERSCRIPTS = "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"


@pytest.mark.training
def test_a_run_on_the_plateau_is_stuck_and_one_whose_loss_blew_up_diverged(lab, qtbot):
    """lr=0.1 settles on the mean predictor's plateau (it learned nothing); lr=10 throws the loss
    to millions. Only the second diverged."""
    sweep(lab, "lr", "0.1, 10", steps=40, test_batches=4)
    run(lab, qtbot)
    (_, plateau), (_, blown) = lab.results
    assert 3.15 < plateau.test_mse < 7 and blown.test_mse > 1000
    assert cells(lab, 0)[4] == "stuck: learned nothing (no better than predicting the mean, 3.5)"
    assert cells(lab, 1)[4].startswith("diverged: the loss blew up")
    assert lab.table.item(0, 0).background().color() == FAILED_FILL


@pytest.mark.training
def test_the_legend_is_below_the_curves_and_the_loss_axis_has_ticks_below_3(lab, qtbot):
    """Runs on the plateau (losses between 3 and 6) once gave an axis from 3.3 to 5.6, ticked 4
    and 5 only, with the legend drawn over the curves."""
    sweep(lab, "lr", "0.1, 1e-3", steps=40, test_batches=2)
    run(lab, qtbot)
    qtbot.wait(50)  # the layout takes the legend's size
    legend, view = lab.plot.plotItem.legend, lab.plot.plotItem.vb
    assert [label.text for _, label in legend.items] == ["lr=0.1", "lr=1e-3"]
    assert not legend.sceneBoundingRect().intersects(view.sceneBoundingRect())
    shown = [tick_value(text) for text in tick_texts(lab.plot.getAxis("left"))]
    assert any(value < 3 for value in shown) and any(value > 3.5 for value in shown), shown
    # 1, 2 and 5 times a power of ten: the minor ticks' labels (0.7 0.8 0.9 1) ran into each other
    assert all(f"{value:.0e}"[0] in "125" for value in shown) and len(shown) == len(set(shown)), shown


@pytest.mark.training
def test_while_it_runs_the_progress_line_says_the_time_left_at_the_pace_measured(lab, qtbot):
    sweep(lab, "lr", "1e-3, 1e-4", steps=200, test_batches=2)
    lab.run_button.click()
    try:
        qtbot.waitUntil(lambda: "left" in lab.progress_text.text(), timeout=60000)
        assert re.search(r"about (\d+ min )?\d+ s left · run 1 of 2: lr=1e-3, step \d+", lab.progress_text.text())
    finally:
        with qtbot.waitSignal(lab.worker.all_done, timeout=60000):
            lab.cancel()
