"""The warm-up / initialisation lab: the experiment of the seed tutorial 000_d44500b147c75d2f.txt.

An encoder stack learns ``y = (a + 1)**2 + b`` element-wise from ``x = [a, b]``, with ``a`` and
``b`` standard normal of shape (batch, 10, 50): ``in_fc`` (100 -> 256), encoder layers
(d_model 256, 4 heads, the seed's ``nn.TransformerEncoderLayer`` defaults: d_ff 2048, dropout
0.1, ReLU, post-LN), ``out_fc`` (256 -> 50). Adam trains it for ``steps`` batches on the loss
``0.5 * mean((y - target)**2)``; the test MSE is the mean of that loss over ``test_batches``
fresh batches without updates. Predicting the constant mean of the target scores
``0.5 * Var((a + 1)**2 + b) = 0.5 * (6 + 1) = 3.5``: the seed's failed runs end there.

Choices that follow the seed literally, so its published numbers stay comparable:

* **Attention across the batch.** The seed hands (batch, 10, 256) to a ``batch_first=False``
  layer, which reads it as (sequence=batch, batch=10, 256): each of the 16 samples attends to
  the other samples at the same position, not to its own 10 positions. The target is
  element-wise, so neither axis carries information the model needs; what the axis changes is
  how many vectors the softmax mixes (batch size, not 10), and so the optimisation the tables
  measure (batch 64 also widens attention to 64). ``attend="batch"`` (default) keeps that;
  ``attend="sequence"`` is the textbook arrangement.
* **Identical layers at the start**: ``nn.TransformerEncoder`` deep-copies one layer N times, so
  with the default initialisation all layers begin equal; we copy one of our layers the same way.
  (Any other scheme re-draws every matrix, which makes them differ.)
* **Adam with torch's default betas (0.9, 0.999)**, not the trainer's (0.9, 0.98).
* **Dropout stays on in the test phase**: the seed calls ``model.train()`` there too.
* **Warm-up: "1%" is read as "the rate rises by 1% of its target per step"**, so 100 steps
  (``warmup_steps = 1 / warmup``), then it stays constant (:mod:`transviz.core.training.schedules`,
  schedule ``warmup``). The seed does not show its warm-up code, and the other reading, 1% of
  the 1000 steps (10 steps), does not give its numbers: it mostly stays on the mean-predictor
  plateau (the manual's Lab page has the runs).

The encoder layers are ours (:class:`transviz.core.model.transformer.EncoderLayer`).
"""
from __future__ import annotations

import copy
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Literal

import torch
from torch import Tensor, nn

from ..base.cores import computing
from ..base.errors import ConfigError
from ..base.messages import translate_noop
from ..model.config import ONE_OF_TWO, POSITIVE, POSITIVE_INTEGER, ModelConfig, Norm
from ..model.init import InitScheme, initialize
from ..model.transformer import EncoderLayer
from .devices import resolve_device
from .schedules import learning_rate

SEQ_LEN, IN_DIM = 10, 50
MEAN_PREDICTOR_MSE = 3.5  # 0.5 * Var((a+1)^2 + b): what predicting the average scores
STUCK = 0.9 * MEAN_PREDICTOR_MSE  # a test loss above this learned (almost) nothing
BLOWN_UP = 2 * MEAN_PREDICTOR_MSE  # above this it did not settle on the plateau: its loss blew up

Attend = Literal["batch", "sequence"]
Status = Literal["ok", "stuck", "diverged", "stopped"]


@dataclass(frozen=True)
class LabSettings:
    """One configuration of the experiment; the defaults are the seed's script."""

    lr: float = 1e-3
    warmup: float = 0.0  # the seed's "1% warm-up" = 0.01: the rate rises by 1% of lr per step; 0 = none
    init: str = "default"  # a scheme of transviz.core.model.init
    layers: int = 6
    batch: int = 16
    steps: int = 1000
    test_batches: int = 1000
    attend: Attend = "batch"  # the seed's (accidental) attention across the batch; see the module doc
    seed: int = 0
    device: str = "auto"
    d_model: int = 256
    heads: int = 4
    d_ff: int = 2048
    dropout: float = 0.1
    norm: Norm = "post"  # the seed's post-LN, or pre-LN (each sub-layer normalises first; a final norm)

    def __post_init__(self) -> None:
        for name in ("layers", "batch", "steps", "test_batches", "d_model", "heads", "d_ff"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ConfigError(POSITIVE_INTEGER, name, repr(value))
        if not self.lr > 0:
            raise ConfigError(POSITIVE, "lr", repr(self.lr))
        if not 0.0 <= self.warmup <= 1.0:
            raise ConfigError(
                translate_noop("CoreMessages", "warmup is the share of lr added per step, between 0 and 1; got {0}"),
                repr(self.warmup))
        if self.norm not in ("post", "pre"):
            raise ConfigError(ONE_OF_TWO, "norm", "post", "pre", repr(self.norm))
        if self.attend not in ("batch", "sequence"):
            raise ConfigError(ONE_OF_TWO, "attend", "batch", "sequence", repr(self.attend))
        InitScheme.parse(self.init)
        self.layer_config()  # d_model / heads / dropout checks

    def layer_config(self) -> ModelConfig:
        # Vocabulary sizes are unused by an encoder layer; 1 satisfies the validation.
        return ModelConfig(1, 1, d_model=self.d_model, n_heads=self.heads, d_ff=self.d_ff, dropout=self.dropout,
                           norm=self.norm)

    @property
    def warmup_steps(self) -> int:
        """Steps until the rate reaches ``lr``: ``1 / warmup`` (0.01 -> 100)."""
        return round(1 / self.warmup) if self.warmup else 0

    def describe(self) -> str:
        warm = f"{self.warmup:.0%} warm-up ({self.warmup_steps} steps)" if self.warmup else "no warm-up"
        return (f"lr={self.lr:g}, {warm}, {self.norm}-LN, init {self.init}, {self.layers} layers, batch {self.batch}, "
                f"{self.steps} steps, test on {self.test_batches} batches")


SEED = LabSettings()
QUICK = replace(SEED, steps=300, test_batches=200)  # classroom CPUs; NOT the seed's setting


class LabModel(nn.Module):
    """``in_fc`` -> encoder layers -> ``out_fc``.

    Shape:
        ``x`` (B, 10, 100) -> (B, 10, 50).
    """

    def __init__(self, settings: LabSettings) -> None:
        super().__init__()
        self.attend = settings.attend
        self.in_fc = nn.Linear(2 * IN_DIM, settings.d_model)
        layer = EncoderLayer(settings.layer_config())
        self.layers = nn.ModuleList(copy.deepcopy(layer) for _ in range(settings.layers))
        # pre-LN leaves the residual stream un-normalised: the stack ends with a LayerNorm, as transviz's models do
        self.final_norm = nn.LayerNorm(settings.d_model) if settings.norm == "pre" else nn.Identity()
        self.out_fc = nn.Linear(settings.d_model, IN_DIM)

    def forward(self, x: Tensor) -> Tensor:
        with computing(x.shape[0] * x.shape[1] * self.in_fc.out_features ** 2):
            h = self.in_fc(x)  # (B, L, d)
            if self.attend == "batch":
                h = h.transpose(0, 1)  # (L, B, d): our layers attend over dim 1, here the batch, like the seed's
            for layer in self.layers:
                h, _ = layer(h, None)
            if self.attend == "batch":
                h = h.transpose(0, 1)  # (B, L, d)
            out: torch.Tensor = self.out_fc(self.final_norm(h))
            return out


def lab_rate(settings: LabSettings, step: int) -> float:
    """Learning rate of update ``step`` (from 1): ``lr * min(1, warmup * step)``, or ``lr`` without warm-up."""
    return learning_rate(step, settings.lr, "warmup", settings.warmup_steps, settings.steps, settings.d_model)


def lab_batch(batch: int, generator: torch.Generator, device: torch.device) -> tuple[Tensor, Tensor]:
    """Inputs ``[a, b]`` (B, 10, 100) and targets ``(a + 1)**2 + b`` (B, 10, 50)."""
    a = torch.randn(batch, SEQ_LEN, IN_DIM, generator=generator, device=device)
    b = torch.randn(batch, SEQ_LEN, IN_DIM, generator=generator, device=device)
    return torch.cat([a, b], dim=-1), (a + 1) ** 2 + b


def lab_loss(prediction: Tensor, target: Tensor) -> Tensor:
    """The seed's loss, ``0.5 * mean((y - target)**2)`` (half the MSE)."""
    return (0.5 * (prediction - target) ** 2).mean()


@dataclass(frozen=True)
class LabResult:
    settings: LabSettings
    # ok; stuck (no better than the mean: it learned nothing); diverged (the loss blew up: NaN/inf, or a
    # test loss above twice the mean predictor's); stopped
    status: Status
    test_mse: float  # NaN unless the test phase ran
    train_losses: tuple[float, ...]  # one per training step
    seconds: float

    @property
    def mark(self) -> str:
        return {"ok": "", "stopped": "stopped",
                "stuck": "stuck: learned nothing (no better than predicting the mean, 3.5)",
                "diverged": "diverged: the loss blew up (NaN/inf, or far above the mean predictor's 3.5)"}[self.status]


StepCallback = Callable[[int, float, float], None]  # (step, training loss, learning rate)


def run_lab(settings: LabSettings = SEED, on_step: StepCallback | None = None,
            stop: threading.Event | None = None) -> LabResult:
    """Train and test one configuration. ``on_step`` gets every training loss (and the learning
    rate of that step); setting ``stop`` (from any thread) ends the run between batches."""
    start = time.perf_counter()
    device = resolve_device(settings.device)
    torch.manual_seed(settings.seed)
    model = LabModel(settings).to(device)
    initialize(model, settings.init)
    data = torch.Generator(device).manual_seed(settings.seed + 1)
    # torch's default betas, as the seed; fused (one kernel for all parameters) where torch has it
    optimizer = torch.optim.Adam(model.parameters(), lr=settings.lr, fused=device.type in ("cpu", "cuda"))
    losses: list[float] = []
    model.train()
    for step in range(1, settings.steps + 1):
        if stop is not None and stop.is_set():
            return LabResult(settings, "stopped", math.nan, tuple(losses), time.perf_counter() - start)
        lr = lab_rate(settings, step)
        for group in optimizer.param_groups:
            group["lr"] = lr
        with computing():  # the backward pass and the update too
            x, target = lab_batch(settings.batch, data, device)
            loss = lab_loss(model(x), target)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        if on_step is not None:
            on_step(step, losses[-1], lr)
        if not math.isfinite(losses[-1]):
            return LabResult(settings, "diverged", math.nan, tuple(losses), time.perf_counter() - start)
    test = _test_mse(model, settings, data, device, stop)
    seconds = time.perf_counter() - start
    if test is None:
        return LabResult(settings, "stopped", math.nan, tuple(losses), seconds)
    status: Status = "diverged" if not math.isfinite(test) or test > BLOWN_UP else "stuck" if test > STUCK else "ok"
    return LabResult(settings, status, test, tuple(losses), seconds)


@torch.no_grad()
def _test_mse(model: LabModel, settings: LabSettings, data: torch.Generator, device: torch.device,
              stop: threading.Event | None) -> float | None:
    """Mean loss over fresh batches, no updates, dropout on (the seed's ``model.train()``); None if stopped."""
    total = torch.zeros((), device=device)
    for _ in range(settings.test_batches):
        if stop is not None and stop.is_set():
            return None
        x, target = lab_batch(settings.batch, data, device)
        total += lab_loss(model(x), target)
    return float(total) / settings.test_batches


# -- the seed's tables ---------------------------------------------------------------------------

@dataclass(frozen=True)
class SweepRow:
    """One row of a seed table: its label, the settings it changes, the seed's published MSE."""

    label: str  # a template of the core's messages: the GUI shows it translated
    changes: dict[str, Any]
    published: float | None  # None: a row the seed has no number for


def _rows(*rows: tuple[str, dict[str, Any], float | None]) -> tuple[SweepRow, ...]:
    return tuple(SweepRow(*row) for row in rows)


WARM = {"lr": 1e-3, "warmup": 0.01}  # the init tables' setting: their "default" 0.097 is the 1% warm-up run
SWEEPS: dict[str, tuple[SweepRow, ...]] = {
    "lr": _rows(
        (translate_noop("CoreMessages", "lr=1e-3, no warm-up"), {"lr": 1e-3}, 3.37),
        (translate_noop("CoreMessages", "lr=1e-4, no warm-up"), {"lr": 1e-4}, 0.56),
        (translate_noop("CoreMessages", "lr=1e-5, no warm-up"), {"lr": 1e-5}, 2.31),
        (translate_noop("CoreMessages", "lr=1e-3, 1% warm-up"), {"lr": 1e-3, "warmup": 0.01}, 0.10),
    ),
    "init": _rows(
        (translate_noop("CoreMessages", "default"), {**WARM}, 0.097),
        (translate_noop("CoreMessages", "xavier_uniform"), {**WARM, "init": "xavier_uniform"}, 0.191),
        (translate_noop("CoreMessages", "xavier_normal"), {**WARM, "init": "xavier_normal"}, 0.189),
        (translate_noop("CoreMessages", "normal 0.02"), {**WARM, "init": "normal:0.02"}, 0.66),
        (translate_noop("CoreMessages", "normal 0.002"), {**WARM, "init": "normal:0.002"}, 2.95),
        (translate_noop("CoreMessages", "normal 0.1"), {**WARM, "init": "normal:0.1"}, 3.50),
        (translate_noop("CoreMessages", "uniform +-0.05"), {**WARM, "init": "uniform:0.05"}, 3.50),
        (translate_noop("CoreMessages", "uniform +-0.01"), {**WARM, "init": "uniform:0.01"}, 0.424),
        (translate_noop("CoreMessages", "uniform +-0.001"), {**WARM, "init": "uniform:0.001"}, 3.44),
        (translate_noop("CoreMessages", "kaiming_uniform"), {**WARM, "init": "kaiming_uniform"}, 3.50),
        (translate_noop("CoreMessages", "kaiming_normal"), {**WARM, "init": "kaiming_normal"}, 3.50),
    ),
    "depth": _rows(
        (translate_noop("CoreMessages", "kaiming_normal 2 layer"),
         {**WARM, "layers": 2, "init": "kaiming_normal"}, 0.524),
        (translate_noop("CoreMessages", "kaiming_uniform 2 layer"),
         {**WARM, "layers": 2, "init": "kaiming_uniform"}, 0.531),
        (translate_noop("CoreMessages", "xavier_uniform 2 layer"),
         {**WARM, "layers": 2, "init": "xavier_uniform"}, 0.124),
        (translate_noop("CoreMessages", "default 2 layer"), {**WARM, "layers": 2}, 0.092),
        (translate_noop("CoreMessages", "uniform +-0.01 2 layer"),
         {**WARM, "layers": 2, "init": "uniform:0.01"}, 0.117),
        (translate_noop("CoreMessages", "lr=1e-3, no warm-up 2 layer"), {"lr": 1e-3, "layers": 2}, 0.086),
        (translate_noop("CoreMessages", "lr=1e-4, no warm-up 2 layer"), {"lr": 1e-4, "layers": 2}, 0.614),
    ),
    # The seed does not say how deep; its script's default (6 layers) is assumed.
    "batch": _rows(
        (translate_noop("CoreMessages", "lr=1e-3, no warm-up batch_size 64"), {"lr": 1e-3, "batch": 64}, 0.037),
    ),
    # The seed's warm-up rows again, post-LN (its own) and pre-LN (which it does not try): does
    # normalising first make the warm-up unnecessary?
    "norm": _rows(
        (translate_noop("CoreMessages", "post-LN, lr=1e-3, no warm-up"), {"lr": 1e-3}, 3.37),
        (translate_noop("CoreMessages", "post-LN, lr=1e-3, 1% warm-up"), {"lr": 1e-3, "warmup": 0.01}, 0.10),
        (translate_noop("CoreMessages", "pre-LN, lr=1e-3, no warm-up"), {"lr": 1e-3, "norm": "pre"}, None),
        (translate_noop("CoreMessages", "pre-LN, lr=1e-3, 1% warm-up"), {"lr": 1e-3, "warmup": 0.01, "norm": "pre"},
         None),
    ),
}
TABLE_SETTINGS = ("lr", "warmup", "init", "layers", "batch", "norm")  # what the rows change; the rest from the base


def sweep_settings(row: SweepRow, base: LabSettings = SEED) -> LabSettings:
    """The row's configuration: ``base`` (steps, device, seed, ...) with the table's settings."""
    table = {name: getattr(SEED, name) for name in TABLE_SETTINGS}
    return replace(base, **{**table, **row.changes})


def run_sweep(table: str, base: LabSettings = SEED,
              on_row: Callable[[SweepRow, LabResult], None] | None = None,
              on_step: Callable[[SweepRow, int, float, float], None] | None = None,
              stop: threading.Event | None = None) -> list[tuple[SweepRow, LabResult]]:
    """Run every row of one of :data:`SWEEPS`; stops early (without the remaining rows) on ``stop``."""
    if table not in SWEEPS:
        raise ConfigError(translate_noop("CoreMessages", "no table called {0}; the seed's tables: {1}"), repr(table),
                          ", ".join(SWEEPS))
    done = []
    for row in SWEEPS[table]:
        step_callback = (lambda step, loss, lr, row=row: on_step(row, step, loss, lr)) if on_step else None
        result = run_lab(sweep_settings(row, base), step_callback, stop)
        done.append((row, result))
        if on_row is not None:
            on_row(row, result)
        if result.status == "stopped":
            break
    return done


def published(settings: LabSettings) -> float | None:
    """The seed's number for these settings, if one of its tables has that configuration."""
    key = {name: getattr(settings, name) for name in TABLE_SETTINGS}
    for rows in SWEEPS.values():
        for row in rows:
            if {name: getattr(sweep_settings(row), name) for name in TABLE_SETTINGS} == key:
                return row.published
    return None



# -- how long a run takes --------------------------------------------------------------------------

def cost_units(settings: LabSettings) -> float:
    """Work of a run in units of one layer on one sample for one forward pass: a training step is
    a forward and a backward pass (about three forwards), a test batch one forward."""
    return settings.layers * settings.batch * (3 * settings.steps + settings.test_batches)


def calibrate(device: str = "auto", steps: int = 5) -> float:
    """Seconds per :func:`cost_units` unit on ``device``: the seed's configuration timed at two
    lengths, after one untimed run that pays for the first use of the device; their difference
    leaves out what every run costs once (building the model)."""
    short = replace(SEED, steps=1, test_batches=1, device=device)
    run_lab(short)
    long = replace(short, steps=steps, test_batches=steps)
    short_s, long_s = run_lab(short).seconds, run_lab(long).seconds
    per_unit = (long_s - short_s) / (cost_units(long) - cost_units(short))
    return per_unit if per_unit > 0 else long_s / cost_units(long)  # a busy machine can invert the two


def estimate_seconds(runs: list[LabSettings], seconds_per_unit: float) -> float:
    """The expected time of ``runs`` one after another, at ``seconds_per_unit`` (see :func:`calibrate`)."""
    return seconds_per_unit * sum(cost_units(settings) for settings in runs)
