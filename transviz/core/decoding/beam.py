"""The beam: the partial translations a session is following, and how beam search picks the next one.

Every decoding strategy keeps a beam; greedy, sampling and teacher forcing keep one hypothesis.
:class:`BeamStep` is the beam after a step, best hypothesis first, each hypothesis pointing at
its parent in the previous beam, so a UI can draw the search tree from ``session.beam_history``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import torch

from .paths import PathNode
from .strategies import Beam


@dataclass(frozen=True)
class Hypothesis:
    """One partial translation in a beam."""

    tokens: tuple[str, ...]  # output tokens so far (no start token)
    token_ids: tuple[int, ...]
    score: float  # summed natural log-probability of the tokens
    normalized_score: float  # what beam search ranks by: score / length ** length_penalty
    parent: int | None  # index of the hypothesis it extends in the previous beam; None at the start
    finished: bool  # ended with the end token
    node: PathNode | None = field(default=None, repr=False, compare=False)  # its last token; None at the start


@dataclass(frozen=True)
class BeamStep:
    """The beam after ``position`` output tokens (0: the start), best hypothesis first."""

    position: int
    hypotheses: tuple[Hypothesis, ...]
    # Hugging Face's rule: the first ``kept`` hypotheses are its list of the best ended ones (best
    # first by normalised score; at the length limit also ones cut there), the rest the live ones
    kept: int = 0

    @property
    def best(self) -> Hypothesis:
        return self.hypotheses[0]

    @property
    def followed(self) -> int:
        """Index of the hypothesis that greedy, sampling and force continue: the best one, or with
        Hugging Face's rule the best live one (generate's first), when there is one."""
        live = self.live
        return live[0] if self.kept and live else 0

    @property
    def live(self) -> list[int]:
        """Indices of the hypotheses that have not ended (nor been set aside), in beam order."""
        return [i for i, h in enumerate(self.hypotheses) if i >= self.kept and not h.finished]


@dataclass(frozen=True)
class Choice:
    """One member of the next beam: a parent extended by a token, or a finished parent kept as is."""

    parent: int  # index in the previous beam
    row: int | None  # batch row of the parent's next-token distribution; None when kept as is
    token_id: int | None  # None when kept as is
    score: float  # summed log-probability after the choice
    normalized_score: float
    kept: bool = False  # Hugging Face's rule: in the list of ended hypotheses


def beam_choices(beam: Beam, previous: BeamStep, parents: list[int], log_probs: torch.Tensor) -> list[Choice]:
    """The next beam, best first: the ``beam.width`` best among every extension of the live
    ``parents`` (batch rows of ``log_probs``, (B, V)) and the finished hypotheses of ``previous``.

    Live hypotheses all have the same length, so extensions are ranked by their summed
    log-probability in float64 (exact sums, so width 1 picks the argmax like greedy).
    """
    hypotheses = previous.hypotheses
    length = len(hypotheses[parents[0]].tokens) + 1
    totals = torch.tensor([hypotheses[i].score for i in parents], dtype=torch.float64)[:, None] + log_probs.double()
    vocab = totals.shape[1]
    best = torch.topk(totals.flatten(), min(beam.width, totals.numel()))  # (k,), sorted, over (B * V)
    choices = [
        Choice(i, None, None, h.score, beam.normalized(h.score, len(h.tokens)))
        for i, h in enumerate(hypotheses) if h.finished
    ]
    for total, flat in zip(best.values.tolist(), best.indices.tolist(), strict=True):
        row, token = divmod(flat, vocab)
        choices.append(Choice(parents[row], row, token, total, beam.normalized(total, length)))
    choices.sort(key=lambda c: -c.normalized_score)  # stable: ties keep finished, then topk order
    return choices[: beam.width]


def best_reachable(beam: Beam, hypothesis: Hypothesis, max_len: int) -> float:
    """The highest ranking score any continuation of the live ``hypothesis`` can end with, when
    outputs hold at most ``max_len`` tokens.

    Every log-probability is <= 0, so a continuation's summed score s' <= s (the score now), and
    its length n' <= max_len. For s' <= 0 and length_penalty a >= 0:
    s' / n'**a <= s / n'**a <= s / max_len**a: a longer ending can raise the normalised score (the
    same sum over a larger length), but never above the score now spread over the longest length.
    With a = 0 the bound is s itself.
    """
    return beam.normalized(hypothesis.score, max_len)


def best_is_settled(beam: Beam, step: BeamStep, max_len: int) -> bool:
    """Whether the best finished hypothesis of ``step`` can no longer be beaten: no live one can
    reach a higher ranking score (:func:`best_reachable`) before the length limit."""
    ended = [beam.normalized(h.score, len(h.tokens)) for h in step.hypotheses if h.finished]
    if not ended:
        return False
    return all(best_reachable(beam, h, max_len) <= max(ended) for h in step.hypotheses if not h.finished)


def hf_choices(beam: Beam, previous: BeamStep, parents: list[int], log_probs: torch.Tensor, eos_id: int,
               last: bool) -> list[Choice]:
    """The next beam by Hugging Face's rule (transformers' ``_beam_search``): the ended list first,
    then the ``beam.width`` best live extensions by summed score.

    Of the ``2 * width`` best extensions by summed score, those among the first ``width`` that end
    (with the end token, or any at the length limit: ``last``) join the ended list, scored by
    ``score / length ** length_penalty``, and the list keeps its best ``width``; the others that
    did not end are the live ones. Ended ones ranked below ``width`` are dropped, as in generate.
    """
    hypotheses = previous.hypotheses
    length = len(hypotheses[parents[0]].tokens) + 1
    totals = torch.tensor([hypotheses[i].score for i in parents], dtype=torch.float64)[:, None] + log_probs.double()
    vocab = totals.shape[1]
    best = torch.topk(totals.flatten(), min(2 * beam.width, totals.numel()))  # sorted, over (B * V)
    ended: list[Choice] = [Choice(i, None, None, h.score, beam.normalized(h.score, len(h.tokens)), kept=True)
                           for i, h in enumerate(hypotheses) if i < previous.kept or h.finished]
    live: list[Choice] = []
    for rank, (total, flat) in enumerate(zip(best.values.tolist(), best.indices.tolist(), strict=True)):
        row, token = divmod(flat, vocab)
        ends = token == eos_id or last
        kept = ends and rank < beam.width  # generate sets aside ended ones among its first ``width`` only
        choice = Choice(parents[row], row, token, total, beam.normalized(total, length), kept=kept)
        if choice.kept:
            ended.append(choice)
        elif token != eos_id:
            live.append(choice)
    ended.sort(key=lambda c: -c.normalized_score)  # stable: ties keep the earlier ended first
    return ended[: beam.width] + live[: beam.width]


def hf_search_ended(beam: Beam, step: BeamStep, max_len: int) -> bool:
    """Whether generate stops after ``step`` (transformers' ``_check_early_stop_heuristic`` and
    ``_beam_search_has_unfinished_sequences``): only once ``beam.width`` hypotheses have ended,
    then at once with ``early_stopping=True``, else when the best live summed score over the
    current length ("never" with a penalty above 0: over the length limit) is not above the worst
    ended score. Reaching the length limit is the session's other stop."""
    ended = step.hypotheses[: step.kept]
    live = [step.hypotheses[i] for i in step.live]
    if len(ended) < beam.width:
        return not live  # no live one left: only after a step at the length limit
    if beam.early_stopping is True or not live:
        return True
    length = max_len if beam.early_stopping == "never" and beam.length_penalty > 0 else step.position
    best_possible = beam.normalized(max(h.score for h in live), length)
    return best_possible <= min(h.normalized_score for h in ended)
