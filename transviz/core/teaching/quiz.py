"""Predict, then reveal: quiz questions on a decoding step, and their running score.

A question is built from a step the session has already taken but the window hides: the class
predicts either the next token (the step's top candidates, shuffled so that their order says
nothing of their rank) or where one head's query of that step looks (one key of its row). The
reveal gives the truth (the most probable token, or the key with the largest weight), the
probability the model gave to the class's choice, and the score so far.

A lesson slide's quiz is ``{ ask = "token" }`` or ``{ ask = "where", kind = "cross", layer = 0,
head = 1 }``: :meth:`QuizSpec.of` takes exactly those fields.

More kinds ask about the model's inside at that step, their answers computed from it, never typed
in: ``"layer"``, which decoder layer is the first to rank the written token first (and every layer
after it too: the logit lens); ``"sums"``, whether the head's row of the ``kind`` map sums to 1 (a
decoder-only model's cross-attention view is only part of a row); ``"aligns"``, which head of
``layer`` aligns best with the task's gold word alignments over its test split; ``"queries"``,
which side supplies the ``kind`` attention's queries, read from the rows its first layer projects;
``"mask"``, which of four cells of the decoder self-attention's mask at that step is blocked (the
model's own mask over the decoder inputs fed up to the step, or a decoder-only model's one mask over
its source and those inputs).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from ..analysis.alignment_heads import test_split_alignment
from ..analysis.concepts.forward import Sentence
from ..analysis.lens import logit_lens
from ..analysis.mask_batch import SentenceMask, TokensAndIds, sentence_mask
from ..analysis.walkthrough import KINDS, Kind
from ..base.errors import InputError
from ..base.messages import translate_noop
from ..decoding.paths import walk
from ..decoding.session import DecodingSession, StepRecord, encode_source
from ..model.bundle import evaluating
from ..model.sites import Address, Site, recording

ASKS = ("token", "where", "layer", "sums", "aligns", "queries", "mask")
WHERE_KINDS: tuple[Kind, ...] = ("cross", "decoder_self")  # kinds whose query is a decoding step's
YES, NO = "yes", "no"  # a "sums" question's choices (the window shows them translated)
SOURCE_SIDE, OUTPUT_SIDE = "source", "output"  # a "queries" question's choices (shown translated)
SUMS_TO_ONE = 1e-4  # a row whose weights add up to 1 within float rounding
MAX_CHOICES = 9  # keys 1-9 choose
MASK_CELLS = 4  # a mask question's cells: one blocked, the others open
# why a mask question's blocked cell is blocked: its key comes after its query, lies outside the sliding
# window, or is an output position that a decoder-only model's source rows never see
BLOCKED_BY = ("future", "window", "source")


@dataclass(frozen=True)
class QuizSpec:
    """What to ask at each step: the next token (``ask="token"``), or where head ``head`` of
    ``layer`` of the ``kind`` attention looks (``ask="where"``)."""

    ask: str = "token"
    kind: Kind = "cross"
    layer: int = 0
    head: int = 0

    def __post_init__(self) -> None:
        if self.ask not in ASKS:
            raise InputError(translate_noop("CoreMessages", "a quiz asks {0}, not '{1}'"),
                             ", ".join(repr(a) for a in ASKS), self.ask)
        if self.kind not in (KINDS if self.ask == "queries" else WHERE_KINDS):  # any map has queries
            raise InputError(translate_noop("CoreMessages", "a quiz asks where a 'cross' or 'decoder_self' head "
                                            "looks, not a '{0}' head"), self.kind)
        for name, value in (("layer", self.layer), ("head", self.head)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise InputError(translate_noop("CoreMessages", "{0} must be a whole number >= 0, got {1}"),
                                 name, repr(value))

    @classmethod
    def of(cls, fields: Mapping[str, object]) -> QuizSpec:
        """From a lesson slide's quiz table: ``ask`` and, for "where", ``kind``, ``layer``, ``head``."""
        unknown = sorted(set(fields) - {"ask", "kind", "layer", "head"})
        if unknown:
            raise InputError(translate_noop("CoreMessages", "a quiz has no field '{0}'"), unknown[0])
        return cls(**fields)  # type: ignore[arg-type]  # the fields are checked in __post_init__


@dataclass(frozen=True)
class Question:
    """One question on step ``step`` (0 for the first output token): ``choices`` in the order
    shown (numbered from 1), the model's probability (token) or the head's weight (where) of
    each, hidden until the reveal, and the index of the true answer among them.

    A mask question's probabilities are the mask's values, 1.0 where the cell's query may attend
    to its key and 0.0 where it is blocked; its ``cells`` are the (row, column) of each choice in
    the mask, ``tokens`` the names of the mask's positions (rows and columns alike) and
    ``blocked_by`` why the truth is blocked (one of :data:`BLOCKED_BY`)."""

    ask: str
    step: int
    choices: tuple[str, ...]
    probabilities: tuple[float, ...]
    truth: int
    cells: tuple[tuple[int, int], ...] = ()
    tokens: tuple[str, ...] = ()
    blocked_by: str = ""

    @property
    def truth_text(self) -> str:
        return self.choices[self.truth]


@dataclass(frozen=True)
class Answer:
    """The class's ``choice`` (an index into the question's choices), whether it was the truth,
    and the probability (token) or weight (where) the model gave to it."""

    choice: int
    correct: bool
    probability: float


@dataclass(frozen=True)
class Score:
    right: int = 0
    asked: int = 0

    def after(self, answer: Answer) -> Score:
        return Score(self.right + answer.correct, self.asked + 1)


def shuffled_order(count: int, seed: int, step: int) -> list[int]:
    """A permutation of ``range(count)`` that depends only on ``seed`` and ``step``: the same
    lesson shows the same order, and the rank of a choice cannot be read from its place."""
    return [int(i) for i in np.random.default_rng([seed, step]).permutation(count)]


def token_question(record: StepRecord, seed: int = 0) -> Question:
    """What will the model write at ``record``'s step? Its top candidates, shuffled; the truth is
    the most probable one (what greedy decoding writes)."""
    candidates = record.candidates[:MAX_CHOICES]
    order = shuffled_order(len(candidates), seed, record.index)
    best = max(range(len(candidates)), key=lambda i: candidates[i].probability)
    return Question("token", record.index, tuple(candidates[i].token for i in order),
                    tuple(candidates[i].probability for i in order), order.index(best))


def where_weights(record: StepRecord, spec: QuizSpec) -> np.ndarray:
    """The row of ``spec``'s head for ``record``'s query: (S,) source keys for cross-attention,
    (index + 1,) decoder inputs so far for decoder self-attention."""
    rows = record.cross_rows if spec.kind == "cross" else record.self_rows  # (L, H, keys)
    layers, heads, _ = rows.shape
    if spec.layer >= layers or spec.head >= heads:
        raise InputError(translate_noop("CoreMessages", "this model has {0} layers of {1} heads: there is no "
                                        "layer {2}, head {3}"), layers, heads, spec.layer, spec.head)
    return np.asarray(rows[spec.layer, spec.head], dtype=np.float64)


def where_question(record: StepRecord, spec: QuizSpec, keys: Sequence[str]) -> Question:
    """Where will ``spec``'s head look at ``record``'s query? Every key in order (the class clicks
    one); the truth is the key with the largest weight."""
    weights = where_weights(record, spec)
    if len(keys) != len(weights):
        raise ValueError(f"{len(keys)} key names for {len(weights)} weights")
    return Question("where", record.index, tuple(keys), tuple(float(w) for w in weights), int(np.argmax(weights)))


def question_keys(session: DecodingSession, spec: QuizSpec, record: StepRecord) -> list[str]:
    """The names of the keys ``record``'s query sees: the source tokens, or the decoder's inputs."""
    if spec.kind == "cross":
        return list(session.source_tokens)
    vocab = session.model.tgt_vocab  # the inputs of the record's own hypothesis (beam search has several)
    return [session.start_token, *vocab.tokens_of([node.token_id for node in walk(record.path)[:-1]])]


def layer_question(session: DecodingSession, record: StepRecord) -> Question:
    """Which decoder layer first ranks the token written at ``record``'s step first, every later
    layer too? The choices are the layers; each one's lens probability of that token is shown."""
    sentence = Sentence(session.source, tuple(session.target_tokens[1:record.index + 1]))
    lens = logit_lens(session.model, sentence, record.token, interventions=session.interventions)
    first = lens.first_layer
    if first is None:  # a sampled or forced token that even the last layer does not rank first
        raise InputError(translate_noop("CoreMessages", "no layer ranks '{0}' first, not even the last: the "
                                                        "strategy or a forced token chose it"), record.token)
    return Question("layer", record.index, tuple(str(i) for i in range(len(lens.layers))),
                    tuple(guess.written for guess in lens.layers), first)


def sums_question(record: StepRecord, spec: QuizSpec) -> Question:
    """Does ``spec``'s head's row at ``record``'s step sum to 1? Both choices show the sum."""
    total = float(where_weights(record, spec).sum())
    return Question("sums", record.index, (YES, NO), (total, total), 0 if abs(total - 1.0) < SUMS_TO_ONE else 1)


def aligns_question(session: DecodingSession, record: StepRecord, spec: QuizSpec) -> Question:
    """Which cross-attention head of ``spec.layer`` aligns best with the gold word alignments over
    the test split? Each head's share of gold-aligned choices is shown."""
    scores = test_split_alignment(session.model)
    layers, heads = scores.accuracy.shape
    if spec.layer >= layers:
        raise InputError(translate_noop("CoreMessages", "this model has {0} layers of {1} heads: there is no "
                                        "layer {2}, head {3}"), layers, heads, spec.layer, 0)
    row = scores.accuracy[spec.layer]
    return Question("aligns", record.index, tuple(str(h) for h in range(heads)), tuple(float(a) for a in row),
                    int(np.argmax(row)))


def queries_question(session: DecodingSession, record: StepRecord, spec: QuizSpec) -> Question:
    """Which side's tokens supply the queries of ``spec.kind`` attention? The truth is read from the
    model: how many rows its first layer projects into queries in a pass whose source and decoder
    inputs differ in length. Both choices show that count."""
    model = session.model
    # the decoder inputs fed up to the step, one per row its maps have there
    inputs = model.tgt_vocab.tokens_of([model.tgt_vocab.bos_id]) + session.output_tokens[: record.index]
    source = model.source_tensor(encode_source(model, session.source))
    if len(inputs) == source.shape[1]:  # lengths alike would not tell the sides apart
        inputs = inputs[:-1] if len(inputs) > 1 else [*inputs, session.output_tokens[record.index]]
    ids = [model.tgt_vocab.bos_id, *(model.tgt_vocab.id_of(token) for token in inputs[1:])]
    with evaluating(model), torch.no_grad(), \
            recording(model.net, [Address(spec.kind, 0, Site.QUERIES)]) as seen:
        model.net(source, torch.tensor([ids], device=model.device))
    rows = int(seen[Address(spec.kind, 0, Site.QUERIES)].shape[2])  # (B, H, rows, d_k)
    return Question("queries", record.index, (SOURCE_SIDE, OUTPUT_SIDE), (float(rows), float(rows)),
                    int(rows == len(ids)))


def mask_inputs(session: DecodingSession, record: StepRecord) -> TokensAndIds:
    """The decoder inputs fed up to ``record``'s step: the start token and the outputs before it (of
    the record's own hypothesis), tokens and ids."""
    vocab = session.model.tgt_vocab
    ids = [node.token_id for node in walk(record.path)[:-1]]
    return [session.start_token, *vocab.tokens_of(ids)], [vocab.bos_id, *ids]


def _counts(mask: SentenceMask) -> tuple[int, int]:
    """(blocked, open) cells of a mask."""
    allowed = int(mask.mask.sum())
    return mask.mask.numel() - allowed, allowed


def _askable(mask: SentenceMask) -> bool:
    blocked, allowed = _counts(mask)
    return blocked >= 1 and allowed >= MASK_CELLS - 1


def first_mask_step(session: DecodingSession, index: int) -> int | None:
    """The first step after ``index`` (0 for the first output) whose mask has a blocked cell and
    enough open ones, or None within the session's length. Only the inputs' number matters (one
    sentence has no padding): repeated start tokens stand in for outputs not written yet."""
    model, start, bos = session.model, session.start_token, session.model.tgt_vocab.bos_id
    for later in range(index + 1, session.max_len):
        if _askable(sentence_mask(model, session.source, ([start] * (later + 1), [bos] * (later + 1)))):
            return later
    return None


def blocked_by(mask: SentenceMask, row: int, column: int) -> str:
    """Why query ``row`` may not attend to key ``column`` in ``mask`` (one of :data:`BLOCKED_BY`)."""
    if row < mask.source_length <= column:
        return "source"
    return "future" if column > row else "window"  # one sentence alone has no padding


def mask_question(session: DecodingSession, record: StepRecord, seed: int = 0) -> Question:
    """Which of four cells of the decoder self-attention's mask at ``record``'s step is blocked? The
    mask is the model's own over the inputs fed up to the step; one blocked cell and three open ones
    are drawn from it (seeded by ``seed`` and the step), in a seeded order. InputError when the mask
    has too few of either (the first step, for an encoder-decoder), naming the step to ask from."""
    shown = sentence_mask(session.model, session.source, mask_inputs(session, record))
    if not _askable(shown):
        closed, opened = _counts(shown)
        later = first_mask_step(session, record.index)
        if later is None:
            raise InputError(translate_noop("CoreMessages", "at step {0} the decoder's mask has {1} blocked cells and "
                                            "{2} that may attend: a mask question needs at least 1 and {3}, and this "
                                            "sentence's mask never has them"),
                             record.index + 1, closed, opened, MASK_CELLS - 1)
        raise InputError(translate_noop("CoreMessages", "at step {0} the decoder's mask has {1} blocked cells and {2} "
                                        "that may attend: a mask question needs at least 1 and {3}. Ask it from step "
                                        "{4} on"), record.index + 1, closed, opened, MASK_CELLS - 1, later + 1)
    allowed: np.ndarray = shown.mask.cpu().numpy()
    rng = np.random.default_rng([seed, record.index])
    blocked_cells, open_cells = np.argwhere(~allowed), np.argwhere(allowed)  # (n, 2) cells each, row-major
    picked = [blocked_cells[rng.integers(len(blocked_cells))],
              *open_cells[rng.choice(len(open_cells), MASK_CELLS - 1, replace=False)]]
    order = shuffled_order(MASK_CELLS, seed, record.index)  # the blocked cell is picked[0]
    cells = tuple((int(picked[i][0]), int(picked[i][1])) for i in order)
    names = shown.tokens
    return Question("mask", record.index, tuple(f"{r} {names[r]} -> {c} {names[c]}" for r, c in cells),
                    tuple(float(allowed[r, c]) for r, c in cells), order.index(0), cells, tuple(names),
                    blocked_by(shown, *cells[order.index(0)]))


def ask(session: DecodingSession, spec: QuizSpec, seed: int = 0) -> Question | None:
    """The question on the session's newest step, or None before its first."""
    if not session.history:
        return None
    record = session.history[-1]
    if spec.ask == "token":
        return token_question(record, seed)
    if spec.ask == "layer":
        return layer_question(session, record)
    if spec.ask == "sums":
        return sums_question(record, spec)
    if spec.ask == "aligns":
        return aligns_question(session, record, spec)
    if spec.ask == "queries":
        return queries_question(session, record, spec)
    if spec.ask == "mask":
        return mask_question(session, record, seed)
    return where_question(record, spec, question_keys(session, spec, record))


def answer(question: Question, choice: int) -> Answer:
    """Score ``choice`` (an index into ``question.choices``)."""
    if not 0 <= choice < len(question.choices):
        raise ValueError(f"choice {choice} of {len(question.choices)}")
    return Answer(choice, choice == question.truth, question.probabilities[choice])
