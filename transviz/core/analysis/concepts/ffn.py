"""The FFN "spindle" (seed 000, section FFN; seed 001's PoswiseFeedForwardNet): every token goes
d_model -> d_ff -> d_model through the same two linear layers. This module records the d_ff hidden
units of one layer's FFN for each token, after the activation, as the model computes them."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, cast

import numpy as np
from torch import Tensor, nn

from ...base.errors import InputError
from ...base.messages import translate_noop
from ...model.bundle import Model, evaluating
from ...model.transformer import DecoderLayer, EncoderLayer
from .forward import Sentence, model_inputs

Side = Literal["encoder", "decoder"]
STRONGEST = 5  # units listed per token


@dataclass(frozen=True)
class FfnActivations:
    """One layer's FFN over a sentence. ``hidden`` (tokens, d_ff) is the activation's output
    (ReLU or GELU of the first linear layer), float32; rows follow ``tokens``."""

    side: Side
    layer: int
    activation: str
    d_model: int
    d_ff: int
    tokens: list[str]
    hidden: np.ndarray

    @property
    def active_share(self) -> np.ndarray:
        """Per token, the share of the d_ff units above 0 (GELU: its positive part)."""
        return np.asarray((self.hidden > 0).mean(axis=1))

    def strongest(self, count: int = STRONGEST) -> np.ndarray:
        """Per token, the ``count`` units of the largest activation, strongest first (tokens, count)."""
        count = min(count, self.d_ff)
        return np.argsort(-self.hidden, axis=1, kind="stable")[:, :count]


def ffn_activations(model: Model, sentence: Sentence, side: Side, layer: int) -> FfnActivations:
    """The hidden units of the FFN of ``layer`` of the ``side`` stack, for ``sentence`` (the
    decoder side reads the start token and ``sentence.target``). InputError for a layer the model lacks."""
    layers = model.net.encoder_layers if side == "encoder" else model.net.decoder_layers
    if not 0 <= layer < len(layers):
        raise InputError(translate_noop("CoreMessages", "no layer {0}: the {1} has layers 0 to {2}"), layer, side,
                         len(layers) - 1)
    ffn = cast(EncoderLayer | DecoderLayer, layers[layer]).ffn
    inputs = model_inputs(model, sentence)
    seen: list[Tensor] = []

    def record(_: nn.Module, __: tuple[Tensor, ...], output: Tensor) -> None:
        seen.append(ffn.activation(output.detach()))

    handle = ffn.linear1.register_forward_hook(record)
    try:
        with evaluating(model):
            model.net(inputs.source_ids, inputs.target_ids)
    finally:
        handle.remove()
    tokens = inputs.source_tokens if side == "encoder" else inputs.target_tokens
    cfg = model.config
    return FfnActivations(side, layer, cfg.activation, cfg.d_model, cfg.d_ff, list(tokens),
                          seen[0][0].float().cpu().numpy())
