"""Figures of step-through decoding: the latency of one DecodingSession.step() (a student holding
the step key down must see every token at once) and memory across step/back cycles."""
from __future__ import annotations

import functools
import os
import statistics
import sys

import torch

from ..core.decoding.session import DecodingSession
from ..core.io.resources import DEFAULT_MODEL, shipped_models
from ..core.model.bundle import Model
from ..core.model.config import ModelConfig
from ..core.model.transformer import Transformer
from ..core.model.vocab import Vocab
from . import LOADED_SLOWDOWN, figure, seconds, size
from .core import BASE

# The size the shipped default model is trained at (used while no shipped file exists).
SHIPPED_SIZE = ModelConfig(300, 300, d_model=128, n_heads=4, n_encoder_layers=3, n_decoder_layers=3, d_ff=512,
                           dropout=0.0, max_len=128)


def _fresh_model(config: ModelConfig) -> Model:
    """An initialised model with word vocabularies; it never writes the end token, so it decodes up to max_len."""
    torch.manual_seed(0)
    net = Transformer(config).eval()
    with torch.no_grad():
        net.generator.bias[2] = -1e4  # </s>
    src = Vocab(f"s{i}" for i in range(config.src_vocab_size - 4))
    tgt = Vocab(f"t{i}" for i in range(config.tgt_vocab_size - 4))
    return Model(net, src, tgt)


@functools.lru_cache(maxsize=1)
def _default_model() -> Model:
    from ..core.io import checkpoint

    shipped = shipped_models().get(DEFAULT_MODEL)
    return checkpoint.load(shipped) if shipped else _fresh_model(SHIPPED_SIZE)


def _sentence(model: Model, words: int = 8) -> str:
    tokens = model.src_vocab.itos[4 : 4 + words]
    return ("" if model.src_vocab.level == "char" else " ").join(tokens)


def _step_times(session: DecodingSession, steps: int) -> list[float]:
    times = []
    session.reset()
    for _ in range(steps):
        if session.cant_step():
            break
        times.append(seconds(session.step))
    return times


@figure("session_step_ms_default", "ms", 5.0, "lower", loaded_limit=LOADED_SLOWDOWN)
def step_default() -> float:
    """One DecodingSession.step() with its StepRecord, shipped default model
    (until it ships: a fresh 3x4x128 model, vocab 300)."""
    model = _default_model()
    session = DecodingSession(model, _sentence(model), max_len=20)
    _step_times(session, 20)  # warm-up
    times = [t for _ in range(size(30)) for t in _step_times(session, 20)]
    return 1000 * statistics.median(times)


def _base_step_ms_at(position: int, runs: int = 7) -> float:
    model = _fresh_model(BASE)
    session = DecodingSession(model, _sentence(model, 20), max_len=position + 1)
    return 1000 * statistics.median(_step_times(session, position + 1)[position] for _ in range(size(runs)))


@figure("session_step_ms_6x8x512_at_10", "ms", 16.0, "lower")
def step_base_at_10() -> float:
    """One DecodingSession.step() with its StepRecord at position 10, 6x8x512 model (target: one 60 fps frame)."""
    return _base_step_ms_at(10)


@figure("session_step_ms_6x8x512_at_100", "ms", 16.0, "lower")
def step_base_at_100() -> float:
    """One DecodingSession.step() with its StepRecord at position 100, 6x8x512 model (target: one 60 fps frame)."""
    return _base_step_ms_at(100)


def _rss_mb() -> float:
    """Resident memory now (Linux); elsewhere the peak, which can only overstate growth."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak / 2**20 if sys.platform == "darwin" else peak / 2**10


@figure("session_rss_growth_mb_10k", "MB", 5.0, "lower")
def rss_growth() -> float:
    """Resident memory after 10,000 step()/back() cycles minus before, shipped default model (or its size)."""
    model = _default_model()
    session = DecodingSession(model, _sentence(model), max_len=20)
    session.run_to_end()
    session.rewind(min(5, session.position - 1))  # a position from which a step is possible

    def cycles(n: int) -> None:
        for _ in range(n):
            session.step()
            session.back()

    cycles(size(500, 10))  # allocator and caches warm
    before = _rss_mb()
    cycles(size(10_000, 100))
    return _rss_mb() - before
