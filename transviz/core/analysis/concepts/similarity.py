"""How alike the attention heads of one kind are: the mean Jensen-Shannon divergence between
every two heads' attention rows over the task's test sentences, and an order of the heads that
puts alike heads next to each other (average-linkage clustering, written out in numpy).

Every head of every layer of the kind takes part (layers x heads of them). Each query row of a
teacher-forced test pair counts once; only the first :data:`SENTENCES` pairs are read, which
keeps the measurement under a second on a CPU. Results are kept per model until a weight changes.
"""
from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ...data.held_out import held_out_pairs
from ...decoding.inference import teacher_force
from ...decoding.interventions import check_kind
from ...decoding.trace import Trace
from ...model.bundle import Model
from ...model.transformer import Transformer
from ..walkthrough import Kind
from .forward import Sentence
from .head import head_attention

Head = tuple[int, int]  # (layer, head)
SENTENCES = 64  # test pairs read: enough for a stable mean, quick enough to draw on a click
_cache: weakref.WeakKeyDictionary[Transformer, dict[tuple[object, ...], HeadSimilarity]] = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class HeadSimilarity:
    """``divergence[i, j]``: mean JSD (nats, 0..ln 2) between the rows of heads ``heads[i]`` and
    ``heads[j]`` ((layer, head) pairs, layer-major); ``order``: the heads with alike ones adjacent."""

    kind: Kind
    heads: tuple[tuple[int, int], ...]
    divergence: np.ndarray  # (N, N) float64, symmetric, zero diagonal
    order: np.ndarray  # (N,) a permutation of range(N)
    sentences: int
    rows: int  # query rows averaged over

    @property
    def ordered(self) -> np.ndarray:
        """``divergence`` with rows and columns in ``order``."""
        return np.asarray(self.divergence[np.ix_(self.order, self.order)])

    def most_alike(self) -> tuple[tuple[int, int], tuple[int, int], float]:
        """The two distinct heads with the smallest divergence (earlier layer first) and that divergence."""
        far = self.divergence + np.diag(np.full(len(self.heads), np.inf))
        i, j = np.unravel_index(int(np.argmin(far)), far.shape)
        a, b = sorted((self.heads[int(i)], self.heads[int(j)]))
        return a, b, float(far[i, j])


def head_similarity(model: Model, kind: Kind, sentences: int = SENTENCES) -> HeadSimilarity:
    """How alike the heads of ``kind`` are on the first ``sentences`` test pairs of ``model``'s
    task (InputError for a model whose task is not built in)."""
    check_kind(kind)
    key = (kind, sentences, model.facts.get("task"), *model.weights_version())
    kept = _cache.setdefault(model.net, {})
    if key not in kept:
        kept.clear()  # an older entry belongs to other weights, or to another kind: measuring is cheap
        measured = measure_similarity(model, kind, sentences)
        assert measured is not None, "nothing cancels it"
        kept[key] = measured
    return kept[key]


def measure_similarity(model: Model, kind: Kind, sentences: int = SENTENCES,
                       progress: Callable[[int, int], None] = lambda done, total: None,
                       cancelled: Callable[[], bool] = lambda: False) -> HeadSimilarity | None:
    """:func:`head_similarity` measured anew, for a worker thread: ``progress(pairs done, pairs)``
    after each test pair; None if ``cancelled()`` turns true between pairs."""
    check_kind(kind)
    return _measure(model, kind, sentences, progress, cancelled)


def _maps(trace: Trace, kind: Kind) -> np.ndarray:
    maps = {"encoder_self": trace.encoder_self_attention, "decoder_self": trace.decoder_self_attention,
            "cross": trace.cross_attention}[kind]
    return maps.astype(np.float64)


def _measure(model: Model, kind: Kind, sentences: int, progress: Callable[[int, int], None],
             cancelled: Callable[[], bool]) -> HeadSimilarity | None:
    pairs = held_out_pairs(model, "test")[:sentences]
    total, rows = None, 0
    for done, pair in enumerate(pairs):
        if cancelled():
            return None
        maps = _maps(teacher_force(model, pair.source, pair.target), kind)
        layers, heads = maps.shape[:2]
        summed = row_divergences(maps.reshape(layers * heads, *maps.shape[2:])).sum(axis=-1)
        total = summed if total is None else total + summed
        rows += maps.shape[2]
        progress(done + 1, len(pairs))
    assert total is not None, "every built-in task has test pairs"
    divergence = total / rows
    np.fill_diagonal(divergence, 0.0)
    return HeadSimilarity(kind, tuple((layer, head) for layer in range(layers) for head in range(heads)),
                          divergence, average_linkage_order(divergence), len(pairs), rows)


def row_divergences(maps: np.ndarray) -> np.ndarray:
    """(N, Q, K) attention maps -> (N, N, Q) JSD between row q of map i and row q of map j, as
    H(mixture) - mean of the two entropies. Keys a causal row cannot see weigh zero in both maps
    and add nothing, so a decoder row is compared over its visible keys only."""
    def entropy(p: np.ndarray) -> np.ndarray:
        return np.asarray(-np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0).sum(axis=-1))

    mixture = (maps[:, None] + maps[None, :]) / 2  # (N, N, Q, K)
    own = entropy(maps)  # (N, Q)
    return np.asarray(np.clip(entropy(mixture) - (own[:, None] + own[None, :]) / 2, 0.0, np.log(2)))


def map_divergence(a: np.ndarray, b: np.ndarray) -> float:
    """The mean JSD (nats) between the rows of two heads' (Q, K) maps of one sentence: the
    measure of :class:`HeadSimilarity`, on that sentence alone."""
    return float(row_divergences(np.stack([a, b]).astype(np.float64))[0, 1].mean())


def average_linkage_order(distance: np.ndarray) -> np.ndarray:
    """The leaves of an average-linkage dendrogram of ``distance`` (N, N), left to right: the
    two closest clusters merge first, so the most alike items end up side by side."""
    clusters: list[list[int]] = [[i] for i in range(len(distance))]
    while len(clusters) > 1:
        best = min(((distance[np.ix_(a, b)].mean(), i, j) for i, a in enumerate(clusters)
                    for j, b in enumerate(clusters) if i < j))
        _, i, j = best
        clusters[i] = clusters[i] + clusters[j]
        del clusters[j]
    return np.array(clusters[0] if clusters else [], dtype=np.int64)


@dataclass(frozen=True)
class Pair:
    """Heads ``a`` (the earlier) and ``b`` of ``kind``, their maps on one sentence and the mean
    JSD between them there (``sentence``) and over the test split (``split``)."""

    kind: Kind
    a: Head
    b: Head
    maps: tuple[np.ndarray, np.ndarray]  # (Q, K) each
    queries: list[str]
    keys: list[str]
    sentence: float
    split: float


def measure_pair(model: Model, sentence: Sentence, kind: Kind, a: Head, b: Head, split: float) -> Pair:
    """Both heads' maps for ``sentence`` (the walkthrough's weights) and their divergence."""
    first, second = sorted((a, b))
    walks = [head_attention(model, sentence, kind, *head) for head in (first, second)]
    maps = (walks[0].weights, walks[1].weights)
    return Pair(kind, first, second, maps, walks[0].query_tokens, walks[0].key_tokens, map_divergence(*maps), split)
