"""Whole-sentence inference: greedy decoding on the KV cache, and teacher forcing.

Both return a :class:`Trace` of every attention map, so that decoding a sentence and then
teacher-forcing the decoded output must give the same maps: the check that the cache is right.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import torch

from .bundle import Model
from .errors import InputError
from .vocab import BOS


@dataclass(frozen=True)
class Trace:
    """Tokens and attention of one sentence. Arrays are float32, rows are queries, columns keys."""

    source_tokens: list[str]  # S encoder inputs
    target_tokens: list[str]  # T decoder inputs, the start token first
    output_tokens: list[str]  # T tokens that followed each input: chosen (decode) or gold (teacher forcing)
    predicted_tokens: list[str]  # T most probable next tokens
    output_probabilities: np.ndarray  # (T,) probability of each output token
    encoder_self_attention: np.ndarray  # (layers, heads, S, S)
    decoder_self_attention: np.ndarray  # (layers, heads, T, T), zero above the diagonal
    cross_attention: np.ndarray  # (layers, heads, T, S)
    unknown_tokens: list[tuple[int, str]]  # (position, token) of source tokens mapped to <unk>
    strategy: str  # "greedy" or "teacher_forcing"
    stop_reason: str | None  # "end" (end token), "max_len" (length limit), None for teacher forcing
    translation: str  # the output tokens as text


@contextmanager
def evaluating(model: Model) -> Iterator[None]:
    """Eval mode and no autograd for the duration, restoring the caller's mode afterwards."""
    was_training = model.net.training
    model.net.eval()
    try:
        with torch.no_grad():
            yield
    finally:
        model.net.train(was_training)


def _stack(per_layer: tuple[torch.Tensor, ...]) -> np.ndarray:
    """Per-layer (1, H, Q, K) -> (layers, H, Q, K) float32 numpy."""
    return torch.stack([m[0] for m in per_layer]).float().cpu().numpy()


def decode(model: Model, source: str, strategy: str = "greedy", max_len: int = 50) -> Trace:
    """Translate ``source`` one token at a time on the key/value cache."""
    if strategy != "greedy":
        raise InputError(f"unknown strategy {strategy!r}: transviz.decode supports 'greedy'")
    if max_len < 1:
        raise InputError(f"max_len must be at least 1, got {max_len}")
    encoding = model.encode_source(source)
    vocab, net = model.tgt_vocab, model.net
    steps = min(max_len, net.config.max_len)
    with evaluating(model):
        encoded = net.encode(model.source_tensor(encoding), return_attention=True)
        state = net.start(encoded)
        token = torch.tensor([vocab.bos_id], device=model.device)
        outputs, probs, self_rows, cross_rows = [], [], [], []
        stop_reason = "max_len"
        for _ in range(steps):
            step = net.step(token, state)
            state = step.state
            p = torch.softmax(step.logits[0].float(), dim=-1)
            token = p.argmax().reshape(1)
            outputs.append(int(token))
            probs.append(float(p[token]))
            self_rows.append(torch.stack([r[0, :, 0] for r in step.self_attention]))  # (L, H, t)
            cross_rows.append(torch.stack([r[0, :, 0] for r in step.cross_attention]))  # (L, H, S)
            if int(token) == vocab.eos_id:
                stop_reason = "end"
                break
    T = len(outputs)
    decoder_self = torch.zeros(self_rows[0].shape[0], self_rows[0].shape[1], T, T)
    for t, row in enumerate(self_rows):
        decoder_self[:, :, t, : t + 1] = row
    out_tokens = vocab.tokens_of(outputs)
    return Trace(
        source_tokens=encoding.tokens,
        target_tokens=[BOS] + out_tokens[:-1],
        output_tokens=out_tokens,
        predicted_tokens=out_tokens,
        output_probabilities=np.asarray(probs, dtype=np.float32),
        encoder_self_attention=_stack(encoded.attention),  # type: ignore[arg-type]
        decoder_self_attention=decoder_self.numpy(),
        cross_attention=torch.stack(cross_rows, dim=2).float().cpu().numpy(),
        unknown_tokens=encoding.unknown,
        strategy="greedy",
        stop_reason=stop_reason,
        translation=vocab.detokenize(out_tokens),
    )


def teacher_force(model: Model, source: str, target: str) -> Trace:
    """Feed the gold ``target`` (start token first) and record what the model predicted at each position."""
    encoding = model.encode_source(source)
    vocab, net = model.tgt_vocab, model.net
    gold = vocab.encode(target).ids + [vocab.eos_id]
    inputs = [vocab.bos_id] + gold[:-1]
    if len(inputs) > net.config.max_len:
        raise InputError(f"the target has {len(inputs)} tokens; this model reads at most {net.config.max_len}")
    with evaluating(model):
        tgt = torch.tensor([inputs], device=model.device)
        out = net(model.source_tensor(encoding), tgt, return_attention=True)
        p = torch.softmax(out.logits[0].float(), dim=-1)  # (T, V)
    gold_t = torch.tensor(gold, device=p.device)
    maps = out.attention
    return Trace(
        source_tokens=encoding.tokens,
        target_tokens=vocab.tokens_of(inputs),
        output_tokens=vocab.tokens_of(gold),
        predicted_tokens=vocab.tokens_of(p.argmax(-1).tolist()),
        output_probabilities=p.gather(1, gold_t[:, None])[:, 0].cpu().numpy().astype(np.float32),
        encoder_self_attention=_stack(maps.encoder_self),  # type: ignore[union-attr]
        decoder_self_attention=_stack(maps.decoder_self),  # type: ignore[union-attr]
        cross_attention=_stack(maps.cross),  # type: ignore[union-attr]
        unknown_tokens=encoding.unknown,
        strategy="teacher_forcing",
        stop_reason=None,
        translation=vocab.detokenize(vocab.tokens_of(gold)),
    )
