"""Trains in parallel, decodes one token at a time (seed 001, "Transformer 的并行性体现在哪里"):
with teacher forcing the decoder reads all T target tokens in one pass, while generating needs T
steps, each waiting for the token before. Measured here on the loaded model, beside a GRU of the
same width, which must step through time in training too.

Times are wall-clock seconds on the CPU (medians of a few repeats) on one thread, and vary from run
to run; on one thread nothing runs at the same time, so the gap between the pass and the steps is
what T calls cost against one, not parallel work. What the tutorial's "parallel" means is what
:func:`chains` counts: the longest chain of layers that must run one after another, which no number
of processors can shorten. What does not vary either is that the T cached steps compute the same
logits as the one pass (:func:`cached_logits`), which is why training may take the shortcut.
"""
from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

import torch
from torch import Tensor, nn

from ...model.bundle import Model, evaluating
from ...model.transformer import Encoded
from ...model.vocab import SPECIALS
from .forward import Sentence, model_inputs
from .timing import one_thread

LENGTHS = (8, 16, 32, 64)  # decoder tokens T timed: all of it about half a second for the shipped model
REPEATS = 3


@dataclass(frozen=True)
class ParallelTimes:
    """Seconds per length of ``lengths``: the decoder's one teacher-forced pass over T tokens,
    T cached decoding steps, and a GRU (the decoder's width and layers) over T inputs. The
    encoder runs once before, outside the timings."""

    lengths: tuple[int, ...]
    teacher_forced: tuple[float, ...]
    cached_steps: tuple[float, ...]
    gru: tuple[float, ...]
    threads: int  # torch's threads while they were timed
    repeats: int  # runs of each, of which the times are the medians


@dataclass(frozen=True)
class Chains:
    """Per length of ``lengths``: the layer applications on the longest chain in which each must
    wait for the one before, for the decoder's teacher-forced pass, for generating T tokens with it
    and for a GRU of ``layers`` layers over T inputs. The output layers and the encoder, the same
    for all, are left out."""

    layers: int
    lengths: tuple[int, ...]
    teacher_forced: tuple[int, ...]
    generating: tuple[int, ...]
    gru: tuple[int, ...]


def chains(layers: int, lengths: Sequence[int]) -> Chains:
    """The longest chains for ``layers`` layers: in the pass, position t of a layer needs only the
    layer below (at positions up to t), so the chain is the layers; generating, step t's input is
    step t-1's output, which went through every layer; a GRU's layer at step t needs its own state
    at step t-1 and the layer below at step t, a wavefront of T + layers - 1."""
    lengths = tuple(lengths)
    return Chains(layers, lengths, tuple(layers for _ in lengths), tuple(t * layers for t in lengths),
                  tuple(t + layers - 1 for t in lengths))


def decoder_inputs(model: Model, length: int) -> Tensor:
    """``length`` decoder inputs (1, T): the start token, then ordinary tokens of the vocabulary
    in turn (what they are does not change the time, and the same ids make runs comparable)."""
    vocab = model.tgt_vocab
    ordinary = list(range(len(SPECIALS), len(vocab)))
    ids = [vocab.bos_id, *(ordinary[i % len(ordinary)] for i in range(length - 1))]
    return torch.tensor([ids], dtype=torch.long, device=model.device)


def teacher_forced_logits(model: Model, encoded: Encoded, tokens: Tensor) -> Tensor:
    """Logits (T, V) of the decoder reading ``tokens`` (1, T) all at once."""
    return model.net.decode(tokens, encoded).logits[0]


def cached_logits(model: Model, encoded: Encoded, tokens: Tensor) -> Tensor:
    """Logits (T, V) of the decoder fed ``tokens`` one at a time, with its key/value cache."""
    state = model.net.start(encoded)
    rows = []
    for position in range(tokens.shape[1]):
        out = model.net.step(tokens[:, position], state, return_attention=False)
        rows.append(out.logits[0])
        state = out.state
    return torch.stack(rows)


def median_seconds(work: Callable[[], object], repeats: int) -> float:
    """Median wall-clock time of ``work`` over ``repeats`` runs."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def time_parallel(model: Model, sentence: Sentence, lengths: Sequence[int] = LENGTHS,
                  repeats: int = REPEATS) -> ParallelTimes:
    """Time the three ways over each of ``lengths`` (those the model reads: at most max_len),
    the decoder attending to ``sentence``'s source, on one thread."""
    cfg = model.config
    lengths = tuple(sorted(length for length in set(lengths) if 0 < length <= cfg.max_len))
    torch.manual_seed(0)  # the GRU's weights: its time does not depend on them
    gru = nn.GRU(cfg.d_model, cfg.d_model, num_layers=cfg.n_decoder_layers, batch_first=True).to(model.device)
    forced, cached, recurrent = [], [], []
    with evaluating(model), one_thread():
        encoded = model.net.encode(model_inputs(model, sentence).source_ids)
        warm_up = decoder_inputs(model, 2)  # the first calls pay for allocations, not for the work
        cached_logits(model, encoded, warm_up)
        gru(torch.zeros(1, 2, cfg.d_model, device=model.device))
        for length in lengths:
            tokens = decoder_inputs(model, length)
            inputs = torch.randn(1, length, cfg.d_model, device=model.device)
            forced.append(median_seconds(partial(teacher_forced_logits, model, encoded, tokens), repeats))
            cached.append(median_seconds(partial(cached_logits, model, encoded, tokens), repeats))
            recurrent.append(median_seconds(partial(gru, inputs), repeats))
        threads = torch.get_num_threads()
    return ParallelTimes(lengths, tuple(forced), tuple(cached), tuple(recurrent), threads, repeats)
