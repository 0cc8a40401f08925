"""Two decoding runs side by side: a minimal pair of sentences, one sentence through two models, or
two training snapshots of the probe sentence.

:func:`compare` takes two runs (a decoded :class:`~transviz.core.decoding.trace.Trace`, or a training snapshot
made a run by :func:`snapshot_run`) and one head (or a summary of a layer's heads) and returns
both maps, their difference B - A where the shapes match, and a token-level diff of the two
outputs. Where the shapes differ (another source length, or outputs of another length) there is
no difference map, and :attr:`Comparison.shapes_differ` says so.
"""
from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

import numpy as np

from ..base.errors import InputError
from ..base.messages import translate_noop
from ..decoding.trace import query_labels
from ..training.snapshots import Snapshot
from .aggregate import SUMMARIES, Summary, summarise_view
from .walkthrough import KINDS, Kind

Head = int | Summary
Change = Literal["equal", "replace", "insert", "delete"]


class Run(Protocol):
    """What a comparison reads from a run; a :class:`~transviz.core.decoding.trace.Trace` is one."""

    @property
    def source_tokens(self) -> list[str]: ...  # S
    @property
    def target_tokens(self) -> list[str]: ...  # T decoder inputs
    @property
    def output_tokens(self) -> list[str]: ...  # T tokens written
    @property
    def query_labels(self) -> list[str]: ...  # T decoder query rows
    @property
    def encoder_self_attention(self) -> np.ndarray: ...  # (layers, heads, S, S)
    @property
    def decoder_self_attention(self) -> np.ndarray: ...  # (layers, heads, T, T)
    @property
    def cross_attention(self) -> np.ndarray: ...  # (layers, heads, T, S)
    @property
    def one_stream(self) -> bool: ...  # a decoder-only model's: the three maps are views of one


@dataclass(frozen=True)
class SnapshotRun:
    """A training snapshot as a run: the probe's maps after ``step`` updates; its output is what the
    model then predicted after each decoder input (teacher forced on the gold target when it was known)."""

    step: int
    source_tokens: list[str]
    target_tokens: list[str]
    output_tokens: list[str]
    encoder_self_attention: np.ndarray
    decoder_self_attention: np.ndarray
    cross_attention: np.ndarray
    one_stream: bool = False

    @property
    def query_labels(self) -> list[str]:
        return query_labels(self.target_tokens, self.output_tokens)


def snapshot_run(snapshot: Snapshot) -> SnapshotRun:
    """``snapshot`` as a run of :func:`compare`. Two snapshots of one teacher-forced probe have the
    same shapes, so their difference map shows how attention changed between the two steps."""
    return SnapshotRun(snapshot.step, snapshot.source_tokens, snapshot.target_tokens, snapshot.predicted_tokens,
                       snapshot.encoder_self_attention, snapshot.decoder_self_attention, snapshot.cross_attention)


@dataclass(frozen=True)
class TokenChange:
    """One stretch of the output diff: ``a`` tokens of run A became ``b`` tokens of run B."""

    change: Change
    a: tuple[str, ...]
    b: tuple[str, ...]


@dataclass(frozen=True)
class Side:
    """One run's map and the names of its rows and columns."""

    map: np.ndarray  # (rows, columns), float32
    rows: list[str]
    columns: list[str]


@dataclass(frozen=True)
class Comparison:
    a: Side
    b: Side
    difference: np.ndarray | None  # B - A, None where the shapes differ
    tokens: list[TokenChange]

    @property
    def shapes_differ(self) -> bool:
        return self.difference is None

    @property
    def scale(self) -> float:
        """The largest |B - A|: the diverging colour scale runs from -scale to +scale."""
        return float(np.abs(self.difference).max(initial=0.0)) if self.difference is not None else 0.0

    @property
    def same_output(self) -> bool:
        return all(change.change == "equal" for change in self.tokens)


def token_diff(a: Sequence[str], b: Sequence[str]) -> list[TokenChange]:
    """The output tokens of A turned into B's, as stretches kept, replaced, inserted or deleted."""
    matcher = difflib.SequenceMatcher(a=list(a), b=list(b), autojunk=False)  # autojunk drops common tokens
    return [TokenChange(change, tuple(a[i1:i2]), tuple(b[j1:j2]))
            for change, i1, i2, j1, j2 in matcher.get_opcodes()]


MINIMAL_EDITS = 2  # tokens two sentences may differ in and still make a minimal pair


def minimal_partner(sentence: str, candidates: Sequence[str], split: Callable[[str], list[str]]) -> str | None:
    """Among ``candidates``, the one that differs from ``sentence`` in the fewest tokens (``split``
    makes them; one or two tokens replaced, inserted or deleted), or None when none is that close."""
    tokens, best = split(sentence), None
    for other in candidates:
        edits = sum(max(len(c.a), len(c.b)) for c in token_diff(tokens, split(other)) if c.change != "equal")
        if 0 < edits <= MINIMAL_EDITS and (best is None or edits < best[0]):
            best = (edits, other)
    return best[1] if best else None


def head_map(trace: Run, kind: Kind, layer: int, head: Head) -> Side:
    """One head's map of ``trace`` (or the mean, max or rollout of the layer's heads), with labels."""
    if kind not in KINDS:
        raise InputError(translate_noop("CoreMessages", "unknown attention kind {0}; choose one of {1}"), repr(kind),
                         ", ".join(KINDS))
    maps = {"encoder_self": trace.encoder_self_attention, "decoder_self": trace.decoder_self_attention,
            "cross": trace.cross_attention}[kind]
    layers, heads = maps.shape[:2]
    if not 0 <= layer < layers:
        raise InputError(translate_noop("CoreMessages", "layer {0} does not exist: this model's {1} stack has layers "
                                                        "0..{2}"), layer, kind, layers - 1)
    if isinstance(head, int) and not 0 <= head < heads:
        raise InputError(translate_noop("CoreMessages", "head {0} does not exist: this model has heads 0..{1}"), head,
                         heads - 1)
    if not isinstance(head, int) and head not in SUMMARIES:
        raise InputError(translate_noop("CoreMessages", "no summary {0}; summaries: {1}"), repr(head),
                         ", ".join(SUMMARIES))
    rows = trace.source_tokens if kind == "encoder_self" else trace.query_labels
    columns = trace.target_tokens if kind == "decoder_self" else trace.source_tokens
    return Side(_pick(trace, kind, maps, layer, head), list(rows), list(columns))


def _pick(trace: Run, kind: Kind, maps: np.ndarray, layer: int, head: Head) -> np.ndarray:
    if isinstance(head, int):
        return np.asarray(maps[layer, head], dtype=np.float32)
    summary = summarise_view(head, kind, trace.encoder_self_attention, trace.decoder_self_attention,
                             trace.cross_attention, trace.one_stream)
    return np.asarray(summary[layer], dtype=np.float32)


def compare(a: Run, b: Run, kind: Kind, layer: int, head: Head) -> Comparison:
    """Run A against run B for one head: both maps, B - A where the shapes match, the output diff.
    InputError if either run lacks the layer or head."""
    side_a, side_b = head_map(a, kind, layer, head), head_map(b, kind, layer, head)
    same = side_a.map.shape == side_b.map.shape
    difference = (side_b.map.astype(np.float64) - side_a.map).astype(np.float32) if same else None
    return Comparison(side_a, side_b, difference, token_diff(a.output_tokens, b.output_tokens))
