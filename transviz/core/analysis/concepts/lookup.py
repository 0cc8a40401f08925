"""Attention as a look-up in a key-value store (seed 000, "Attention的几种角度"): the current query
scores every key, and what it retrieves is not one value but a weighted mixture. The tutorial says
keys close to the best one (in the head's key space) are retrieved with it. That is a tendency, not
a rule: :func:`measure_agreement` counts, over the task's test split, how often the keys besides the
best one get more weight the more they are like it (a rank correlation above 0), per layer and head."""
from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from ...data.batches import encode_pairs, make_batch
from ...data.held_out import held_out_pairs
from ...decoding.interventions import check_kind
from ...model.bundle import Model, evaluating
from ...model.sites import Address, Site, recording
from ...model.transformer import Transformer
from ..walkthrough import Kind
from .forward import Sentence
from .head import head_attention

MIN_OTHERS = 3  # keys besides the best one that a row needs for its rank correlation to count
BATCH = 32  # test pairs per pass: the rank comparisons take (batch, queries, keys, keys) numbers a head


@dataclass(frozen=True)
class Lookup:
    """The current query's look-up (the last query row: the newest decoder input, or the last
    source token for encoder self-attention). Arrays over keys follow ``order``: the keys the query
    may see, highest scaled score first. float64."""

    query_token: str
    key_tokens: list[str]  # ranked
    order: np.ndarray  # key positions, ranked
    scaled: np.ndarray  # q.k / sqrt(d_k), ranked
    weights: np.ndarray  # softmax of ``scaled``, ranked
    key_cosine: np.ndarray  # cosine of each key to the best-scoring key
    mixture: np.ndarray  # (d_k,) weights @ V: what the head retrieves
    best_value: np.ndarray  # (d_k,) the best-scoring key's value: what a dictionary would return

    @property
    def agreement(self) -> float | None:
        """The rank correlation, over the keys besides the best one, between each key's cosine to the
        best key and its weight (its score: the same order); None with fewer than MIN_OTHERS of them
        or when either is constant."""
        return rank_correlation(self.key_cosine[1:], self.scaled[1:])

    @property
    def mixture_cosine(self) -> float:
        return cosine(self.mixture, self.best_value)

    @property
    def mixture_norm(self) -> float:
        return float(np.linalg.norm(self.mixture))

    @property
    def best_norm(self) -> float:
        return float(np.linalg.norm(self.best_value))


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    norms = float(np.linalg.norm(a) * np.linalg.norm(b))
    return float(a @ b) / norms if norms > 0 else 0.0


def lookup(model: Model, sentence: Sentence, kind: Kind, layer: int, head: int) -> Lookup:
    """The look-up of the current query of ``head`` in ``layer`` (InputError for a missing layer or head)."""
    walk = head_attention(model, sentence, kind, layer, head)
    row = len(walk.query_tokens) - 1
    visible = np.flatnonzero(walk.mask[row])
    order = visible[np.argsort(-walk.scaled[row, visible], kind="stable")]
    keys, values = walk.keys.astype(np.float64), walk.values.astype(np.float64)
    weights = walk.weights[row].astype(np.float64)
    best = keys[order[0]]
    return Lookup(walk.query_tokens[row], [walk.key_tokens[i] for i in order], order,
                  walk.scaled[row, order].astype(np.float64), weights[order],
                  np.array([cosine(keys[i], best) for i in order]), weights @ values, values[order[0]])


@dataclass(frozen=True)
class Agreement:
    """Over the test split's teacher-forced query rows, per (layer, head) of ``kind``: ``rows``, the
    rows with at least MIN_OTHERS keys besides the best one (and a defined correlation); ``share``,
    the share of those whose keys more like the best one get more weight (Spearman above 0);
    ``mean``, the mean of that correlation."""

    kind: Kind
    sentences: int
    rows: np.ndarray  # (layers, heads) int
    share: np.ndarray  # (layers, heads) float64, 0..1
    mean: np.ndarray  # (layers, heads) float64, -1..1


def rank_correlation(a: np.ndarray, b: np.ndarray) -> float | None:
    """Spearman's correlation of ``a`` and ``b`` (ties share their mean rank); None for fewer than
    MIN_OTHERS values or a constant one."""
    if len(a) < MIN_OTHERS:
        return None
    value = _spearman(np.asarray(a, np.float64)[None], np.asarray(b, np.float64)[None], np.ones((1, len(a)), bool))
    return None if np.isnan(value[0]) else float(value[0])


def _spearman(a: np.ndarray, b: np.ndarray, used: np.ndarray) -> np.ndarray:
    """Row-wise Spearman correlation of (..., N) ``a`` and ``b`` over the entries ``used`` marks; NaN
    where a row's ranks are constant. A rank counts the used entries below (ties: half of the equal
    ones), so ties get their mean rank without sorting."""
    def ranks(x: np.ndarray) -> np.ndarray:
        below = (x[..., None, :] < x[..., :, None]) + 0.5 * (x[..., None, :] == x[..., :, None])  # (..., N, N)
        return np.asarray((below * used[..., None, :]).sum(axis=-1))

    n = used.sum(axis=-1, keepdims=True)
    centred = [np.where(used, r - (r * used).sum(axis=-1, keepdims=True) / np.maximum(n, 1), 0.0)
               for r in (ranks(a), ranks(b))]
    spread = np.sqrt((centred[0] ** 2).sum(axis=-1) * (centred[1] ** 2).sum(axis=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray((centred[0] * centred[1]).sum(axis=-1) / np.where(spread > 0, spread, np.nan))


_cache: weakref.WeakKeyDictionary[Transformer, dict[tuple[object, ...], Agreement]] = weakref.WeakKeyDictionary()


def lookup_agreement(model: Model, kind: Kind) -> Agreement:
    """:func:`measure_agreement` of ``model`` and ``kind``, kept until a weight changes (InputError
    for a model whose task is not built in)."""
    key = (kind, model.facts.get("task"), *model.weights_version())
    kept = _cache.setdefault(model.net, {})
    if key not in kept:
        if any(other[1:] != key[1:] for other in kept):
            kept.clear()  # measured with other weights
        measured = measure_agreement(model, kind)
        assert measured is not None, "nothing cancels it"
        kept[key] = measured
    return kept[key]


def measure_agreement(model: Model, kind: Kind, progress: Callable[[int, int], None] = lambda done, total: None,
                      cancelled: Callable[[], bool] = lambda: False, sentences: int | None = None) -> Agreement | None:
    """How often, over the test split of ``model``'s task (its first ``sentences`` pairs, or all),
    keys more like the best one get more weight, per layer and head of ``kind`` (InputError for a
    model whose task is not built in); ``progress(pairs done, pairs)`` after each batch; None if
    ``cancelled()`` turns true between them."""
    check_kind(kind)
    pairs = held_out_pairs(model, "test")[:sentences]
    rows = encode_pairs(model, pairs)
    cfg = model.config
    layers = cfg.layer_count(kind)
    counted = np.zeros((layers, cfg.n_heads))
    positive = np.zeros((layers, cfg.n_heads))
    summed = np.zeros((layers, cfg.n_heads))
    sites = [Address(kind, layer, site) for layer in range(layers) for site in (Site.KEYS, Site.SCALED)]
    for start in range(0, len(rows), BATCH):
        if cancelled():
            return None
        chunk = rows[start:start + BATCH]
        batch = make_batch(chunk, cfg.pad_id, model.device)
        with evaluating(model), torch.no_grad(), recording(model.net, sites) as seen:
            model.net(batch.src, batch.tgt_in)
        visible = _visible(kind, [len(r[0]) for r in chunk], [len(r[1]) - 1 for r in chunk], cfg.architecture)
        for layer in range(layers):
            keys = seen[Address(kind, layer, Site.KEYS)].double().cpu().numpy()  # (B, H, Lk, d_k)
            scaled = seen[Address(kind, layer, Site.SCALED)].double().cpu().numpy()  # (B, H, Lq, Lk)
            correlation = _row_agreement(keys, scaled, visible)  # (B, H, Lq), NaN where it does not count
            found = ~np.isnan(correlation)
            counted[layer] += found.sum(axis=(0, 2))
            positive[layer] += (np.nan_to_num(correlation) > 0).sum(axis=(0, 2))
            summed[layer] += np.nan_to_num(correlation).sum(axis=(0, 2))
        progress(min(start + BATCH, len(rows)), len(rows))
    with np.errstate(invalid="ignore"):
        return Agreement(kind, len(pairs), counted.astype(np.int64), positive / counted, summed / counted)


def _visible(kind: Kind, sources: list[int], targets: list[int], architecture: str = "encoder-decoder") -> np.ndarray:
    """(B, Lq, Lk) True where a real query row sees a real key: padding sees and is seen by
    nothing, and a decoder row sees itself and the rows before it. A decoder-only model's output
    rows see its source's keys, then the output's; its source rows, causal ones, only the earlier."""
    if architecture != "encoder-decoder" and kind != "encoder_self":
        return np.concatenate([_visible("cross", sources, targets), _visible("decoder_self", sources, targets)],
                              axis=-1)
    if architecture == "decoder-only" and kind == "encoder_self":
        return _visible("decoder_self", targets, sources)  # causal over the source
    queries = sources if kind == "encoder_self" else targets
    keys = targets if kind == "decoder_self" else sources
    q, k = np.arange(max(queries)), np.arange(max(keys))
    seen = (q[None, :, None] < np.array(queries)[:, None, None]) & (k[None, None, :] < np.array(keys)[:, None, None])
    if kind == "decoder_self":
        seen &= k[None, None, :] <= q[None, :, None]
    return np.asarray(seen)


def _row_agreement(keys: np.ndarray, scaled: np.ndarray, visible: np.ndarray) -> np.ndarray:
    """(B, H, Lq): each row's Spearman correlation, over its visible keys besides the best-scoring
    one, between a key's cosine to that best key and its score; NaN for a row that does not count."""
    seen = np.broadcast_to(visible[:, None], scaled.shape)  # (B, H, Lq, Lk)
    best = np.where(seen, scaled, -np.inf).argmax(axis=-1)  # (B, H, Lq)
    unit = keys / np.maximum(np.linalg.norm(keys, axis=-1, keepdims=True), 1e-300)
    cosine = np.einsum("bhqd,bhkd->bhqk", np.take_along_axis(unit, best[..., None], axis=2), unit)
    others = seen & (np.arange(scaled.shape[-1]) != best[..., None])
    correlation = _spearman(cosine, scaled, others)
    return np.where(others.sum(axis=-1) >= MIN_OTHERS, correlation, np.nan)
