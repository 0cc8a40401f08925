"""Real training runs of tiny models on the copy / reverse tasks."""
from __future__ import annotations

import math
import threading
import time
from dataclasses import replace

import numpy as np
import pytest
import torch

import transviz
from transviz.core.data.tasks import load_task
from transviz.core.io import checkpoint
from transviz.core.model.config import TrainConfig
from transviz.core.training.evaluate import evaluate, greedy_batch
from transviz.core.training.recipes import RECIPES
from transviz.core.training.snapshots import load_snapshots
from transviz.core.training.train import Trainer, TrainObserver, build_model

TINY = dict(d_model=32, n_heads=2, n_encoder_layers=1, n_decoder_layers=1, d_ff=64, dropout=0.1)
QUICK = TrainConfig(steps=40, batch_size=32, lr=3e-3, warmup_steps=5, eval_every=0, eval_limit=50,
                    snapshot_every=0, device="cpu")


@pytest.fixture(scope="module")
def copy_task():
    return load_task("copy")


def trimmed(dataset, test=60):
    """The task with a short test split, so the evaluation at the end stays quick."""
    return replace(dataset, valid=dataset.valid[:60], test=dataset.test[:test])


class Recorder(TrainObserver):
    def __init__(self):
        self.steps, self.validations, self.snapshots = [], [], []

    def on_step(self, metrics):
        self.steps.append(metrics)

    def on_validation(self, step, evaluation):
        self.validations.append((step, evaluation))

    def on_snapshot(self, snapshot):
        self.snapshots.append(snapshot)


def in_thread(trainer):
    """Start ``trainer.run()`` on another thread; the result lands in the returned dict."""
    outcome = {}
    thread = threading.Thread(target=lambda: outcome.setdefault("result", trainer.run()))
    thread.start()
    return thread, outcome


def train(dataset, config, observer=None, path=None, **model):
    net = build_model(dataset, config, **{**TINY, **model})
    trainer = Trainer(net, dataset, config, observer, path)
    return trainer, trainer.run()


@pytest.mark.training
def test_loss_falls_and_metrics_are_reported_every_step(copy_task):
    rec = Recorder()
    config = replace(QUICK, steps=150, eval_every=75)
    _, result = train(trimmed(copy_task), config, rec)
    assert result.status == "finished" and result.steps == 150
    assert [m.step for m in rec.steps] == list(range(1, 151))
    first = np.mean([m.loss for m in rec.steps[:15]])
    last = np.mean([m.loss for m in rec.steps[-15:]])
    assert last < 0.8 * first
    assert all(0 <= m.token_accuracy <= 1 and m.tokens_per_s > 0 and m.grad_norm > 0 for m in rec.steps)
    assert [s for s, _ in rec.validations] == [75, 150]
    assert rec.validations[-1][1].loss < rec.validations[0][1].loss
    elapsed = [m.elapsed_s for m in rec.steps]
    assert elapsed == sorted(elapsed) and result.seconds >= elapsed[-1]
    assert result.test is not None and result.test.count == 60 and set(result.test.groups) == {"seen-patterns"}
    assert result.test.bleu is None  # character-level task


def test_the_lr_each_step_used_follows_the_schedule(copy_task):
    rec = Recorder()
    config = replace(QUICK, steps=30, schedule="noam", lr=2.0, warmup_steps=10)
    _, result = train(trimmed(copy_task), config, rec)
    expected = [2.0 * 32**-0.5 * min(s**-0.5, s * 10**-1.5) for s in range(1, 31)]
    assert [m.lr for m in rec.steps] == pytest.approx(expected, rel=1e-12)


def test_two_runs_with_one_seed_are_bit_identical_and_another_seed_differs(copy_task):
    data = trimmed(copy_task, test=10)
    runs = []
    for seed in (5, 5, 6):
        rec = Recorder()
        _, result = train(data, replace(QUICK, steps=25, seed=seed), rec)
        runs.append(([m.loss for m in rec.steps], result.model.net.state_dict()))
    (loss_a, w_a), (loss_b, w_b), (loss_c, _) = runs
    assert loss_a == loss_b
    assert all(torch.equal(w_a[k], w_b[k]) for k in w_a)
    assert loss_a != loss_c


def test_clipping_bounds_the_gradient_norm(copy_task):
    rec = Recorder()
    trainer, result = train(trimmed(copy_task, test=5), replace(QUICK, steps=5, clip_norm=0.05), rec)
    grads = [p.grad for p in result.model.net.parameters() if p.grad is not None]
    clipped = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(g) for g in grads])).item()
    assert rec.steps[-1].grad_norm > 0.05  # reported before clipping
    assert clipped == pytest.approx(0.05, rel=1e-3)  # what the optimiser used


@pytest.fixture(scope="module")
def reverse_model():
    """A small model trained on reverse just long enough that its outputs depend on the input and
    end at many different steps (not that they are right: the comparison does not need it)."""
    dataset = load_task("reverse")
    config = replace(QUICK, steps=40, batch_size=64, lr=3e-3, warmup_steps=8)
    _, result = train(trimmed(dataset), config, d_model=48, n_heads=4, dropout=0.0)
    return dataset, result.model


def test_batched_greedy_equals_decode_one_sentence_at_a_time(reverse_model):
    dataset, model = reverse_model
    sources = [p.source for p in dataset.test[:80]] + ["0", "jjjjjjjjjjjjjjjjjjjj", "zz9"]  # "z": unknown
    stops = set()
    for max_len in (50, 6):
        batched = greedy_batch(model, sources, max_len=max_len, batch_size=16)
        for source, tokens in zip(sources, batched, strict=True):
            trace = transviz.decode(model, source, max_len=max_len)
            one = trace.output_tokens[:-1] if trace.stop_reason == "end" else trace.output_tokens
            assert tokens == one, source
            stops.add(trace.stop_reason)
        assert len({len(tokens) for tokens in batched}) > 1  # rows of one batch end at different steps
    assert stops == {"end", "max_len"}  # rows cut at the end token and rows cut at max_len were compared
    with pytest.raises(transviz.InputError, match="no pairs"):
        evaluate(model, [])


def test_divergence_restores_the_last_good_weights_and_saves_nothing_worse(copy_task, tmp_path):
    """An inf injected into a weight after step 5: the probe's snapshot after step 5 computes NaN
    (without snapshots, step 6's loss would), so the weights go back to those that gave step 5 its
    finite loss (the ones after step 4)."""
    seen = {}

    class Inject(Recorder):
        def on_step(self, metrics):
            super().on_step(metrics)
            seen[metrics.step] = {k: v.clone() for k, v in net.net.state_dict().items()}
            if metrics.step == 5:
                with torch.no_grad():
                    net.net.generator.weight[0, 0] = math.inf

    data = trimmed(copy_task, test=5)
    config = replace(QUICK, steps=20, checkpoint_every=1, snapshot_every=1)
    net = build_model(data, config, **TINY)
    path = tmp_path / "m.safetensors"
    result = Trainer(net, data, config, Inject(), path).run()
    assert result.status == "diverged" and result.steps == 4
    message = str(result.message)
    assert "diverged at step 5: the probe sentence's scores became nan" in message
    assert "warm-up" in message and "lower lr" in message
    state = result.model.net.state_dict()
    assert all(torch.equal(state[k], seen[4][k]) for k in state)
    saved = checkpoint.load(path)  # loads: the file holds finite weights, those restored
    assert all(torch.equal(saved.net.state_dict()[k], seen[4][k]) for k in state)
    assert saved.facts["status"] == "diverged" and saved.facts["steps"] == 4
    # the snapshot of the poisoned step 5 is dropped: the timeline ends at the weights kept
    assert [s.step for s in result.snapshots] == [s.step for s in load_snapshots(path)] == [0, 1, 2, 3, 4]
    assert all(np.isfinite(s.cross_attention).all() for s in load_snapshots(path))


def test_without_snapshots_the_next_steps_loss_finds_the_damage(copy_task, tmp_path):
    class Inject(Recorder):
        def on_step(self, metrics):
            super().on_step(metrics)
            if metrics.step == 5:
                with torch.no_grad():
                    net.net.generator.weight[0, 0] = math.inf

    config = replace(QUICK, steps=20, checkpoint_every=1, snapshot_every=0)
    net = build_model(trimmed(copy_task, test=5), config, **TINY)
    result = Trainer(net, trimmed(copy_task, test=5), config, Inject(), tmp_path / "m.safetensors").run()
    assert result.status == "diverged" and result.steps == 4
    assert "diverged at step 6: the loss became" in str(result.message)


def test_a_huge_learning_rate_ends_as_diverged(copy_task, tmp_path):
    config = replace(QUICK, steps=60, lr=1e6, warmup_steps=0, schedule="constant", clip_norm=0.0)
    _, result = train(trimmed(copy_task, test=5), config, path=tmp_path / "m.safetensors", dropout=0.0)
    assert result.status == "diverged", result.message
    assert all(torch.isfinite(p).all() for p in result.model.net.parameters())
    assert result.test is None
    if result.checkpoint is not None:
        checkpoint.load(result.checkpoint)  # raises on NaN or inf weights


class At(Recorder):
    """Records, and at ``step`` runs ``action`` on the training thread, then sets ``reached``."""

    def __init__(self, step, action):
        super().__init__()
        self.step, self.action, self.reached = step, action, threading.Event()

    def on_step(self, metrics):
        super().on_step(metrics)
        if metrics.step == self.step:
            self.action()
            self.reached.set()


def test_pause_blocks_without_spinning_and_resume_continues(copy_task):
    data = trimmed(copy_task, test=5)
    config = replace(QUICK, steps=12)
    rec = At(3, lambda: trainer.pause())
    trainer = Trainer(build_model(data, config, **TINY), data, config, rec)
    thread, outcome = in_thread(trainer)
    assert rec.reached.wait(30)
    cpu_before = time.process_time()
    time.sleep(0.5)
    assert len(rec.steps) == 3 and trainer.paused and thread.is_alive()
    assert time.process_time() - cpu_before < 0.1  # blocked, not busy-waiting
    trainer.resume()
    thread.join(60)
    assert outcome["result"].status == "finished" and [m.step for m in rec.steps] == list(range(1, 13))


def test_stop_from_another_thread_ends_the_run_cleanly(copy_task):
    data = trimmed(copy_task, test=5)
    config = replace(QUICK, steps=10_000)
    rec = At(4, lambda: time.sleep(0.2))  # time for the other thread to call stop() mid-run
    trainer = Trainer(build_model(data, config, **TINY), data, config, rec)
    thread, outcome = in_thread(trainer)
    assert rec.reached.wait(30)
    trainer.stop()
    thread.join(60)
    result = outcome["result"]
    assert result.status == "stopped" and 4 <= result.steps < 10 and "stopped after" in str(result.message)
    assert result.test is None and result.model.facts["status"] == "stopped"


def test_stop_while_paused_wakes_the_run(copy_task):
    data = trimmed(copy_task, test=5)
    config = replace(QUICK, steps=50)
    trainer = Trainer(build_model(data, config, **TINY), data, config)
    trainer.pause()
    thread, outcome = in_thread(trainer)
    time.sleep(0.3)
    trainer.stop()
    thread.join(30)
    assert not thread.is_alive() and outcome["result"].status == "stopped" and outcome["result"].steps == 0


def test_snapshots_every_k_steps_round_trip_through_the_checkpoint(copy_task, tmp_path):
    data = trimmed(copy_task, test=5)
    probe = data.train[0]
    rec = Recorder()
    config = replace(QUICK, steps=22, snapshot_every=5, probe=probe.source)
    path = tmp_path / "m.safetensors"
    _, result = train(data, config, rec, path)
    assert [s.step for s in result.snapshots] == [0, 5, 10, 15, 20, 22]
    assert [s.step for s in rec.snapshots] == [0, 5, 10, 15, 20, 22]
    T, S = len(probe.target) + 1, len(probe.source)
    for snap in result.snapshots:  # teacher forced on the gold target: one shape throughout
        assert snap.cross_attention.shape == (1, 2, T, S) and snap.target_tokens[0] == "<s>"
    assert not np.allclose(result.snapshots[0].cross_attention, result.snapshots[-1].cross_attention)
    final = transviz.teacher_force(result.model, probe.source, probe.target)
    np.testing.assert_allclose(result.snapshots[-1].cross_attention, final.cross_attention, atol=1e-6)
    back = load_snapshots(path)
    assert [s.step for s in back] == [0, 5, 10, 15, 20, 22]
    for a, b in zip(result.snapshots, back, strict=True):
        assert (a.source_tokens, a.target_tokens, a.predicted_tokens) == (b.source_tokens, b.target_tokens,
                                                                          b.predicted_tokens)
        for name in ("encoder_self_attention", "decoder_self_attention", "cross_attention"):
            assert np.array_equal(getattr(a, name), getattr(b, name))


def test_a_probe_outside_the_data_is_decoded(copy_task):
    data = trimmed(copy_task, test=5)
    probe = "zz" + data.train[0].source  # not a source of any pair; "z" is not even a symbol
    _, result = train(data, replace(QUICK, steps=4, snapshot_every=2, probe=probe))
    assert [s.step for s in result.snapshots] == [0, 2, 4]
    assert result.snapshots[0].source_tokens == list(probe)
    decoded = transviz.decode(result.model, probe, max_len=result.snapshots[-1].cross_attention.shape[2])
    np.testing.assert_allclose(result.snapshots[-1].cross_attention, decoded.cross_attention, atol=1e-6)


def test_the_checkpoint_holds_the_facts_of_the_run(copy_task, tmp_path):
    data = trimmed(copy_task, test=20)
    config = replace(QUICK, steps=10, eval_every=5)
    _, result = train(data, config, path=tmp_path / "m.safetensors")
    facts = transviz.load_model(str(result.checkpoint)).facts
    assert facts["task"] == "copy" and facts["steps"] == 10 and facts["device"] == "cpu"
    assert facts["status"] == "finished" and facts["train_seconds"] > 0 and "trained_at" in facts
    assert TrainConfig.from_dict(facts["train_config"]) == config
    assert facts["test"]["exact_match"] == result.test.exact_match and facts["test"]["count"] == 20
    assert facts["validation"]["count"] == 50  # eval_limit


class Crash(Exception):
    pass


def test_the_default_and_the_recipes_save_during_training():
    every = TrainConfig().checkpoint_every
    assert 0 < every < min(r.train.steps for r in RECIPES.values())  # at least one save before the end
    assert all(r.train.checkpoint_every == every for r in RECIPES.values())
    from transviz.cli import build_parser
    from transviz.commands.train import _settings

    for argv in (["train", "--task", "copy"], ["train", "--recipe", "toy-de-en"]):  # what `transviz train` uses
        assert _settings(build_parser().parse_args(argv))[2].checkpoint_every == every


def test_a_run_that_crashes_keeps_the_last_periodic_checkpoint(copy_task, tmp_path):
    every, crash_after = 5, 7
    weights = {}

    class CrashingObserver(TrainObserver):
        def on_step(self, metrics):
            if metrics.step == every:
                weights.update({k: v.clone() for k, v in net.net.state_dict().items()})
            if metrics.step == crash_after:
                raise Crash("the machine went down")

    data = trimmed(copy_task, test=5)
    config = replace(QUICK, steps=100, batch_size=8, checkpoint_every=every)
    net = build_model(data, config, **TINY)
    path = tmp_path / "m.safetensors"
    with pytest.raises(Crash):
        Trainer(net, data, config, CrashingObserver(), path).run()
    saved = checkpoint.load(path)
    assert saved.facts["steps"] == every <= crash_after and saved.facts["status"] == "running"
    assert all(torch.equal(saved.net.state_dict()[k], weights[k]) for k in weights)
    assert [p.name for p in tmp_path.iterdir()] == ["m.safetensors"]  # atomic: no temporary left
