"""The trainer says when a pause takes effect (the window shows "paused at step N" only then)."""
from __future__ import annotations

import threading
from dataclasses import replace

import pytest
import torch

from transviz.core.data.tasks import load_task
from transviz.core.model.config import TrainConfig
from transviz.core.training.train import Trainer, TrainObserver, build_model

TINY = dict(d_model=16, n_heads=2, n_encoder_layers=1, n_decoder_layers=1, d_ff=32, dropout=0.0)
CONFIG = TrainConfig(steps=8, batch_size=16, lr=3e-3, warmup_steps=2, eval_every=0, snapshot_every=0, device="cpu")


@pytest.fixture(autouse=True)
def one_thread():
    """Tiny models on one thread: on a busy machine torch's threads spin and wait for each other,
    which makes a tiny step many times slower."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


class Events(TrainObserver):
    """Every callback in order; pauses the run from the training thread after step 3."""

    def __init__(self):
        self.events, self.paused = [], threading.Event()
        self.trainer = None

    def on_step(self, metrics):
        self.events.append(("step", metrics.step))
        if metrics.step == 3:
            self.trainer.pause()

    def on_paused(self, step):
        self.events.append(("paused", step))
        self.paused.set()


def small_copy_task():
    data = load_task("copy")
    return replace(data, valid=data.valid[:5], test=data.test[:5])


def test_on_paused_reports_the_step_reached_once_and_the_run_continues_after_resume():
    data = small_copy_task()
    events = Events()
    trainer = events.trainer = Trainer(build_model(data, CONFIG, **TINY), data, CONFIG, events)
    outcome = {}
    thread = threading.Thread(target=lambda: outcome.setdefault("result", trainer.run()))
    thread.start()
    assert events.paused.wait(30)
    assert events.events == [("step", 1), ("step", 2), ("step", 3), ("paused", 3)]  # nothing after the pause
    trainer.resume()
    thread.join(60)
    assert outcome["result"].status == "finished"
    assert events.events[4:] == [("step", s) for s in range(4, 9)]  # resumed: no second pause event


def test_a_stop_needs_no_pause_event():
    data = small_copy_task()
    events = Events()
    config = replace(CONFIG, steps=2)  # ends before step 3 pauses it
    trainer = events.trainer = Trainer(build_model(data, config, **TINY), data, config, events)
    trainer.stop()
    result = trainer.run()
    assert result.status == "stopped" and events.events == []
