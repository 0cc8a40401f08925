"""Activation patching between two sentences: run the model on sentence B (the corrupted run) with
one activation taken from sentence A (the clean run), and measure how far that one value moves B's
output towards A's at one output step.

What can be patched (:data:`PATCH_KINDS`), each as a grid of layers x columns:

* ``"encoder"``: the encoder's residual stream after a layer at one source position
  (:attr:`~transviz.core.model.sites.Site.RESIDUAL` of the "encoder" stack); columns are source
  positions, so A and B must have sources of one length.
* ``"cross_head"``: one cross-attention head's output at the step
  (:attr:`~transviz.core.model.sites.Site.HEAD_OUTPUT` of the "cross" attention, the step's row);
  columns are heads.
* ``"decoder"``: the decoder's residual stream after a layer at the step (one column).

The measure is the one of the interpretability literature's "logit difference": at step t,
``m = log p(A's token) - log p(B's token)``; a patched run's score is
``(m_patched - m_B) / (m_A - m_B)``, 0 for B's own run and 1 for A's.

Every run is teacher forced on one decoder prefix, A's own greedy output: so "step t" names the
same decoder inputs in every run, and a patched value of A's at row t meets the inputs it was
computed with. Patches are taps on the model's named sites (:mod:`transviz.core.model.sites`),
never a change of the weights; every cell of a grid runs in one batch.
"""
from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import torch
from torch import Tensor

from ..base.errors import InputError
from ..base.messages import translate_noop
from ..decoding.inference import decode
from ..decoding.session import encode_source
from ..model.bundle import Model, evaluating
from ..model.config import WHOLE_NUMBER
from ..model.sites import Address, Call, Site, Tap, recording, tapping
from ..model.vocab import Encoding

PatchKind = Literal["encoder", "cross_head", "decoder"]
PATCH_KINDS: tuple[PatchKind, ...] = ("encoder", "cross_head", "decoder")
Cell = tuple[int, int]  # (layer, column): a column is a source position, a head, or 0 (the step)
MAX_STEPS = 50  # A's and B's greedy outputs are decoded to at most this many tokens (transviz.decode's default)

SAME_TOKEN = translate_noop("CoreMessages", "the two sentences give the same token ({0}) at step {1}: nothing to "
                                            "move; after A's output they differ at steps {2}")
NEVER_DIFFER = translate_noop("CoreMessages", "the two sentences give the same token ({0}) at step {1}: nothing to "
                                              "move; after A's output they give the same token at every step")
LENGTHS_DIFFER = translate_noop("CoreMessages", "A has {0} source tokens and B {1}: a position of one is not a "
                                                "position of the other; choose sentences of one length, or patch a "
                                                "head or the decoder")


@dataclass(frozen=True, eq=False)  # arrays inside: compare fields, not results
class Patching:
    """How much patching each cell of A's run into B's moves B's output towards A's at ``step``.

    Rows are layers (from 0) of the patched stack; columns are source positions (``"encoder"``),
    heads (``"cross_head"``) or the step itself (``"decoder"``, one column)."""

    kind: PatchKind
    step: int  # the output step (0-based decoder row) whose tokens are compared
    scores: np.ndarray  # (layers, columns) float64: 0 is B's own run, 1 is A's
    differences: np.ndarray  # (layers, columns) float64: each patched run's log p(token_a) - log p(token_b)
    rows: tuple[str, ...]  # "L0", "L1", ...
    columns: tuple[str, ...]  # source tokens ("bier/wasser" where A's and B's differ), "H0", ..., or the step's input
    token_a: str  # what A's run predicts at the step
    token_b: str  # what B's run predicts at the step, after A's prefix
    m_a: float  # log p(token_a) - log p(token_b) in A's run
    m_b: float  # the same in B's run
    prefix: tuple[str, ...]  # the decoder inputs 0..step of every run: the start token and A's first step tokens
    output_a: tuple[str, ...]  # A's greedy output
    output_b: tuple[str, ...]  # B's greedy output (the runs follow A's, whatever B wrote)
    source_a: tuple[str, ...]
    source_b: tuple[str, ...]
    one_stream: bool  # a decoder-only model's: "cross_head" patched its one self-attention's heads

    def normalised(self, difference: float | np.ndarray) -> float | np.ndarray:
        """``difference`` (a patched run's log p(token_a) - log p(token_b)) as a score: 0 B, 1 A."""
        return (difference - self.m_b) / (self.m_a - self.m_b)


def activation_patching(model: Model, a: str, b: str, step: int, kind: PatchKind = "encoder") -> Patching:
    """Patch every cell of ``kind`` (one at a time) from sentence ``a`` into a run on ``b``.

    Args:
        model: an encoder-decoder or decoder-only model (:func:`transviz.load_model`).
        a: the clean sentence, whose activations are patched in.
        b: the corrupted sentence, the run that is patched.
        step: the output step compared (0-based: the decoder row that chooses output token ``step``).
        kind: ``"encoder"``, ``"cross_head"`` or ``"decoder"`` (see the module's docstring).

    Both runs are teacher forced on A's greedy output up to ``step``: "A's token" and "B's token" are
    what each run predicts after that one prefix. B's own greedy output may have differed earlier;
    on its own prefix a patched value of A's row t would meet other decoder inputs than it was made
    with, and the two runs' tokens at t would not answer the same question. When the two runs
    predict the same token at ``step`` there is nothing to move: InputError, naming the steps where
    they differ.

    A decoder-only model (``ModelConfig.decoder_only``) reads its source through the same layers as
    its output: ``"encoder"`` patches that source pass's residual stream (after its last layer
    nothing reads it, so that row is 0), and ``"cross_head"`` patches a head of its one
    self-attention at the step, whose output mixes what it read in the source and in the output
    (:attr:`Patching.one_stream`). Its prompt and output share its positions, and every run is
    fed A's output: A is decoded no further than both prompts leave room for.

    InputError for an empty sentence, an unknown kind, a step beyond A's output, and for
    ``"encoder"`` sources of different lengths.

    Example::

        result = activation_patching(model, "ich mochte ein bier", "ich mochte ein wasser", step=3)
        result.scores  # (layers, positions): 1 where A's value alone makes B say A's token
    """
    pair = _prepare(model, a, b, step, kind)
    layers, columns = _grid(model, pair, kind)
    cells = [(layer, column) for layer in range(layers) for column in range(columns)]
    log_probs, clean_a, own_b = _runs(model, pair, step, kind, [(), *((cell,) for cell in cells)])
    token_a, token_b = _tokens(model, step, clean_a, own_b, pair.limit)
    m = log_probs[:, token_a] - log_probs[:, token_b]  # (1 + cells,)
    m_a = float(clean_a[step, token_a] - clean_a[step, token_b])
    m_b = float(m[0])
    differences = m[1:].reshape(layers, columns)
    scores = (differences - m_b) / (m_a - m_b)
    for array in (differences, scores):
        array.setflags(write=False)
    vocab = model.tgt_vocab
    return Patching(kind, step, scores, differences, tuple(f"L{layer}" for layer in range(layers)),
                    _labels(model, pair, step, kind), vocab.itos[token_a], vocab.itos[token_b], m_a, m_b,
                    pair.prefix[: step + 1], pair.output_a, pair.output_b, tuple(pair.source_a.tokens),
                    tuple(pair.source_b.tokens), model.config.decoder_only)


def patched_log_probs(model: Model, a: str, b: str, step: int, kind: PatchKind,
                      variants: Sequence[Collection[Cell]]) -> np.ndarray:
    """``(len(variants), V)`` float64: B's log-probabilities at ``step`` (after A's prefix, as in
    :func:`activation_patching`) with every cell of each variant patched from A's run at once; an
    empty variant is B's own run. All variants run in one batch. InputError as
    :func:`activation_patching`, and for a cell outside the grid."""
    pair = _prepare(model, a, b, step, kind)
    layers, columns = _grid(model, pair, kind)
    for variant in variants:
        for layer, column in variant:
            if not (0 <= layer < layers and 0 <= column < columns):
                raise InputError(translate_noop("CoreMessages", "no cell ({0}, {1}) to patch: layers 0 to {2}, "
                                                                "columns 0 to {3}"), layer, column, layers - 1,
                                 columns - 1)
    return _runs(model, pair, step, kind, variants)[0]


@dataclass(frozen=True)
class _Pair:
    """The two sentences as the runs read them."""

    source_a: Encoding
    source_b: Encoding
    inputs: list[int]  # A's decoder inputs: the start token, then A's greedy output less its last token
    prefix: tuple[str, ...]  # those inputs as tokens
    output_a: tuple[str, ...]
    output_b: tuple[str, ...]
    limit: int  # the length limit A was decoded under (its generation rules may act at it)


def _prepare(model: Model, a: str, b: str, step: int, kind: str) -> _Pair:
    """Checks what a user can get wrong, and decodes A and B greedily."""
    if kind not in PATCH_KINDS:
        raise InputError(translate_noop("CoreMessages", "unknown patch kind {0}; choose one of {1}"), repr(kind),
                         ", ".join(PATCH_KINDS))
    for name, text in (("A", a), ("B", b)):
        if not isinstance(text, str) or not text.strip():
            raise InputError(translate_noop("CoreMessages", "sentence {0} is empty: patching needs two sentences"),
                             name)
    if not isinstance(step, int) or isinstance(step, bool) or step < 0:
        raise InputError(WHOLE_NUMBER, "step", repr(step))
    source_a, source_b = encode_source(model, a), encode_source(model, b)
    if kind == "encoder" and len(source_a.ids) != len(source_b.ids):
        raise InputError(LENGTHS_DIFFER, len(source_a.ids), len(source_b.ids))
    # every run is fed A's output: it must fit after B's prompt too (a decoder-only model's)
    limit = min(MAX_STEPS, model.output_room(source_a), model.output_room(source_b))
    trace_a = decode(model, a, max_len=limit)
    if step >= len(trace_a.output_tokens):
        raise InputError(translate_noop("CoreMessages", "step {0} is beyond A's output: it wrote {1} tokens (steps 0 "
                                                        "to {2})"), step, len(trace_a.output_tokens),
                         len(trace_a.output_tokens) - 1)
    trace_b = decode(model, b, max_len=MAX_STEPS)
    vocab = model.tgt_vocab
    inputs = [vocab.bos_id] + [vocab.stoi[token] for token in trace_a.output_tokens[:-1]]
    return _Pair(source_a, source_b, inputs, tuple(trace_a.target_tokens), tuple(trace_a.output_tokens),
                 tuple(trace_b.output_tokens), limit)


def _grid(model: Model, pair: _Pair, kind: str) -> tuple[int, int]:
    """(layers, columns) of ``kind``'s grid."""
    cfg = model.config
    if kind == "encoder":
        return cfg.layer_count("encoder_self"), len(pair.source_b.ids)
    return cfg.layer_count("cross"), cfg.n_heads if kind == "cross_head" else 1


def _labels(model: Model, pair: _Pair, step: int, kind: str) -> tuple[str, ...]:
    """The grid's column names: source tokens ("bier/wasser" where A's and B's differ), heads, or
    the token the decoder was fed at the step."""
    if kind == "encoder":
        return tuple(ta if ta == tb else f"{ta}/{tb}"
                     for ta, tb in zip(pair.source_a.tokens, pair.source_b.tokens, strict=True))
    if kind == "cross_head":
        return tuple(f"H{head}" for head in range(model.config.n_heads))
    return (pair.prefix[step],)


def _address(kind: str, layer: int) -> Address:
    if kind == "encoder":
        return Address("encoder", layer, Site.RESIDUAL)
    if kind == "decoder":
        return Address("decoder", layer, Site.RESIDUAL)
    return Address("cross", layer, Site.HEAD_OUTPUT)  # a decoder-only model's: its self-attention's, the output rows


def _runs(model: Model, pair: _Pair, step: int, kind: str,
          variants: Sequence[Collection[Cell]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A's run recording ``kind``'s values, then B's once per variant in one batch: the variants'
    log-probabilities at ``step`` (N, V), A's (T, V) and B's own (T, V), float64."""
    layers = _grid(model, pair, kind)[0]
    addresses = [_address(kind, layer) for layer in range(layers)]
    net = model.net
    # A's whole output: later rows cannot reach the step's (the decoder is causal), and B's own rows
    # name the steps where the two runs differ
    tgt = torch.tensor([pair.inputs], device=model.device)  # (1, T)
    with evaluating(model):
        with recording(net, addresses) as seen:
            clean_a = net(model.source_tensor(pair.source_a), tgt).logits
        taps = [Tap(address, _patch(kind, step, seen[address], _cells_of(variants, layer)))
                for layer, address in enumerate(addresses)]
        src = model.source_tensor(pair.source_b).expand(len(variants), -1)  # (N, S_B)
        with tapping(net, taps):
            patched = net(src, tgt.expand(len(variants), -1)).logits  # (N, T, V)
    log_probs = torch.log_softmax(patched.double(), dim=-1)
    a_log_probs = torch.log_softmax(clean_a[0].double(), dim=-1)
    return log_probs[:, step].cpu().numpy(), a_log_probs.cpu().numpy(), log_probs[0].cpu().numpy()


def _cells_of(variants: Sequence[Collection[Cell]], layer: int) -> tuple[list[int], list[int]]:
    """The batch rows that patch ``layer`` and the column each patches there."""
    found = [(row, column) for row, variant in enumerate(variants) for at, column in variant if at == layer]
    return [row for row, _ in found], [column for _, column in found]


def _patch(kind: str, step: int, clean: Tensor, cells: tuple[list[int], list[int]]) -> Callable[[Tensor, Call], Tensor]:
    """A tap that gives each batch row of ``cells`` A's value (``clean``, batch 1) at its column."""
    rows, columns = (torch.tensor(found, dtype=torch.long) for found in cells)

    def edit(value: Tensor, call: Call) -> Tensor:
        if not len(rows):
            return value
        out = value.clone()  # a recorder may hold ``value``
        if kind == "encoder":  # (N, S, d): the column is a source position
            out[rows, columns] = clean[0, columns]
            return out
        row = step - call.first_query  # where the step's row is in this pass
        if not 0 <= row < value.shape[-2]:
            return value
        if kind == "decoder":  # (N, T, d)
            out[rows, row] = clean[0, step]
        else:  # (N, H, T, d_k): the column is a head
            out[rows, columns, row] = clean[0, columns, step]
        return out
    return edit


def _tokens(model: Model, step: int, clean_a: np.ndarray, own_b: np.ndarray, limit: int) -> tuple[int, int]:
    """A's and B's predicted token ids at ``step`` from their log-probabilities (T, V) after A's
    prefix, under the model's generation rules at the length ``limit`` A was decoded with;
    InputError when they are one token."""
    eos = model.tgt_vocab.eos_id

    def choose(log_probs: np.ndarray, at: int) -> int:
        ruled = model.generation.processed(torch.from_numpy(log_probs[at][None]), at, limit, eos)  # (1, V)
        return int(ruled.argmax())

    token_a, token_b = choose(clean_a, step), choose(own_b, step)
    if token_a != token_b:
        return token_a, token_b
    differing = [str(at) for at in range(len(clean_a)) if choose(clean_a, at) != choose(own_b, at)]
    if not differing:
        raise InputError(NEVER_DIFFER, model.tgt_vocab.itos[token_a], step)
    raise InputError(SAME_TOKEN, model.tgt_vocab.itos[token_a], step, ", ".join(differing))
