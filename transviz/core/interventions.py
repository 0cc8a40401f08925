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
from typing import Any, Literal

from torch import Tensor

from .bundle import Model
from .config import WHOLE_NUMBER
from .errors import ConfigError, InputError
from .head_means import output_means
from .messages import translate_noop
from .model import HeadEdit, PatternKey, RowEdit, Transformer

Kind = Literal["encoder_self", "decoder_self", "cross"]
KINDS: tuple[Kind, ...] = ("encoder_self", "decoder_self", "cross")
SIDES = ("encoder", "decoder", "both")
MODES = ("zero", "uniform", "mean", "copy")
MAX_ROW = 8192  # weights of an edited row: no model here reads longer sentences

NOT_A_KIND = translate_noop("CoreMessages", "the attention kind must be encoder_self, decoder_self or cross, got {0}")


def check_kind(kind: object) -> None:
    if kind not in KINDS:
        raise ConfigError(NOT_A_KIND, repr(kind))


def _check_index(name: str, value: object) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ConfigError(WHOLE_NUMBER, name, repr(value))


@dataclass(frozen=True)
class AblateHead:
    """One head switched off: its output is zero (``zero``) or its mean over the task's validation
    sentences (``mean``); or it attends uniformly over the keys it may see (``uniform``), or with
    the attention pattern of another head of the same kind, ``source`` = (layer, head), in the same
    or an earlier layer (``copy``)."""

    kind: Kind
    layer: int
    head: int
    mode: Literal["zero", "uniform", "mean", "copy"] = "zero"
    source: tuple[int, int] | None = None

    def __post_init__(self) -> None:
        check_kind(self.kind)
        _check_index("layer", self.layer)
        _check_index("head", self.head)
        if self.mode not in MODES:
            raise ConfigError(translate_noop("CoreMessages", "an ablation's mode must be zero, uniform, mean or copy, "
                                                             "got {0}"), repr(self.mode))
        if (self.mode == "copy") != (self.source is not None):
            raise ConfigError(translate_noop("CoreMessages", "a head copies another's pattern when, and only when, "
                                                             "the ablation's mode is copy and it names a source head"))
        if self.source is not None:
            self._check_source(self.source)

    def _check_source(self, source: object) -> None:
        if not isinstance(source, (tuple, list)) or len(source) != 2:
            raise ConfigError(translate_noop("CoreMessages", "a source head is (layer, head), got {0}"), repr(source))
        _check_index("source layer", source[0])
        _check_index("source head", source[1])
        object.__setattr__(self, "source", tuple(source))  # a list from JSON: a value stays hashable
        if (source[0], source[1]) == (self.layer, self.head) or source[0] > self.layer:
            raise ConfigError(translate_noop("CoreMessages", "a head can copy the pattern of another head in the same "
                                                             "or an earlier layer, got {0} for layer {1}, head {2}"),
                              repr(tuple(source)), self.layer, self.head)


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
            check_kind(self.kind)
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
        check_kind(self.kind)
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


@dataclass(frozen=True)
class EditAttention:
    """One query row of one head set by hand (what if this head had looked at that word?):
    ``weights`` over the keys from the first, renormalised to sum to 1, keys the query may not see
    left at 0. ``query`` is the row's position: a source token in ``encoder_self``, an output
    position (the start token is 0) in ``decoder_self`` and ``cross``."""

    kind: Kind
    layer: int
    head: int
    query: int
    weights: tuple[float, ...]

    def __post_init__(self) -> None:
        check_kind(self.kind)
        for name in ("layer", "head", "query"):
            _check_index(name, getattr(self, name))
        weights = self.weights
        if not isinstance(weights, (tuple, list)) or not 0 < len(weights) <= MAX_ROW or not all(
                isinstance(w, (int, float)) and not isinstance(w, bool) and math.isfinite(w) and w >= 0
                for w in weights) or not sum(weights) > 0:
            raise ConfigError(translate_noop("CoreMessages", "an edited row needs 1 to {0} weights, none negative, "
                                                             "not all 0"), MAX_ROW)
        object.__setattr__(self, "weights", tuple(float(w) for w in weights))


Intervention = AblateHead | ScaleScores | TieQueryKey | NoPositions | EditAttention


def layer_count(net: Transformer, kind: Kind) -> int:
    """How many layers ``net`` has of the ``kind`` attention."""
    return net.config.n_encoder_layers if kind == "encoder_self" else net.config.n_decoder_layers


def _check_fits(net: Transformer, kind: Kind, layer: int, head: int | None) -> None:
    """InputError unless ``net`` has that layer (and head) of that kind."""
    cfg = net.config
    layers = layer_count(net, kind)
    if layer >= layers:
        raise InputError(translate_noop("CoreMessages", "no layer {0}: the {1} attention has layers 0 to {2}"),
                         layer, kind, layers - 1)
    if head is not None and head >= cfg.n_heads:
        raise InputError(translate_noop("CoreMessages", "no head {0}: this model has heads 0 to {1}"), head,
                         cfg.n_heads - 1)


class _Edits:
    """The edits of every attention module that a list of interventions touches."""

    def __init__(self, model: Model) -> None:
        self.model, self.net = model, model.net
        self.modules = model.net.attention_modules()
        self.found: dict[tuple[str, int], HeadEdit] = {}
        self.unpositioned: set[str] = set()
        self.boards: dict[Kind, dict[PatternKey, Tensor]] = {}
        self._means: dict[tuple[str, int], Tensor] | None = None

    def get(self, key: tuple[str, int]) -> HeadEdit:
        return self.found.get(key, HeadEdit())

    def change(self, key: tuple[str, int], **fields: Any) -> None:
        self.found[key] = replace(self.get(key), **fields)

    def add(self, item: Intervention) -> None:
        if isinstance(item, AblateHead):
            self.ablate(item)
        elif isinstance(item, ScaleScores):
            if item.kind is not None and item.layer is not None:
                _check_fits(self.net, item.kind, item.layer, None)
            for key in self.modules:
                if item.kind in (None, key[0]) and item.layer in (None, key[1]):
                    self.change(key, scale=self.get(key).scale * item.factor)
        elif isinstance(item, TieQueryKey):
            _check_fits(self.net, item.kind, item.layer, item.head)
            heads = range(self.net.config.n_heads) if item.head is None else (item.head,)
            key = (item.kind, item.layer)
            self.change(key, tie=self.get(key).tie | set(heads))
        elif isinstance(item, NoPositions):
            self.unpositioned |= {"encoder", "decoder"} if item.side == "both" else {item.side}
        elif isinstance(item, EditAttention):
            _check_fits(self.net, item.kind, item.layer, item.head)
            key = (item.kind, item.layer)
            self.change(key, rows=(*self.get(key).rows, RowEdit(item.head, item.query, item.weights)))
        else:
            raise ConfigError(translate_noop("CoreMessages", "not an intervention: {0}"), repr(item))

    def ablate(self, item: AblateHead) -> None:
        _check_fits(self.net, item.kind, item.layer, item.head)
        key = (item.kind, item.layer)
        edit = self.get(key)
        if item.mode == "zero":
            self.change(key, zero=edit.zero | {item.head})
        elif item.mode == "uniform":
            self.change(key, uniform=edit.uniform | {item.head})
        elif item.mode == "mean":
            self.change(key, mean=(*edit.mean, (item.head, self.means()[key][item.head])))
        else:
            assert item.source is not None  # AblateHead checks that copy names a source
            self.copy(item.kind, key, item.head, item.source)

    def copy(self, kind: Kind, key: tuple[str, int], head: int, source: PatternKey) -> None:
        """``head`` of module ``key`` uses the pattern of ``source``, which that module hands over."""
        _check_fits(self.net, kind, *source)
        board = self.boards.setdefault(kind, {})
        giver = (kind, source[0])
        self.change(giver, publish=(*self.get(giver).publish, source), board=board)
        self.change(key, copy=(*self.get(key).copy, (head, source)), board=board)

    def means(self) -> dict[tuple[str, int], Tensor]:
        if self._means is None:
            self._means = output_means(self.model)
        return self._means


def edits(model: Model, interventions: Iterable[Intervention]) -> tuple[dict[tuple[str, int], HeadEdit],
                                                                     frozenset[str]]:
    """What ``interventions`` do to ``model``: an edit per attention module they touch, and the
    stacks left without positions. InputError when one names a layer or head the model lacks."""
    found = _Edits(model)
    for item in interventions:
        found.add(item)
    return found.found, frozenset(found.unpositioned)


@contextmanager
def intervening(model: Model, interventions: Iterable[Intervention]) -> Iterator[None]:
    """``model`` runs with ``interventions`` for the duration (none: it runs as it is). The model
    is shared state: two threads must not run one model with different interventions at once."""
    items = tuple(interventions)
    if not items:  # every decoding step passes here: nothing to look up
        yield
        return
    found, unpositioned = edits(model, items)
    with _edited(model.net, found, unpositioned):
        yield


@contextmanager
def gating(model: Model, kind: Kind, gates: dict[int, Tensor]) -> Iterator[None]:
    """Each batch row runs with its own heads of ``kind`` switched off: ``gates[layer]`` (B, H) holds
    1 for a head that runs and 0 for one that is off (many single-head ablations in one batch)."""
    found: dict[tuple[str, int], HeadEdit] = {(kind, layer): HeadEdit(gate=gate) for layer, gate in gates.items()}
    with _edited(model.net, found, frozenset()):
        yield


@contextmanager
def _edited(net: Transformer, found: dict[tuple[str, int], HeadEdit], unpositioned: frozenset[str]) -> Iterator[None]:
    modules = net.attention_modules()
    try:
        for key, edit in found.items():
            modules[key].edit = edit
        net.unpositioned = unpositioned
        yield
    finally:
        for module in modules.values():
            module.__dict__.pop("edit", None)
        net.__dict__.pop("unpositioned", None)
