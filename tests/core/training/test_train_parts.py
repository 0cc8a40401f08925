"""The trainer's parts against formulas evaluated separately: schedules, label-smoothed loss,
initialisation schemes, devices, config validation, batching."""
from __future__ import annotations

import math
import random

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from transviz.core.base.errors import ConfigError
from transviz.core.data.batches import bucketed, make_batch
from transviz.core.model.config import ModelConfig, TrainConfig
from transviz.core.model.init import InitScheme, initialize
from transviz.core.model.transformer import Transformer
from transviz.core.training.devices import available_devices, resolve_device
from transviz.core.training.schedules import learning_rate
from transviz.core.training.train import sequence_loss


# -- schedules ------------------------------------------------------------------------------------
def test_noam_is_the_papers_formula():
    d, warmup = 512, 4000
    for step in (1, 10, 3999, 4000, 4001, 10_000, 100_000):
        expected = d**-0.5 * min(step**-0.5, step * warmup**-1.5)
        assert learning_rate(step, 1.0, "noam", warmup, 100_000, d) == pytest.approx(expected, rel=1e-12)
    assert learning_rate(4000, 2.0, "noam", warmup, 100_000, d) == pytest.approx(2 / math.sqrt(512 * 4000))
    peak = max(range(1, 20_000, 7), key=lambda s: learning_rate(s, 1.0, "noam", warmup, 100_000, d))
    assert abs(peak - warmup) <= 7


@pytest.mark.parametrize(
    ("schedule", "step", "expected"),
    [
        ("constant", 1, 1e-3), ("constant", 500, 1e-3),
        ("warmup", 1, 1e-3 / 10), ("warmup", 5, 5e-4), ("warmup", 10, 1e-3), ("warmup", 90, 1e-3),
        ("warmup-decay", 5, 5e-4), ("warmup-decay", 10, 1e-3), ("warmup-decay", 60, 5e-4),
        ("warmup-decay", 85, 2.5e-4), ("warmup-decay", 110, 0.0),
    ],
)
def test_linear_schedules_at_hand_computed_points(schedule, step, expected):
    # lr 1e-3, 10 warm-up steps, 110 in all: decay runs over 100 steps from 1e-3 to 0
    assert learning_rate(step, 1e-3, schedule, 10, 110, 64) == pytest.approx(expected, abs=1e-15)


def test_schedule_rejects_step_zero():
    with pytest.raises(ConfigError):
        learning_rate(0, 1e-3, "constant", 0, 10, 64)


# -- loss --------------------------------------------------------------------------------------------
def test_label_smoothed_loss_equals_torch_and_the_formula():
    torch.manual_seed(0)
    B, T, V, pad, eps = 3, 5, 11, 0, 0.1
    logits = torch.randn(B, T, V) * 3
    gold = torch.randint(1, V, (B, T))
    gold[0, 3:] = pad
    gold[2, 1:] = pad
    ours = sequence_loss(logits, gold, pad, eps)
    flat, target = logits.reshape(-1, V), gold.reshape(-1)
    assert torch.allclose(ours, F.cross_entropy(flat, target, ignore_index=pad, label_smoothing=eps), atol=1e-6)
    # by hand: (1 - eps) * NLL + eps * mean over the vocabulary of -log p, averaged over real tokens
    logp = torch.log_softmax(flat.double(), -1)
    keep = target != pad
    per_token = (1 - eps) * -logp[keep].gather(1, target[keep, None])[:, 0] + eps * -logp[keep].mean(-1)
    assert ours.item() == pytest.approx(per_token.mean().item(), rel=1e-6)
    assert sequence_loss(logits, gold, pad, 0.0).item() == pytest.approx(
        F.nll_loss(logp[keep], target[keep]).item(), rel=1e-6)


# -- initialisation ------------------------------------------------------------------------------------
def wide_module():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(400, 300), nn.LayerNorm(300))  # weight (300, 400): fan_in 400, fan_out 300


@pytest.mark.parametrize(
    ("spec", "std", "bound"),
    [
        ("xavier_uniform", math.sqrt(2 / 700), math.sqrt(6 / 700)),
        ("xavier_normal", math.sqrt(2 / 700), None),
        ("kaiming_uniform", math.sqrt(2 / 400), math.sqrt(6 / 400)),
        ("kaiming_normal", math.sqrt(2 / 400), None),
        ("normal:0.02", 0.02, None),
        ("uniform:0.05", 0.05 / math.sqrt(3), 0.05),
    ],
)
def test_init_schemes_have_their_textbook_scale_and_touch_only_matrices(spec, std, bound):
    module = wide_module()
    with torch.no_grad():
        module[0].bias.fill_(0.5)
    initialize(module, spec)
    w = module[0].weight
    assert w.std().item() == pytest.approx(std, rel=0.02)
    assert abs(w.mean().item()) < 0.05 * std
    if bound is not None:
        assert w.abs().max().item() <= bound and w.abs().max().item() > 0.99 * bound
    assert torch.all(module[0].bias == 0.5)  # vectors are left alone
    assert torch.all(module[1].weight == 1) and torch.all(module[1].bias == 0)


def test_default_init_changes_nothing_and_other_schemes_reach_every_matrix():
    cfg = ModelConfig(30, 30, d_model=16, n_heads=2, d_ff=32, n_encoder_layers=1, n_decoder_layers=1)
    torch.manual_seed(1)
    net = Transformer(cfg)
    before = {k: v.clone() for k, v in net.state_dict().items()}
    initialize(net, "default")
    assert all(torch.equal(before[k], v) for k, v in net.state_dict().items())
    initialize(net, "uniform:0.001")
    for name, p in net.named_parameters():
        if p.dim() > 1:
            assert p.abs().max() <= 0.001, name
        else:
            assert torch.equal(p, before[name]), name


@pytest.mark.parametrize("spec", ["he", "normal:x", "normal:-1", "xavier_uniform:3", ""])
def test_bad_init_specs_are_config_errors(spec):
    with pytest.raises(ConfigError):
        InitScheme.parse(spec)


def test_init_scheme_defaults_and_text():
    assert InitScheme.parse("normal") == InitScheme("normal", 0.02)
    assert str(InitScheme.parse("uniform:0.05")) == "uniform:0.05"


# -- devices ------------------------------------------------------------------------------------------
def test_devices_cpu_always_auto_first_and_unknown_ones_refused():
    found = available_devices()
    assert found[-1].name == "cpu" and "CPU" in str(found[-1].description)
    assert resolve_device("auto") == torch.device(found[0].name)
    assert resolve_device("CPU") == torch.device("cpu")
    names = {d.name for d in found}
    with pytest.raises(ConfigError, match="not available"):
        resolve_device("cuda:63")
    if "mps" not in names:
        with pytest.raises(ConfigError, match="not available"):
            resolve_device("mps")
    with pytest.raises(ConfigError, match="unknown device"):
        resolve_device("gpu")


# -- config ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "changes",
    [{"steps": 0}, {"lr": 0.0}, {"lr": -1.0}, {"schedule": "cosine"}, {"label_smoothing": 1.0},
     {"clip_norm": -1.0}, {"init": "bogus"}, {"schedule": "noam", "warmup_steps": 0},
     {"schedule": "warmup-decay", "warmup_steps": 10, "steps": 10}, {"batch_size": 2.5}, {"probe": "  "}],
)
def test_impossible_training_settings_are_config_errors(changes):
    with pytest.raises(ConfigError):
        TrainConfig(**changes)


def test_train_config_round_trips_through_a_dict():
    config = TrainConfig(steps=7, init="normal:0.1", probe="abc")
    assert TrainConfig.from_dict(config.to_dict()) == config
    with pytest.raises(ConfigError, match="unknown"):
        TrainConfig.from_dict({"stepz": 3})


# -- batching -------------------------------------------------------------------------------------------
def test_batches_group_similar_lengths_cover_every_row_and_depend_on_the_seed():
    rng = random.Random(0)
    rows = [([5] * n, [1] + [6] * rng.randint(1, 9) + [2]) for n in (rng.randint(1, 30) for _ in range(2000))]
    epoch = [next(it) for it in [bucketed(rows, 20, random.Random(3))] for _ in range(100)]
    assert sorted(i for b in epoch for i in b) == list(range(2000))  # one epoch = every row once
    spread = [max(len(rows[i][0]) for i in b) - min(len(rows[i][0]) for i in b) for b in epoch]
    assert sum(spread) / len(spread) <= 2  # random batches would spread ~ 25 tokens
    again = bucketed(rows, 20, random.Random(3))
    assert [next(again) for _ in range(100)] == epoch
    other = bucketed(rows, 20, random.Random(4))
    assert [next(other) for _ in range(100)] != epoch


def test_make_batch_shifts_the_target_and_counts_real_tokens():
    batch = make_batch([([7, 8], [1, 4, 5, 2]), ([9], [1, 6, 2])], pad_id=0)
    assert batch.src.tolist() == [[7, 8], [9, 0]]
    assert batch.tgt_in.tolist() == [[1, 4, 5], [1, 6, 2]]
    assert batch.tgt_out.tolist() == [[4, 5, 2], [6, 2, 0]]
    assert batch.tokens == 5
