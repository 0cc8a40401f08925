"""How much each attention head matters to a task: the score lost when that head alone is switched
off (its output zero), and the prune curve, heads switched off one after another from the least
important. This is the tutorial's "many heads are redundant", measured.

Switched off alone, most heads of a small model change a few test sentences or none: many share
one importance (0.0 or 0.2 points of exact match), and the order among them decides how many heads
go before a point is lost. :func:`prune_curves` measures the curve under several seeded random
orders of equally important heads as well, so that a count comes with its spread.

Many ablations run as one batch: every sentence is repeated once per variant, and each copy runs
with its own heads off (:func:`gating`: a tap on each head's output). Long runs report progress and
stop between batches when asked, like the trainer.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Literal

import numpy as np
import torch
import torch.nn.functional as F

from ..base.errors import ConfigError
from ..base.messages import translate_noop
from ..data.batches import Row, encode_pairs, make_batch, pad
from ..data.dataset import Pair
from ..data.held_out import held_out_pairs
from ..decoding.interventions import Kind, check_kind, check_kind_in
from ..model.bundle import Model, evaluating
from ..model.sites import Address, Call, Site, Tap, tapping
from ..training.evaluate import greedy_ids

Metric = Literal["exact_match", "logprob"]
METRICS: tuple[Metric, ...] = ("exact_match", "logprob")
Head = tuple[int, int]  # (layer, head)
Progress = Callable[[int, int], None]  # (sentences scored, sentences to score), counting every variant
Cancelled = Callable[[], bool]  # asked between batches; True stops the measurement
BATCH_ROWS = 1024  # sentence copies decoded together
TIE_ORDERS = 5  # random orders of equally important heads measured beside the layer, head order


class Stopped(Exception):
    """The caller asked the measurement to stop."""


@dataclass(frozen=True)
class PruneCurve:
    """The metric as heads of one kind are switched off, least important first."""

    kind: Kind
    metric: Metric
    order: tuple[Head, ...]  # the heads in the order they are switched off
    values: np.ndarray  # (len(order) + 1,): the metric with 0, 1, 2, ... heads off
    ties: int | None = None  # the seed that shuffled equally important heads; None: layer, head order

    def removable(self, loss: float = 0.01) -> int | None:
        """How many heads go, in this order, before the metric has lost ``loss`` or more (one
        point of exact match by default); None for the log-probability, which has no points."""
        if self.metric != "exact_match":
            return None
        lost = self.values[0] - self.values >= loss - 1e-9
        return int(lost.argmax()) - 1 if lost.any() else len(self.order)


def head_importance(model: Model, kind: Kind = "cross", metric: Metric = "exact_match", data: str = "test",
                    on_progress: Progress | None = None, cancelled: Cancelled | None = None) -> np.ndarray:
    """(layers, heads): how much ``metric`` drops on ``data`` (``test``, ``valid`` or a TSV file,
    see :func:`~transviz.core.data.held_out.held_out_pairs`) when that head of ``kind`` alone is off.
    ``exact_match`` is a fraction (0.01 is one point); ``logprob`` the mean gold log-probability
    per target token. Raises :class:`Stopped` once ``cancelled()`` says so (checked between batches)."""
    heads = _heads(model, kind, metric)
    scores = _scores(model, kind, metric, held_out_pairs(model, data), [(), *((h,) for h in heads)],
                     on_progress, cancelled)
    drops: np.ndarray = (scores[0] - scores[1:]).reshape(-1, model.config.n_heads)  # (layers, heads)
    return drops


def prune_curve(model: Model, kind: Kind = "cross", metric: Metric = "exact_match", data: str = "test",
                importance: np.ndarray | None = None, on_progress: Progress | None = None,
                cancelled: Cancelled | None = None) -> PruneCurve:
    """Heads of ``kind`` switched off cumulatively in order of ``importance`` (measured first when
    not given; equally important heads in layer, head order), and ``metric`` on ``data`` after each."""
    return prune_curves(model, kind, metric, data, importance, (None,), on_progress, cancelled)[0]


def prune_curves(model: Model, kind: Kind = "cross", metric: Metric = "exact_match", data: str = "test",
                 importance: np.ndarray | None = None, ties: Sequence[int | None] = (None, *range(TIE_ORDERS)),
                 on_progress: Progress | None = None, cancelled: Cancelled | None = None) -> tuple[PruneCurve, ...]:
    """:func:`prune_curve` once per entry of ``ties``: None keeps equally important heads in layer,
    head order, a seed shuffles them (:func:`tie_order`). A set of heads that several orders
    switch off is measured once."""
    heads = _heads(model, kind, metric)
    pairs = held_out_pairs(model, data)
    if importance is None:
        importance = head_importance(model, kind, metric, data, _half(on_progress, 0), cancelled)
        on_progress = _half(on_progress, 1)
    orders = [tie_order(importance, seed) for seed in ties]
    variants = list(dict.fromkeys(frozenset(order[:k]) for order in orders for k in range(len(heads) + 1)))
    scores = _scores(model, kind, metric, pairs, [sorted(v) for v in variants], on_progress, cancelled)
    found = dict(zip(variants, scores, strict=True))
    return tuple(PruneCurve(kind, metric, order, np.array([found[frozenset(order[:k])] for k in range(len(heads) + 1)]),
                            seed) for order, seed in zip(orders, ties, strict=True))


def tie_order(importance: np.ndarray, seed: int | None = None) -> tuple[Head, ...]:
    """Every (layer, head) of ``importance`` (layers, heads), least important first; heads of equal
    importance in layer, head order, or with a ``seed`` in a random order of that seed's."""
    layers, heads = importance.shape
    cells = [(layer, head) for layer in range(layers) for head in range(heads)]
    shuffle = (np.arange(len(cells)) if seed is None
               else np.random.default_rng(seed).permutation(len(cells)))
    return tuple(sorted(cells, key=lambda h: (float(importance[h]), int(shuffle[h[0] * heads + h[1]]))))


def tied_heads(importance: np.ndarray) -> int:
    """How many heads share their importance with another head (whose order the ties decide)."""
    _, counts = np.unique(importance, return_counts=True)
    return int(counts[counts > 1].sum())


def _heads(model: Model, kind: Kind, metric: str) -> list[Head]:
    check_kind(kind)
    check_kind_in(model.net, kind)
    if metric not in METRICS:
        raise ConfigError(translate_noop("CoreMessages", "the metric must be exact_match or logprob, got {0}"),
                          repr(metric))
    cfg = model.config
    layers = model.config.layer_count(kind)
    return [(layer, head) for layer in range(layers) for head in range(cfg.n_heads)]


def _half(progress: Progress | None, which: int) -> Progress | None:
    """Progress of one of two equal phases, reported as part of the whole."""
    if progress is None:
        return None
    return lambda done, total: progress(done + which * total, 2 * total)


def _scores(model: Model, kind: Kind, metric: Metric, pairs: Sequence[Pair], variants: Sequence[Sequence[Head]],
            on_progress: Progress | None, cancelled: Cancelled | None) -> np.ndarray:
    """``metric`` on ``pairs`` for each variant (the heads it switches off)."""
    rows = encode_pairs(model, pairs)
    golds = [model.tgt_vocab.tokenize(p.target) for p in pairs]
    order = sorted(range(len(rows)), key=lambda i: len(rows[i][0]))  # similar lengths, little padding
    per_batch = max(1, BATCH_ROWS // len(variants))
    sums, counts = np.zeros(len(variants)), np.zeros(len(variants))
    with evaluating(model):
        for start in range(0, len(order), per_batch):
            if cancelled is not None and cancelled():
                raise Stopped
            chunk = order[start : start + per_batch]
            count: int | np.ndarray
            with gating(model, kind, _gates(model, kind, variants, len(chunk))):
                if metric == "exact_match":
                    got, count = _hits(model, [rows[i] for i in chunk], [golds[i] for i in chunk], len(variants))
                else:
                    got, count = _logprobs(model, [rows[i] for i in chunk], len(variants))
            sums += got
            counts += count
            if on_progress is not None:
                on_progress((start + len(chunk)) * len(variants), len(order) * len(variants))
    return sums / counts


@contextmanager
def gating(model: Model, kind: Kind, gates: dict[int, torch.Tensor]) -> Iterator[None]:
    """Each batch row runs with its own heads of ``kind`` switched off: ``gates[layer]`` (B, H) holds
    1 for a head that runs and 0 for one that is off (many single-head ablations in one batch)."""
    def gate(layer: int) -> Tap:
        def multiply(out: torch.Tensor, call: Call) -> torch.Tensor:
            return out * gates[layer][:, :, None, None]  # (B, H, Lq, d_k)
        return Tap(Address(kind, layer, Site.HEAD_OUTPUT), multiply)
    with tapping(model.net, [gate(layer) for layer in gates]):
        yield


def _gates(model: Model, kind: Kind, variants: Sequence[Sequence[Head]], sentences: int) -> dict[int, torch.Tensor]:
    """Per layer, (variants x sentences, heads): 0 where that copy's variant switches the head off."""
    layers = model.config.layer_count(kind)
    gates = {layer: torch.ones(len(variants), sentences, model.config.n_heads, device=model.device)
             for layer in range(layers)}
    for v, heads in enumerate(variants):
        for layer, head in heads:
            gates[layer][v, :, head] = 0.0
    return {layer: gate.flatten(0, 1) for layer, gate in gates.items()}


def _hits(model: Model, rows: list[Row], golds: list[list[str]], copies: int) -> tuple[np.ndarray, int]:
    """Exact matches of greedy decoding per variant, the sentences repeated ``copies`` times."""
    src = pad([r[0] for r in rows] * copies, model.config.pad_id, model.device)
    steps = min(max(len(g) for g in golds) + 1, model.config.max_len)  # longer outputs cannot match
    outputs = greedy_ids(model, src, steps)
    hits = [model.tgt_vocab.tokens_of(out) == gold for out, gold in zip(outputs, golds * copies, strict=True)]
    return np.array(hits, dtype=float).reshape(copies, len(rows)).sum(axis=1), len(rows)


def _logprobs(model: Model, rows: list[Row], copies: int) -> tuple[np.ndarray, np.ndarray]:
    """Summed gold log-probabilities and target tokens per variant, teacher forced."""
    pad_id = model.config.pad_id
    batch = make_batch(rows * copies, pad_id, model.device)
    logp = F.log_softmax(model.net(batch.src, batch.tgt_in).logits.float(), dim=-1)  # (B, T, V)
    gold = logp.gather(-1, batch.tgt_out.unsqueeze(-1)).squeeze(-1)  # (B, T)
    real = batch.tgt_out != pad_id
    sums = (gold * real).sum(dim=1).view(copies, len(rows)).sum(dim=1)
    tokens = real.sum(dim=1).view(copies, len(rows)).sum(dim=1)
    return sums.double().cpu().numpy(), tokens.double().cpu().numpy()


