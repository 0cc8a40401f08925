"""Training, the seed lab and step-through decoding on a CUDA GPU, checked against the CPU."""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
import torch

import transviz
from transviz.core.data.tasks import load_task
from transviz.core.decoding.session import DecodingSession
from transviz.core.decoding.strategies import Beam
from transviz.core.io import checkpoint
from transviz.core.io.resources import DEFAULT_MODEL
from transviz.core.model.config import TrainConfig
from transviz.core.training.lab import LabSettings, run_lab
from transviz.core.training.train import StepMetrics, Trainer, TrainObserver, build_model

pytestmark = pytest.mark.gpu

TINY = dict(d_model=32, n_heads=2, n_encoder_layers=1, n_decoder_layers=1, d_ff=64, dropout=0.1)
SENTENCES = ["ich mochte ein bier", "der kleine hund sieht die katze", "ich mochte ein bier und ein brot"]  # unknowns
MAPS = ("encoder_self_attention", "decoder_self_attention", "cross_attention")


class Losses(TrainObserver):
    def __init__(self) -> None:
        self.losses: list[float] = []

    def on_step(self, metrics: StepMetrics) -> None:
        self.losses.append(metrics.loss)


def test_training_learns_and_its_checkpoint_loads_on_the_cpu_with_equal_outputs(device, tmp_path):
    copy = load_task("copy")
    dataset = replace(copy, valid=copy.valid[:40], test=copy.test[:40])
    config = TrainConfig(steps=120, batch_size=32, lr=3e-3, warmup_steps=10, eval_every=60, eval_limit=40,
                         snapshot_every=40, device=str(device))
    watch = Losses()
    result = Trainer(build_model(dataset, config, **TINY), dataset, config, watch, tmp_path / "m.safetensors").run()
    assert result.status == "finished" and result.device == str(device)
    assert {p.device for p in result.model.net.parameters()} == {device}
    assert np.mean(watch.losses[-15:]) < 0.8 * np.mean(watch.losses[:15])
    assert result.test is not None and result.test.count == 40 and len(result.snapshots) == 4  # steps 0, 40, 80, 120

    on_cpu = checkpoint.load(result.checkpoint, "cpu")
    assert on_cpu.facts["device"] == str(device)
    trained = result.model.net.eval()
    for name, weight in trained.state_dict().items():
        assert torch.equal(weight.cpu(), on_cpu.net.state_dict()[name]), name
    src = torch.randint(4, len(on_cpu.src_vocab), (8, 12), generator=torch.Generator().manual_seed(0))
    tgt = torch.randint(4, len(on_cpu.tgt_vocab), (8, 10), generator=torch.Generator().manual_seed(1))
    src[::3, 9:] = 0  # padded tails
    with torch.no_grad():
        expected = on_cpu.net(src, tgt, return_attention=True)
        got = trained(src.to(device), tgt.to(device), return_attention=True)
    torch.testing.assert_close(got.logits.cpu(), expected.logits, atol=1e-4, rtol=1e-4)
    for kind in ("encoder_self", "decoder_self", "cross"):
        for ours, theirs in zip(getattr(got.attention, kind), getattr(expected.attention, kind), strict=True):
            torch.testing.assert_close(ours.cpu(), theirs, atol=1e-4, rtol=1e-4)


def test_a_short_lab_run_learns(device):
    settings = LabSettings(d_model=32, heads=2, d_ff=64, layers=2, batch=16, steps=100, test_batches=20, lr=1e-2,
                           device=str(device))
    losses: list[float] = []
    result = run_lab(settings, on_step=lambda step, loss, lr: losses.append(loss))
    assert result.status == "ok" and len(result.train_losses) == 100
    assert math.isfinite(result.test_mse) and result.test_mse < 3.15  # clearly better than the mean (3.5)
    assert sum(losses[-10:]) < 0.7 * sum(losses[:10])


@pytest.fixture(scope="module")
def shipped_pair(device):
    """The shipped default model twice: on the CPU and on the device."""
    return transviz.load_model(DEFAULT_MODEL, "cpu"), transviz.load_model(DEFAULT_MODEL, str(device))


def assert_same_trace(on_device: transviz.Trace, on_cpu: transviz.Trace) -> None:
    assert on_device.output_tokens == on_cpu.output_tokens
    for name in MAPS:
        np.testing.assert_allclose(getattr(on_device, name), getattr(on_cpu, name), atol=1e-4, err_msg=name)
    np.testing.assert_allclose(on_device.output_probabilities, on_cpu.output_probabilities, atol=1e-4)


@pytest.mark.parametrize("sentence", SENTENCES)
@pytest.mark.parametrize("strategy", ["greedy", Beam(4)], ids=["greedy", "beam"])
def test_decoding_gives_the_cpus_tokens_and_attention(shipped_pair, device, sentence, strategy):
    on_cpu, on_device = shipped_pair
    assert on_device.device == device
    assert_same_trace(transviz.decode(on_device, sentence, strategy), transviz.decode(on_cpu, sentence, strategy))


def test_teacher_forcing_forcing_and_stepping_back_match_the_cpu(shipped_pair):
    on_cpu, on_device = shipped_pair
    source = SENTENCES[0]
    assert_same_trace(transviz.teacher_force(on_device, source, "i want a beer"),
                      transviz.teacher_force(on_cpu, source, "i want a beer"))
    sessions = [DecodingSession(model, source, top_k=5) for model in (on_device, on_cpu)]
    for session in sessions:
        session.step()
        session.step()
        session.back()
        session.force("want")
        session.run_to_end()
    device_session, cpu_session = sessions
    assert device_session.output_tokens == cpu_session.output_tokens == ["i", "want", "a", "beer", "</s>"]
    np.testing.assert_allclose(device_session.encoder_attention, cpu_session.encoder_attention, atol=1e-4)
    for a, b in zip(device_session.history, cpu_session.history, strict=True):
        assert a.token == b.token and a.candidates[0].token == b.candidates[0].token
        np.testing.assert_allclose([c.probability for c in a.candidates], [c.probability for c in b.candidates],
                                   atol=1e-4)
        np.testing.assert_allclose(a.cross_rows, b.cross_rows, atol=1e-4)
        np.testing.assert_allclose(a.self_rows, b.self_rows, atol=1e-4)
