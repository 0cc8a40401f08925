"""Named sites inside attention, and taps on them: the one way into a running model.

The model names the values it computes on its way through attention (:class:`Site`): the queries,
keys and values, the scores before and after scaling and masking, the weights, each head's output,
the input of the output projection, and each stack's positional term. Code outside the model
reaches them only through :func:`tapping`: for the duration of a ``with`` block a :class:`Tap`
sees the value at one :class:`Address` (a recorder) or hands back the tensor the model goes on
with (an editor). Interventions, the walkthrough and the bilinear view are taps.

Taps belong to the thread that attached them: another thread running the same model meanwhile runs
untapped (the masks tab translates on a worker thread while the walkthrough records). A place
(an attention module, a stack's positions) that has no tap in the running thread costs one
dictionary test, and attention takes its fast path (``F.scaled_dot_product_attention``) exactly as
if there were no sites; a tapped module computes attention step by step, so that every site holds
a value.

TransformerLens's hook points are the model for this; these are typed and thread-aware.

Shapes: B batch, H heads, Lq queries, Lk keys (cached positions included), L positions, d model
width, d_k = d / H. Rows are queries, columns keys.
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from enum import Enum
from typing import Literal, Protocol

from torch import Tensor

Kind = Literal["encoder_self", "decoder_self", "cross"]
KINDS: tuple[Kind, ...] = ("encoder_self", "decoder_self", "cross")
Stack = Literal["encoder", "decoder"]
STACKS: tuple[Stack, ...] = ("encoder", "decoder")
Place = tuple[str, int | None]  # (kind, layer) of an attention module, (stack, None) of a stack's positions


class Site(Enum):
    """A value the model computes that taps can see or replace, with its shape."""

    QUERY_INPUT = "query_input"  # (B, Lq, d): what W_Q projects (recorded only)
    KEY_INPUT = "key_input"  # (B, Lk, d): what W_K and W_V project (recorded only; cross: the memory, once a sentence)
    QUERIES = "queries"  # (B, H, Lq, d_k): Q
    KEYS = "keys"  # (B, H, Lk, d_k): K, cached positions included
    VALUES = "values"  # (B, H, Lk, d_k): V
    SCORES = "scores"  # (B, H, Lq, Lk): Q K^T
    SCALED = "scaled"  # (B, H, Lq, Lk): Q K^T / sqrt(d_k)
    BIASED = "biased"  # (B, H, Lq, Lk): scaled scores plus a position bias (ALiBi); only where a model has one
    MASKED = "masked"  # (B, H, Lq, Lk): -inf where the query may not see the key
    WEIGHTS = "weights"  # (B, H, Lq, Lk): softmax over the keys, each row sums to 1
    HEAD_OUTPUT = "head_output"  # (B, H, Lq, d_k): weights @ V, each head's output
    MIXED = "mixed"  # (B, Lq, d): the heads' outputs side by side, the input of W_O
    POSITIONS = "positions"  # (L, d): the positional term a stack adds to its embeddings
    RESIDUAL = "residual"  # (B, L, d): a stack's residual stream after a layer (a final norm not yet applied)


RECORD_ONLY = frozenset({Site.QUERY_INPUT, Site.KEY_INPUT})  # one input feeds one packed projection
STACK_SITES = frozenset({Site.POSITIONS, Site.RESIDUAL})  # a stack's, not an attention module's


@dataclass(frozen=True)
class Address:
    """Where a tap attaches: ``site`` of the ``kind`` attention in ``layer`` (from 0); for a stack's
    sites ``kind`` is the stack ("encoder" or "decoder"): :attr:`Site.RESIDUAL` after ``layer``,
    :attr:`Site.POSITIONS` with ``layer`` None. A decoder-only model's "encoder" is its source's pass."""

    kind: Kind | Stack
    layer: int | None
    site: Site

    def __post_init__(self) -> None:
        stack = self.site in STACK_SITES
        if stack != (self.kind in STACKS) or (self.site is Site.POSITIONS) != (self.layer is None):
            raise ValueError(f"no site {self.site.name} at {self.kind} layer {self.layer}")

    @property
    def place(self) -> Place:
        return self.kind, self.layer


@dataclass(frozen=True)
class Positions:
    """Where each query and key of one attention call stands in its sentence, per row: (B or 1, Lq)
    and (B or 1, Lk). Decoder-only models need them: a target's positions follow its own source's."""

    queries: Tensor
    keys: Tensor


class Call:
    """One pass through a tapped place, as its taps see it: the position of the first query in its
    sentence, the attention mask (``True`` = may attend; None: every key), and ``seen``, the values
    of this pass's sites so far (in attention the queries, keys and values from the start)."""

    __slots__ = ("first_query", "mask", "seen", "positions", "_taps")

    def __init__(self, taps: Mapping[Site, tuple[Tap, ...]], first_query: int, mask: Tensor | None,
                 seen: dict[Site, Tensor], positions: Positions | None = None) -> None:
        self._taps, self.first_query, self.mask, self.seen = taps, first_query, mask, seen
        self.positions = positions  # every row's query and key positions, where they are not 0.. (Positions)

    def __call__(self, site: Site, value: Tensor) -> Tensor:
        """``value`` after this thread's taps at ``site``, run in their order."""
        for tap in self._taps.get(site, ()):
            edited = tap.fn(value, self)
            if edited is not None:
                if site in RECORD_ONLY:
                    raise ValueError(f"a tap can record {site.name}, not replace it")
                value = edited
        self.seen[site] = value
        return value


def untapped(site: Site, value: Tensor) -> Tensor:
    """A pass without taps: every site keeps its value."""
    return value


TapFunction = Callable[[Tensor, Call], Tensor | None]


@dataclass(frozen=True, eq=False)
class Tap:
    """``fn(value, call)`` at ``at`` on every pass in the thread that attached it. It returns None
    to leave the value as it is (a recorder) or the tensor the model goes on with (an editor, which
    must not change ``value`` in place: a recorder may hold it). Taps at one site run by ``order``,
    then in the order attached; a recorder sees the edits of the taps before it."""

    at: Address
    fn: TapFunction
    order: int = 0


class Sites:
    """The taps on one place's sites, per thread. The model holds one per attention module and per
    stack; :func:`tapping` fills them."""

    __slots__ = ("_by_thread",)

    def __init__(self) -> None:
        self._by_thread: dict[int, dict[Site, tuple[Tap, ...]]] = {}

    def call(self, first_query: int = 0, mask: Tensor | None = None, queries: Tensor | None = None,
             keys: Tensor | None = None, values: Tensor | None = None,
             positions: Positions | None = None) -> Call | None:
        """A pass with this thread's taps here, or None when it has none."""
        if not self._by_thread:  # the common case: nothing to look up
            return None
        taps = self._by_thread.get(threading.get_ident())
        if taps is None:
            return None
        seen = {site: t for site, t in ((Site.QUERIES, queries), (Site.KEYS, keys), (Site.VALUES, values))
                if t is not None}
        return Call(taps, first_query, mask, seen, positions)

    def through(self, site: Site, value: Tensor, first_query: int = 0) -> Tensor:
        """``value`` after this thread's taps at ``site`` (a place's only site in this pass), whose
        first row stands at position ``first_query`` of its sentence."""
        call = self.call(first_query)
        return value if call is None else call(site, value)

    def record(self, site: Site, value: Tensor) -> None:
        """``value`` shown to this thread's taps at ``site``, one of :data:`RECORD_ONLY`."""
        self.through(site, value)

    def attached(self) -> bool:
        """Whether any thread has taps here now."""
        return bool(self._by_thread)

    def attach(self, thread: int, taps: Iterable[Tap]) -> dict[Site, tuple[Tap, ...]] | None:
        """``taps`` after those ``thread`` has here already; returns what it had, for :meth:`restore`."""
        before = self._by_thread.get(thread)
        by_site = {site: list(found) for site, found in (before or {}).items()}
        for tap in taps:
            by_site.setdefault(tap.at.site, []).append(tap)
        self._by_thread[thread] = {site: tuple(sorted(found, key=lambda tap: tap.order))
                                   for site, found in by_site.items()}
        return before

    def restore(self, thread: int, before: dict[Site, tuple[Tap, ...]] | None) -> None:
        if before is None:
            self._by_thread.pop(thread, None)
        else:
            self._by_thread[thread] = before

    def __deepcopy__(self, memo: dict[int, object]) -> Sites:
        return Sites()  # a copy of a model starts untapped: taps belong to the blocks that attached them


class Tappable(Protocol):
    def places(self) -> Mapping[Place, Sites]:
        """Every place of the model by (kind, layer) or (stack, None)."""
        ...


@contextmanager
def tapping(net: Tappable, taps: Iterable[Tap]) -> Iterator[None]:
    """``net`` runs with ``taps`` in this thread for the duration of the block, after any this
    thread attached in an enclosing block; they are removed on the way out, an exception included.
    ValueError for an address ``net`` lacks."""
    places = net.places()
    grouped: dict[Place, list[Tap]] = {}
    for tap in taps:
        if tap.at.place not in places:
            raise ValueError(f"this model has no {tap.at.kind} layer {tap.at.layer}")
        grouped.setdefault(tap.at.place, []).append(tap)
    thread = threading.get_ident()
    attached: list[tuple[Sites, dict[Site, tuple[Tap, ...]] | None]] = []
    try:
        for place, found in grouped.items():
            attached.append((places[place], places[place].attach(thread, found)))
        yield
    finally:
        for sites, before in reversed(attached):
            sites.restore(thread, before)


@contextmanager
def recording(net: Tappable, addresses: Iterable[Address]) -> Iterator[dict[Address, Tensor]]:
    """The first value each of ``addresses`` holds during the block in this thread (detached)."""
    seen: dict[Address, Tensor] = {}

    def recorder(address: Address) -> TapFunction:
        def record(value: Tensor, call: Call) -> None:
            seen.setdefault(address, value.detach())
        return record

    with tapping(net, [Tap(address, recorder(address)) for address in addresses]):
        yield seen
