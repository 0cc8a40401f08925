"""Weights that are finite yet unusable: a flipped exponent bit turns a bias into 5e36, which is no
NaN, but makes every logit NaN. One forward pass on a short probe, and a look at every row of the
embedding tables (a probe reads only a few of them), find such a model before it decodes nonsense."""
from __future__ import annotations

import torch

from ..base.errors import CheckpointError, InputError
from ..base.messages import translate_noop
from ..model.transformer import Transformer

PROBE_TOKENS = 6  # source tokens of the probe
FIRST_WORD = 4  # the first id after the special tokens (vocab.SPECIALS)
START = 1  # <s>
# A trained model's logits are tens at most, and a bias of -1e4 that forbids a token is a known
# trick; logits past this bound come from damaged weights, and divided by the smallest sampling
# temperature they would overflow float32.
MAX_LOGIT = 1e6
# Trained weights are tens at most; a flipped exponent bit multiplies one by 2**32 or more. Such a
# weight can pass the probe (a ReLU that the probe leaves closed) and overflow on another sentence.
MAX_WEIGHT = 1e6
NOT_FINITE = translate_noop("CoreMessages", "the model computed NaN or infinite scores for this input: its weights "
                                            "are damaged")


def _probe(net: Transformer) -> tuple[torch.Tensor, torch.Tensor]:
    """A short source of ordinary tokens (<unk> when the vocabulary holds none) and the start token."""
    cfg = net.config
    count = min(PROBE_TOKENS, cfg.max_len)
    ids = [FIRST_WORD + i if FIRST_WORD + i < cfg.src_vocab_size else min(3, cfg.src_vocab_size - 1)
           for i in range(count)]
    return torch.tensor([ids]), torch.tensor([[min(START, cfg.tgt_vocab_size - 1)]])  # (1, S), (1, 1)


def _embedding_rows_finite(net: Transformer) -> bool:
    """Every token's embedding, scaled as the model scales it, keeps a finite sum of squares (what
    layer normalisation computes): a row past that overflows whenever its token is read."""
    scale = net.config.embedding_scale
    tables = {id(t): t for t in (net.src_embed.weight, net.tgt_embed.weight)}.values()
    return all(bool(torch.isfinite((t.float() * scale).square().sum(dim=1)).all()) for t in tables)


def _forward_finite(net: Transformer) -> bool:
    out = net(*_probe(net), return_attention=True)
    assert out.attention is not None  # asked for
    maps = out.attention.encoder_self + out.attention.decoder_self + out.attention.cross
    finite = all(bool(torch.isfinite(t).all()) for t in (out.logits, *maps))
    return finite and float(out.logits.abs().max()) <= MAX_LOGIT


def _peaks(net: Transformer) -> dict[str, float]:
    """Each tensor's largest magnitude (a tied tensor once)."""
    return {name: float(p.detach().abs().max()) for name, p in net.named_parameters() if p.numel()}


def largest(net: Transformer, count: int = 3) -> str:
    """The ``count`` tensors with the largest magnitudes, as ``name (max |value|)``."""
    peaks = _peaks(net)
    top = sorted(peaks, key=peaks.__getitem__, reverse=True)[:count]
    return ", ".join(f"{name} ({peaks[name]:.3g})" for name in top)


class NonFiniteScores(InputError):
    """A model computed NaN or infinite scores for an input (a training run calls that diverging)."""


def require_finite(scores: torch.Tensor) -> None:
    """NonFiniteScores unless every score a decoding step computed is finite: the last guard when a
    damaged model got past the checks at loading, or training made weights that overflow."""
    if not bool(torch.isfinite(scores).all()):
        raise NonFiniteScores(NOT_FINITE)


def check_finite_forward(net: Transformer, name: str) -> None:
    """CheckpointError naming the largest weights unless every weight is within :data:`MAX_WEIGHT`,
    every embedding row is usable, and ``net`` (in eval mode) computes finite attention and logits
    within :data:`MAX_LOGIT` on a probe."""
    with torch.no_grad():
        if max(_peaks(net).values(), default=0.0) <= MAX_WEIGHT and _embedding_rows_finite(net) \
                and _forward_finite(net):
            return
        raise CheckpointError(translate_noop("CoreMessages", "{0}: its weights make the model compute NaN, infinite "
                                                             "or absurdly large values (the file is damaged); largest "
                                                             "weights: {1}"),
                              name, largest(net))
