"""Whole-sentence inference: decoding (a :class:`~transviz.core.decoding.session.DecodingSession` run to
the end) and teacher forcing (one parallel forward pass).

Both return a :class:`Trace` of every attention map, so that decoding a sentence and then
teacher-forcing the decoded output must give the same maps: the check that the cache is right.
"""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import torch

from ..base.errors import InputError
from ..base.messages import translate_noop
from ..io.weights_check import require_finite
from ..model.bundle import Model, evaluating
from .interventions import Intervention, intervening
from .session import DecodingSession, encode_source
from .strategies import Strategy, strategy_named
from .trace import Trace, stack_layers

__all__ = ["Trace", "decode", "evaluating", "teacher_force"]


def decode(model: Model, source: str, strategy: str | Strategy = "greedy", max_len: int = 50,
           interventions: Iterable[Intervention] = ()) -> Trace:
    """Translate ``source`` one token at a time on the key/value cache.

    Args:
        strategy: ``"greedy"``, ``"sampling"`` or ``"beam"`` (default settings), or a
            :class:`~transviz.core.decoding.strategies.Greedy` / ``Sampling`` / ``Beam`` value.
        max_len: at most this many output tokens (capped at the model's ``max_len``, less a
            decoder-only model's prompt).
        interventions: how attention runs differently (:mod:`~transviz.core.decoding.interventions`).

    Beam search returns its best hypothesis.
    """
    if isinstance(strategy, str):
        strategy = strategy_named(strategy)
    if not isinstance(max_len, int) or max_len < 1:
        raise InputError(translate_noop("CoreMessages", "{0} must be at least 1, got {1}"), "max_len", str(max_len))
    session = DecodingSession(model, source, strategy, top_k=1, max_len=max_len, interventions=interventions)
    session.run_to_end()
    return session.trace()


def teacher_force(model: Model, source: str, target: str, interventions: Iterable[Intervention] = ()) -> Trace:
    """Feed the gold ``target`` (start token first) and record what the model predicted at each
    position, with ``interventions`` (:mod:`~transviz.core.decoding.interventions`) in force."""
    interventions = tuple(interventions)
    encoding = encode_source(model, source)
    vocab, net = model.tgt_vocab, model.net
    gold = vocab.encode(target).ids + [vocab.eos_id]
    inputs = [vocab.bos_id] + gold[:-1]
    if len(inputs) > net.config.max_len:
        raise InputError(translate_noop("CoreMessages", "the target has {0} tokens; this model reads at most {1}"),
                         len(inputs), net.config.max_len)
    with evaluating(model), intervening(model, interventions):
        tgt = torch.tensor([inputs], device=model.device)
        out = net(model.source_tensor(encoding), tgt, return_attention=True)
        require_finite(out.logits)
        p = torch.softmax(out.logits[0].float(), dim=-1)  # (T, V)
    gold_t = torch.tensor(gold, device=p.device)
    maps = out.attention
    return Trace(
        source_tokens=encoding.tokens,
        target_tokens=[model.start_token(encoding), *vocab.tokens_of(inputs[1:])],
        output_tokens=vocab.tokens_of(gold),
        predicted_tokens=vocab.tokens_of(p.argmax(-1).tolist()),
        output_probabilities=p.gather(1, gold_t[:, None])[:, 0].cpu().numpy().astype(np.float32),
        encoder_self_attention=stack_layers(maps.encoder_self),
        decoder_self_attention=stack_layers(maps.decoder_self),
        cross_attention=stack_layers(maps.cross),
        unknown_tokens=encoding.unknown,
        strategy="teacher_forcing",
        stop_reason=None,
        translation=vocab.detokenize(vocab.tokens_of(gold)),
        interventions=interventions,
        one_stream=net.config.decoder_only,
    )
