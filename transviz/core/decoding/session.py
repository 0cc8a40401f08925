"""Step-through decoding: :class:`DecodingSession` runs one decoder step at a time on the key/value
cache and can go back, force a token, switch strategy, or follow a reference (teacher forcing).

The session is Qt-free; a GUI observes it through ``session.events`` and never owns the logic.

Meaning of every operation, in every mode:

* **step** feeds the last chosen token and chooses the next one with the current strategy.
  Greedy and sampling continue the best hypothesis of the beam; beam search extends every live
  hypothesis in one batched ``net.step`` and reorders the cache with ``index_select``.
* **force(token)** makes the best hypothesis continue with ``token`` and restarts from there:
  after a forced step the beam holds that one hypothesis (a beam search widens it again on the
  next step). Not available in teacher forcing, where the reference chooses every token. A model
  with generation rules (:class:`~transviz.core.model.bundle.Generation`: a Hugging Face
  folder's target language, banned ids, the end token at the limit) follows them in every
  strategy; a token a rule writes is recorded as ``prescribed`` and adds nothing to the score
  (as generate() scores it). With ``Beam(rule="hf")`` the beam lists its ended hypotheses
  first: force, greedy and sampling then continue the best live one (``BeamStep.followed``), as
  generate would extend it.
* **set_strategy** takes effect at the next step; history stays. Beam -> greedy/sampling continues
  the best hypothesis; greedy/sampling -> beam starts the search from the current path.
* **back / rewind / reset** return to an earlier beam exactly: keys and values of earlier decoder
  positions never change, so the cache is the last step's rows truncated (or, after a beam lost
  the hypothesis, rebuilt from the columns each step stored); no step is recomputed, and stepping
  again reproduces the same record bit for bit.

In beam mode, ``history[i]`` describes the best hypothesis that was extended at step ``i`` (the
token it got, its candidates and attention), ``output_tokens`` and the cumulative matrices follow
the best hypothesis of the current beam, and ``hypothesis_attention(i)`` gives any other one.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np
import torch

from ..base.cores import computing
from ..base.errors import InputError
from ..base.events import Signal
from ..base.messages import Message, translate_noop
from ..io.weights_check import require_finite
from ..model.bundle import Model, evaluating
from ..model.transformer import DecoderState, StepOutput
from ..model.vocab import EOS, Encoding
from .beam import BeamStep, Choice, Hypothesis, beam_choices, best_is_settled, hf_choices, hf_search_ended
from .interventions import Intervention, intervening, taps_for
from .paths import FedCache, PathNode, cross_attention, decoder_self_attention, rebuild_cache, walk
from .strategies import Beam, Greedy, Sampling, Strategy, check_strategy
from .trace import Trace, query_labels, stack_layers

TEACHER_FORCING = "teacher_forcing"
_TEACHER_FORCING_STRATEGY = translate_noop("CoreMessages", "teacher forcing feeds the reference: strategies apply when "
                                                           "decoding freely")


@dataclass(frozen=True)
class Candidate:
    """A token the model considered, with its probability."""

    token: str
    id: int
    probability: float


@dataclass(frozen=True)
class DrawnCandidate:
    """A token of the distribution sampling drew from, and the model's own probability of it."""

    token: str
    id: int
    probability: float  # after temperature, top-k and top-p, renormalised
    raw_probability: float  # the model's (temperature 1, unfiltered)


@dataclass(frozen=True, eq=False)
class StepRecord:
    """What one step did and saw. Arrays are float32, rows are queries, columns keys.

    Only this step's attention rows are stored; :meth:`decoder_self_attention` and
    :meth:`cross_attention` rebuild the cumulative matrices up to this step on demand.
    """

    index: int  # 0 for the first output token
    token: str  # the token chosen (in beam mode: by the best hypothesis extended at this step)
    token_id: int
    probability: float  # the model's probability of that token (temperature 1, unfiltered)
    forced: bool  # chosen with force() instead of the strategy
    candidates: tuple[Candidate, ...]  # the top-k next tokens, most probable first
    entropy: float  # of the next-token distribution, in nats (see entropy_bits)
    stop: str | None  # "end" or "max_len" when decoding stopped after this step, else None
    predicted_token: str  # the model's most probable token here
    strategy: str  # "greedy", "sampling", "beam" or "teacher_forcing"
    path: PathNode = field(repr=False)
    gold_token: str | None = None  # teacher forcing: the reference token (= token)
    gold_probability: float | None = None  # teacher forcing: the model's probability of it
    beam: BeamStep | None = None  # beam search: the beam after this step
    # sampling: the top-k tokens of the distribution the token was drawn from (after temperature,
    # top-k and top-p, renormalised), with that distribution's probability of the token written
    drawn: tuple[DrawnCandidate, ...] | None = None
    # written by the model's generation rules (the target language first, the end token at the
    # limit; Model.generation), neither the strategy's choice nor the user's
    prescribed: bool = False
    drawn_probability: float | None = None
    interventions: tuple[Intervention, ...] = ()  # in force when this step ran

    @property
    def self_rows(self) -> np.ndarray:
        """(L, H, index + 1): decoder self-attention of this step's query over the inputs so far."""
        return self.path.self_rows

    @property
    def cross_rows(self) -> np.ndarray:
        """(L, H, S): cross-attention of this step's query over the source tokens."""
        return self.path.cross_rows

    @property
    def entropy_bits(self) -> float:
        return self.entropy / float(np.log(2))

    def decoder_self_attention(self) -> np.ndarray:
        """(L, H, T, T) with T = index + 1: every query up to this step, zero above the diagonal."""
        layers, heads, _ = self.self_rows.shape
        return decoder_self_attention(walk(self.path), layers, heads)

    def cross_attention(self) -> np.ndarray:
        """(L, H, T, S) with T = index + 1."""
        layers, heads, source_len = self.cross_rows.shape
        return cross_attention(walk(self.path), layers, heads, source_len)


@dataclass(frozen=True)
class TeacherForcingSummary:
    """How well the model predicts a reference, over the steps taken so far."""

    steps: int
    matched: int  # steps whose most probable token was the gold one
    mean_loss: float  # mean cross-entropy of the gold tokens, in nats: -mean(log p(gold))
    gold: tuple[tuple[str, float], ...]  # each gold token and the model's probability of it

    @classmethod
    def of(cls, records: tuple[StepRecord, ...]) -> TeacherForcingSummary | None:
        """The summary of teacher-forced ``records``; None when there are none."""
        if not records or any(r.gold_token is None for r in records):
            return None
        losses = [-r.path.log_probability for r in records]
        return cls(len(records), sum(r.predicted_token == r.gold_token for r in records),
                   float(np.mean(losses)), tuple((r.token, r.probability) for r in records))


@dataclass(frozen=True)
class Event:
    """What changed: ``kind`` is "step", "back", "reset", "strategy", "rewind" or "interventions"."""

    kind: str
    position: int  # the session's position after the change
    record: StepRecord | None  # the newest record after the change; None at the start


@dataclass(frozen=True)
class _Expansion:
    """One batched decoder step, as numpy/float per batch row (the parents that were fed)."""

    logits: torch.Tensor  # (B, V) float32
    probs: torch.Tensor  # (B, V)
    log_probs: torch.Tensor  # (B, V) float64: beam scores add many of them
    predicted: list[int]  # (B,) argmax
    self_rows: np.ndarray  # (B, L, H, t + 1)
    cross_rows: np.ndarray  # (B, L, H, S)
    key_values: list[tuple[tuple[torch.Tensor, torch.Tensor], ...]]  # per row, per layer (1, H, 1, d_k)

    @classmethod
    def of(cls, out: StepOutput) -> _Expansion:
        logits = out.logits.float().cpu()  # small (B, V): numbers for the record; the cache stays on the device
        require_finite(logits)
        rows = len(logits)
        assert out.state.self_kv is not None  # a step has just filled it
        columns = [(k[:, :, -1:].clone(), v[:, :, -1:].clone()) for k, v in out.state.self_kv]  # (B, H, 1, d_k)
        assert out.self_attention is not None and out.cross_attention is not None  # stepped with the maps
        return cls(
            logits=logits,
            probs=torch.softmax(logits, dim=-1),
            log_probs=torch.log_softmax(logits.double(), dim=-1),
            predicted=logits.argmax(-1).tolist(),
            self_rows=torch.stack([r[:, :, 0] for r in out.self_attention], dim=1).float().cpu().numpy(),
            cross_rows=torch.stack([r[:, :, 0] for r in out.cross_attention], dim=1).float().cpu().numpy(),
            key_values=[tuple((k[b : b + 1], v[b : b + 1]) for k, v in columns) for b in range(rows)],
        )

    def node(self, row: int, token_id: int, previous: PathNode | None) -> PathNode:
        return PathNode(
            token_id, float(self.probs[row, token_id]), float(self.log_probs[row, token_id]),
            self.predicted[row], self.self_rows[row], self.cross_rows[row], self.key_values[row], previous,
        )


def _abbreviate(token: str, width: int = 20) -> str:
    return token if len(token) <= width else token[: width - 1] + "\u2026"


def encode_source(model: Model, source: str) -> Encoding:
    """Tokenize a sentence for decoding; InputError if the model could not read any of it (the
    vocabulary refuses control characters, here and in every other use)."""
    encoding = model.encode_source(source)
    if len(encoding.unknown) == len(encoding.tokens):
        words = ", ".join(_abbreviate(t) for _, t in encoding.unknown[:4])
        raise InputError(
            translate_noop("CoreMessages", "none of the words ({0}) is in this model's vocabulary: it would read "
                                           "only <unk>"), words)
    return encoding


class DecodingSession:
    """Decode one sentence a step at a time: step, go back, force a token, switch strategy.

    Args:
        model: the model and its vocabularies (:func:`transviz.load_model`). Its one-row products
            go through :mod:`~transviz.core.model.row_blocks` from now on (switched in place: the same
            parameters, and results to float rounding).
        source: the sentence to translate.
        strategy: :class:`Greedy`, :class:`Sampling` or :class:`Beam` (a sampling seed of ``None``
            is replaced by a fresh one, shown in ``session.strategy``).
        top_k: how many candidates each :class:`StepRecord` lists.
        max_len: stop after this many output tokens (default and cap: the model's ``max_len``, less
            a decoder-only model's prompt).
        reference: a target sentence for teacher forcing: each step feeds the gold prefix and
            records the gold token, the model's prediction and its probability (the strategy
            must then stay Greedy(): the reference chooses every token).
        interventions: how attention runs differently (:mod:`~transviz.core.decoding.interventions`);
            :meth:`set_interventions` changes them and decodes again to the current step.

    Shape:
        ``encoder_attention`` (L, H, S, S); ``decoder_self_attention()`` (L, H, T, T);
        ``cross_attention()`` (L, H, T, S), T = ``len(output_tokens)``.

    Example::

        session = DecodingSession(model, "ich mochte ein bier", top_k=5)
        record = session.step()          # record.token, record.candidates, record.cross_rows
        session.force("drink")          # "what if it had said drink?"
        session.back(); session.run_to_end()
    """

    def __init__(
        self,
        model: Model,
        source: str,
        strategy: Strategy = Greedy(),
        top_k: int = 5,
        max_len: int | None = None,
        reference: str | None = None,
        interventions: Iterable[Intervention] = (),
    ) -> None:
        self.model = model
        self._interventions = tuple(interventions)
        taps_for(model, self._interventions)  # one naming a layer or head the model lacks fails now
        model.net.use_row_blocks()  # its one-token steps share torch's threads (same parameters and results)
        self._vocab = model.tgt_vocab
        if not isinstance(top_k, int) or isinstance(top_k, bool) or top_k < 1:
            raise InputError(
                translate_noop("CoreMessages", "{0} must be a whole number >= 1, got {1}"), "top_k", repr(top_k))
        self.top_k = min(top_k, len(self._vocab))
        self._strategy = self._seeded(check_strategy(strategy))
        if reference is not None and not isinstance(self._strategy, Greedy):
            raise InputError(_TEACHER_FORCING_STRATEGY)
        encoding = encode_source(model, source)
        self._room = model.output_room(encoding)  # a decoder-only model's prompt leaves the output fewer positions
        self._max_len = self._checked_max_len(max_len)
        self.source = source
        self.source_tokens: list[str] = encoding.tokens
        self.start_token = model.start_token(encoding)  # the decoder's first input, as the model names it
        self.unknown_tokens: list[tuple[int, str]] = encoding.unknown
        self.reference_tokens: list[str] | None = None  # the gold outputs, end token included
        self.reference_unknown_tokens: list[tuple[int, str]] = []
        self._gold: list[int] | None = None if reference is None else self._encode_reference(reference)
        self._source_ids = model.source_tensor(encoding)
        self._encode()
        self._beams = [BeamStep(0, (Hypothesis((), (), 0.0, 0.0, None, False),))]  # the beam after each step
        self._history: list[StepRecord] = []
        self._cache: FedCache | None = None  # what the last step fed; None before the first
        self._matrices: tuple[PathNode | None, np.ndarray, np.ndarray] | None = None  # last cumulative request
        self.events: Signal[Event] = Signal()

    def _encode(self) -> None:
        """Run the encoder (with the interventions in force): its attention and the empty cache."""
        net = self.model.net
        with evaluating(self.model), intervening(self.model, self._interventions):
            encoded = net.encode(self._source_ids, return_attention=True)
            self._start = net.start(encoded)
        assert encoded.attention is not None  # encoded with return_attention
        self.encoder_attention = stack_layers(encoded.attention)

    # -- what the session shows ------------------------------------------------------------------
    @property
    def history(self) -> tuple[StepRecord, ...]:
        return tuple(self._history)

    @property
    def position(self) -> int:
        """Steps taken (== len(history))."""
        return len(self._history)

    @property
    def max_len(self) -> int:
        """The length limit in output tokens: at most the model's ``max_len``, less a decoder-only
        model's prompt (its prompt and output share the model's positions)."""
        return self._max_len

    @max_len.setter
    def max_len(self, value: int) -> None:
        self._max_len = self._checked_max_len(value)

    @property
    def strategy(self) -> Strategy:
        return self._strategy

    @property
    def interventions(self) -> tuple[Intervention, ...]:
        return self._interventions

    @property
    def teacher_forcing(self) -> bool:
        return self._gold is not None

    @property
    def beam(self) -> BeamStep | None:
        """The current beam when the strategy is beam search, else None."""
        return self._beams[-1] if self._is_beam_search() else None

    @property
    def beam_history(self) -> tuple[BeamStep, ...]:
        """The beam at the start and after every step (``len == position + 1``); a hypothesis's
        ``parent`` indexes the beam before it. Greedy, sampling and forced steps keep one hypothesis."""
        return tuple(self._beams)

    @property
    def output_tokens(self) -> list[str]:
        """The tokens chosen so far (in beam mode: of the best hypothesis)."""
        return list(self._beams[-1].best.tokens)

    @property
    def target_tokens(self) -> list[str]:
        """The decoder inputs that produced ``output_tokens``: the start token, then all but the last output."""
        outputs = self.output_tokens
        return [self.start_token] + outputs[:-1] if outputs else []

    @property
    def query_labels(self) -> list[str]:
        """One label per decoder query row, "input -> written token"
        (:func:`~transviz.core.decoding.trace.query_labels`)."""
        return query_labels(self.target_tokens, self.output_tokens)

    @property
    def stop_reason(self) -> str | None:
        """"end" (end token; in beam search: the best finished hypothesis can no longer be beaten by
        a live one, see :func:`~transviz.core.decoding.beam.best_is_settled`; with ``Beam(rule="hf")``: where
        generate stops, :func:`~transviz.core.decoding.beam.hf_search_ended`), "max_len" (length limit), or None."""
        return self._stop_reason(self._beams[-1])

    def _stop_reason(self, beam: BeamStep) -> str | None:
        strategy = self._strategy
        if self._is_beam_search() and isinstance(strategy, Beam) and strategy.hf:
            if beam.position >= self.max_len:  # generate stops here whatever else holds
                return "end" if beam.best.finished else "max_len"
            return "end" if hf_search_ended(strategy, beam, self.max_len) else None
        if self._is_beam_search():
            assert isinstance(self._strategy, Beam)
            ended = best_is_settled(self._strategy, beam, self.max_len)
        else:
            ended = beam.hypotheses[beam.followed].finished
        if ended:
            return "end"
        return "max_len" if beam.position >= self.max_len else None

    @property
    def finished(self) -> bool:
        return self.stop_reason is not None

    def cant_step(self) -> Message | None:
        """None if :meth:`step` can run, else why not, in plain language."""
        reason = self.stop_reason
        if reason == "end":
            if self.teacher_forcing:
                return Message(translate_noop("CoreMessages", "the reference has ended: go back or reset to look at "
                                                              "it again"))
            strategy = self._strategy
            if self._is_beam_search() and isinstance(strategy, Beam) and strategy.hf:
                return Message(translate_noop("CoreMessages", "beam search has ended as Hugging Face's generate() "
                                                              "ends it: {0} hypotheses have ended (early_stopping="
                                                              "{1})"), strategy.width, repr(strategy.early_stopping))
            if self._is_beam_search():
                return Message(translate_noop("CoreMessages", "beam search has ended: the best hypothesis ended with "
                                                              "{0} and no unfinished one can beat its score any more"),
                               EOS)
            return Message(translate_noop("CoreMessages", "the translation has ended with the end token {0}: go back "
                                                          "or reset to try another way"), EOS)
        if reason == "max_len":
            return Message(translate_noop("CoreMessages", "the translation reached the length limit of {0} tokens"),
                           self.max_len)
        return None

    def cant_back(self) -> Message | None:
        """None if :meth:`back` can run, else why not."""
        if self._history:
            return None
        return Message(translate_noop("CoreMessages", "nothing to undo: this is the start of the translation"))

    def decoder_self_attention(self) -> np.ndarray:
        """(L, H, T, T) of the best hypothesis so far, zero above the diagonal (read-only)."""
        return self._cumulative()[1]

    def cross_attention(self) -> np.ndarray:
        """(L, H, T, S) of the best hypothesis so far (read-only)."""
        return self._cumulative()[2]

    def hypothesis_attention(self, index: int) -> Trace:
        """Tokens and attention of hypothesis ``index`` of the current beam (0: the best)."""
        hypotheses = self._beams[-1].hypotheses
        if not isinstance(index, int) or not 0 <= index < len(hypotheses):
            raise InputError(
                translate_noop("CoreMessages", "there is no hypothesis {0}: the beam holds {1}"),
                repr(index), len(hypotheses))
        return self._trace(hypotheses[index])

    def trace(self) -> Trace:
        """The best hypothesis so far as a :class:`Trace` (what :func:`transviz.decode` returns)."""
        return self._trace(self._beams[-1].best)

    # -- moving ----------------------------------------------------------------------------------
    def step(self) -> StepRecord:
        """Run one decoder step and choose the next token with the strategy (or the reference)."""
        reason = self.cant_step()
        if reason:
            raise InputError(reason)
        if self._gold is not None:
            gold = self._gold[self.position]
            return self._advance(False, lambda expansion: self._extend_best(expansion, gold), forced=False)
        rules = self.model.generation
        prescribed = rules.prescribed(self.position, self.max_len, self._vocab.eos_id)
        beam = isinstance(self._strategy, Beam)
        # The target language is written once, before a beam widens; the end token at the limit
        # ends every live hypothesis of a beam, as generate() ends them.
        if prescribed is not None and (not beam or self.position < len(rules.forced_prefix)):
            return self._advance(False, lambda expansion: self._extend_best(expansion, prescribed, by_rules=True),
                                 forced=False, prescribed=True)
        if beam:
            return self._advance(True, self._beam_search, forced=False, prescribed=prescribed is not None)
        return self._advance(False, self._choose_one, forced=False)

    def force(self, token: str) -> StepRecord:
        """Continue the best hypothesis with ``token`` instead of what the strategy would choose."""
        if self.teacher_forcing:
            raise InputError(
                translate_noop("CoreMessages", "teacher forcing feeds the reference: forcing a word works when "
                                               "decoding freely"))
        reason = self.cant_step()
        if reason:
            raise InputError(reason)
        beam = self._beams[-1]
        if beam.hypotheses[beam.followed].finished:
            raise InputError(
                translate_noop("CoreMessages", "the best hypothesis has already ended: go back a step to force "
                                               "another word"))
        token_id = self._forceable_id(token)
        return self._advance(False, lambda expansion: self._extend_best(expansion, token_id), forced=True)

    def back(self) -> StepRecord | None:
        """Undo the last step exactly; returns the record now last (None back at the start)."""
        reason = self.cant_back()
        if reason:
            raise InputError(reason)
        self._truncate(self.position - 1)
        return self._notify("back")

    def rewind(self, position: int) -> StepRecord | None:
        """Go back to ``position`` steps (0 = the start); returns the record now last. Rewinding
        to the current position changes nothing and fires no event."""
        if not isinstance(position, int) or isinstance(position, bool) or not 0 <= position <= self.position:
            raise InputError(translate_noop("CoreMessages", "can only rewind to a position from 0 to {0}, got {1}"),
                             self.position, repr(position))
        if position == self.position:
            return self._history[-1] if self._history else None
        self._truncate(position)
        return self._notify("rewind")

    @contextmanager
    def excursion(self) -> Iterator[None]:
        """Step and go back freely inside; on leaving, the session is exactly as it was on entering
        (the same records, not steps taken again), announced as a ``restore`` event. Animations
        walk a run this way without losing a forced token or a sampled word."""
        history, beams = list(self._history), list(self._beams)
        try:
            yield
        finally:
            self._history[:], self._beams[:] = history, beams
            self._notify("restore")

    def reset(self) -> None:
        """Back to the start (the strategy stays)."""
        self._truncate(0)
        self._notify("reset")

    def run_to_end(self, max_len: int | None = None) -> list[StepRecord]:
        """Step until decoding stops; ``max_len``, if given, becomes the session's length limit."""
        if max_len is not None:
            self.max_len = max_len
        records = []
        while self.cant_step() is None:
            records.append(self.step())
        return records

    def set_interventions(self, interventions: Iterable[Intervention]) -> None:
        """Run with ``interventions`` from now on: the sentence is encoded again and decoded again
        to the current step (forced tokens forced again, the others chosen again by the strategy
        or the reference, so the output may change and end sooner)."""
        items = tuple(interventions)
        taps_for(self.model, items)  # checked before anything changes
        forced = [(record.forced, record.token) for record in self._history]
        self._interventions = items
        self._encode()
        self._cache = None
        self._matrices = None
        self._truncate(0)
        for was_forced, token in forced:
            if self.cant_step() is not None:
                break
            if was_forced:
                self.force(token)
            else:
                self.step()
        self._notify("interventions")

    def set_strategy(self, strategy: Strategy) -> None:
        """Use ``strategy`` from the next step on (see the module docstring for what carries over)."""
        strategy = check_strategy(strategy)
        if self.teacher_forcing:
            raise InputError(_TEACHER_FORCING_STRATEGY)
        self._strategy = self._seeded(strategy)
        self._notify("strategy")

    # -- internals -------------------------------------------------------------------------------
    def _is_beam_search(self) -> bool:
        return isinstance(self._strategy, Beam) and not self.teacher_forcing

    def _checked_max_len(self, max_len: int | None) -> int:
        limit = self._room
        if max_len is None:
            return limit
        if not isinstance(max_len, int) or isinstance(max_len, bool) or max_len < 1:
            raise InputError(translate_noop("CoreMessages", "{0} must be a whole number >= 1, got {1}"), "max_len",
                             repr(max_len))
        return min(max_len, limit)

    @staticmethod
    def _seeded(strategy: Strategy) -> Strategy:
        return strategy.seeded() if isinstance(strategy, Sampling) else strategy

    def _encode_reference(self, reference: str) -> list[int]:
        if isinstance(reference, str) and not reference.strip():
            raise InputError(
                translate_noop("CoreMessages", "the reference is empty: type the target sentence to feed, or leave "
                                               "teacher forcing off"))
        encoding = self._vocab.encode(reference)
        gold = encoding.ids + [self._vocab.eos_id]
        limit = self.model.config.max_len
        if len(gold) > limit:
            raise InputError(
                translate_noop("CoreMessages", "the reference has {0} tokens with the end token; this model writes "
                                               "at most {1}"), len(gold), limit)
        self.reference_tokens = encoding.tokens + [EOS]
        self.reference_unknown_tokens = encoding.unknown
        return gold

    def _forceable_id(self, token: str) -> int:
        if not isinstance(token, str):
            raise InputError(translate_noop("CoreMessages", "expected a word to force, got {0}"), type(token).__name__)
        text = token if token in self._vocab else token.strip()  # a space may be a token (character level)
        if not text:
            raise InputError(translate_noop("CoreMessages", "type the word to force"))
        if text not in self._vocab and any(c.isspace() for c in text):
            raise InputError(
                translate_noop("CoreMessages", "force one word at a time, not {0}"), repr(_abbreviate(text)))
        token_id = self._vocab.id_of(text)
        if token_id in (self._vocab.pad_id, self._vocab.bos_id):
            raise InputError(translate_noop("CoreMessages", "{0} is a special token the model never writes"),
                             self._vocab.itos[token_id])
        return token_id

    def _truncate(self, position: int) -> None:
        del self._history[position:]
        del self._beams[position + 1 :]

    def _notify(self, kind: str) -> StepRecord | None:
        record = self._history[-1] if self._history else None
        self.events.emit(Event(kind, self.position, record))
        return record

    def _cache_for(self, beam: BeamStep, parents: list[int]) -> DecoderState:
        """From the last step's cache when it holds the parents' inputs (stepping on, going back
        along the same path); else rebuilt from the columns the path nodes stored."""
        nodes = [beam.hypotheses[i].node for i in parents]
        if self._cache is not None and nodes[0] is not None:
            state = self._cache.rows_for(nodes)  # type: ignore[arg-type]  # nodes[0] set: all are
            if state is not None:
                return state
        return rebuild_cache(self._start, nodes)

    def _advance(self, extend_all: bool, pick: Callable[[_Expansion], list[Choice]], forced: bool,
                 prescribed: bool = False) -> StepRecord:
        """One batched decoder step for the parents, ``pick`` builds the next beam from it."""
        beam = self._beams[-1]
        parents = beam.live if extend_all else [beam.followed]  # the best (live, with the hf rule) hypothesis
        state = self._cache_for(beam, parents)
        inputs = [beam.hypotheses[i].token_ids[-1] if beam.hypotheses[i].token_ids else self._vocab.bos_id
                  for i in parents]
        with computing(self.model.net.work(len(inputs))):  # what follows the step too
            with evaluating(self.model), intervening(self.model, self._interventions):
                out = self.model.net.step(torch.tensor(inputs, device=self.model.device), state)
            expansion = _Expansion.of(out)
            choices = pick(expansion)
        hypotheses = tuple(self._hypothesis(beam, choice, expansion) for choice in choices)
        next_beam = BeamStep(self.position + 1, hypotheses, sum(c.kept for c in choices))
        self._cache = FedCache(out.state, tuple(beam.hypotheses[i].node for i in parents))
        first_new = next(i for i, c in enumerate(choices) if c.row is not None)  # the best extended hypothesis
        record = self._record(choices[first_new], hypotheses[first_new], expansion, next_beam, forced, prescribed)
        self._beams.append(next_beam)
        self._history.append(record)
        self._notify("step")
        return record

    def _hypothesis(self, beam: BeamStep, choice: Choice, expansion: _Expansion) -> Hypothesis:
        parent = beam.hypotheses[choice.parent]
        if choice.row is None or choice.token_id is None:  # a finished hypothesis, kept as it was
            return Hypothesis(parent.tokens, parent.token_ids, parent.score, choice.normalized_score,
                              choice.parent, parent.finished, parent.node)
        node = expansion.node(choice.row, choice.token_id, parent.node)
        return Hypothesis(
            parent.tokens + (self._vocab.itos[choice.token_id],), parent.token_ids + (choice.token_id,),
            choice.score, choice.normalized_score, choice.parent, choice.token_id == self._vocab.eos_id, node,
        )

    def _extend_best(self, expansion: _Expansion, token_id: int, by_rules: bool = False) -> list[Choice]:
        """The followed hypothesis continued with ``token_id``; ``by_rules``: the score adds what
        the model's generation rules leave of its log-probability (0 for a prescribed token), as
        for a token the strategy chose; a token forced or fed as the reference adds its own."""
        beam = self._beams[-1]
        scores = self._scores(expansion) if by_rules else expansion.log_probs
        score = beam.hypotheses[beam.followed].score + float(scores[0, token_id])
        return [Choice(beam.followed, 0, token_id, score, score)]

    def _scores(self, expansion: _Expansion) -> torch.Tensor:
        """The step's log-probabilities (B, V) as the model's generation rules leave them."""
        return self.model.generation.processed(expansion.log_probs, self.position, self.max_len, self._vocab.eos_id)

    def _choose_one(self, expansion: _Expansion) -> list[Choice]:
        if isinstance(self._strategy, Sampling):
            token_id = self._strategy.draw(self._drawable(expansion, 0), self.position)
        else:
            token_id = int(self._scores(expansion)[0].argmax())
        return self._extend_best(expansion, token_id, by_rules=True)

    def _drawable(self, expansion: _Expansion, row: int) -> np.ndarray:
        """Row ``row``'s logits without <pad>, <s> and the ids the model's rules ban: a high
        temperature gives them a real chance, yet neither is a word, and training never taught
        the model to write them."""
        logits: np.ndarray = expansion.logits[row].numpy().copy()
        logits[[self._vocab.pad_id, self._vocab.bos_id, *self.model.generation.banned]] = -np.inf
        return logits

    def _beam_search(self, expansion: _Expansion) -> list[Choice]:
        assert isinstance(self._strategy, Beam)
        beam, scores = self._beams[-1], self._scores(expansion)
        if self._strategy.hf:
            return hf_choices(self._strategy, beam, beam.live, scores, self._vocab.eos_id,
                              last=self.position + 1 >= self.max_len)
        return beam_choices(self._strategy, beam, beam.live, scores)

    def _record(self, choice: Choice, hypothesis: Hypothesis, expansion: _Expansion, beam: BeamStep,
                forced: bool, prescribed: bool) -> StepRecord:
        row, token_id, node = choice.row, choice.token_id, hypothesis.node
        assert row is not None and token_id is not None and node is not None
        top = torch.topk(expansion.probs[row], self.top_k)
        itos = self._vocab.itos
        candidates = tuple(Candidate(itos[i], i, p)
                           for i, p in zip(top.indices.tolist(), top.values.tolist(), strict=True))
        entropy = float(-(expansion.log_probs[row].exp() * expansion.log_probs[row]).sum())
        gold = self._gold is not None
        drawn, drawn_probability = self._drawn(expansion, row, token_id, forced or gold or prescribed)
        return StepRecord(
            index=self.position, token=itos[token_id], token_id=token_id, probability=node.probability,
            forced=forced, candidates=candidates, entropy=entropy, stop=self._stop_reason(beam),
            predicted_token=itos[node.predicted_id], strategy=TEACHER_FORCING if gold else self._strategy.name,
            path=node, gold_token=itos[token_id] if gold else None, gold_probability=node.probability if gold else None,
            beam=beam if self._is_beam_search() else None, drawn=drawn, drawn_probability=drawn_probability,
            interventions=self._interventions, prescribed=prescribed,
        )

    def _drawn(self, expansion: _Expansion, row: int, token_id: int,
               chosen: bool) -> tuple[tuple[DrawnCandidate, ...] | None, float | None]:
        """Sampling's distribution (its top candidates, and its probability of ``token_id``);
        None when the token was not drawn (another strategy, forced, teacher forcing)."""
        if chosen or not isinstance(self._strategy, Sampling):
            return None, None
        p, raw = self._strategy.distribution(self._drawable(expansion, row)), expansion.probs[row]
        order = np.argsort(-p, kind="stable")[: self.top_k]
        itos = self._vocab.itos
        drawn = tuple(DrawnCandidate(itos[i], int(i), float(p[i]), float(raw[i])) for i in order if p[i] > 0)
        return drawn, float(p[token_id])

    def _attention_of(self, nodes: list[PathNode]) -> tuple[np.ndarray, np.ndarray]:
        """Decoder self (L, H, T, T) and cross (L, H, T, S) attention of a path."""
        # the decoder's own depth: an imported model's encoder may have more or fewer layers
        config, source_len = self.model.config, self.encoder_attention.shape[2]
        layers, heads = config.n_decoder_layers, config.n_heads
        return decoder_self_attention(nodes, layers, heads), cross_attention(nodes, layers, heads, source_len)

    def _cumulative(self) -> tuple[PathNode | None, np.ndarray, np.ndarray]:
        node = self._beams[-1].best.node
        if self._matrices is None or self._matrices[0] is not node:
            matrices = self._attention_of(walk(node))
            for array in matrices:
                array.flags.writeable = False  # shared with every caller until the next step
            self._matrices = (node, *matrices)
        return self._matrices

    def _trace(self, hypothesis: Hypothesis) -> Trace:
        nodes = walk(hypothesis.node)
        decoder_self, cross = self._attention_of(nodes)
        outputs = list(hypothesis.tokens)
        stop = "end" if hypothesis.finished else ("max_len" if self.position >= self.max_len else None)
        return Trace(
            source_tokens=list(self.source_tokens),
            target_tokens=[self.start_token] + outputs[:-1] if outputs else [],
            output_tokens=outputs,
            predicted_tokens=self._vocab.tokens_of(n.predicted_id for n in nodes),
            output_probabilities=np.array([n.probability for n in nodes], dtype=np.float32),
            encoder_self_attention=self.encoder_attention,
            decoder_self_attention=decoder_self,
            cross_attention=cross,
            unknown_tokens=list(self.unknown_tokens),
            strategy=TEACHER_FORCING if self.teacher_forcing else self._strategy.name,
            stop_reason=stop,
            translation=self._vocab.detokenize(outputs),
            interventions=self._interventions,
            one_stream=self.model.config.decoder_only,
        )
