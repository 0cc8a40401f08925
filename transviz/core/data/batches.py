"""Sentence pairs as padded id tensors, and batches of similar length for training."""
from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import torch

from ..base.errors import ConfigError
from ..base.messages import translate_noop
from ..model.bundle import Model
from .tasks import Pair

Row = tuple[list[int], list[int]]  # source ids, target ids with start and end tokens
POOL = 50  # batches per pool sorted by length: wide enough to group lengths, narrow enough to stay random


def encode_pairs(model: Model, pairs: Sequence[Pair]) -> list[Row]:
    """Token ids of each pair in ``model``'s vocabularies; ConfigError if one is too long for it."""
    src_vocab, tgt_vocab, limit = model.src_vocab, model.tgt_vocab, model.config.max_len
    rows = []
    for pair in pairs:
        src = src_vocab.encode(pair.source).ids
        tgt = [tgt_vocab.bos_id] + tgt_vocab.encode(pair.target).ids + [tgt_vocab.eos_id]
        if len(src) > limit or len(tgt) - 1 > limit:
            raise ConfigError(
                translate_noop("CoreMessages", "the pair {0} is longer than this model's limit of {1} tokens"),
                repr(pair.source), limit)
        rows.append((src, tgt))
    return rows


def pad(rows: Sequence[Sequence[int]], pad_id: int, device: torch.device | str = "cpu") -> torch.Tensor:
    """Lists of ids -> ``(len(rows), longest)`` long tensor, padded on the right."""
    out = torch.full((len(rows), max(len(r) for r in rows)), pad_id, dtype=torch.long)
    for i, row in enumerate(rows):
        out[i, : len(row)] = torch.tensor(row, dtype=torch.long)
    return out.to(device)


@dataclass(frozen=True)
class Batch:
    src: torch.Tensor  # (B, S) source ids
    tgt_in: torch.Tensor  # (B, T) decoder inputs: start token, target
    tgt_out: torch.Tensor  # (B, T) what each position should predict: target, end token
    tokens: int  # real (non-padding) target tokens, counted on the host


def make_batch(rows: Sequence[Row], pad_id: int, device: torch.device | str = "cpu") -> Batch:
    src = pad([r[0] for r in rows], pad_id, device)
    tgt = pad([r[1] for r in rows], pad_id, device)
    tokens = sum(len(r[1]) - 1 for r in rows)
    return Batch(src, tgt[:, :-1], tgt[:, 1:], tokens)


def bucketed(rows: Sequence[Row], batch_size: int, rng: random.Random) -> Iterator[list[int]]:
    """Index lists of batches, epoch after epoch, forever.

    Each epoch shuffles the rows, sorts pools of ``POOL`` batches by length so that a batch holds
    sentences of similar length (little padding), cuts the pools into batches and shuffles those.
    """
    if not rows:
        raise ConfigError(translate_noop("CoreMessages", "there are no training pairs"))
    while True:
        order = list(range(len(rows)))
        rng.shuffle(order)
        batches = []
        for start in range(0, len(order), batch_size * POOL):
            pool = sorted(order[start : start + batch_size * POOL], key=lambda i: (len(rows[i][0]), len(rows[i][1])))
            batches += [pool[i : i + batch_size] for i in range(0, len(pool), batch_size)]
        rng.shuffle(batches)
        yield from batches
