"""The training tab with real tiny runs on the reverse task: signals to the finished state, plots
holding every reported step, the snapshot timeline, pause, the explorer hook, a live event loop,
closing during training, inline errors, corpora dropped on the tab, divergence."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
import torch
from PySide6.QtCore import QMimeData, QPointF, Qt, QTimer, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QMessageBox

import transviz
from transviz.core.data.tasks import task_examples
from transviz.core.model.config import SCHEDULES, TRAINED_POSITIONALS
from transviz.core.teaching.workspace import Workspace
from transviz.core.training.schedules import learning_rate
from transviz.core.training.snapshots import load_snapshots
from transviz.gui.main_window import MainWindow
from transviz.gui.panels.training import TrainingPanel, default_runs_dir

PROBE = "3a7f19c"  # the reverse task's first example; no pair of the task has it, so it is decoded greedily


def configure(form, steps=30, snapshot_every=5, eval_every=10, lr="3e-3", schedule="warmup", warmup=5):
    """A tiny model on the reverse task, on the CPU."""
    form.set_task("reverse")
    form.layers.setValue(1)
    form.heads.setValue(2)
    form.d_model.setValue(16)
    form.d_ff.setValue(32)
    form.dropout.setValue(0.0)
    form.steps.setValue(steps)
    form.batch_size.setValue(16)
    form.lr.setText(lr)
    form.schedule.setCurrentIndex(form.schedule.findData(schedule))
    form.warmup.setValue(warmup)
    form.snapshot_every.setValue(snapshot_every)
    form.eval_every.setValue(eval_every)
    form.device.setCurrentIndex(form.device.findData("cpu"))
    assert form.valid, form.check()


class Spy:
    """Everything the worker reported, in order, as the GUI thread received it."""

    def __init__(self, panel):
        self.steps, self.validations, self.snapshots = [], [], []
        panel.worker.stepped.connect(self.steps.extend)  # steps come in batches
        panel.worker.validated.connect(lambda step, evaluation: self.validations.append((step, evaluation)))
        panel.worker.snapshot_taken.connect(self.snapshots.append)


@pytest.fixture
def panel(qtbot, show, tmp_path):
    panel = show(TrainingPanel(Workspace(), runs_dir=tmp_path / "runs"), 1400, 900)
    yield panel
    panel.shutdown()
    assert panel.worker.worker_thread.isFinished()  # no QThread left running


def run(panel, qtbot, timeout=60000):
    with qtbot.waitSignal(panel.run_finished, timeout=timeout) as signal:
        panel.start()
    return signal.args[0]


def test_the_form_trains_a_windowed_rms_norm_variant(panel, qtbot):
    configure(panel.form, steps=4, snapshot_every=2, eval_every=4)
    form = panel.form
    form.norm.setCurrentIndex(form.norm.findData("pre"))
    form.layer_norm.setCurrentIndex(form.layer_norm.findData("rms"))
    form.attention_window.setValue(2)
    assert form.attention_window.text() == "2" and form.valid
    config = run(panel, qtbot).model.config
    assert (config.norm, config.layer_norm, config.attention_window) == ("pre", "rms", 2)
    form.attention_window.setValue(0)
    assert form.attention_window.text() == "every key"  # 0: full attention, said in words


def test_the_form_trains_rotary_grouped_query_attention_and_says_what_does_not_divide(panel, qtbot):
    configure(panel.form, steps=4, snapshot_every=2, eval_every=4)
    form = panel.form
    assert form.kv_heads.text() == "one per head"
    form.heads.setValue(4)
    form.kv_heads.setValue(3)
    assert not form.valid and "n_kv_heads (3) must divide n_heads (4)" in form.error.text()
    assert not panel.start_button.isEnabled()
    form.kv_heads.setValue(2)
    form.positions.setCurrentIndex(form.positions.findData("rotary"))
    assert form.valid and form.positions.currentText() == "rotary (RoPE)"
    config = run(panel, qtbot).model.config
    assert (config.n_heads, config.n_kv_heads, config.positional) == (4, 2, "rotary")


def test_a_short_run_reaches_finished_through_signals_and_the_plots_hold_every_step(panel, qtbot):
    configure(panel.form, steps=30, eval_every=10)
    spy = Spy(panel)
    result = run(panel, qtbot)
    assert result.status == "finished" and result.steps == 30
    assert [m.step for m in spy.steps] == list(range(1, 31))
    # every reported step is a point of the loss, accuracy and learning-rate curves
    for series, plot, field in ((panel.train_loss, panel.loss_plot, "loss"),
                                (panel.token_accuracy, panel.accuracy_plot, "token_accuracy"),
                                (panel.learning_rate, panel.lr_plot, "lr")):
        assert plot.points(series) == len(series) == 30
        assert list(series.y) == [getattr(m, field) for m in spy.steps]
    # the learning rate drawn is the schedule's formula: linear warm-up over 5 steps to 3e-3
    expected = [3e-3 * min(1.0, s / 5) for s in range(1, 31)]
    assert panel.learning_rate.y.tolist() == pytest.approx(expected, rel=1e-12)
    assert expected == pytest.approx([learning_rate(s, 3e-3, "warmup", 5, 30, 16) for s in range(1, 31)])
    # the lr axis was set to the schedule's peak (plus a tenth) before the first step: it never rescales
    assert panel.lr_plot.viewRange()[1] == pytest.approx([0.0, 1.1 * 3e-3])
    # validations at 10, 20 and at the end
    assert [s for s, _ in spy.validations] == [10, 20, 30]
    assert panel.valid_loss.x.tolist() == [10, 20, 30] and panel.loss_plot.points(panel.valid_loss) == 3
    assert panel.exact_match.y.tolist() == [e.exact_match for _, e in spy.validations]
    assert panel.progress.value() == panel.progress.maximum() == 30
    assert "finished after 30 steps" in panel.progress_text.text()
    assert panel.notice.isVisible() and f"Saved to {result.checkpoint}" in panel.notice.text()
    assert panel.start_button.isEnabled() and not panel.stop_button.isEnabled()
    assert panel.explore_button.isEnabled() and panel.save_button.isEnabled()
    assert result.checkpoint.parent == panel.runs_dir and result.checkpoint.name.startswith("reverse-")


def test_the_timeline_holds_every_snapshot_and_scrubbing_shows_that_snapshots_arrays(panel, qtbot):
    configure(panel.form, steps=30, snapshot_every=5, eval_every=0)
    spy = Spy(panel)
    assert panel.timeline.pages.currentWidget() is panel.timeline.empty  # a note, not empty axes
    result = run(panel, qtbot)
    timeline = panel.timeline
    assert timeline.pages.currentIndex() == 1
    assert "not in the data: the model's own output is shown" in timeline.origin.text()
    assert [s.step for s in spy.snapshots] == [0, 5, 10, 15, 20, 25, 30]
    assert timeline.slider.maximum() == 6 and timeline.slider.value() == 6  # followed the newest
    # the newest snapshot is what the trained model itself does with the probe
    final = transviz.decode(result.model, PROBE, max_len=spy.snapshots[-1].cross_attention.shape[2])
    np.testing.assert_allclose(timeline.grid.maps, final.cross_attention, atol=1e-6)
    timeline.slider.setValue(2)  # scrub back to step 10
    assert timeline.current().step == 10 and "step 10 (snapshot 3 of 7)" in timeline.position.text()
    np.testing.assert_array_equal(timeline.grid.maps, spy.snapshots[2].cross_attention)
    # the large view: the mean of heads by default, a head once clicked in the grid, tokens on its axes
    np.testing.assert_allclose(timeline.head_view.data, spy.snapshots[2].cross_attention[0].mean(axis=0), atol=1e-6)
    timeline.grid.cell_clicked.emit(0, 1)
    np.testing.assert_array_equal(timeline.head_view.data, spy.snapshots[2].cross_attention[0, 1])
    assert timeline.head_view.column_labels() == list(PROBE) and "layer 0, head 1" in timeline.head_view.title
    # rows as in the explorer: the decoder input fed and the token the model predicts from that row
    shown = spy.snapshots[2]
    assert timeline.head_view.row_labels() == [f"{fed} -> {predicted}" for fed, predicted in
                                               zip(shown.target_tokens, shown.predicted_tokens, strict=True)]
    timeline.kind.setCurrentIndex(1)  # encoder self-attention of the same snapshot
    np.testing.assert_array_equal(timeline.grid.maps, spy.snapshots[2].encoder_self_attention)
    np.testing.assert_array_equal(timeline.head_view.data, spy.snapshots[2].encoder_self_attention[0, 1])
    assert timeline.grid.maps.shape == (1, 2, len(PROBE), len(PROBE))
    assert not np.allclose(spy.snapshots[0].encoder_self_attention, spy.snapshots[-1].encoder_self_attention)


@pytest.mark.training
def test_a_checkpoints_timeline_can_be_scrubbed_again_after_a_restart(panel, qtbot, show, tmp_path):
    configure(panel.form, steps=20, snapshot_every=5, eval_every=0)
    spy = Spy(panel)
    result = run(panel, qtbot)
    assert [s.step for s in load_snapshots(result.checkpoint)] == [0, 5, 10, 15, 20]
    fresh = show(TrainingPanel(Workspace(), runs_dir=tmp_path), 1200, 800)  # as after a restart
    try:
        assert fresh.open_timeline(result.checkpoint)
        assert fresh.timeline.slider.maximum() == 4 and "saved in" in fresh.timeline.origin.text()
        fresh.timeline.slider.setValue(1)
        np.testing.assert_array_equal(fresh.timeline.grid.maps, spy.snapshots[1].cross_attention)
        other = show(TrainingPanel(Workspace(), runs_dir=tmp_path), 1200, 800)
        other.workspace.set_model(transviz.load_model(str(result.checkpoint)))  # loaded by the window: timeline too
        assert [s.step for s in other.timeline.snapshots] == [0, 5, 10, 15, 20]
        other.shutdown()
        plain = transviz.save_model(result.model, tmp_path / "plain.safetensors")  # no snapshots in it
        assert not fresh.open_timeline(plain) and "holds no attention snapshots" in fresh.error.text()
        assert fresh.timeline.slider.maximum() == 4  # the timeline shown stays
    finally:
        fresh.shutdown()


def test_pausing_stops_the_step_counter_and_resume_goes_on(panel, qtbot):
    configure(panel.form, steps=100_000, snapshot_every=0, eval_every=0)
    spy = Spy(panel)
    panel.start()
    qtbot.waitUntil(lambda: len(spy.steps) >= 3, timeout=30000)
    with qtbot.waitSignal(panel.worker.paused, timeout=10000) as paused:
        panel.toggle_pause()
    step = paused.args[0]
    assert len(spy.steps) == step and spy.steps[-1].step == step  # no step after the pause took effect
    assert panel.progress_text.text() == f"paused at step {step} of 100,000"
    assert panel.pause_button.text() == "Resume" and panel.is_running()
    qtbot.wait(300)  # the event loop runs; the training thread must not
    assert len(spy.steps) == step
    panel.toggle_pause()
    qtbot.waitUntil(lambda: len(spy.steps) > step + 2, timeout=10000)
    with qtbot.waitSignal(panel.run_finished, timeout=30000) as finished:
        panel.stop()
    result = finished.args[0]
    assert result.status == "stopped" and result.steps == len(spy.steps) > step
    assert "Stopped after" in panel.notice.text()


def test_the_event_loop_answers_a_timer_while_training_runs(panel, qtbot):
    """How late the timer may fire is the figure gui_timer_late_ms_training (`transviz bench`)."""
    configure(panel.form, steps=100_000, snapshot_every=2, eval_every=20)  # snapshots and validations too
    spy = Spy(panel)
    panel.start()
    qtbot.waitUntil(lambda: len(spy.steps) >= 3, timeout=30000)
    fired, steps_at_start = [], len(spy.steps)  # fired: the steps received at each of the timer's fires
    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(lambda: fired.append(len(spy.steps)))
    timer.start()
    # long enough to cover steps, snapshots and two validations
    qtbot.waitUntil(lambda: len(fired) >= 25 and len(spy.validations) >= 2, timeout=30000)
    timer.stop()
    assert panel.is_running() and len(spy.steps) > steps_at_start + 20  # training went on meanwhile
    assert fired[-1] > fired[0]  # the timer fired between the steps, not only before them
    with qtbot.waitSignal(panel.run_finished, timeout=30000):
        panel.stop()


@pytest.fixture
def window(open_window, tmp_path):
    window = open_window()
    window.panels["training"].runs_dir = tmp_path / "runs"
    return window


def test_the_trained_model_becomes_the_explorers_model_as_a_copy_and_decodes(window, qtbot):
    training = window.panels["training"]
    configure(training.form, steps=40, eval_every=0)
    result = run(training, qtbot)
    with qtbot.waitSignal(window.model_changed, timeout=5000) as changed:
        training.explore_button.click()
    copy = changed.args[0]
    assert window.workspace.model is copy and copy is not result.model
    assert copy.path == str(result.checkpoint) and window.windowTitle() == f"transviz: {result.checkpoint.stem}"
    trained = {p.data_ptr() for p in result.model.net.parameters()}
    assert not trained & {p.data_ptr() for p in copy.net.parameters()}  # no tensor shared with the trainer's model
    for name, tensor in result.model.net.state_dict().items():
        assert torch.equal(copy.net.state_dict()[name], tensor)
    ours, theirs = transviz.decode(copy, "0123456789"), transviz.decode(result.model, "0123456789")
    assert ours.output_tokens == theirs.output_tokens
    np.testing.assert_array_equal(ours.cross_attention, theirs.cross_attention)
    assert window.tabs.currentWidget() is window.panels["explorer"]  # the explorer decodes it, step by step
    explorer = window.panels["explorer"]
    explorer.source.sentence.setText("0123456789")
    qtbot.waitUntil(lambda: explorer.controller.session is not None, timeout=5000)
    steps = min(3, len(theirs.output_tokens))  # a model trained this briefly may end at once
    for _ in range(steps):
        explorer.controller.step()
    QApplication.processEvents()
    assert explorer.controller.session.output_tokens == theirs.output_tokens[:steps]
    # the grid shows the cross-attention of every step so far, as the trained model's own decode has it
    np.testing.assert_allclose(explorer.attention.grid.maps, theirs.cross_attention[:, :, :steps], atol=1e-5)
    window.tabs.setCurrentWidget(window.panels["masks"])
    assert window.panels["masks"].steps is not None  # the other tabs got it too
    before = next(result.model.net.parameters()).detach().clone()
    with torch.no_grad():
        next(copy.net.parameters()).add_(1.0)  # the explorer's copy changes; the trained model does not
    assert torch.equal(next(result.model.net.parameters()), before)


def test_closing_during_training_asks_then_stops_cleanly_and_keeps_a_loadable_checkpoint(window, qtbot):
    training = window.panels["training"]
    configure(training.form, steps=100_000, snapshot_every=10, eval_every=0)
    spy = Spy(training)
    training.start()
    qtbot.waitUntil(lambda: len(spy.steps) >= 3, timeout=30000)

    def question():
        box = window.findChild(QMessageBox, "stop_training_question")
        assert box is not None and box.isVisible()
        return box

    window.close()
    box = question()
    assert window.isVisible() and str(training.checkpoint) in box.text()
    box.button(QMessageBox.StandardButton.Cancel).click()  # changed their mind: training goes on
    count = len(spy.steps)
    qtbot.waitUntil(lambda: len(spy.steps) > count, timeout=10000)
    assert window.isVisible() and training.is_running()
    window.close()
    stop = next(b for b in question().buttons() if b.text() == "Stop training and close")
    with qtbot.waitSignal(training.run_finished, timeout=30000) as finished:
        stop.click()
    qtbot.waitUntil(lambda: not window.isVisible(), timeout=10000)
    result = finished.args[0]
    assert result.status == "stopped" and result.checkpoint == training.checkpoint
    assert training.worker.worker_thread.isFinished()
    saved = transviz.load_model(str(result.checkpoint))
    assert saved.facts["status"] == "stopped" and saved.facts["steps"] == result.steps == len(spy.steps)
    for name, tensor in result.model.net.state_dict().items():
        assert torch.equal(saved.net.state_dict()[name], tensor.cpu())
    assert [s.step for s in load_snapshots(result.checkpoint)] == [s.step for s in spy.snapshots]


def test_impossible_settings_are_explained_inline_and_start_stays_off(panel):
    form = panel.form
    configure(form)
    form.d_model.setValue(30)  # 30 is not divisible by 4 heads
    form.heads.setValue(4)
    assert not form.valid and not panel.start_button.isEnabled()
    assert form.error.isVisible() and "divisible by n_heads" in form.error.text()
    panel.start()  # does nothing
    assert not panel.is_running()
    form.d_model.setValue(32)
    assert form.valid and panel.start_button.isEnabled() and not form.error.isVisible()
    form.lr.setText("fast")
    assert "must be a number" in form.error.text() and not panel.start_button.isEnabled()
    form.lr.setText("1e-3")
    form.schedule.setCurrentIndex(form.schedule.findData("warmup-decay"))
    form.warmup.setValue(form.steps.value())
    assert "must be below steps" in form.error.text()
    form.warmup.setValue(5)
    form.set_tsv("")  # a corpus chosen but no file yet
    assert "choose a TSV file" in form.error.text() and not panel.start_button.isEnabled()


def drop(widget, path):
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    enter = QDragEnterEvent(QPointF(20, 20).toPoint(), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(widget, enter)
    event = QDropEvent(QPointF(20, 20), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                       Qt.KeyboardModifier.NoModifier)
    if enter.isAccepted():
        QApplication.sendEvent(widget, event)
    return enter.isAccepted()


def test_a_dropped_corpus_trains_and_a_broken_one_says_which_line(panel, qtbot, tmp_path):
    words = "ich du er sie wir ihr".split()
    english = "i you he she we you-all".split()
    lines = [f"{a} {b}\t{english[i]} {english[j]}" for i, a in enumerate(words) for j, b in enumerate(words)]
    corpus = tmp_path / "pairs.tsv"
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    configure(panel.form, steps=6, snapshot_every=3, eval_every=0)
    assert drop(panel, corpus)
    assert panel.form.tsv.text() == str(corpus) and panel.form.task.currentData() == ""
    assert not drop(panel, tmp_path / "notes.pdf")  # not a corpus
    broken = tmp_path / "broken.tsv"
    broken.write_text(lines[0] + "\n" + lines[1] + "\nno tab on this line\n", encoding="utf-8")
    panel.form.set_tsv(str(broken))
    with qtbot.waitSignal(panel.run_failed, timeout=30000) as failed:
        panel.start()
    assert "line 3" in failed.args[0] and panel.error.isVisible() and "line 3" in panel.error.text()
    assert not panel.is_running() and panel.start_button.isEnabled()  # usable after the failure
    panel.form.set_tsv(str(corpus))
    result = run(panel, qtbot)
    assert result.status == "finished" and result.model.facts["task"] == "pairs.tsv"
    assert result.checkpoint.name.startswith("pairs-") and not panel.error.isVisible()
    assert panel.form.probe.count() > 0  # the corpus' examples are offered as probes
    assert "teacher forced on its translation in the data" in panel.timeline.origin.text()  # a training pair


def test_divergence_is_explained_in_the_window(panel, qtbot):
    configure(panel.form, steps=60, snapshot_every=1, eval_every=0, lr="1e6", schedule="constant", warmup=0)
    result = run(panel, qtbot)
    assert result.status == "diverged", result.message
    assert panel.notice.isVisible() and str(result.message)[1:] in panel.notice.text()  # capitalised in the window
    assert "Try warm-up or a lower lr" in panel.notice.text()
    assert "diverged after" in panel.progress_text.text()
    assert panel.timeline.snapshots[-1].step == result.steps  # no snapshot of the poisoned weights
    assert panel.explore_button.isEnabled()  # the last good weights can still be explored


def test_save_as_writes_the_model_with_its_timeline(panel, qtbot, tmp_path):
    configure(panel.form, steps=10, snapshot_every=5, eval_every=0)
    result = run(panel, qtbot)
    target = tmp_path / "mine.safetensors"
    with qtbot.waitSignal(panel.worker._runner.done, timeout=10000):
        panel.save_as(target)
    saved = transviz.load_model(str(target))
    for name, tensor in result.model.net.state_dict().items():
        assert torch.equal(saved.net.state_dict()[name], tensor)
    assert [s.step for s in load_snapshots(target)] == [0, 5, 10]
    assert "saved to" in panel.progress_text.text()


def test_every_button_is_named_before_the_first_run(panel):
    buttons = (panel.start_button, panel.pause_button, panel.stop_button, panel.explore_button,
               panel.save_button, panel.timeline_button)
    assert [b.text() for b in buttons] == ["Start", "Pause", "Stop", "Use in explorer", "Save as...",
                                            "Open timeline..."]


def test_the_form_starts_at_the_toy_de_en_recipe_and_offers_the_devices_found():
    from transviz.core.training.devices import available_devices
    from transviz.core.training.recipes import recipe
    from transviz.gui.widgets.training_form import TrainingForm

    form = TrainingForm()
    shipped = recipe("toy-de-en")
    assert form.task.currentData() == "toy-de-en" and form.valid
    assert form.model_settings() == {**shipped.model, "n_encoder_layers": 3, "n_decoder_layers": 3,
                                     "norm": "post", "layer_norm": "standard", "attention_window": 0, "n_kv_heads": 0,
                                     "positional": "sinusoidal", "architecture": "encoder-decoder",
                                     "share_embeddings": False, "tie_output": False}
    assert dataclasses.replace(form.train_config(), device=shipped.train.device) == shipped.train
    entries = {combo: [combo.itemData(i) for i in range(combo.count())] for combo in (form.positions, form.schedule)}
    assert entries[form.positions] == list(TRAINED_POSITIONALS) and entries[form.schedule] == list(SCHEDULES)
    devices = [form.device.itemData(i) for i in range(form.device.count())]
    assert devices == ["auto"] + [d.name for d in available_devices()]
    form.init.setCurrentIndex(form.init.findData("normal"))
    assert form.train_config().init == "normal:0.02" and form.init_scale.isEnabled()
    form.deleteLater()


def test_a_finished_runs_texts_follow_a_language_change(panel, qtbot):
    from transviz.gui.services.language import CHINESE, ENGLISH, set_language

    configure(panel.form, steps=10)
    run(panel, qtbot)
    english = panel.timeline.origin.text(), panel.notice.text()
    assert english[0].startswith("probe: 3a7f19c") and english[1].startswith("Finished 10 steps.")
    set_language(CHINESE)
    try:
        qtbot.waitUntil(lambda: panel.start_button.text() == "开始", timeout=5000)
        assert panel.timeline.origin.text().startswith("探针句：3a7f19c")
        assert panel.notice.text().startswith("完成了 10 步。")
        assert panel.pause_button.text() == "暂停"
        assert panel.loss_plot.title == "损失"
    finally:
        set_language(ENGLISH)
    qtbot.waitUntil(lambda: panel.start_button.text() == "Start", timeout=5000)
    assert (panel.timeline.origin.text(), panel.notice.text()) == english


def test_the_datas_summary_is_in_the_interfaces_language(panel, qtbot):
    """The split sizes of the data come from the core as a message, which the window translates."""
    from transviz.gui.services.language import CHINESE, ENGLISH, set_language

    set_language(CHINESE)
    try:
        configure(panel.form, steps=2)
        run(panel, qtbot)
        assert "训练" in panel._run_text and "test pairs" not in panel._run_text
    finally:
        set_language(ENGLISH)


# -- recorded curves, the data folder, the explorer hook ----------------------------------------------
SHIPPED = Path(__file__).resolve().parents[2] / "resources" / "models" / "default.safetensors"


def plotted(panel):
    return {name: (series.x.tolist(), series.y.tolist()) for name, series in (
        ("loss", panel.train_loss), ("lr", panel.learning_rate), ("accuracy", panel.token_accuracy),
        ("valid", panel.valid_loss), ("match", panel.exact_match))}


def test_a_shipped_model_without_recorded_curves_shows_neither_timeline_nor_plots(panel):
    model = transviz.load_model(SHIPPED)
    assert transviz.core.training.snapshots.load_snapshots(SHIPPED)  # it does carry snapshots
    panel.set_model(model)
    assert panel.timeline.snapshots == []
    assert panel.timeline.pages.currentWidget() is panel.timeline.empty
    assert all(xs == [] for xs, _ in plotted(panel).values())
    assert "recorded no training curves" in panel.timeline.origin.text()
    assert not panel.step_marker.isVisible()


def test_a_timeline_without_curves_is_drawn_over_its_own_steps(panel):
    """Opened, the shipped model's snapshots had empty plots around step 300 alone (299.6 to 300.4)."""
    assert panel.open_timeline(SHIPPED)
    last = transviz.core.training.snapshots.load_snapshots(SHIPPED)[-1].step
    assert all(xs == [] for xs, _ in plotted(panel).values())
    for plot in panel.plots:
        low, high = plot.getViewBox().viewRange()[0]
        assert low <= 0 and last <= high < 1.1 * last
    assert panel.step_marker.isVisible() and 0 <= panel.step_marker.value() <= last


def test_a_checkpoint_shows_its_recorded_curves_with_its_timeline_and_marks_the_scrubbed_step(panel, qtbot, show,
                                                                                             tmp_path):
    configure(panel.form, steps=30, snapshot_every=5, eval_every=10)
    spy = Spy(panel)
    result = run(panel, qtbot)
    fresh = show(TrainingPanel(Workspace(), runs_dir=tmp_path), 1200, 800)  # as after a restart
    fresh.set_model(transviz.load_model(result.checkpoint))
    shown = plotted(fresh)
    assert shown["loss"] == ([m.step for m in spy.steps], [m.loss for m in spy.steps])
    assert shown["lr"][1] == [m.lr for m in spy.steps]
    assert shown["accuracy"][1] == [m.token_accuracy for m in spy.steps]
    assert shown["valid"] == ([s for s, _ in spy.validations], [e.loss for _, e in spy.validations])
    assert shown["match"][1] == [e.exact_match for _, e in spy.validations]
    assert fresh.loss_plot.points(fresh.train_loss) == 30
    assert [s.step for s in fresh.timeline.snapshots] == [0, 5, 10, 15, 20, 25, 30]
    # the loss plot marks the step of the snapshot shown, wherever the slider is put
    assert fresh.step_marker.isVisible() and fresh.step_marker.value() == 30
    fresh.timeline.slider.setValue(2)
    assert fresh.step_marker.value() == 10
    for plot in (fresh.loss_plot, fresh.accuracy_plot):  # every curve named, no name over the curves
        legend, data = plot.plotItem.legend, plot.plotItem.getViewBox().sceneBoundingRect()
        assert legend.isVisible() and len(legend.items) == 2
        assert not legend.sceneBoundingRect().intersects(data)
        plot.resize(260, 260)  # a narrow plot: the names do not push the data past its edge
        qtbot.wait(50)
        data = plot.plotItem.getViewBox().sceneBoundingRect()
        assert data.right() <= plot.width() and legend.sceneBoundingRect().right() <= plot.width()
    fresh.shutdown()


def test_runs_are_saved_under_one_transviz_level_or_the_folder_transviz_data_names(monkeypatch, tmp_path, qtbot):
    monkeypatch.delenv("TRANSVIZ_DATA", raising=False)
    runs = default_runs_dir()
    assert runs.name == "runs" and runs.parent.name == "transviz"
    assert runs.parent.parent.name != "transviz"  # not .../transviz/transviz/runs
    monkeypatch.setenv("TRANSVIZ_DATA", str(tmp_path / "classroom"))
    assert default_runs_dir() == tmp_path / "classroom" / "runs"
    panel = TrainingPanel(Workspace())
    qtbot.addWidget(panel)
    try:
        assert panel.runs_dir == tmp_path / "classroom" / "runs"
    finally:
        panel.shutdown()


@pytest.mark.training
def test_use_in_explorer_replaces_a_german_sentence_with_the_new_models_first_example(qtbot, tmp_path):
    win = MainWindow()
    win.panels["training"].runs_dir = tmp_path / "runs"
    qtbot.addWidget(win)
    win.resize(1400, 900)
    win.show()
    try:
        explorer = win.panels["explorer"]
        explorer.source.sentence.setText("ich mochte ein bier")
        training = win.panels["training"]
        configure(training.form, steps=10, eval_every=0)
        run(training, qtbot)
        training.explore_button.click()
        QApplication.processEvents()
        first = task_examples("reverse")[0]
        assert win.workspace.sentence == first.source
        assert explorer.source.sentence.text() == first.source
    finally:
        win.shutdown()


def test_use_in_explorer_keeps_a_sentence_the_new_model_knows(qtbot, tmp_path, make_model):
    """The teacher typed a sentence of the task being trained: it stays in the explorer."""
    win = MainWindow()
    win.workspace.set_model(make_model())  # the model the sentence was typed for
    win.panels["training"].runs_dir = tmp_path / "runs"
    qtbot.addWidget(win)
    win.resize(1400, 900)
    win.show()
    try:
        explorer, training = win.panels["explorer"], win.panels["training"]
        configure(training.form, steps=10, eval_every=0)
        run(training, qtbot)
        typed = task_examples("reverse")[3].source
        explorer.source.sentence.setText(typed)
        qtbot.waitUntil(lambda: win.workspace.sentence == typed, timeout=5000)
        training.explore_button.click()
        QApplication.processEvents()
        assert win.workspace.sentence == typed and explorer.source.sentence.text() == typed
    finally:
        win.shutdown()


def test_the_curves_keep_their_room_on_a_small_screen(open_window, qtbot):
    """At 1366 x 768 the three plots had about 80 px, their tick labels touching: the curves keep
    at least six lines of text of height (the plot row takes half the height, and a minimum)."""
    window = open_window((1366, 768))
    window.tabs.setCurrentWidget(window.panels["training"])
    panel = window.panels["training"]
    qtbot.waitUntil(lambda: panel.loss_plot.isVisible(), timeout=5000)
    qtbot.wait(50)  # the layout settles
    line = panel.fontMetrics().height()
    for plot in panel.plots:
        assert plot.getPlotItem().getViewBox().sceneBoundingRect().height() >= 6 * line, plot.title
