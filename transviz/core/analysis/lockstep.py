"""Two to four models decoding one sentence in lock-step (the Variants tab): each step advances
every model that has not ended, so row t of each decoder map is the same step of each run.

For each model it gives one head's map (or a summary of a layer's heads) with its labels, and
what sets the model apart in numbers: its parameters, the bytes its KV cache holds so far and
adds per token, its test exact match as recorded when it was trained, and which query heads
share each key/value head. A decoder-only model's decoder rows are drawn as its one map, the
source part then the output part, with :attr:`Pane.source_columns` saying where they meet.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..base.errors import InputError, reason
from ..base.messages import translate_noop
from ..decoding.session import DecodingSession
from ..decoding.trace import Trace
from ..model.bundle import Model
from ..model.config import ModelConfig
from .compare import Head, Side, head_map
from .walkthrough import Kind

MIN_MODELS, MAX_MODELS = 2, 4


@dataclass(frozen=True)
class Pane:
    """What one model shows at the current step. ``map`` is float32 (rows, columns), rows are
    queries; ``source_columns`` is set for a decoder-only model's one map of the output rows: its
    first ``source_columns`` columns are the source part (cross-attention's view), the rest the
    output part (decoder self-attention's)."""

    map: np.ndarray
    rows: list[str]
    columns: list[str]
    source_columns: int | None
    output_tokens: list[str]
    finished: bool


def kv_groups(config: ModelConfig) -> list[list[int]]:
    """The query heads that read each key/value head, in order: one head each for multi-head
    attention, groups of consecutive heads for grouped-query, all of them for multi-query."""
    size = config.n_heads // config.kv_heads
    return [list(range(group * size, (group + 1) * size)) for group in range(config.kv_heads)]


def recorded_exact_match(model: Model) -> float | None:
    """The test split's exact match recorded when ``model`` was trained (None: none recorded,
    as for a Hugging Face folder, or a record that is not a number from 0 to 1)."""
    test = model.facts.get("test")
    value = test.get("exact_match") if isinstance(test, dict) else None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        return None
    return float(value)


def source_cache_bytes(config: ModelConfig, source_length: int) -> int:
    """The keys and values attention reads from a source of ``source_length`` tokens, every
    decoder layer (float32): cross-attention's, or a decoder-only model's source pass, computed
    once per sentence."""
    return config.kv_cache_bytes_per_token() * source_length


class Lockstep:
    """``models`` (name, model) decoding ``sentence`` greedily, one step of each at a time.

    InputError when there are fewer than two or more than four models, or when one of them cannot
    read the sentence (the message names the model)."""

    def __init__(self, models: Sequence[tuple[str, Model]], sentence: str) -> None:
        if not MIN_MODELS <= len(models) <= MAX_MODELS:
            raise InputError(translate_noop("CoreMessages", "choose {0} to {1} models to decode side by side, not {2}"),
                             MIN_MODELS, MAX_MODELS, len(models))
        self.names = [name for name, _ in models]
        self.models = [model for _, model in models]
        self.sessions = [self._session(name, model, sentence) for name, model in models]
        self.position = 0  # steps taken together

    @staticmethod
    def _session(name: str, model: Model, sentence: str) -> DecodingSession:
        try:
            return DecodingSession(model, sentence)
        except InputError as error:
            raise InputError(translate_noop("CoreMessages", "{0} cannot decode this sentence: {1}"), name,
                             reason(error)) from None

    @property
    def finished(self) -> bool:
        """Whether every model has ended (its end token, or its length limit)."""
        return all(session.cant_step() is not None for session in self.sessions)

    def step(self) -> bool:
        """One step of every model that has not ended; False (and nothing changes) when all have."""
        moving = [session for session in self.sessions if session.cant_step() is None]
        for session in moving:
            session.step()
        self.position += bool(moving)
        return bool(moving)

    def back(self) -> bool:
        """Undo the last step of every model that took it; False at the start."""
        if self.position == 0:
            return False
        for session in self.sessions:
            if session.position == self.position:
                session.back()
        self.position -= 1
        return True

    def reset(self) -> None:
        for session in self.sessions:
            session.reset()
        self.position = 0

    def run_to_end(self) -> None:
        while self.step():
            pass

    def kv_bytes(self, index: int) -> tuple[int, int]:
        """Model ``index``'s KV cache now (float32 bytes: the source's part plus one row per
        decoder input fed) and what each decoder input adds."""
        session = self.sessions[index]
        config = session.model.config
        per_token = config.kv_cache_bytes_per_token()
        return source_cache_bytes(config, len(session.source_tokens)) + per_token * session.position, per_token

    def panes(self, kind: Kind, layer: int, head: Head) -> list[Pane]:
        """Every model's map of ``kind``, ``layer`` and ``head`` at the current step. InputError when a
        model lacks the layer or head (the message names it)."""
        return [self._pane(name, session, kind, layer, head)
                for name, session in zip(self.names, self.sessions, strict=True)]

    def _pane(self, name: str, session: DecodingSession, kind: Kind, layer: int, head: Head) -> Pane:
        trace = session.trace()
        try:
            side, columns = _side(trace, kind, layer, head)
        except InputError as error:
            raise InputError(translate_noop("CoreMessages", "{0}: {1}"), name, reason(error)) from None
        return Pane(side.map, side.rows, side.columns, columns, trace.output_tokens, session.cant_step() is not None)


def _side(trace: Trace, kind: Kind, layer: int, head: Head) -> tuple[Side, int | None]:
    """The map drawn for ``kind``: a decoder-only model's output rows as its one map (source part,
    then output part), with the column where the output part starts."""
    if not trace.one_stream or kind == "encoder_self":
        return head_map(trace, kind, layer, head), None
    source, own = head_map(trace, "cross", layer, head), head_map(trace, "decoder_self", layer, head)
    joined = np.concatenate([source.map, own.map], axis=1)
    return Side(joined, own.rows, source.columns + own.columns), len(source.columns)
