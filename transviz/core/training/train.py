"""The trainer: Adam with a learning-rate schedule, label smoothing, gradient clipping, batches
of similar length, held-out evaluation, attention snapshots, atomic checkpoints and a guard
against divergence. No Qt and no printing: it reports to a :class:`TrainObserver`, and another
thread may :meth:`~Trainer.pause`, :meth:`~Trainer.resume` or :meth:`~Trainer.stop` it.

Typical use::

    dataset = load_task("reverse")
    config = TrainConfig(steps=2000)
    model = build_model(dataset, config, d_model=64, n_heads=4)
    result = Trainer(model, dataset, config, observer, checkpoint_path="m.safetensors").run()
    result.status, result.message, result.test.exact_match
"""
from __future__ import annotations

import logging
import math
import random
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

import torch
import torch.nn.functional as F
from torch import Tensor
from torch.nn.parallel import DistributedDataParallel

from ..base.cores import computing
from ..base.messages import Message
from ..data.batches import Batch, bucketed, encode_pairs, make_batch
from ..data.tasks import Dataset
from ..io.checkpoint import check_writable, round_to_half
from ..io.endings import FINISHED, GRADIENT_NORM, LOSS, PARTS, PROBE_SCORES, RUNNING, STOPPED, diverged
from ..io.weights_check import NonFiniteScores
from ..model.bundle import Model
from ..model.config import ModelConfig, TrainConfig
from ..model.init import initialize
from ..model.transformer import Transformer
from .curves import Curves
from .devices import resolve_device
from .distributed import ALONE, World
from .evaluate import Evaluation, evaluate
from .schedules import trainer_rate
from .snapshots import Snapshot, save_with_snapshots, take

log = logging.getLogger(__name__)

Status = Literal["finished", "stopped", "diverged"]
BETAS = (0.9, 0.98)  # "Attention Is All You Need", section 5.3
EPS = 1e-9


def sequence_loss(logits: Tensor, gold: Tensor, pad_id: int, label_smoothing: float = 0.0) -> Tensor:
    """Mean cross-entropy over the non-padding positions of ``gold``, with label smoothing.

    Smoothing follows ``torch.nn.functional.cross_entropy``: the target distribution puts
    ``1 - eps`` on the gold token and spreads ``eps`` uniformly over the whole vocabulary.

    Shape:
        ``logits`` (B, T, V), ``gold`` (B, T) -> scalar.
    """
    return F.cross_entropy(logits.flatten(0, 1).float(), gold.flatten(), ignore_index=pad_id,
                           label_smoothing=label_smoothing)


def build_model(dataset: Dataset, config: TrainConfig | None = None, **settings: Any) -> Model:
    """A fresh model for ``dataset``: vocabularies of its training split, a Transformer with the
    given :class:`ModelConfig` ``settings`` (vocabulary sizes filled in, ``max_len`` large enough
    for the data) and the initialisation of ``config`` (seeded by ``config.seed``)."""
    config = config or TrainConfig()
    src_vocab, tgt_vocab = dataset.build_vocabs(joint=bool(settings.get("share_embeddings", False)))
    pairs = dataset.train + dataset.valid + dataset.test
    longest = max(max(len(src_vocab.tokenize(p.source)), len(tgt_vocab.tokenize(p.target)) + 1) for p in pairs)
    settings.setdefault("max_len", max(ModelConfig.max_len, longest))
    model_config = ModelConfig(len(src_vocab), len(tgt_vocab), **settings)
    torch.manual_seed(config.seed)
    net = Transformer(model_config)
    initialize(net, config.init)
    return Model(net, src_vocab, tgt_vocab, {"task": dataset.name})


def output_limit(model: Model, dataset: Dataset) -> int:
    """How long greedy outputs may grow when a run is evaluated: the longest training target and 10."""
    return max(len(model.tgt_vocab.tokenize(p.target)) for p in dataset.train) + 10


@dataclass(frozen=True)
class StepMetrics:
    """What one optimiser update measured."""

    step: int  # updates done, this one included
    loss: float  # training loss of the batch (label smoothed)
    lr: float  # learning rate of this update
    grad_norm: float  # global gradient norm before clipping
    token_accuracy: float  # fraction of target tokens the batch predicted right (teacher forced)
    tokens_per_s: float  # target tokens of this batch per second of this step
    elapsed_s: float  # seconds since the run started, pauses excluded


class TrainObserver:
    """Callbacks of a :class:`Trainer`, called on the training thread between batches.

    Override what you need; keep them quick (a GUI adapter queues a signal and returns).
    """

    def on_step(self, metrics: StepMetrics) -> None:
        """After every update."""

    def on_validation(self, step: int, evaluation: Evaluation) -> None:
        """After each validation (every ``eval_every`` steps, and at the end)."""

    def on_snapshot(self, snapshot: Snapshot) -> None:
        """After each attention snapshot of the probe (step 0, every ``snapshot_every`` steps, the end)."""

    def on_paused(self, step: int) -> None:
        """When a pause takes effect: ``step`` updates are done and no more follow until resumed."""


@dataclass(frozen=True)
class TrainResult:
    """How a run ended. ``model`` holds the final weights, or after divergence the last good ones."""

    status: Status
    message: Message  # plain language, with a hint after divergence; str() is the English
    steps: int  # updates applied
    seconds: float  # wall time of the run, pauses excluded
    device: str
    model: Model
    snapshots: tuple[Snapshot, ...]
    validation: Evaluation | None  # the last one
    test: Evaluation | None  # on the test split, when the run finished
    checkpoint: Path | None
    curves: Curves = field(default_factory=Curves)  # what the run measured, up to ``steps``


class _Diverged(Exception):
    def __init__(self, message: Message) -> None:
        super().__init__(str(message))
        self.message = message


class Trainer:
    """Trains ``model`` on ``dataset`` with ``config``; see the module docstring.

    Args:
        model: the model to train (moved to the configured device); e.g. from :func:`build_model`.
        dataset: train / valid / test pairs; its probe (or ``config.probe``) feeds the snapshots.
        config: the training settings.
        observer: receives step metrics, validations and snapshots.
        checkpoint_path: where to write the model (atomically) every ``checkpoint_every`` steps
            and at the end, snapshots included; an interrupted run keeps the last one written.
        world: this process's place under torchrun (:func:`.distributed.start`). Each process
            trains on its share of every batch of ``config.batch_size`` sentences, its gradients
            averaged with the others' (DistributedDataParallel); all report the same step metrics,
            and only the leader validates, snapshots and writes the checkpoint.

    Pause, resume and stop are safe to call from any thread; they take effect between batches.
    A trainer runs once; its ``step``, ``snapshots`` and ``validation`` stay readable afterwards.
    """

    def __init__(self, model: Model, dataset: Dataset, config: TrainConfig,
                 observer: TrainObserver | None = None, checkpoint_path: str | Path | None = None,
                 world: World = ALONE, half: bool = False) -> None:
        self.model, self.dataset, self.config, self.world = model, dataset, config, world
        self.half = half  # store the weights in float16, and test the model as stored
        self.observer = observer or TrainObserver()
        self.checkpoint_path = Path(checkpoint_path) if checkpoint_path is not None and world.leader else None
        if self.checkpoint_path is not None:
            check_writable(self.checkpoint_path)  # an unwritable path fails now, not after the whole run
        self.device = world.device if world.distributed else resolve_device(config.device)
        self.rows = encode_pairs(model, dataset.train)
        self.probe = config.probe or dataset.probe
        model.encode_source(self.probe)  # an unusable probe fails now, not mid-run
        gold = {p.source: p.target for p in dataset.train + dataset.valid + dataset.test}
        self.probe_gold = gold.get(self.probe)
        self.max_output_len = config.max_output_len or output_limit(model, dataset)
        self._go = threading.Event()  # set = running, clear = paused
        self._go.set()
        self._stop = threading.Event()
        self.step = 0
        self.snapshots: list[Snapshot] = []
        self.curves = Curves()
        self.validation: Evaluation | None = None
        self._started, self._paused_s = time.perf_counter(), 0.0  # run() restarts the clock
        self._good: list[Tensor] = []  # the last weights whose loss was finite ...
        self._good_step = 0  # ... and the step they are from
        self._snapped = -1  # the step of the last snapshot, known to every process
        self._net: torch.nn.Module = model.net  # what trains: the model, or its DistributedDataParallel wrapper

    # -- control, from any thread ---------------------------------------------------------------
    def pause(self) -> None:
        self._go.clear()

    def resume(self) -> None:
        self._go.set()

    def stop(self) -> None:
        """End the run after the current batch (a paused run wakes up to stop)."""
        self._stop.set()
        self._go.set()

    @property
    def paused(self) -> bool:
        return not self._go.is_set()

    @property
    def elapsed(self) -> float:
        """Seconds since the run started, pauses excluded (evaluation and snapshots included)."""
        return time.perf_counter() - self._started - self._paused_s

    # -- the run ----------------------------------------------------------------------------------
    def run(self) -> TrainResult:
        cfg, net = self.config, self.model.net
        net.to(self.device)
        torch.manual_seed(cfg.seed + self.world.rank)  # dropout: each process its own masks
        if self.world.distributed:  # takes the leader's weights
            device_ids = [self.device] if self.device.type == "cuda" else None
            self._net = DistributedDataParallel(net, device_ids=device_ids)
        batches = bucketed(self.rows, cfg.batch_size, random.Random(cfg.seed))
        # fused: one kernel for all parameters (on 2 CPU cores about twice as fast as the default)
        fused = self.device.type in ("cpu", "cuda")
        optimizer = torch.optim.Adam(net.parameters(), lr=cfg.lr, betas=BETAS, eps=EPS, fused=fused)
        self._good = [p.detach().clone() for p in net.parameters()]
        self._started, self._paused_s = time.perf_counter(), 0.0
        net.train()  # evaluation and snapshots switch to eval mode and back
        status: Status = "finished"
        message = Message(FINISHED, cfg.steps)
        try:
            self._snapshot()
            while self.step < cfg.steps:
                if self.world.any(self._wait_if_paused()):  # all processes stop after the same batch
                    status, message = "stopped", Message(STOPPED, self.step, cfg.steps)
                    break
                self._update(next(batches), optimizer)
                self._periodic()
        except _Diverged as exc:
            status, message = "diverged", exc.message
        net.eval()
        return self._finish(status, message)

    def _wait_if_paused(self) -> bool:
        """Block while paused (no spinning); True when the run should stop."""
        if not self._go.is_set():
            log.info("paused at step %d", self.step)
            self.observer.on_paused(self.step)
            since = time.perf_counter()
            self._go.wait()
            self._paused_s += time.perf_counter() - since
        return self._stop.is_set()

    def _update(self, indices: list[int], optimizer: torch.optim.Optimizer) -> None:
        start = time.perf_counter()
        net, cfg = self.model.net, self.config
        tokens = sum(len(self.rows[i][1]) - 1 for i in indices)  # of the whole batch, every process's share
        share = self.world.share(indices)
        # A share left empty by a short last batch runs one row with weight 0, so that its process
        # still joins the gradient all-reduce.
        batch = make_batch([self.rows[i] for i in share or indices[:1]], net.config.pad_id, self.device)
        weight = batch.tokens * self.world.size / tokens if share else 0.0
        lr = trainer_rate(cfg, self.step + 1, net.config.d_model)
        for group in optimizer.param_groups:
            group["lr"] = lr
        with computing(3 * net.work(batch.src.numel() + batch.tgt_in.numel())):  # forward, backward, update
            loss, grad_norm, correct = self._loss_and_gradients(batch, weight)
            if not math.isfinite(loss):
                raise self._diverged(LOSS, loss, lr)
            self._keep_good()  # these weights gave a finite loss
            if not math.isfinite(grad_norm):
                raise self._diverged(GRADIENT_NORM, grad_norm, lr)
            optimizer.step()
        self.step += 1
        seconds = time.perf_counter() - start
        self.curves.add_step(self.step, loss, lr, correct / tokens)
        self.observer.on_step(StepMetrics(self.step, loss, lr, grad_norm, correct / tokens,
                                          tokens / seconds, self.elapsed))

    def _loss_and_gradients(self, batch: Batch, weight: float = 1.0) -> tuple[float, float, float]:
        """Forward, backward and clipping; one host synchronisation for all three numbers.

        The loss of the whole batch is the mean over its target tokens. A process holding ``n`` of
        its ``N`` tokens scales the mean over its own by ``weight = n * size / N``: the average
        DistributedDataParallel takes of the processes' gradients is then the whole batch's
        gradient, and the sum of their losses over ``size`` the whole batch's loss (alone: weight 1).
        """
        net, cfg, world = self.model.net, self.config, self.world
        logits = self._net(batch.src, batch.tgt_in).logits  # (B, T, V)
        loss = sequence_loss(logits, batch.tgt_out, net.config.pad_id, cfg.label_smoothing) * weight
        net.zero_grad(set_to_none=True)
        loss.backward()
        limit = cfg.clip_norm if cfg.clip_norm > 0 else math.inf
        grad_norm = torch.nn.utils.clip_grad_norm_(net.parameters(), limit)  # the same on every process
        with torch.no_grad():
            real = (batch.tgt_out != net.config.pad_id) & (weight > 0)
            correct = ((logits.argmax(-1) == batch.tgt_out) & real).sum()
        summed = world.sum(torch.stack([loss.detach() / world.size, correct.to(loss.dtype)]))
        values = torch.cat([summed, grad_norm.to(loss.device).reshape(1)]).tolist()
        return values[0], values[2], values[1]

    def _keep_good(self) -> None:
        self._good_step = self.step
        with torch.no_grad():
            for keep, p in zip(self._good, self.model.net.parameters(), strict=True):
                keep.copy_(p)

    def _restore(self) -> None:
        self.step = self._good_step
        self.snapshots = [s for s in self.snapshots if s.step <= self.step]  # later ones show bad weights
        self.curves = self.curves.until(self.step)
        with torch.no_grad():
            for keep, p in zip(self._good, self.model.net.parameters(), strict=True):
                p.copy_(keep)

    def _diverged(self, what: str, value: float, lr: float, failed: int | None = None) -> _Diverged:
        """Restore the last good weights and say what happened (``failed``: the step that made the
        weights at fault; by default the one being taken)."""
        failed = self.step + 1 if failed is None else failed
        self._restore()
        return _Diverged(diverged(failed, what, value, self.step, lr))

    def _periodic(self) -> None:
        cfg, step = self.config, self.step
        if cfg.snapshot_every and step % cfg.snapshot_every == 0:
            self._snapshot()
        if cfg.eval_every and step % cfg.eval_every == 0 and step < cfg.steps:
            self._validate()
        if cfg.checkpoint_every and step % cfg.checkpoint_every == 0 and step < cfg.steps:
            self._save("running", Message(RUNNING, step, cfg.steps))

    def _snapshot(self) -> None:
        """The leader snapshots the probe; every process learns whether it overflowed."""
        if not self.config.snapshot_every or self._snapped == self.step:
            return
        self._snapped = self.step
        snap = None
        if self.world.leader:
            try:
                snap = take(self.model, self.step, self.probe, self.probe_gold, self.max_output_len)
            except NonFiniteScores:  # finite weights, finite loss, yet the probe overflows: diverging too
                pass
        if self.world.leader_says(snap is None):
            lr = trainer_rate(self.config, self.step, self.model.net.config.d_model)
            raise self._diverged(PROBE_SCORES, math.nan, lr, failed=self.step)
        if snap is not None:
            self.snapshots.append(snap)
            self.observer.on_snapshot(snap)

    def _validate(self) -> None:
        if not self.dataset.valid or not self.world.leader:
            return
        self.validation = evaluate(self.model, self.dataset.valid[: self.config.eval_limit], self.max_output_len)
        log.info("step %d: valid loss %.4f, exact match %.1f%%", self.step, self.validation.loss,
                 100 * self.validation.exact_match)
        self.curves.add_validation(self.step, self.validation.loss, self.validation.exact_match)
        self.observer.on_validation(self.step, self.validation)

    def _finish(self, status: Status, message: Message) -> TrainResult:
        test = None
        if status == "finished":
            if self.half:  # the figures below are then the stored model's
                round_to_half(self.model.net)
            try:
                self._snapshot()
            except _Diverged as exc:
                return self._finish("diverged", exc.message)
            self._validate()
            if self.dataset.test and self.world.leader:
                test = evaluate(self.model, self.dataset.test, self.max_output_len)
        path = self._save(status, message, test)
        # No process returns before the leader has saved: torchrun ends the others as soon as one
        # exits with an error (as a diverged run does), which could cut the leader's save short.
        self.world.wait_for_all()
        log.info("%s", message)
        return TrainResult(status, message, self.step, self.elapsed, str(self.device), self.model,
                           tuple(self.snapshots), self.validation, test, path, self.curves)

    def _save(self, status: str, message: Message, test: Evaluation | None = None) -> Path | None:
        """Record the facts and, if there is a path, write the checkpoint; never non-finite weights."""
        self.model.facts.update({
            "task": self.dataset.name,
            "steps": self.step,
            "device": str(self.device),
            "train_seconds": round(self.elapsed, 2),
            "trained_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "status": status,
            "message": str(message),
            PARTS: message.to_dict(),
            "probe": self.probe,
            "train_config": self.config.to_dict(),
            "validation": self.validation.to_dict() if self.validation else None,
            "test": test.to_dict() if test else None,
        })
        if self.world.distributed:
            self.model.facts["processes"] = self.world.size
        if self.checkpoint_path is None:
            return None
        if not all(bool(torch.isfinite(p).all()) for p in self.model.net.parameters()):
            log.warning("not writing %s: the weights hold NaN or infinite values", self.checkpoint_path)
            return None
        return save_with_snapshots(self.model, self.checkpoint_path, self.snapshots, self.curves, self.half)
