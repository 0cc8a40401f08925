"""What the unmodified model writes: a session decoded with interventions compared, token by
token, with the same sentence decoded without them (same strategy, same forced tokens, to the
same step), and how the interventions move the log-probability of the unmodified output.

The comparison keeps its own :class:`~transviz.core.decoding.session.DecodingSession` without
interventions and brings it to the session's step on every call; going back is exact and costs
nothing, so a call after one step of the session costs one step of the unmodified model.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..base.errors import InputError
from ..decoding.inference import teacher_force
from ..decoding.interventions import Intervention
from ..decoding.session import DecodingSession
from ..model.bundle import Model
from ..model.vocab import EOS


@dataclass(frozen=True)
class TokenComparison:
    """One output position: the token written under the interventions and the unmodified model's.

    ``before`` and ``after`` are natural-log probabilities of ``original`` given the unmodified
    output before it, without and with the interventions (None when the unmodified model had
    ended before this position, or its output cannot be fed back as text)."""

    position: int
    written: str
    original: str | None  # None: the unmodified translation had ended before this position
    before: float | None = None
    after: float | None = None

    @property
    def changed(self) -> bool:
        return self.original != self.written

    @property
    def delta(self) -> float | None:
        """after - before: how much the interventions moved the unmodified token's log-probability."""
        return None if self.before is None or self.after is None else self.after - self.before


class Unmodified:
    """Compares sessions with the unmodified model (one comparison session, reused while the
    sentence, strategy and length limit stay)."""

    def __init__(self) -> None:
        self._session: DecodingSession | None = None
        self._scores: dict[tuple[object, ...], np.ndarray | None] = {}  # log-probabilities fed back

    def compare(self, session: DecodingSession) -> list[TokenComparison]:
        """One comparison per output token of ``session``; empty without interventions or in
        teacher forcing (the reference chooses every token either way)."""
        if not session.interventions or session.teacher_forcing:
            return []
        reference = self._synced(session)
        original, written = reference.output_tokens, session.output_tokens
        before = self._log_probabilities(session.model, session.source, original, ())
        after = self._log_probabilities(session.model, session.source, original, session.interventions)
        compared = []
        for i, token in enumerate(written):
            if i >= len(original):
                compared.append(TokenComparison(i, token, None))
                continue
            if before is None or after is None:
                compared.append(TokenComparison(i, token, original[i]))
            else:
                compared.append(TokenComparison(i, token, original[i], float(before[i]), float(after[i])))
        return compared

    def _synced(self, session: DecodingSession) -> DecodingSession:
        """The comparison session at ``session``'s step: the same forced tokens, the strategy's own
        choices elsewhere (it may have ended sooner)."""
        reference = self._session
        if reference is None or reference.model is not session.model or reference.source != session.source \
                or reference.strategy != session.strategy or reference.max_len != session.max_len:
            reference = DecodingSession(session.model, session.source, session.strategy, top_k=1,
                                        max_len=session.max_len)
            self._session = reference
        steps = session.history
        same = 0
        for mine, theirs in zip(reference.history, steps, strict=False):
            if mine.forced != theirs.forced or (theirs.forced and mine.token_id != theirs.token_id):
                break
            same += 1
        reference.rewind(min(same, reference.position))
        for record in steps[reference.position:]:
            if reference.cant_step() is not None:
                break
            try:
                reference.force(record.token) if record.forced else reference.step()
            except InputError:  # e.g. its best beam hypothesis had ended: nothing to force onto
                break
        return reference

    def _log_probabilities(self, model: Model, source: str, tokens: list[str],
                           interventions: tuple[Intervention, ...]) -> np.ndarray | None:
        """log p of each of ``tokens`` given those before it (one teacher-forced pass), None when
        the tokens do not survive being written as text and read again."""
        key = (id(model), source, tuple(tokens), interventions)
        if key not in self._scores:
            self._scores = {k: v for k, v in self._scores.items() if k[:3] == key[:3]}  # this output's only
            self._scores[key] = _fed_back(model, source, tokens, interventions)
        return self._scores[key]


def _fed_back(model: Model, source: str, tokens: list[str],
              interventions: tuple[Intervention, ...]) -> np.ndarray | None:
    words = tokens[:-1] if tokens and tokens[-1] == EOS else tokens
    vocab = model.tgt_vocab
    text = vocab.detokenize(words)
    if not words or vocab.tokenize(text) != words:  # e.g. an <unk> written, or a special token
        return None
    try:
        trace = teacher_force(model, source, text, interventions)
    except InputError:  # the length limit, with the end token that teacher forcing adds
        return None
    return np.log(trace.output_probabilities[: len(tokens)].astype(np.float64))
