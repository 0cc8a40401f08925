"""Interventions: change how attention runs, for a while, to test what the tutorials claim
(heads are redundant; the 1/sqrt(d_k) scale keeps softmax out of its flat region; Q and K need
their own weights; without positions word order is invisible). They are small frozen values,
composable, recorded with what they affected, and never change a weight: each says what it does
as taps on the model's named sites (:mod:`transviz.core.model.sites`), and :func:`intervening` attaches
them for the duration of a call, in the calling thread only.

A new intervention is one class here: its fields and their checks, :meth:`Intervention.taps`,
:meth:`Intervention.describe` (its name in the window) and, when it edits what another may edit
too, :meth:`Intervention.slot`. Lesson and session files know it by its class name.

Attention kinds are named as in traces: ``encoder_self``, ``decoder_self``, ``cross``. Layers and
heads count from 0.
"""
from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Hashable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import ClassVar, Literal

import torch
from torch import Tensor

from ..base.errors import ConfigError, InputError
from ..base.messages import Message, translate_noop
from ..model.bundle import Model
from ..model.config import WHOLE_NUMBER
from ..model.sites import KINDS as KINDS
from ..model.sites import STACKS, Address, Call, Site, Stack, Tap, TapFunction, tapping
from ..model.sites import Kind as Kind
from ..model.transformer import MultiHeadAttention, Transformer
from .head_means import output_means

SIDES = ("encoder", "decoder", "both")
MODES = ("zero", "uniform", "mean", "copy")
MAX_ROW = 8192  # weights of an edited row: no model here reads longer sentences
PatternKey = tuple[int, int]  # (layer, head) of one kind of attention

# Edits at one site run in this order whatever the order of the interventions: a head's pattern
# is spread evenly and handed to the heads that copy it before copies and painted rows replace it;
# a head's output is zeroed before a mean replaces it.
SPREAD, PUBLISH, COPY, PAINT = range(4)  # at Site.WEIGHTS
ZERO, MEAN = range(2)  # at Site.HEAD_OUTPUT

NOT_A_KIND = translate_noop("CoreMessages", "the attention kind must be encoder_self, decoder_self or cross, got {0}")
KIND_NAMES: dict[Kind, Message] = {"encoder_self": Message(translate_noop("CoreMessages", "encoder self")),
                                   "decoder_self": Message(translate_noop("CoreMessages", "decoder self")),
                                   "cross": Message(translate_noop("CoreMessages", "cross"))}


def check_kind(kind: object) -> None:
    if kind not in KINDS:
        raise ConfigError(NOT_A_KIND, repr(kind))


def _check_index(name: str, value: object) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ConfigError(WHOLE_NUMBER, name, repr(value))


def _check_factor(factor: object) -> None:
    if not isinstance(factor, (int, float)) or isinstance(factor, bool) or not math.isfinite(factor) \
            or not 0 <= factor <= 1e6:
        raise ConfigError(translate_noop("CoreMessages", "the scale factor must be a number from 0 to 1e6, got {0}"),
                          repr(factor))


def where(kind: Kind | None, layer: int | None = None, head: int | None = None) -> Message:
    """"cross L1 H2", "cross L1", "cross" or "everywhere", as a message."""
    if kind is None:
        return Message(translate_noop("CoreMessages", "everywhere"))
    name = KIND_NAMES[kind]
    if layer is None:
        return name
    if head is None:
        return Message(translate_noop("CoreMessages", "{0} L{1}"), name, layer)
    return Message(translate_noop("CoreMessages", "{0} L{1} H{2}"), name, layer, head)


@dataclass(frozen=True)
class Intervention(ABC):
    """How attention runs differently for a while: a frozen value that says what it does to a
    model (:meth:`taps`) and names itself (:meth:`describe`). Its fields are what files store."""

    TYPES: ClassVar[dict[str, type[Intervention]]] = {}  # every intervention by class name, for files

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        Intervention.TYPES[cls.__name__] = cls

    @abstractmethod
    def taps(self, model: Model) -> list[Tap]:
        """What this does to ``model``, as taps on its sites. InputError when the model lacks the
        layer or head it names."""

    @abstractmethod
    def describe(self) -> Message:
        """Its short name in the window: "cross L1 H2 off (zero)"."""

    def slot(self) -> Hashable:
        """What this edits: two interventions with one slot do not stack (the window replaces the
        one in force). By default every intervention stacks with all but itself."""
        return self

    def copied(self) -> Copy | None:
        """The head whose pattern another uses instead of its own, when this makes one."""
        return None


@dataclass(frozen=True)
class Copy:
    """Head ``target`` of ``kind`` attends with the pattern of head ``source``, both (layer, head)."""

    kind: Kind
    source: PatternKey
    target: PatternKey


@dataclass(frozen=True)
class AblateHead(Intervention):
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

    def taps(self, model: Model) -> list[Tap]:
        _check_fits(model.net, self.kind, self.layer, self.head)
        if self.mode == "zero":
            return [Tap(Address(self.kind, self.layer, Site.HEAD_OUTPUT), _head_set_to(self.head, 0.0), ZERO)]
        if self.mode == "mean":
            mean = output_means(model)[self.kind, self.layer][self.head]  # (d_k,)
            return [Tap(Address(self.kind, self.layer, Site.HEAD_OUTPUT), _head_set_to(self.head, mean), MEAN)]
        if self.mode == "uniform":
            return [Tap(Address(self.kind, self.layer, Site.WEIGHTS), _spread(self.head), SPREAD)]
        assert self.source is not None  # __post_init__: copy names a source
        _check_fits(model.net, self.kind, *self.source)
        board: dict[str, Tensor] = {}  # the source's pattern, from its module to this head's, in one pass

        def publish(weights: Tensor, call: Call) -> None:
            assert self.source is not None
            board["pattern"] = weights[:, self.source[1]]

        def copy(weights: Tensor, call: Call) -> Tensor:
            weights = weights.clone()
            weights[:, self.head] = board["pattern"]
            return weights
        return [Tap(Address(self.kind, self.source[0], Site.WEIGHTS), publish, PUBLISH),
                Tap(Address(self.kind, self.layer, Site.WEIGHTS), copy, COPY)]

    def describe(self) -> Message:
        head = where(self.kind, self.layer, self.head)
        if self.source is not None:
            return Message(translate_noop("CoreMessages", "{0} uses L{1} H{2}'s pattern"), head, *self.source)
        modes = {"zero": Message(translate_noop("CoreMessages", "{0} off (zero)"), head),
                 "uniform": Message(translate_noop("CoreMessages", "{0} off (uniform)"), head),
                 "mean": Message(translate_noop("CoreMessages", "{0} off (mean)"), head)}
        return modes[self.mode]

    def slot(self) -> Hashable:
        return "head", self.kind, self.layer, self.head  # a head is off one way at a time

    def copied(self) -> Copy | None:
        return None if self.source is None else Copy(self.kind, self.source, (self.layer, self.head))


@dataclass(frozen=True)
class ScaleScores(Intervention):
    """The scores' 1/sqrt(d_k) scaling multiplied by ``factor`` (1: the model; 0: uniform attention;
    large: a saturated softmax), everywhere or in one kind of attention, or one of its layers."""

    factor: float
    kind: Kind | None = None
    layer: int | None = None

    def __post_init__(self) -> None:
        _check_factor(self.factor)
        if self.kind is not None:
            check_kind(self.kind)
        if self.layer is not None:
            if self.kind is None:
                raise ConfigError(translate_noop("CoreMessages", "a layer to scale needs its attention kind too"))
            _check_index("layer", self.layer)

    def taps(self, model: Model) -> list[Tap]:
        if self.kind is not None and self.layer is not None:
            _check_fits(model.net, self.kind, self.layer, None)
        if self.kind is not None:
            check_kind_in(model.net, self.kind)
        return [Tap(Address(kind, layer, Site.SCALED), _Scale(self.factor))
                for kind, layer in model.net.attention_passes()
                if self.kind in (None, kind) and self.layer in (None, layer)]

    def describe(self) -> Message:
        return Message(translate_noop("CoreMessages", "scores × {0}: {1}"), f"{self.factor:g}",
                       where(self.kind, self.layer))

    def slot(self) -> Hashable:
        return "scale", self.kind, self.layer  # scales would otherwise multiply


@dataclass(frozen=True)
class _Scale:
    """A tap that multiplies a module's scaled scores by ``factor``."""

    factor: float

    def __call__(self, scores: Tensor, call: Call) -> Tensor:
        return scores * self.factor


def _merged_scales(taps: list[Tap]) -> list[Tap]:
    """``taps`` with the :class:`_Scale` taps of one site made one, by the product of their factors:
    several scalings of a module multiply its scores once, so that they round as one scaling does."""
    merged: list[Tap] = []
    first: dict[Address, int] = {}  # where each site's first scale stands in ``merged``
    for tap in taps:
        if isinstance(tap.fn, _Scale) and tap.at in first:
            earlier = merged[first[tap.at]]
            assert isinstance(earlier.fn, _Scale)  # first holds only scale taps
            merged[first[tap.at]] = Tap(tap.at, _Scale(earlier.fn.factor * tap.fn.factor), earlier.order)
            continue
        if isinstance(tap.fn, _Scale):
            first[tap.at] = len(merged)
        merged.append(tap)
    return merged


@dataclass(frozen=True)
class ScaleHead(Intervention):
    """One head's scaled scores multiplied by ``factor``: ``ScaleScores`` for a single head (0:
    it attends uniformly; large: it picks one key)."""

    kind: Kind
    layer: int
    head: int
    factor: float

    def __post_init__(self) -> None:
        check_kind(self.kind)
        _check_index("layer", self.layer)
        _check_index("head", self.head)
        _check_factor(self.factor)

    def taps(self, model: Model) -> list[Tap]:
        _check_fits(model.net, self.kind, self.layer, self.head)
        head, factor = self.head, self.factor

        def scale(scores: Tensor, call: Call) -> Tensor:
            scores = scores.clone()
            scores[:, head] *= factor
            return scores
        return [Tap(Address(self.kind, self.layer, Site.SCALED), scale)]

    def describe(self) -> Message:
        return Message(translate_noop("CoreMessages", "scores × {0}: {1}"), f"{self.factor:g}",
                       where(self.kind, self.layer, self.head))

    def slot(self) -> Hashable:
        return "scale", self.kind, self.layer, self.head


@dataclass(frozen=True)
class TieQueryKey(Intervention):
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

    def taps(self, model: Model) -> list[Tap]:
        _check_fits(model.net, self.kind, self.layer, self.head)
        heads = list(range(model.config.n_heads)) if self.head is None else [self.head]
        queries = Address(self.kind, self.layer, Site.QUERIES)
        if self.kind != "cross":  # the keys are the same rows projected with W_K: the last of the keys
            def tie(q: Tensor, call: Call) -> Tensor:
                keys = call.seen[Site.KEYS]
                return _replaced(q, heads, keys[:, :, keys.shape[2] - q.shape[2]:])
            return [Tap(queries, tie)]
        module = model.net.attention_modules()[self.kind, self.layer]
        inputs: dict[str, Tensor] = {}  # what the queries were projected from, for the keys' projection

        def remember(x: Tensor, call: Call) -> None:
            inputs["x"] = x

        def tie_cross(q: Tensor, call: Call) -> Tensor:
            return _replaced(q, heads, _key_projection(module, inputs["x"]))
        return [Tap(Address(self.kind, self.layer, Site.QUERY_INPUT), remember), Tap(queries, tie_cross)]

    def describe(self) -> Message:
        return Message(translate_noop("CoreMessages", "Q = K: {0}"), where(self.kind, self.layer, self.head))

    def slot(self) -> Hashable:
        return "tie", self.kind, self.layer, self.head


@dataclass(frozen=True)
class NoPositions(Intervention):
    """The positional encoding is not added to the inputs of the ``encoder``, the ``decoder`` or ``both``."""

    side: Literal["encoder", "decoder", "both"] = "both"

    def __post_init__(self) -> None:
        if self.side not in SIDES:
            raise ConfigError(translate_noop("CoreMessages", "positions can be left out of the encoder, the decoder "
                                                             "or both, got {0}"), repr(self.side))

    def taps(self, model: Model) -> list[Tap]:
        stacks: tuple[Stack, ...] = STACKS if self.side == "both" else (self.side,)
        positional = model.config.positional
        if model.config.adds_positions:
            def nothing(positions: Tensor, call: Call) -> Tensor:
                return torch.zeros_like(positions)
            return [Tap(Address(stack, None, Site.POSITIONS), nothing) for stack in stacks]
        if positional == "none":
            raise InputError(translate_noop("CoreMessages", "this model has no positions to leave out"))
        kinds = {"encoder": "encoder_self", "decoder": "decoder_self"}
        places = [(kind, layer) for kind, layer in model.net.attention_modules() if kind in
                  {kinds[stack] for stack in stacks}]
        if positional == "alibi":  # the scores without the bias
            return [Tap(Address(kind, layer, Site.BIASED), _unbiased) for kind, layer in places]
        return [Tap(Address(kind, layer, site), _turned_back(model.net.attention_modules()[kind, layer], site))
                for kind, layer in places for site in (Site.QUERIES, Site.KEYS)]

    def describe(self) -> Message:
        return Message(translate_noop("CoreMessages", "no positions: {0}"), self.side)


@dataclass(frozen=True)
class EditAttention(Intervention):
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

    def taps(self, model: Model) -> list[Tap]:
        # a decoder-only model's output rows attend to the source, then the output, in one pass
        stream = model.config.decoder_only and self.kind != "encoder_self"
        _check_fits(model.net, "decoder_self" if stream else self.kind, self.layer, self.head)

        def paint(weights: Tensor, call: Call) -> Tensor | None:
            index = self.query - call.first_query
            if not 0 <= index < weights.shape[2]:
                return None  # not a row of this pass (a decoding step computes one)
            keys = range(weights.shape[-1])
            if stream:  # the row of one view: the source's keys (cross), or the output's after them
                source = weights.shape[-1] - (call.first_query + weights.shape[2])
                keys = range(source) if self.kind == "cross" else range(source, weights.shape[-1])
            weights = weights.clone()
            _set_row(weights, call.seen[Site.MASKED], self, index, keys)
            return weights
        return [Tap(Address("decoder_self" if stream else self.kind, self.layer, Site.WEIGHTS), paint, PAINT)]

    def describe(self) -> Message:
        return Message(translate_noop("CoreMessages", "{0} row {1} painted"),
                       where(self.kind, self.layer, self.head), self.query)

    def slot(self) -> Hashable:
        return "row", self.kind, self.layer, self.head, self.query


# -- the arithmetic of the edits -------------------------------------------------------------------

def _head_set_to(head: int, value: float | Tensor) -> TapFunction:
    """An edit of the heads' outputs (B, H, Lq, d_k): ``head``'s set to ``value`` (0, or (d_k,))."""
    def edit(out: Tensor, call: Call) -> Tensor:
        out = out.clone()
        out[:, head] = value
        return out
    return edit


def _spread(head: int) -> TapFunction:
    """An edit of the weights: ``head``'s rows spread evenly over the keys their mask lets them see."""
    def edit(weights: Tensor, call: Call) -> Tensor:
        visible = (call.seen[Site.MASKED][:, head] > float("-inf")).to(weights.dtype)  # (B, Lq, Lk)
        weights = weights.clone()
        weights[:, head] = visible / visible.sum(dim=-1, keepdim=True)
        return weights
    return edit


def _unbiased(biased: Tensor, call: Call) -> Tensor:
    return call.seen[Site.SCALED].expand_as(biased)


def _turned_back(module: MultiHeadAttention, site: Site) -> TapFunction:
    """Rotary queries (or keys) turned back to the projections, as if no position had turned them."""
    assert module.rotary is not None
    rotary = module.rotary

    def edit(x: Tensor, call: Call) -> Tensor:
        if call.positions is not None:  # each row's own positions (a decoder-only model's output)
            at: int | Tensor = call.positions.queries if site is Site.QUERIES else call.positions.keys
        else:
            at = call.first_query if site is Site.QUERIES else 0
        turned: Tensor = rotary(x, at, back=True)
        return turned
    return edit


def _replaced(q: Tensor, heads: list[int], by: Tensor) -> Tensor:
    """``q`` (B, H, Lq, d_k) with ``heads`` taken from ``by``, of the same shape."""
    q = q.clone()
    q[:, heads] = by[:, heads]
    return q


def _key_projection(module: MultiHeadAttention, x: Tensor) -> Tensor:
    """``x`` (B, L, d) projected with W_K and its bias, one per query head (B, H, L, d_k)."""
    return module.per_query_head(module.split_heads(module.in_projection(x, module.rows("k"))))


EDITED_ROW_TOO_LONG = translate_noop("CoreMessages", "an edited attention row has {0} weights, but query {1} sees "
                                                     "only {2} keys")
EDITED_ROW_HIDDEN = translate_noop("CoreMessages", "an edited attention row of query {0} puts all its weight on keys "
                                                   "that query may not see")


def _set_row(weights: Tensor, scores: Tensor, row: EditAttention, index: int, keys: range) -> None:
    """Row ``index`` of ``row.head`` in ``weights`` (B, H, Lq, Lk, a copy) set to ``row.weights``
    over ``keys`` (0 elsewhere), keys the masked ``scores`` hide left at 0, summing to 1."""
    if len(row.weights) > len(keys):
        raise InputError(EDITED_ROW_TOO_LONG, len(row.weights), row.query, len(keys))
    wanted = torch.zeros(weights.shape[-1], dtype=weights.dtype, device=weights.device)
    wanted[keys.start : keys.start + len(row.weights)] = torch.tensor(row.weights, dtype=weights.dtype)
    wanted = wanted * (scores[:, row.head, index] > float("-inf")).to(weights.dtype)  # (B, Lk)
    total = wanted.sum(dim=-1, keepdim=True)
    if bool((total == 0).any()):
        raise InputError(EDITED_ROW_HIDDEN, row.query)
    weights[:, row.head, index] = wanted / total


# -- running a model with interventions ------------------------------------------------------------

CROSS_IN_STREAM = translate_noop("CoreMessages", "a decoder-only model has no cross-attention of its own: its output "
                                                 "attends to the source inside its self-attention, so choose "
                                                 "decoder_self (its rows cover the source and the output)")


def check_kind_in(net: Transformer, kind: Kind) -> None:
    """InputError when ``net`` runs no attention of ``kind`` that a head can be changed in alone (the
    cross view of a decoder-only model is a part of its self-attention's rows)."""
    if kind == "cross" and net.config.decoder_only:
        raise InputError(CROSS_IN_STREAM)


def _check_fits(net: Transformer, kind: Kind, layer: int, head: int | None) -> None:
    """InputError unless ``net`` has that layer (and head) of that kind."""
    check_kind_in(net, kind)
    cfg = net.config
    layers = cfg.layer_count(kind)
    if layer >= layers:
        raise InputError(translate_noop("CoreMessages", "no layer {0}: the {1} attention has layers 0 to {2}"),
                         layer, kind, layers - 1)
    if head is not None and head >= cfg.n_heads:
        raise InputError(translate_noop("CoreMessages", "no head {0}: this model has heads 0 to {1}"), head,
                         cfg.n_heads - 1)


def taps_for(model: Model, interventions: Iterable[Intervention]) -> list[Tap]:
    """What ``interventions`` do to ``model``, as taps: InputError when one names a layer or head
    the model lacks, ConfigError for something that is not an intervention."""
    found: list[Tap] = []
    for item in interventions:
        if not isinstance(item, Intervention):
            raise ConfigError(translate_noop("CoreMessages", "not an intervention: {0}"), repr(item))
        found += item.taps(model)
    return _merged_scales(found)


@contextmanager
def intervening(model: Model, interventions: Iterable[Intervention]) -> Iterator[None]:
    """``model`` runs with ``interventions`` for the duration (none: it runs as it is), in this
    thread only: another thread running it meanwhile runs it unchanged."""
    items = tuple(interventions)
    if not items:  # every decoding step passes here: nothing to look up
        yield
        return
    with tapping(model.net, taps_for(model, items)):
        yield
