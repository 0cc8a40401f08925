"""Interventions: change how attention runs, for a while, to test what the tutorials claim
(heads are redundant; the 1/sqrt(d_k) scale keeps softmax out of its flat region; Q and K need
their own weights; without positions word order is invisible). They are small frozen values,
composable, recorded with what they affected, and never change a weight: :func:`intervening`
sets them on the attention modules for the duration of a call and removes them afterwards.

Attention kinds are named as in traces: ``encoder_self``, ``decoder_self``, ``cross``. Layers and
heads count from 0.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Literal, cast

from .config import WHOLE_NUMBER
from .errors import ConfigError, InputError
from .messages import translate_noop
from .model import HeadEdit, MultiHeadAttention, Transformer

Kind = Literal["encoder_self", "decoder_self", "cross"]
KINDS: tuple[Kind, ...] = ("encoder_self", "decoder_self", "cross")
SIDES = ("encoder", "decoder", "both")
MODES = ("zero", "uniform")

NOT_A_KIND = translate_noop("CoreMessages", "the attention kind must be encoder_self, decoder_self or cross, got {0}")


def _check_kind(kind: object) -> None:
    if kind not in KINDS:
        raise ConfigError(NOT_A_KIND, repr(kind))


def _check_index(name: str, value: object) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ConfigError(WHOLE_NUMBER, name, repr(value))


@dataclass(frozen=True)
class AblateHead:
    """One head switched off: its output is zero (``zero``), or it attends uniformly over the keys
    it may see (``uniform``)."""

    kind: Kind
    layer: int
    head: int
    mode: Literal["zero", "uniform"] = "zero"

    def __post_init__(self) -> None:
        _check_kind(self.kind)
        _check_index("layer", self.layer)
        _check_index("head", self.head)
        if self.mode not in MODES:
            raise ConfigError(translate_noop("CoreMessages", "an ablation's mode must be zero or uniform, got {0}"),
                              repr(self.mode))


@dataclass(frozen=True)
class ScaleScores:
    """The scores' 1/sqrt(d_k) scaling multiplied by ``factor`` (1: the model; 0: uniform attention;
    large: a saturated softmax), everywhere or in one kind of attention, or one of its layers."""

    factor: float
    kind: Kind | None = None
    layer: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.factor, (int, float)) or isinstance(self.factor, bool) \
                or not math.isfinite(self.factor) or not 0 <= self.factor <= 1e6:
            raise ConfigError(translate_noop("CoreMessages", "the scale factor must be a number from 0 to 1e6, "
                                                             "got {0}"), repr(self.factor))
        if self.kind is not None:
            _check_kind(self.kind)
        if self.layer is not None:
            if self.kind is None:
                raise ConfigError(translate_noop("CoreMessages", "a layer to scale needs its attention kind too"))
            _check_index("layer", self.layer)


@dataclass(frozen=True)
class TieQueryKey:
    """Queries computed with the key projection (W_K and its bias), in one layer (one head, or
    all): a self-attention score matrix becomes symmetric."""

    kind: Kind
    layer: int
    head: int | None = None

    def __post_init__(self) -> None:
        _check_kind(self.kind)
        _check_index("layer", self.layer)
        if self.head is not None:
            _check_index("head", self.head)


@dataclass(frozen=True)
class NoPositions:
    """The positional encoding is not added to the inputs of the ``encoder``, the ``decoder`` or ``both``."""

    side: Literal["encoder", "decoder", "both"] = "both"

    def __post_init__(self) -> None:
        if self.side not in SIDES:
            raise ConfigError(translate_noop("CoreMessages", "positions can be left out of the encoder, the decoder "
                                                             "or both, got {0}"), repr(self.side))


Intervention = AblateHead | ScaleScores | TieQueryKey | NoPositions


def _modules(net: Transformer) -> dict[tuple[Kind, int], MultiHeadAttention]:
    """Every attention module by (kind, layer)."""
    found: dict[tuple[Kind, int], MultiHeadAttention] = {}
    for i, layer in enumerate(net.encoder_layers):
        found["encoder_self", i] = cast(MultiHeadAttention, layer.self_attn)
    for i, layer in enumerate(net.decoder_layers):
        found["decoder_self", i] = cast(MultiHeadAttention, layer.self_attn)
        found["cross", i] = cast(MultiHeadAttention, layer.cross_attn)
    return found


def _check_fits(net: Transformer, kind: Kind, layer: int, head: int | None) -> None:
    """InputError unless ``net`` has that layer (and head) of that kind."""
    cfg = net.config
    layers = cfg.n_encoder_layers if kind == "encoder_self" else cfg.n_decoder_layers
    if layer >= layers:
        raise InputError(translate_noop("CoreMessages", "no layer {0}: the {1} attention has layers 0 to {2}"),
                         layer, kind, layers - 1)
    if head is not None and head >= cfg.n_heads:
        raise InputError(translate_noop("CoreMessages", "no head {0}: this model has heads 0 to {1}"), head,
                         cfg.n_heads - 1)


def edits(net: Transformer, interventions: Iterable[Intervention]) -> tuple[dict[tuple[Kind, int], HeadEdit],
                                                                             frozenset[str]]:
    """What ``interventions`` do to ``net``: an edit per attention module they touch, and the
    stacks left without positions. InputError when one names a layer or head ``net`` lacks."""
    modules = _modules(net)
    found: dict[tuple[Kind, int], HeadEdit] = {}
    unpositioned: set[str] = set()

    def change(key: tuple[Kind, int], **fields: object) -> None:
        found[key] = replace(found.get(key, HeadEdit()), **fields)  # type: ignore[arg-type]

    for item in interventions:
        if isinstance(item, AblateHead):
            _check_fits(net, item.kind, item.layer, item.head)
            key = (item.kind, item.layer)
            heads = getattr(found.get(key, HeadEdit()), item.mode)
            change(key, **{item.mode: heads | {item.head}})
        elif isinstance(item, ScaleScores):
            if item.kind is not None and item.layer is not None:
                _check_fits(net, item.kind, item.layer, None)
            for key in modules:
                if item.kind in (None, key[0]) and item.layer in (None, key[1]):
                    change(key, scale=found.get(key, HeadEdit()).scale * item.factor)
        elif isinstance(item, TieQueryKey):
            _check_fits(net, item.kind, item.layer, item.head)
            key = (item.kind, item.layer)
            heads = range(net.config.n_heads) if item.head is None else (item.head,)
            change(key, tie=found.get(key, HeadEdit()).tie | set(heads))
        elif isinstance(item, NoPositions):
            unpositioned |= {"encoder", "decoder"} if item.side == "both" else {item.side}
        else:
            raise ConfigError(translate_noop("CoreMessages", "not an intervention: {0}"), repr(item))
    return found, frozenset(unpositioned)


@contextmanager
def intervening(net: Transformer, interventions: Iterable[Intervention]) -> Iterator[None]:
    """``net`` runs with ``interventions`` for the duration (none: it runs as it is). The model
    is shared state: two threads must not run one model with different interventions at once."""
    items = tuple(interventions)
    if not items:  # every decoding step passes here: nothing to look up
        yield
        return
    found, unpositioned = edits(net, items)
    modules = _modules(net)
    try:
        for key, edit in found.items():
            modules[key].edit = edit
        net.unpositioned = unpositioned
        yield
    finally:
        for module in modules.values():
            module.__dict__.pop("edit", None)
        net.__dict__.pop("unpositioned", None)
