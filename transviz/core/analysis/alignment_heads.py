"""Heads that align: how often each cross-attention head looks at the source word the target word
it writes translates (issue 39, item 3).

Every pair is teacher forced on its gold target, so row ``j`` of a cross-attention map is the step
that writes target token ``j``; the row that writes the end token is never scored, and a source
column that is a start or end token is no word. For each head, and for each layer's mean map (the
mean of its heads' maps, as the app's ``mean`` view shows it), the strongest source column of
every row is that head's argmax alignment, scored two ways:

* accuracy: among the target tokens with at least one gold link (sure or possible), the share
  whose argmax source token is one of them;
* alignment error rate of the argmax alignment A (one link per target token) against the sure
  links S and possible links P: AER = 1 - (|A∩S| + |A∩P|) / (|A| + |S|), summed over the corpus.

A decoder-only model has cross maps too: its output rows over its source columns. Scoring needs
the model's own tokens to be the words the alignments count, so a subword vocabulary (a Hugging
Face model's) is refused. Pairs run in batches, one forward pass each with every map.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from ..base.errors import InputError
from ..base.messages import translate_noop
from ..data.alignments import Alignment, aligned_corpus
from ..data.batches import encode_pairs, make_batch
from ..data.dataset import Link, Pair
from ..data.held_out import SPLITS, held_out_pairs
from ..io.hf_vocab import TokenizerVocab
from ..model.bundle import Model, evaluating

Head = tuple[int, int]  # (layer, head)
Progress = Callable[[int, int], None]  # (pairs scored, pairs to score)
Cancelled = Callable[[], bool]  # asked between batches; True stops the measurement
BATCH = 128  # pairs in one forward pass


class Stopped(Exception):
    """The caller asked the measurement to stop."""


@dataclass(frozen=True)
class ExampleAlignment:
    """One sentence's argmax alignment of one head beside its gold alignment, for a view."""

    source_tokens: tuple[str, ...]  # the words links count, specials left out
    target_tokens: tuple[str, ...]
    head: Head
    predicted: tuple[Link, ...]  # (source, target): the argmax source token of each target token
    sure: tuple[Link, ...]
    possible: tuple[Link, ...]  # sure ones included


@dataclass(frozen=True)
class HeadAlignment:
    """How well each cross-attention head's argmax aligns, over ``sentences`` pairs."""

    accuracy: np.ndarray  # (layers, heads): share of gold-linked target tokens whose argmax is a gold source
    aer: np.ndarray  # (layers, heads): alignment error rate of the argmax alignment
    layer_accuracy: np.ndarray  # (layers,): the same for each layer's mean map
    layer_aer: np.ndarray  # (layers,)
    ranking: tuple[Head, ...]  # best first: accuracy down, then AER up
    sentences: int  # pairs scored
    steps: int  # target tokens with a gold link (the accuracy's denominator)
    tokens: int  # target tokens, the end token left out (|A| for a head that never looks at a special)
    sure_links: int  # |S|
    # the AER of a perfect head, whose argmax is a gold source for each gold-linked target token: one
    # link a target token cannot match several gold ones (中 and 国 -> "china"), so it is above 0 then
    aer_floor: float
    example: ExampleAlignment | None  # the chosen sentence under the best head

    @property
    def best(self) -> Head:
        return self.ranking[0]


def gold_pairs(model: Model, data: str = "test", alignments: str | None = None) -> list[tuple[Pair, Alignment]]:
    """The pairs to score: the ``test`` or ``valid`` split of the model's task with the task's gold
    alignments, or the ``source<TAB>target`` file ``data`` with the file ``alignments`` beside it."""
    _check_vocabularies(model)
    if alignments is not None:
        return aligned_corpus(data, alignments, model.src_vocab, model.tgt_vocab)
    if data not in SPLITS:
        raise InputError(translate_noop("CoreMessages", "a corpus of your own needs its file of alignments beside it "
                                                        "(one line of links like 0-0 1-2 per sentence pair)"))
    pairs = [(p, Alignment.of(p)) for p in held_out_pairs(model, data) if p.alignment]
    if not pairs:
        raise InputError(translate_noop("CoreMessages", "the task {0} has no gold alignments: give a corpus and its "
                                                        "file of alignments"), repr(model.facts.get("task")))
    return pairs


def alignment_heads(model: Model, pairs: Sequence[tuple[Pair, Alignment]], example: int = 0,
                    on_progress: Progress | None = None, cancelled: Cancelled | None = None) -> HeadAlignment:
    """Score every cross-attention head and layer mean of ``model`` on ``pairs`` (see the module's
    docstring); ``example`` picks the pair whose best-head alignment the result shows. Raises
    :class:`Stopped` once ``cancelled()`` says so (checked between batches)."""
    _check_vocabularies(model)
    if not pairs:
        raise InputError(translate_noop("CoreMessages", "there are no pairs to evaluate"))
    if not 0 <= example < len(pairs):
        raise InputError(translate_noop("CoreMessages", "{0} must be from {1} to {2}, got {3}"), "example", 0,
                         len(pairs) - 1, example)
    cfg = model.config
    layers, heads = cfg.layer_count("cross"), cfg.n_heads
    tally = _Tally(layers, heads + 1)  # each layer's heads, then its mean map
    rows = encode_pairs(model, [p for p, _ in pairs])
    # a vocabulary that puts <s> first shifts the columns (source) or rows (target) by one
    source_start, target_start = int(model.src_vocab.add_start), int(model.tgt_vocab.add_start)
    chosen: np.ndarray | None = None
    with evaluating(model):
        for first in range(0, len(rows), BATCH):
            if cancelled is not None and cancelled():
                raise Stopped
            argmax = _argmax(model, rows[first : first + BATCH])  # (B, layers, heads + 1, T)
            for b, (pair, gold) in enumerate(pairs[first : first + BATCH]):
                sources, targets = _lengths(model, pair)
                words = argmax[b, ..., target_start : target_start + targets] - source_start
                tally.add(words, sources, gold)
                if first + b == example:
                    chosen = words
            if on_progress is not None:
                on_progress(min(first + BATCH, len(rows)), len(rows))
    result = tally.result(len(pairs))
    assert chosen is not None  # example is in range
    return _with_example(result, model, pairs[example], chosen)


_KEPT: dict[int, tuple[Model, tuple[int, ...], HeadAlignment]] = {}  # the last model scored, by id


def test_split_alignment(model: Model) -> HeadAlignment:
    """``model``'s heads scored on its task's test split, kept while its weights stay the same: a
    view redrawn at every step and a quiz asked at every step read the same scores."""
    kept = _KEPT.get(id(model))
    if kept is None or kept[0] is not model or kept[1] != model.weights_version():
        keep_test_split_alignment(model, alignment_heads(model, gold_pairs(model)))
        kept = _KEPT[id(model)]
    return kept[2]


def keep_test_split_alignment(model: Model, scores: HeadAlignment) -> None:
    """Keep ``scores`` as ``model``'s, computed by a worker on a copy with the same weights: the
    next :func:`test_split_alignment` of ``model`` reads them instead of scoring again."""
    _KEPT.clear()
    _KEPT[id(model)] = (model, model.weights_version(), scores)


def _check_vocabularies(model: Model) -> None:
    if isinstance(model.src_vocab, TokenizerVocab) or isinstance(model.tgt_vocab, TokenizerVocab):
        raise InputError(translate_noop("CoreMessages", "scoring alignments needs a model whose tokens are words or "
                                                        "characters; this model splits words into subword pieces, "
                                                        "which alignments of words do not count"))


def _argmax(model: Model, rows: list[tuple[list[int], list[int]]]) -> np.ndarray:
    """(B, layers, heads + 1, T): the strongest source column of every row of every head, and of
    each layer's mean map, in one teacher-forced pass."""
    batch = make_batch(rows, model.config.pad_id, model.device)
    out = model.net(batch.src, batch.tgt_in, return_attention=True)
    assert out.attention is not None  # asked for with return_attention
    maps = torch.stack(out.attention.cross, dim=1).float()  # (B, layers, heads, T, S)
    maps = torch.cat([maps, maps.mean(dim=2, keepdim=True)], dim=2)  # (B, layers, heads + 1, T, S)
    return maps.argmax(dim=-1).cpu().numpy()


def _lengths(model: Model, pair: Pair) -> tuple[int, int]:
    return len(model.src_vocab.tokenize(pair.source)), len(model.tgt_vocab.tokenize(pair.target))


class _Tally:
    """Counts over the corpus, per (layer, head or mean)."""

    def __init__(self, layers: int, heads: int) -> None:
        shape = (layers, heads)
        self.hits, self.a, self.a_sure, self.a_possible = (np.zeros(shape, dtype=np.int64) for _ in range(4))
        self.steps = self.tokens = self.sure = self.sure_steps = 0

    def add(self, rows: np.ndarray, sources: int, gold: Alignment) -> None:
        """``rows`` (layers, heads, targets): the argmax source token of the rows that write the
        target's tokens (the end token's left out); negative or past ``sources``: a special token."""
        targets = rows.shape[-1]
        real = (rows >= 0) & (rows < sources)
        sure, possible = _mask(gold.sure, sources, targets), _mask(gold.possible, sources, targets)
        picked = np.where(real, rows, 0)
        columns = np.arange(targets)
        in_sure = real & sure[picked, columns]
        in_possible = real & possible[picked, columns]
        linked = possible.any(axis=0)  # target tokens with a gold link
        self.hits += (in_possible & linked).sum(axis=-1)
        self.a += real.sum(axis=-1)
        self.a_sure += in_sure.sum(axis=-1)
        self.a_possible += in_possible.sum(axis=-1)
        self.steps += int(linked.sum())
        self.sure_steps += int(sure.any(axis=0).sum())
        self.tokens += targets
        self.sure += len(gold.sure)

    def result(self, sentences: int) -> HeadAlignment:
        accuracy = self.hits / max(self.steps, 1)
        aer = 1.0 - (self.a_sure + self.a_possible) / np.maximum(self.a + self.sure, 1)
        heads = accuracy.shape[1] - 1
        ranking = tuple(sorted(((layer, head) for layer in range(accuracy.shape[0]) for head in range(heads)),
                               key=lambda h: (-accuracy[h], aer[h], h)))
        floor = 1.0 - (self.steps + self.sure_steps) / max(self.tokens + self.sure, 1)
        return HeadAlignment(accuracy[:, :heads], aer[:, :heads], accuracy[:, heads], aer[:, heads], ranking,
                             sentences, self.steps, self.tokens, self.sure, floor, None)


def _mask(links: frozenset[Link], sources: int, targets: int) -> np.ndarray:
    mask = np.zeros((sources, targets), dtype=bool)
    for i, j in links:
        mask[i, j] = True
    return mask


def _with_example(result: HeadAlignment, model: Model, item: tuple[Pair, Alignment],
                  argmax: np.ndarray) -> HeadAlignment:
    pair, gold = item
    source, target = model.src_vocab.tokenize(pair.source), model.tgt_vocab.tokenize(pair.target)
    layer, head = result.best
    predicted = tuple((int(i), j) for j, i in enumerate(argmax[layer, head]) if 0 <= i < len(source))
    example = ExampleAlignment(tuple(source), tuple(target), result.best, predicted, tuple(sorted(gold.sure)),
                               tuple(sorted(gold.possible)))
    return dataclasses.replace(result, example=example)
