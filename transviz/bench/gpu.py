"""Figures measured on a chosen device, meant for a GPU: ``transviz bench --device cuda``.

Training throughput against ``torch.nn.Transformer``, the seed lab's 1,000-step run, one decoding
step of the shipped default model and the toy-de-en recipe to 95% test exact match. They live in
their own registry (:data:`FIGURES`), apart from the CPU figures of plain ``transviz bench``, and
import no Qt, so they run where only torch is installed. :func:`use` chooses the device; with
``quick`` every size shrinks, so that a dry run on the CPU checks the code in seconds (its values
say nothing about speed).
"""
from __future__ import annotations

import dataclasses
import functools
import logging
import math
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import torch
from torch import nn

from ..core.data.tasks import load_task
from ..core.decoding.session import DecodingSession
from ..core.io import checkpoint
from ..core.io.resources import DEFAULT_MODEL, shipped_models
from ..core.model.bundle import Model
from ..core.model.config import ModelConfig
from ..core.model.transformer import Transformer
from ..core.training.devices import available_devices, resolve_device
from ..core.training.evaluate import Evaluation, evaluate
from ..core.training.lab import SEED, LabResult, run_lab
from ..core.training.recipes import Recipe, recipe
from ..core.training.train import StepMetrics, Trainer, TrainObserver, build_model
from . import Spec, Unavailable, figure, median_ratio
from .core import TorchReference

log = logging.getLogger(__name__)
FIGURES: dict[str, Spec] = {}

# Training comparison at the paper's base size, where a GPU has work to do; quick: a toy size.
TRAIN = dict(d_model=512, n_heads=8, layers=6, d_ff=2048, vocab=1000, batch=64, src_len=30, tgt_len=32)
TRAIN_QUICK = dict(d_model=32, n_heads=2, layers=1, d_ff=64, vocab=100, batch=8, src_len=10, tgt_len=12)
# The seed's setting (6 layers, batch 16, 1,000 steps, 1,000 test batches) with its 1% warm-up,
# the run that learns (the seed published 0.10), so the test MSE also checks the device's result.
LAB = dataclasses.replace(SEED, warmup=0.01)
LAB_QUICK = dataclasses.replace(LAB, steps=10, test_batches=10, layers=1, d_model=32, heads=2, d_ff=64)
TOY_TARGET = 0.95
TOY_LIMIT_S = 120.0  # give up then: the whole GPU run has to fit in a few minutes
TOY_QUICK = Recipe("toy-de-en", dict(d_model=32, n_heads=2, n_encoder_layers=1, n_decoder_layers=1, d_ff=64),
                   dataclasses.replace(recipe("toy-de-en").train, steps=20, batch_size=16, eval_every=10,
                                       snapshot_every=10))
TOY_QUICK_LIMIT_S, TOY_QUICK_HELD_OUT = 60.0, 40


@dataclass(frozen=True)
class Choice:
    device: torch.device
    quick: bool


_chosen: Choice | None = None


def use(device: str, quick: bool = False) -> torch.device:
    """Measure the figures on ``device`` (ConfigError if it is not here); ``quick``: toy sizes."""
    global _chosen
    _chosen = Choice(resolve_device(device), quick)
    return _chosen.device


def chosen() -> Choice:
    if _chosen is None:
        raise Unavailable("no device chosen: run `transviz bench --device cuda`")
    return _chosen


def describe(device: torch.device) -> str:
    """``cuda:0 (NVIDIA H200, 139.8 GB)``: the device as ``available_devices`` names it."""
    found = {d.name: d.description for d in available_devices()}
    return f"{device} ({found[str(device)]})" if str(device) in found else str(device)


def sync(device: torch.device) -> None:
    """Wait until the device has done the work queued so far (CUDA runs asynchronously)."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def synced_seconds(device: torch.device, fn: Callable[[], object]) -> float:
    sync(device)
    start = time.perf_counter()
    fn()
    sync(device)
    return time.perf_counter() - start


T = TypeVar("T")


def once(compute: Callable[[Choice], T]) -> Callable[[Choice], T]:
    """Cache ``compute(choice)``, a failure included: the figures that share one run (and
    report parts of it) never repeat it, nor a run that failed."""
    done: dict[Choice, T | Exception] = {}

    @functools.wraps(compute)
    def cached(choice: Choice) -> T:
        if choice not in done:
            try:
                done[choice] = compute(choice)
            except Exception as exc:  # kept, and raised again for each figure that needs it
                done[choice] = exc
        result = done[choice]
        if isinstance(result, Exception):
            raise result
        return result

    return cached


# -- training throughput against torch.nn.Transformer ---------------------------------------------

@dataclass(frozen=True)
class Throughput:
    ours: float  # target tokens per second, median over rounds
    reference: float  # the same for torch.nn.Transformer
    ratio: float  # median over rounds of its time over ours: above 1 means ours is faster


def _batch(p: dict[str, int], device: torch.device) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Random sentences with padded tails of different lengths (drawn on the CPU: the same on every device)."""
    generator = torch.Generator().manual_seed(0)
    src = torch.randint(4, p["vocab"], (p["batch"], p["src_len"]), generator=generator)
    tgt = torch.randint(4, p["vocab"], (p["batch"], p["tgt_len"]), generator=generator)
    for row in range(0, p["batch"], 3):  # as the CPU figure's batch
        src[row, p["src_len"] - row // 3 :] = 0
        tgt[row, p["tgt_len"] - row // 3 :] = 0
    gold = tgt.roll(-1, dims=1)
    return src.to(device), tgt.to(device), gold.to(device)


def _training(model: nn.Module, forward: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
              batch: tuple[torch.Tensor, torch.Tensor, torch.Tensor], steps: int) -> Callable[[], None]:
    src, tgt, gold = batch
    fused = gold.device.type in ("cpu", "cuda")  # as the trainer
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4, betas=(0.9, 0.98), fused=fused)

    def run() -> None:
        for _ in range(steps):
            logits = forward(src, tgt)
            loss = nn.functional.cross_entropy(logits.flatten(0, 1), gold.flatten(), ignore_index=0)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()

    return run


@once
def _throughput(choice: Choice) -> Throughput:
    p, device = (TRAIN_QUICK if choice.quick else TRAIN), choice.device
    steps, rounds, warmup = (2, 3, 1) if choice.quick else (10, 9, 2)
    config = ModelConfig(p["vocab"], p["vocab"], d_model=p["d_model"], n_heads=p["n_heads"],
                         n_encoder_layers=p["layers"], n_decoder_layers=p["layers"], d_ff=p["d_ff"], dropout=0.1)
    torch.manual_seed(0)
    ours, theirs = Transformer(config).to(device).train(), TorchReference(config).to(device).train()
    batch = _batch(p, device)
    ours_run = _training(ours, lambda s, t: ours(s, t).logits, batch, steps)
    theirs_run = _training(theirs, theirs, batch, steps)
    times: dict[object, list[float]] = {ours_run: [], theirs_run: []}

    def timed(run: Callable[[], object]) -> float:
        times[run].append(synced_seconds(device, run))
        return times[run][-1]

    ratio = median_ratio(ours_run, theirs_run, rounds=rounds, warmup=warmup, timer=timed)
    tokens = steps * int((batch[2] != 0).sum())
    return Throughput(tokens / statistics.median(times[ours_run]), tokens / statistics.median(times[theirs_run]),
                      ratio)


@figure("gpu_train_tokens_per_s", "tokens/s", 0.0, "higher", into=FIGURES)
def train_tokens_per_s() -> float:
    """Training target tokens/s of our model, 6+6 layers x 512, batch 64 (no target: see the ratio)."""
    return _throughput(chosen()).ours


@figure("gpu_train_tokens_per_s_nn_transformer", "tokens/s", 0.0, "higher", into=FIGURES)
def train_tokens_per_s_reference() -> float:
    """The same for torch.nn.Transformer of the same sizes, same batch, same device (no target)."""
    return _throughput(chosen()).reference


@figure("gpu_train_tokens_ratio_vs_nn_transformer", "ratio", 1.0, "higher", into=FIGURES)
def train_ratio() -> float:
    """Training tokens/s of ours over torch.nn.Transformer, run alternately, warm-up excluded."""
    return _throughput(chosen()).ratio


# -- the seed lab ---------------------------------------------------------------------------------

@once
def _lab(choice: Choice) -> LabResult:
    settings = dataclasses.replace(LAB_QUICK if choice.quick else LAB, device=str(choice.device))
    run_lab(dataclasses.replace(settings, steps=3, test_batches=3))  # warm-up: kernels and allocator
    sync(choice.device)
    return run_lab(settings)


@figure("gpu_lab_1000_steps_s", "s", 30.0, "lower", into=FIGURES)
def lab_seconds() -> float:
    """The seed lab's run: 1,000 steps + 1,000 test batches, 6 layers, batch 16, 1% warm-up
    (target: a table row in 30 s)."""
    return _lab(chosen()).seconds


@figure("gpu_lab_test_mse", "MSE", 0.2, "lower", into=FIGURES)
def lab_test_mse() -> float:
    """That run's test MSE: the seed published 0.10, predicting the mean scores 3.5."""
    return _lab(chosen()).test_mse


# -- one decoding step ----------------------------------------------------------------------------

@functools.lru_cache(maxsize=2)
def _default_model(device: torch.device) -> Model:
    shipped = shipped_models()
    if DEFAULT_MODEL not in shipped:
        raise Unavailable("the shipped default model (resources/models/default.safetensors) is not installed")
    return checkpoint.load(shipped[DEFAULT_MODEL], str(device))


@figure("gpu_decode_step_ms", "ms", 5.0, "lower", into=FIGURES)
def decode_step_ms() -> float:
    """One DecodingSession.step() with its StepRecord, shipped default model, median (as session_step_ms_default)."""
    choice = chosen()
    model = _default_model(choice.device)
    sentence = " ".join(model.src_vocab.itos[4:12])  # 8 words; the output runs to max_len
    session = DecodingSession(model, sentence, max_len=20)

    def one_decode() -> list[float]:
        session.reset()
        return [synced_seconds(choice.device, session.step) for _ in range(20) if not session.cant_step()]

    one_decode()  # warm-up
    times = [t for _ in range(2 if choice.quick else 30) for t in one_decode()]
    return 1000 * statistics.median(times)


# -- toy-de-en to 95% -----------------------------------------------------------------------------

@dataclass(frozen=True)
class ToyRun:
    seconds: float  # training time until a validation found test exact match >= the target; inf if none did
    steps: int  # steps then, or those done when the run ended without reaching it
    exact_match: float  # the best test exact match seen
    checks: tuple[tuple[int, float, float], ...]  # (step, seconds, test exact match) of each validation


class _Watch(TrainObserver):
    """At each validation, score the test split (time not counted) and stop once it reaches the
    target; stop after ``limit_s`` seconds of wall time whatever it reached."""

    def __init__(self, trainer: Trainer, target: float, limit_s: float) -> None:
        self.trainer, self.target, self.limit_s = trainer, target, limit_s
        self.start = self.scoring_s = 0.0
        self.steps = 0
        self.reached: tuple[float, int] | None = None
        self.checks: list[tuple[int, float, float]] = []

    def on_step(self, metrics: StepMetrics) -> None:
        self.steps = metrics.step
        if time.perf_counter() - self.start > self.limit_s:
            self.trainer.stop()

    def on_validation(self, step: int, evaluation: Evaluation) -> None:
        began = time.perf_counter()
        test = evaluate(self.trainer.model, self.trainer.dataset.test, self.trainer.max_output_len)
        at = began - self.start - self.scoring_s
        self.checks.append((step, at, test.exact_match))
        log.info("step %d, %.1f s: test exact match %.1f%%", step, at, 100 * test.exact_match)
        if test.exact_match >= self.target and self.reached is None:
            self.reached = (at, step)
            self.trainer.stop()
        self.scoring_s += time.perf_counter() - began


def train_to_target(device: torch.device, plan: Recipe, target: float, limit_s: float,
                    held_out: int | None = None) -> ToyRun:
    """Train by ``plan`` until ``target`` test exact match, for at most ``limit_s`` seconds;
    ``held_out``: keep only that many validation and test pairs (quick runs)."""
    dataset = load_task(plan.task)
    if held_out is not None:
        dataset = dataclasses.replace(dataset, valid=dataset.valid[:held_out], test=dataset.test[:held_out])
    config = dataclasses.replace(plan.train, device=str(device))
    trainer = Trainer(build_model(dataset, config, **plan.model), dataset, config)
    watch = _Watch(trainer, target, limit_s)
    trainer.observer = watch
    torch.zeros(1, device=device)  # the device's start-up is not training
    sync(device)
    watch.start = time.perf_counter()
    trainer.run()
    best = max((em for _, _, em in watch.checks), default=0.0)
    seconds, steps = watch.reached if watch.reached else (math.inf, watch.steps)
    return ToyRun(seconds, steps, best, tuple(watch.checks))


@once
def _toy(choice: Choice) -> ToyRun:
    shipped = recipe("toy-de-en")
    if not choice.quick:
        return train_to_target(choice.device, shipped, TOY_TARGET, TOY_LIMIT_S)
    return train_to_target(choice.device, TOY_QUICK, TOY_TARGET, TOY_QUICK_LIMIT_S, held_out=TOY_QUICK_HELD_OUT)


@figure("gpu_toy_de_en_to_95_s", "s", 60.0, "lower", into=FIGURES)
def toy_seconds() -> float:
    """Seconds for the toy-de-en recipe to reach 95% test exact match (inf if not within 120 s or its 1,200 steps)."""
    return _toy(chosen()).seconds


@figure("gpu_toy_de_en_steps", "steps", 1200.0, "lower", into=FIGURES)
def toy_steps() -> float:
    """Steps of that run: to 95% test exact match, or those done when it gave up or finished."""
    return float(_toy(chosen()).steps)


@figure("gpu_toy_de_en_test_exact_match", "share", TOY_TARGET, "higher", into=FIGURES)
def toy_exact_match() -> float:
    """The best test exact match that run reached (scored at each validation, every 250 steps)."""
    return _toy(chosen()).exact_match
