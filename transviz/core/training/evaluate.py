"""Held-out evaluation: batched greedy decoding on the key/value cache, exact match per group,
teacher-forced loss and BLEU.

:func:`greedy_batch` decodes many sentences at once and gives the tokens
:func:`transviz.decode` gives one sentence at a time (the tests check it), in a fraction of the time.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F

from ..base.cores import computing
from ..base.errors import InputError
from ..base.messages import translate_noop
from ..data.batches import encode_pairs, make_batch, pad
from ..data.tasks import Pair
from ..model.bundle import Model, evaluating

BATCH = 256  # sentences decoded together


@dataclass(frozen=True)
class Evaluation:
    """Scores of a model on held-out pairs."""

    count: int  # pairs evaluated
    loss: float  # mean cross-entropy per target token, teacher forced, without label smoothing
    exact_match: float  # fraction of pairs whose greedy output equals the target token for token
    bleu: float | None  # corpus BLEU (sacrebleu, 0-100) for word-level targets, else None
    groups: dict[str, float] = field(default_factory=dict)  # exact match per pair group

    def to_dict(self) -> dict[str, object]:
        return {"count": self.count, "loss": self.loss, "exact_match": self.exact_match,
                "bleu": self.bleu, "groups": dict(self.groups)}


def greedy_ids(model: Model, src: torch.Tensor, steps: int) -> list[list[int]]:
    """Greedy outputs of a padded batch ``src`` (B, S), each cut before its end token."""
    net, vocab = model.net, model.tgt_vocab
    with computing(net.work(src.shape[0])):  # a step's work, and what runs between the steps
        state = net.start(net.encode(src))
        token = torch.full((src.shape[0],), vocab.bos_id, dtype=torch.long, device=src.device)
        done = torch.zeros_like(token, dtype=torch.bool)
        chosen = []
        for position in range(steps):
            step = net.step(token, state, return_attention=False)
            state = step.state
            # (B,); finished rows keep decoding, their tail is cut below; the model's rules as generate() has them
            token = model.generation.processed(step.logits, position, steps, vocab.eos_id).argmax(-1)
            chosen.append(token)
            done |= token == vocab.eos_id
            if bool(done.all()):
                break
        rows = torch.stack(chosen, dim=1).tolist()  # (B, t)
    return [row[: row.index(vocab.eos_id)] if vocab.eos_id in row else row for row in rows]


def greedy_batch(model: Model, sources: Sequence[str], max_len: int = 50, batch_size: int = BATCH) -> list[list[str]]:
    """Greedy translations of ``sources`` as target tokens (end token excluded).

    Sentences are sorted by length and decoded ``batch_size`` at a time with the cache and no
    attention maps; at most ``max_len`` tokens each (the end token included), as in :func:`transviz.decode`.
    """
    if max_len < 1:
        raise InputError(translate_noop("CoreMessages", "{0} must be at least 1, got {1}"), "max_len", str(max_len))
    ids = [model.source_tensor(model.encode_source(s))[0].tolist() for s in sources]  # a prompt's last token too
    steps = min(max_len, model.config.max_len)
    order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
    out: list[list[str]] = [[] for _ in ids]
    with evaluating(model):
        for start in range(0, len(order), batch_size):
            chunk = order[start : start + batch_size]
            src = pad([ids[i] for i in chunk], model.config.pad_id, model.device)
            for i, row in zip(chunk, greedy_ids(model, src, steps), strict=True):
                out[i] = model.tgt_vocab.tokens_of(row)
    return out


def teacher_forced_loss(model: Model, pairs: Sequence[Pair], batch_size: int = BATCH) -> float:
    """Mean cross-entropy per target token (end token included) with the gold prefix fed."""
    rows = encode_pairs(model, pairs)
    total, tokens = 0.0, 0
    with evaluating(model):
        for start in range(0, len(rows), batch_size):
            batch = make_batch(rows[start : start + batch_size], model.config.pad_id, model.device)
            logits = model.net(batch.src, batch.tgt_in).logits  # (B, T, V)
            total += float(F.cross_entropy(logits.flatten(0, 1).float(), batch.tgt_out.flatten(),
                                           ignore_index=model.config.pad_id, reduction="sum"))
            tokens += batch.tokens
    return total / tokens


def bleu(hypotheses: Sequence[str], references: Sequence[str]) -> float:
    import sacrebleu  # imported here: slow to import, and only word-level tasks need it

    return float(sacrebleu.corpus_bleu(list(hypotheses), [list(references)]).score)


def evaluate(model: Model, pairs: Sequence[Pair], max_len: int = 50) -> Evaluation:
    """Loss, exact match (overall and per group) and, for word-level targets, BLEU on ``pairs``."""
    if not pairs:
        raise InputError(translate_noop("CoreMessages", "there are no pairs to evaluate"))
    vocab = model.tgt_vocab
    outputs = greedy_batch(model, [p.source for p in pairs], max_len)
    golds = [vocab.tokenize(p.target) for p in pairs]
    hits = [out == gold for out, gold in zip(outputs, golds, strict=True)]
    by_group: dict[str, list[bool]] = defaultdict(list)
    for pair, hit in zip(pairs, hits, strict=True):
        by_group[pair.group].append(hit)
    score = None
    if vocab.level == "word":
        score = bleu([vocab.detokenize(o) for o in outputs], [vocab.detokenize(g) for g in golds])
    return Evaluation(
        count=len(pairs),
        loss=teacher_forced_loss(model, pairs),
        exact_match=sum(hits) / len(hits),
        bleu=score,
        groups={g: sum(h) / len(h) for g, h in sorted(by_group.items())},
    )
