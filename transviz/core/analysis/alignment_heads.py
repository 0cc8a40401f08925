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

A decoder-only model has cross maps too: its output rows over its source columns. Alignments count
words (or a character-level model's characters). A model that splits words into pieces (a Hugging
Face model's) is scored on words too, as word aligners read attention: a source word's weight is
the sum of its pieces' columns, and a target word is written by the row of its first piece. Pairs
run in batches, one forward pass each with every map.
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
    if not pairs:
        raise InputError(translate_noop("CoreMessages", "there are no pairs to evaluate"))
    if not 0 <= example < len(pairs):
        raise InputError(translate_noop("CoreMessages", "{0} must be from {1} to {2}, got {3}"), "example", 0,
                         len(pairs) - 1, example)
    cfg = model.config
    layers, heads = cfg.layer_count("cross"), cfg.n_heads
    tally = _Tally(layers, heads + 1)  # each layer's heads, then its mean map
    rows = encode_pairs(model, [p for p, _ in pairs])
    chosen: np.ndarray | None = None
    with evaluating(model):
        for first in range(0, len(rows), BATCH):
            if cancelled is not None and cancelled():
                raise Stopped
            maps = _maps(model, rows[first : first + BATCH])  # (B, layers, heads + 1, T, S)
            for b, (pair, gold) in enumerate(pairs[first : first + BATCH]):
                words = _choices(model, pair, maps[b])
                tally.add(words, len(model.src_vocab.alignment_units(pair.source)), gold)
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


def _maps(model: Model, rows: list[tuple[list[int], list[int]]]) -> torch.Tensor:
    """(B, layers, heads + 1, T, S): every head's cross-attention map and each layer's mean map, in
    one teacher-forced pass."""
    batch = make_batch(rows, model.config.pad_id, model.device)
    out = model.net(batch.src, batch.tgt_in, return_attention=True)
    assert out.attention is not None  # asked for with return_attention
    maps = torch.stack(out.attention.cross, dim=1).float()  # (B, layers, heads, T, S)
    return torch.cat([maps, maps.mean(dim=2, keepdim=True)], dim=2).cpu()


def _choices(model: Model, pair: Pair, maps: torch.Tensor) -> np.ndarray:
    """(layers, heads + 1, target words): the source word each map weighs most in the row that writes
    each target word's first token, its pieces' columns summed; -1 where a special token's column or
    padding weighs most. With one token per word this is each row's argmax column."""
    source_start, target_start = int(model.src_vocab.add_start), int(model.tgt_vocab.add_start)
    word_of_column = [-1] * maps.shape[-1]
    for token, word in enumerate(model.src_vocab.unit_of_tokens(pair.source)):
        if token + source_start < len(word_of_column):
            word_of_column[token + source_start] = word
    group_of: dict[tuple[str, int], int] = {}  # a word's columns share a group; any other column is one alone
    groups: list[int] = []
    names: list[int] = []  # each group's word, -1 for a column alone
    for column, word in enumerate(word_of_column):
        key = ("word", word) if word >= 0 else ("column", column)
        if key not in group_of:
            group_of[key] = len(names)
            names.append(word)
        groups.append(group_of[key])
    target_units = model.tgt_vocab.unit_of_tokens(pair.target)
    first_rows = [target_start + j for j, unit in enumerate(target_units) if unit >= 0 and unit not in target_units[:j]]
    picked = maps[..., first_rows, :]
    summed = torch.zeros(*picked.shape[:-1], len(names)).index_add_(-1, torch.tensor(groups), picked)
    chosen: np.ndarray = np.asarray(names)[summed.argmax(dim=-1).numpy()]
    return chosen


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
    source, target = model.src_vocab.alignment_units(pair.source), model.tgt_vocab.alignment_units(pair.target)
    layer, head = result.best
    predicted = tuple((int(i), j) for j, i in enumerate(argmax[layer, head]) if 0 <= i < len(source))
    example = ExampleAlignment(tuple(source), tuple(target), result.best, predicted, tuple(sorted(gold.sure)),
                               tuple(sorted(gold.possible)))
    return dataclasses.replace(result, example=example)
