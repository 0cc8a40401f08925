"""How the next token is chosen: greedy, sampling, beam search. Frozen settings, validated.

A strategy is a value; :class:`~transviz.core.decoding.session.DecodingSession` applies it one step at a
time and may switch between steps. Sampling is reproducible per position: the random number
drawn at position ``t`` depends only on the seed and ``t``, so going back a step and stepping
again draws the same token, and one seed always gives one translation.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import ClassVar

import numpy as np

from ..base.errors import ConfigError, InputError
from ..base.messages import translate_noop
from ..model.config import WHOLE_NUMBER

MAX_BEAM_WIDTH = 64  # wider beams teach nothing more and make every step slow
# Below this temperature sampling is greedy decoding in all but name (the top token's probability
# rounds to 1 unless two logits lie within about 0.01 of each other): use Greedy() instead.
MIN_TEMPERATURE = 1e-3
MAX_TEMPERATURE = 1000  # above this every token is about equally likely: the model no longer matters
# Common values lie between 0.6 and 2 (the window offers 0 to 5); from about 10 on the ranking is
# simply "the longest first". The bound also keeps length ** penalty far from overflowing.
MAX_LENGTH_PENALTY = 10
# "transviz": ended hypotheses stay in the beam; "hf": transformers' generate() (see Beam)
BEAM_RULES = ("transviz", "hf")


def _is_int(value: object) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    """A real number that is not a bool (NaN passes here and fails every range check after)."""
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)


@dataclass(frozen=True)
class Greedy:
    """Always the most probable next token."""

    name: ClassVar[str] = "greedy"


@dataclass(frozen=True)
class Sampling:
    """Draw the next token from the model's distribution, reshaped.

    Args:
        temperature: divides the logits; below 1 sharpens the distribution, above 1 flattens it.
            From :data:`MIN_TEMPERATURE` (at and below it sampling is greedy: use
            :class:`Greedy`) to :data:`MAX_TEMPERATURE`.
        top_k: keep only the ``top_k`` most probable tokens (0: keep all).
        top_p: keep the smallest set of most probable tokens whose probability adds up to at
            least ``top_p`` (nucleus sampling; 1: keep all).
        seed: makes the draws reproducible; ``None`` lets the session pick one (and show it).
    """

    temperature: float = 1.0
    top_k: int = 0
    top_p: float = 1.0
    seed: int | None = None

    name: ClassVar[str] = "sampling"

    def __post_init__(self) -> None:
        if not _is_number(self.temperature) or not MIN_TEMPERATURE <= self.temperature <= MAX_TEMPERATURE:
            raise ConfigError(
                translate_noop("CoreMessages", "temperature must be from {0} to {1}, got {2} (a smaller temperature "
                                               "always picks the most probable token: that is greedy decoding)"),
                MIN_TEMPERATURE, MAX_TEMPERATURE, repr(self.temperature))
        if not _is_int(self.top_k) or self.top_k < 0:
            raise ConfigError(
                translate_noop("CoreMessages", "top_k must be 0 (no limit) or a positive whole number, got {0}"),
                repr(self.top_k))
        if not _is_number(self.top_p) or not 0 < self.top_p <= 1:
            raise ConfigError(
                translate_noop("CoreMessages", "{0} must be in (0, 1], got {1}"), "top_p", repr(self.top_p))
        if self.seed is not None and (not _is_int(self.seed) or self.seed < 0):
            raise ConfigError(WHOLE_NUMBER, "seed", repr(self.seed))

    def distribution(self, logits: np.ndarray) -> np.ndarray:
        """The distribution tokens are drawn from: ``(V,)`` logits -> ``(V,)`` float64 probabilities,
        zero outside the top-k / top-p set."""
        logits = logits.astype(np.float64)
        # shifted before dividing: every value is <= 0, so at worst one becomes -inf, whose exp is 0
        with np.errstate(over="ignore"):
            p = np.exp((logits - logits.max()) / self.temperature)
        p /= p.sum()
        order = np.argsort(-p, kind="stable")  # most probable first; ties keep the lower id first
        keep = np.ones(len(p), dtype=bool)
        if self.top_k:
            keep[order[self.top_k :]] = False
        if self.top_p < 1:
            before = np.cumsum(p[order]) - p[order]  # probability of the more probable tokens
            keep[order[before >= self.top_p]] = False  # the most probable token is always kept
        kept: np.ndarray = np.where(keep, p, 0.0)
        normalised: np.ndarray = kept / kept.sum()
        return normalised

    def seeded(self) -> Sampling:
        """These settings with a seed: this one's, or a fresh random one (shown, so it can be reused)."""
        if self.seed is not None:
            return self
        return replace(self, seed=int(np.random.SeedSequence().generate_state(1)[0]))

    def draw(self, logits: np.ndarray, position: int) -> int:
        """One token id for ``position``, reproducible from (seed, position)."""
        if self.seed is None:
            raise ValueError("draw() needs a seed: use seeded() first")
        cumulative = np.cumsum(self.distribution(logits))
        u = np.random.default_rng([self.seed, position]).random() * cumulative[-1]
        # first token whose cumulative probability exceeds u: zero-probability tokens are never hit
        return int(min(np.searchsorted(cumulative, u, side="right"), len(cumulative) - 1))


@dataclass(frozen=True)
class Beam:
    """Beam search: keep the ``width`` best partial translations, extending all of them each step.

    Hypotheses are ranked by ``score / length ** length_penalty``, ``score`` the summed natural
    log-probability and ``length`` the number of output tokens including the end token
    (fairseq's length penalty: 0 ranks by probability alone, which favours short outputs; 1 ranks
    by the average log-probability per token). Finished hypotheses stay in the beam while they
    rank among the best ``width``; the search ends when no live hypothesis can beat the best finished
    one any more (:func:`~transviz.core.decoding.beam.best_is_settled`), at the latest when all have ended.

    ``rule="hf"`` searches as Hugging Face's ``generate(num_beams=width, length_penalty=...,
    early_stopping=...)`` does instead (:func:`~transviz.core.decoding.beam.hf_choices`): ``width`` live
    hypotheses ranked by their summed score, ended ones set aside in a list of the best ``width``
    ended (ranked by the same normalised score), and a stop per ``early_stopping``: True once
    ``width`` have ended; False (generate's default) or "never" once ``width`` have ended and the
    best live score, spread over the current length (False) or over the length limit ("never"),
    cannot beat the worst ended one. ``early_stopping`` means nothing to the transviz rule.
    """

    width: int = 4
    length_penalty: float = 1.0
    rule: str = "transviz"
    early_stopping: bool | str = False

    name: ClassVar[str] = "beam"

    def __post_init__(self) -> None:
        if not _is_int(self.width) or not 1 <= self.width <= MAX_BEAM_WIDTH:
            raise ConfigError(
                translate_noop("CoreMessages", "beam width must be a whole number from 1 to {0}, got {1}"),
                MAX_BEAM_WIDTH, repr(self.width))
        if not _is_number(self.length_penalty) or not 0 <= self.length_penalty <= MAX_LENGTH_PENALTY:
            raise ConfigError(translate_noop("CoreMessages", "length_penalty must be from 0 to {0}, got {1}"),
                              MAX_LENGTH_PENALTY, repr(self.length_penalty))
        if self.rule not in BEAM_RULES:
            raise ConfigError(translate_noop("CoreMessages", "the beam rule must be {0} or {1}, got {2}"),
                              *(repr(r) for r in BEAM_RULES), repr(self.rule))
        if not any(self.early_stopping is e for e in (True, False)) and self.early_stopping != "never":
            raise ConfigError(translate_noop("CoreMessages", "early_stopping must be true, false or {0}, got {1}"),
                              repr("never"), repr(self.early_stopping))

    @property
    def hf(self) -> bool:
        """Whether the search follows Hugging Face's ``generate`` (``rule="hf"``)."""
        return self.rule == "hf"

    def normalized(self, score: float, length: int) -> float:
        """The ranking score of a hypothesis with summed log-probability ``score`` and ``length`` tokens."""
        # length ** -penalty only ever shrinks towards 0.0, where length ** penalty could overflow
        return score * float(length) ** -self.length_penalty if length else score


Strategy = Greedy | Sampling | Beam
_HF_ONLY = {"rule": "transviz", "early_stopping": False}  # Beam's settings older files never wrote


def strategy_settings(strategy: Strategy) -> dict[str, object]:
    """The strategy's settings for a file: every one, except Beam's ``rule`` and ``early_stopping``
    at their defaults (so files written before they existed are written the same)."""
    settings = asdict(strategy)
    return {k: v for k, v in settings.items() if k not in _HF_ONLY or _HF_ONLY[k] != v}
STRATEGIES: dict[str, type[Greedy] | type[Sampling] | type[Beam]] = {
    "greedy": Greedy, "sampling": Sampling, "sample": Sampling, "beam": Beam}


def strategy_named(name: str) -> Strategy:
    """A strategy with default settings from its name: ``greedy``, ``sampling`` (or ``sample``), ``beam``."""
    if not isinstance(name, str) or name not in STRATEGIES:
        raise InputError(
            translate_noop("CoreMessages", "unknown strategy {0}: choose greedy, sampling or beam"), repr(name))
    return STRATEGIES[name]()


def check_strategy(strategy: object) -> Strategy:
    """``strategy`` itself if it is a strategy, else a ConfigError that says what is expected."""
    if not isinstance(strategy, (Greedy, Sampling, Beam)):
        raise ConfigError(
            translate_noop("CoreMessages", "a strategy must be Greedy(), Sampling(...) or Beam(...), got {0}"),
            repr(strategy))
    return strategy
