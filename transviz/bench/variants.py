"""Figures of the sibling models (today's variants of attention, recipes.SIBLING_CHANGES): a decoding
step of each beside the shipped default's, measured in turns in one run, and the bytes each decoded
token adds to the KV cache, counted from the cache's own tensors."""
from __future__ import annotations

import dataclasses
import functools
import statistics

import torch

from ..core.decoding.session import DecodingSession
from ..core.io.resources import shipped_models
from ..core.model.bundle import Model
from ..core.training.recipes import SIBLING_CHANGES
from . import figure, size
from .session import SHIPPED_SIZE, _default_model, _fresh_model, _sentence, _step_times

STEP_RATIO = 1.25  # a step of a sibling may take this many times the default's


@functools.cache
def sibling_model(name: str) -> Model:
    """The shipped sibling ``name`` (until it ships: a fresh model of its recipe, at the default's size)."""
    from ..core.io import checkpoint

    shipped = shipped_models().get(name)
    if shipped:
        return checkpoint.load(shipped)
    return _fresh_model(dataclasses.replace(SHIPPED_SIZE, **SIBLING_CHANGES[name][0]))


@functools.cache
def step_ms(name: str) -> tuple[float, float]:
    """Median ms of one DecodingSession.step() of the sibling and of the default, in turns."""
    sessions = [DecodingSession(model, _sentence(model), max_len=20) for model in (sibling_model(name),
                                                                                  _default_model())]
    times: list[list[float]] = [[], []]
    for session in sessions:
        _step_times(session, 20)  # warm-up
    for _ in range(size(30)):
        for session, measured in zip(sessions, times, strict=True):
            measured.extend(_step_times(session, 20))
    return 1000 * statistics.median(times[0]), 1000 * statistics.median(times[1])


def cache_bytes_per_token(model: Model, tokens: int = 12) -> float:
    """The bytes of the keys and values the decoder caches, per token fed, after ``tokens`` steps."""
    net = model.net
    with torch.no_grad():
        state = net.start(net.encode(torch.tensor([model.src_vocab.encode(_sentence(model)).ids])))
        for _ in range(tokens):
            state = net.step(torch.tensor([model.tgt_vocab.bos_id]), state, return_attention=False).state
    assert state.self_kv is not None
    return sum(t.numel() * t.element_size() for kv in state.self_kv for t in kv) / tokens


def _register(name: str) -> None:
    def step() -> float:
        return step_ms(name)[0]

    def ratio() -> float:
        sibling, default = step_ms(name)
        return sibling / default

    def cache() -> float:
        return cache_bytes_per_token(sibling_model(name))

    step.__doc__ = f"One DecodingSession.step() of the {name} sibling, measured in turns with the default's."
    ratio.__doc__ = f"The {name} sibling's step over the default's, in one run (target: at most {STEP_RATIO}x)."
    cache.__doc__ = (f"Bytes the {name} sibling's KV cache grows by per decoded token, counted from its tensors "
                     "(target: the README's formula, 2 x layers x KV heads x d_k x 4).")
    formula = dataclasses.replace(SHIPPED_SIZE, **SIBLING_CHANGES[name][0]).kv_cache_bytes_per_token()
    figure(f"variant_step_ms_{name}", "ms", 5.0, "lower")(step)
    figure(f"variant_step_ratio_{name}", "x", STEP_RATIO, "lower")(ratio)
    figure(f"kv_cache_bytes_per_token_{name}", "bytes", formula, "lower")(cache)


for _name in SIBLING_CHANGES:
    _register(_name)
