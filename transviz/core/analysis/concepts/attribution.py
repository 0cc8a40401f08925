"""Attribution beside attention: what changed each output token, next to where the heads looked.

For the sentence at the explorer's step, teacher-forced over the tokens written so far, every
output token y_t gets integrated gradients (Sundararajan et al. 2017) of log p(y_t | x, y_<t) with
respect to the source token embeddings (the embedding layer's output; the model adds the positions
itself, so the baseline keeps them). Per source token the attribution is the signed sum over the
embedding dimensions. IG integrates the gradient along the straight path from a baseline (zero, or
the padding token's embedding) with Gauss-Legendre points on [0, 1] (as Captum does by default);
all points run through encoder and decoder as one batch. Completeness says the attributions of a
row sum to f(x) - f(baseline); the gap is kept to show how well the integral converged.

Beside it: the cross-attention of the chosen decoder layer, the mean of its heads, and the
explorer's rollout through the decoder (:func:`transviz.core.analysis.aggregate.cross_rollout`, last layer:
the decoder's masked self-attention and cross-attention with their residuals, over the encoder's
own rollout), so each row says how much of each *input* token reached the output; rows sum to 1.
Per output row the Spearman rank correlation between |attribution| and each map says how far they
agree.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np
import torch
from torch import Tensor

from ...base.errors import InputError
from ...base.messages import translate_noop
from ...data.held_out import held_out_pairs
from ...model.bundle import Model
from ...model.transformer import Transformer
from ...model.vocab import EOS
from ..aggregate import cross_rollout, mean_over_heads
from .forward import Sentence, model_inputs

Baseline = Literal["zero", "pad"]
BASELINES: tuple[Baseline, ...] = ("zero", "pad")
STEPS = 64  # interpolation points: completeness holds to well under 5% on the shipped models
MIN_STEPS = 32
SENTENCES = 64  # test pairs read by :func:`mean_rank_correlation`


Progress = Callable[[int, int], None]  # (rows done, rows): may raise to stop the work


def integrated_gradients(f: Callable[[Tensor], Tensor], inputs: Tensor, baseline: Tensor,
                         steps: int = STEPS, progress: Progress | None = None) -> Tensor:
    """Integrated gradients of every output column of ``f`` with respect to ``inputs``.

    ``f`` maps a batch (B, *shape) to (B, T); ``inputs`` and ``baseline`` are (1, *shape). All
    ``steps`` points of the path run through ``f`` as one batch; the integral is Gauss-Legendre
    on [0, 1]. Returns (T, *shape): row t attributes f(.)[:, t]. Captum's
    ``IntegratedGradients(f).attribute(inputs, baseline, target=t, n_steps=steps)`` computes row t
    the same way, so it can stand in here.
    """
    nodes, weights = np.polynomial.legendre.leggauss(steps)
    broadcast = (-1,) + (1,) * (inputs.dim() - 1)
    alphas = torch.tensor((nodes + 1) / 2, dtype=inputs.dtype, device=inputs.device).view(broadcast)
    scale = torch.tensor(weights / 2, dtype=inputs.dtype, device=inputs.device).view(broadcast)
    with torch.enable_grad():
        path = (baseline + alphas * (inputs - baseline)).detach().requires_grad_(True)  # (steps, *shape)
        out = f(path)  # (steps, T)
        columns = out.shape[1]
        grads = []
        for t in range(columns):  # the batch rows are independent: a sum gives each its own gradient
            grads.append(torch.autograd.grad(out[:, t].sum(), path, retain_graph=t < columns - 1)[0])
            if progress is not None:
                progress(t + 1, columns)
    mean_gradient = torch.stack([(scale * grad).sum(dim=0) for grad in grads])  # (T, *shape)
    return (mean_gradient * (inputs - baseline)).detach()


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    """Spearman's rank correlation of two 1-D arrays (ties get their mean rank); NaN when either
    is constant (fewer than two distinct values: no order to compare)."""
    ra, rb = _ranks(np.asarray(a, dtype=np.float64)), _ranks(np.asarray(b, dtype=np.float64))
    ra, rb = ra - ra.mean(), rb - rb.mean()
    norm = math.sqrt(float(ra @ ra) * float(rb @ rb))
    return float(ra @ rb) / norm if norm > 0 else math.nan


def _ranks(x: np.ndarray) -> np.ndarray:
    order = np.argsort(x, kind="stable")
    ranks = np.empty(len(x))
    ranks[order] = np.arange(1, len(x) + 1)
    for value in np.unique(x):  # ties share the mean of the ranks they span
        tied = x == value
        ranks[tied] = ranks[tied].mean()
    return ranks


@dataclass(frozen=True)
class Attribution:
    """One sentence at one step: rows are the output tokens written so far (y_1 .. y_k), columns
    the source tokens. float64.

    Shape:
        ``attribution``, ``attention``, ``rollout`` (k, S); ``log_prob``, ``change``, ``gap``,
        ``correlation``, ``rollout_correlation`` (k,).
    """

    source_tokens: list[str]
    output_tokens: list[str]
    layer: int  # the decoder layer whose cross-attention ``attention`` averages
    baseline: Baseline
    steps: int
    attribution: np.ndarray  # IG per source token: signed sum over the embedding dimension
    log_prob: np.ndarray  # f(x) = log p(y_t | x, y_<t)
    change: np.ndarray  # f(x) - f(baseline)
    gap: np.ndarray  # attribution.sum(1) - change: completeness, 0 for the exact integral
    attention: np.ndarray  # head mean of layer ``layer``'s cross-attention
    rollout: np.ndarray  # the explorer's rollout through the decoder to the source, last layer
    correlation: np.ndarray  # Spearman(|attribution|, attention) per row (NaN: undefined)
    rollout_correlation: np.ndarray  # Spearman(|attribution|, rollout) per row

    @property
    def mean_correlation(self) -> float:
        return _mean(self.correlation)

    @property
    def mean_rollout_correlation(self) -> float:
        return _mean(self.rollout_correlation)

    @property
    def relative_gap(self) -> float:
        """The largest |gap| over the largest |f(x) - f(baseline)| of the sentence (a row whose
        log-probability hardly changes, as the end token's often does, has no meaningful ratio)."""
        return float(np.abs(self.gap).max() / max(float(np.abs(self.change).max()), 1e-12))


def _mean(values: np.ndarray) -> float:
    defined = values[~np.isnan(values)]
    return float(defined.mean()) if len(defined) else math.nan


def _log_probs(net: Transformer, source: Tensor, decoder_inputs: Tensor, outputs: Tensor) -> Callable[[Tensor], Tensor]:
    """f(embedded (B, S, d)) -> (B, T): log p of each output token with ``embedded`` in place of the
    source embedding layer's output (the model scales it and adds positions as it always does)."""
    def f(embedded: Tensor) -> Tensor:
        batch = embedded.shape[0]
        # only the encoder's call is replaced: a shared table also embeds the decoder's inputs
        handle = net.src_embed.register_forward_hook(lambda *_: embedded)
        try:
            encoded = net.encode(source.expand(batch, -1))
        finally:
            handle.remove()
        logits = net.decode(decoder_inputs.expand(batch, -1), encoded).logits  # (B, T, V)
        log_p = torch.log_softmax(logits.float(), dim=-1)
        return log_p.gather(-1, outputs.expand(batch, -1).unsqueeze(-1)).squeeze(-1)  # (B, T)
    return f


def check_attributable(model: Model, sentence: Sentence, layer: int, baseline: Baseline, steps: int) -> None:
    """InputError before any token is written, for a decoder layer the model lacks, too few
    steps or an unknown baseline."""
    if not sentence.target:
        raise InputError(translate_noop("CoreMessages", "no output token yet: take a decoding step first"))
    if not 0 <= layer < model.config.n_decoder_layers:
        raise InputError(translate_noop("CoreMessages", "no layer {0}: the {1} has layers 0 to {2}"), layer,
                         "decoder", model.config.n_decoder_layers - 1)
    if steps < MIN_STEPS or baseline not in BASELINES:
        raise InputError(translate_noop("CoreMessages", "integrated gradients need at least {0} steps and a "
                                                        "baseline of {1}"), MIN_STEPS, " or ".join(BASELINES))


def attribute(model: Model, sentence: Sentence, layer: int = 0, baseline: Baseline = "zero",
              steps: int = STEPS, progress: Progress | None = None) -> Attribution:
    """IG and attention of ``sentence`` (its output tokens: ``sentence.target``); InputError as
    :func:`check_attributable` says. ``progress`` hears of each output row's gradient."""
    check_attributable(model, sentence, layer, baseline, steps)
    net = model.net
    # the decoder reads <s> and all but the last output token: up to max_len outputs fit
    inputs = model_inputs(model, Sentence(sentence.source, sentence.target[:-1]))
    vocab = model.tgt_vocab
    decoder_inputs = inputs.target_ids
    outputs = torch.tensor([[vocab.stoi.get(token, vocab.unk_id) for token in sentence.target]],
                           dtype=torch.long, device=model.device)
    was_training = net.training
    net.eval()  # no dropout; gradients stay on (evaluating() would turn them off)
    try:
        f = _log_probs(net, inputs.source_ids, decoder_inputs, outputs)
        embedded = net.src_embed(inputs.source_ids).detach()  # (1, S, d)
        start = _baseline(net, embedded, baseline)
        ig = integrated_gradients(f, embedded, start, steps, progress)  # (T, S, d)
        with torch.no_grad():
            ends = f(torch.cat([start, embedded])).double().cpu().numpy()  # (2, T)
            maps = net(inputs.source_ids, decoder_inputs, return_attention=True).attention
    finally:
        net.train(was_training)
    assert maps is not None  # asked for
    scores = ig.sum(dim=-1).double().cpu().numpy()  # (T, S)
    cross = _stack(maps.cross)
    attention = mean_over_heads(cross)[layer].astype(np.float64)
    rolled = cross_rollout(_stack(maps.decoder_self), cross, _stack(maps.encoder_self))[-1].astype(np.float64)
    change = ends[1] - ends[0]
    return Attribution(
        inputs.source_tokens, list(sentence.target), layer, baseline, steps, scores, ends[1], change,
        scores.sum(axis=1) - change, attention, rolled,
        _row_correlations(scores, attention), _row_correlations(scores, rolled))


def _baseline(net: Transformer, embedded: Tensor, baseline: Baseline) -> Tensor:
    if baseline == "zero":
        return torch.zeros_like(embedded)
    pad = net.src_embed.weight[net.config.pad_id].detach()  # (d,)
    return pad.expand_as(embedded).clone()


def _stack(maps: tuple[Tensor, ...]) -> np.ndarray:
    return np.stack([m[0].float().cpu().numpy() for m in maps])  # (L, H, Q, K)


def _row_correlations(scores: np.ndarray, maps: np.ndarray) -> np.ndarray:
    return np.array([spearman(np.abs(row), weights) for row, weights in zip(scores, maps, strict=True)])


@dataclass(frozen=True)
class SplitCorrelation:
    """The mean over test pairs of each pair's mean row correlation (pairs where none is defined are
    left out of that mean)."""

    layer: int
    pairs: int
    attention: float
    rollout: float
    worst_gap: float  # the largest relative completeness gap met


def mean_rank_correlation(model: Model, layer: int = 0, sentences: int = SENTENCES, baseline: Baseline = "zero",
                          steps: int = STEPS) -> SplitCorrelation:
    """Attribution against attention over the first ``sentences`` test pairs of ``model``'s task,
    teacher-forced on the gold target (its end token included)."""
    attention, rolled, gaps = [], [], []
    pairs = held_out_pairs(model, "test")[:sentences]
    for pair in pairs:
        target = (*model.tgt_vocab.encode(pair.target).tokens, EOS)
        shown = attribute(model, Sentence(pair.source, target), layer, baseline, steps)
        attention.append(shown.mean_correlation)
        rolled.append(shown.mean_rollout_correlation)
        gaps.append(shown.relative_gap)
    return SplitCorrelation(layer, len(pairs), _mean(np.array(attention)), _mean(np.array(rolled)),
                            max(gaps, default=0.0))
