"""The seed's warm-up / initialisation lab: the model against the seed's own torch code, the loss
and warm-up against formulas, and tiny real runs (complete, diverged, stopped, swept)."""
from __future__ import annotations

import math
import threading
from dataclasses import replace

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from transviz.cli import main
from transviz.core.base.errors import ConfigError
from transviz.core.training.lab import (
    IN_DIM,
    SEED,
    SWEEPS,
    LabModel,
    LabSettings,
    lab_batch,
    lab_loss,
    published,
    run_lab,
    run_sweep,
)

TINY = LabSettings(d_model=16, heads=2, d_ff=32, layers=1, batch=8, steps=100, test_batches=20, lr=1e-2,
                   device="cpu")


class SeedTrans(nn.Module):
    """The seed's ``Trans``, verbatim apart from the sizes."""

    def __init__(self, s: LabSettings, batch_first: bool = False):
        super().__init__()
        layer = nn.TransformerEncoderLayer(s.d_model, s.heads, s.d_ff, s.dropout, batch_first=batch_first)
        self.trans = nn.TransformerEncoder(layer, s.layers, enable_nested_tensor=False)
        self.in_fc = nn.Linear(IN_DIM * 2, s.d_model)
        self.out_fc = nn.Linear(s.d_model, IN_DIM)

    def forward(self, x):
        return self.out_fc(self.trans(self.in_fc(x)))


def copy_into_seed(ours: LabModel, ref: SeedTrans) -> None:
    with torch.no_grad():
        for a, b in ((ours.in_fc, ref.in_fc), (ours.out_fc, ref.out_fc)):
            b.weight.copy_(a.weight)
            b.bias.copy_(a.bias)
        for mine, theirs in zip(ours.layers, ref.trans.layers, strict=True):
            theirs.self_attn.in_proj_weight.copy_(mine.self_attn.in_proj_weight)
            theirs.self_attn.in_proj_bias.copy_(mine.self_attn.in_proj_bias)
            for a, b in ((mine.self_attn.out_proj, theirs.self_attn.out_proj), (mine.ffn.linear1, theirs.linear1),
                         (mine.ffn.linear2, theirs.linear2), (mine.norm1, theirs.norm1), (mine.norm2, theirs.norm2)):
                b.weight.copy_(a.weight)
                b.bias.copy_(a.bias)


@pytest.mark.parametrize("attend", ["batch", "sequence"])
def test_our_lab_model_computes_what_the_seeds_torch_code_computes(attend):
    settings = replace(SEED, layers=2, dropout=0.0, attend=attend)
    torch.manual_seed(0)
    ours = LabModel(settings).eval()
    for p in ours.parameters():  # away from the initial values, so every weight matters
        p.data.add_(0.05 * torch.randn_like(p))
    # batch_first=False on (batch, 10, dim) is the seed's arrangement: attention across the batch
    ref = SeedTrans(settings, batch_first=(attend == "sequence")).eval()
    copy_into_seed(ours, ref)
    x, _ = lab_batch(6, torch.Generator().manual_seed(1), torch.device("cpu"))
    with torch.no_grad():
        assert torch.allclose(ours(x), ref(x), atol=1e-4)
        # and the arrangements really differ: mixing across the batch makes samples depend on each other
        alone = ours(x[:1])
    assert torch.allclose(alone, ours(x)[:1], atol=1e-5) == (attend == "sequence")


def test_the_pre_ln_lab_model_is_torchs_norm_first_encoder_with_a_final_norm():
    settings = replace(SEED, layers=2, dropout=0.0, attend="sequence", norm="pre")
    torch.manual_seed(1)
    ours = LabModel(settings).eval()
    for p in ours.parameters():
        p.data.add_(0.05 * torch.randn_like(p))
    layer = nn.TransformerEncoderLayer(256, 4, 2048, 0.0, batch_first=True, norm_first=True)
    ref = SeedTrans(settings, batch_first=True)
    ref.trans = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(256), enable_nested_tensor=False)
    copy_into_seed(ours, ref)
    with torch.no_grad():
        ref.trans.norm.weight.copy_(ours.final_norm.weight)
        ref.trans.norm.bias.copy_(ours.final_norm.bias)
    x, _ = lab_batch(4, torch.Generator().manual_seed(2), torch.device("cpu"))
    with torch.no_grad():
        torch.testing.assert_close(ours(x), ref.eval()(x), atol=1e-4, rtol=0)
        post = LabModel(replace(settings, norm="post")).eval()
        post.load_state_dict({k: v for k, v in ours.state_dict().items() if not k.startswith("final_norm")})
        assert not torch.allclose(post(x), ours(x), atol=1e-2)  # the norm's place matters


def test_default_init_starts_with_identical_layers_like_nn_transformer_encoder():
    torch.manual_seed(0)
    model = LabModel(replace(SEED, layers=3))
    first = model.layers[0].state_dict()
    assert all(torch.equal(first[k], layer.state_dict()[k]) for layer in model.layers[1:] for k in first)


def test_the_loss_is_half_the_mse_and_the_mean_predictor_scores_3_5():
    gen = torch.Generator().manual_seed(0)
    x, target = lab_batch(4, gen, torch.device("cpu"))
    assert x.shape == (4, 10, 100) and target.shape == (4, 10, 50)
    a, b = x[..., :50], x[..., 50:]
    assert torch.equal(target, (a + 1) ** 2 + b)
    y = torch.randn_like(target)
    assert lab_loss(y, target).item() == pytest.approx(0.5 * F.mse_loss(y, target).item(), rel=1e-6)
    # E[(a+1)^2] = 2 and Var((a+1)^2 + b) = 6 + 1: the constant 2 scores 3.5, the constant 0 scores (7 + 4) / 2
    targets = torch.cat([lab_batch(64, gen, torch.device("cpu"))[1] for _ in range(40)])
    assert lab_loss(torch.full_like(targets, 2.0), targets).item() == pytest.approx(3.5, abs=0.05)
    assert lab_loss(torch.zeros_like(targets), targets).item() == pytest.approx(5.5, abs=0.08)


def test_warm_up_adds_its_share_of_the_rate_each_step_then_stays_constant():
    seen = []
    run_lab(replace(TINY, steps=20, test_batches=1, warmup=0.125, lr=2e-3),
            on_step=lambda step, loss, lr: seen.append((step, lr)))
    assert [s for s, _ in seen] == list(range(1, 21))
    assert [lr for _, lr in seen] == pytest.approx([2e-3 * min(1.0, 0.125 * s) for s in range(1, 21)], rel=1e-12)
    assert replace(SEED, warmup=0.01).warmup_steps == 100  # the seed's "1% warm-up"
    seen.clear()
    run_lab(replace(TINY, steps=5, test_batches=1), on_step=lambda step, loss, lr: seen.append(lr))
    assert seen == [1e-2] * 5


def test_a_tiny_run_completes_and_learns():
    losses = []
    result = run_lab(TINY, on_step=lambda step, loss, lr: losses.append(loss))
    assert result.status == "ok" and result.mark == ""
    assert len(result.train_losses) == 100 and list(result.train_losses) == losses
    assert result.test_mse < 3.15  # clearly better than predicting the mean (3.5)
    assert sum(losses[-10:]) < 0.7 * sum(losses[:10])


def test_runs_that_fail_are_marked():
    nan = run_lab(replace(TINY, init="uniform:1e30"))  # activations overflow at once
    assert nan.status == "diverged" and math.isnan(nan.test_mse) and "NaN" in nan.mark
    assert len(nan.train_losses) == 1
    blown = run_lab(replace(TINY, lr=1.0))  # Adam steps of 1.0 wreck the weights; it settles on the mean
    assert blown.status == "stuck" and blown.test_mse > 3.15 and "no better than predicting the mean" in blown.mark
    assert blown.mark.startswith("stuck: learned nothing")  # not "diverged": its loss stayed finite


def test_the_stop_flag_ends_a_run_from_a_callback_or_before_the_start():
    stop = threading.Event()

    def on_step(step, loss, lr):
        if step == 3:
            stop.set()

    result = run_lab(TINY, on_step=on_step, stop=stop)
    assert result.status == "stopped" and len(result.train_losses) == 3 and math.isnan(result.test_mse)
    assert run_lab(TINY, stop=stop).train_losses == ()


def test_a_sweep_runs_the_seeds_rows_on_the_base_settings():
    rows = []
    done = run_sweep("lr", replace(TINY, steps=3, test_batches=2), on_row=lambda row, result: rows.append(row))
    assert [row.published for row, _ in done] == [3.37, 0.56, 2.31, 0.10] and len(rows) == 4
    for row, result in done:
        s = result.settings
        assert (s.steps, s.test_batches, s.d_model) == (3, 2, 16)  # from the base
        assert (s.lr, s.warmup, s.layers, s.batch, s.init) == (row.changes["lr"], row.changes.get("warmup", 0.0),
                                                               6, 16, "default")  # from the seed's table
    with pytest.raises(ConfigError, match="no table"):
        run_sweep("nope")


def test_published_values_and_table_shapes():
    assert published(SEED) == 3.37
    assert published(replace(SEED, warmup=0.01, init="kaiming_normal")) == 3.50
    assert published(replace(SEED, layers=2, lr=1e-4)) == 0.614
    assert published(replace(SEED, layers=3)) is None
    assert {name: len(rows) for name, rows in SWEEPS.items()} == {"lr": 4, "init": 11, "depth": 7, "batch": 1,
                                                                   "norm": 4}
    assert [row.published for row in SWEEPS["norm"]] == [3.37, 0.10, None, None]  # the seed tried post-LN only


@pytest.mark.parametrize("changes", [{"warmup": 1.5}, {"steps": 0}, {"init": "he"}, {"attend": "time"},
                                     {"d_model": 10, "heads": 4}, {"lr": 0.0}])
def test_impossible_lab_settings_are_config_errors(changes):
    with pytest.raises(ConfigError):
        replace(SEED, **changes)


def test_lab_command_prints_the_result_beside_the_seed(capsys):
    assert main(["lab", "--steps", "2", "--test-batches", "1", "--layers", "1", "--device", "cpu"]) == 0
    out = capsys.readouterr().out
    assert "running: lr=0.001, no warm-up, post-LN, init default, 1 layers, batch 16, 2 steps" in out
    assert main(["lab", "--steps", "2", "--test-batches", "1", "--layers", "1", "--warmup", "0.01",
                 "--device", "cpu"]) == 0
    assert "lr=0.001, 1% warm-up (100 steps)" in capsys.readouterr().out
    assert "(the seed has no value for this setting)" in out
    assert main(["lab", "--quick", "--steps", "2", "--test-batches", "1", "--layers", "1", "--device", "cpu"]) == 0
    assert "NOT the seed's setting" in capsys.readouterr().out
    assert main(["lab", "--steps", "2", "--test-batches", "1", "--init", "uniform:1e30", "--device", "cpu"]) == 0
    out = capsys.readouterr().out
    assert "test MSE nan (the seed has no value" in out and "diverged: the loss blew up (NaN/inf" in out
    assert main(["lab", "--sweep", "nope"]) == 1
    assert "no table called 'nope'" in capsys.readouterr().err


def test_lab_sweep_command_prints_a_row_per_setting_beside_the_seed(capsys):
    assert main(["lab", "--sweep", "batch", "--steps", "1", "--test-batches", "1", "--device", "cpu"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["setting", "test", "MSE", "seed", "time"]
    assert [line[:36].strip() for line in lines[1:]] == ["lr=1e-3, no warm-up batch_size 64"]
    assert float(lines[1][46:53]) == 0.037


def test_the_norm_table_runs_each_row_for_each_seed_and_prints_the_means(capsys):
    assert main(["lab", "--sweep", "norm", "--seeds", "2", "--steps", "1", "--test-batches", "1",
                 "--device", "cpu"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == "random seed 0:" and lines[6] == "random seed 1:"
    labels = ["post-LN, lr=1e-3, no warm-up", "post-LN, lr=1e-3, 1% warm-up", "pre-LN, lr=1e-3, no warm-up",
              "pre-LN, lr=1e-3, 1% warm-up"]
    assert [line[:36].strip() for line in lines[2:6]] == labels == [line[:36].strip() for line in lines[7:11]]
    assert lines[2][46:53].strip() == "3.370" and lines[4][46:53].strip() == "-"  # the seed tried post-LN only
    assert lines[11] == "mean of 2 seeds (lowest - highest):"
    for label, line, first, second in zip(labels, lines[12:16], lines[2:6], lines[7:11], strict=True):
        runs = float(first[36:46]), float(second[36:46])
        assert line.startswith(label) and float(line[36:46]) == pytest.approx(sum(runs) / 2, abs=1e-3)
    assert main(["lab", "--sweep", "norm", "--seeds", "0"]) == 1
    assert "--seeds must be between 1 and 100" in capsys.readouterr().err
