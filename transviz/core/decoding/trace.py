"""What one decoded sentence looked like (:class:`Trace`)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import torch

if TYPE_CHECKING:  # for an annotation only
    from .interventions import Intervention


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
    strategy: str  # "greedy", "sampling", "beam" or "teacher_forcing"
    stop_reason: str | None  # "end" (end token), "max_len" (length limit), None (not stopped / teacher forcing)
    translation: str  # the output tokens as text
    interventions: tuple[Intervention, ...] = ()  # what changed how attention ran (core.decoding.interventions)
    # a decoder-only model's: the three maps are views of its one self-attention (ModelConfig.decoder_only)
    one_stream: bool = False

    @property
    def query_labels(self) -> list[str]:
        """One label per decoder query row: "input -> written token" (see :func:`query_labels`)."""
        return query_labels(self.target_tokens, self.output_tokens)


def query_labels(inputs: list[str], outputs: list[str]) -> list[str]:
    """Names of the decoder's query rows: the token fed and the token written at that step,
    ``"to -> drink"``. Row ``t`` is computed from input ``t`` and chooses output ``t``, so naming
    it by its input alone reads as shifted by one."""
    return [f"{fed} -> {written}" for fed, written in zip(inputs, outputs, strict=True)]


def stack_layers(per_layer: tuple[torch.Tensor, ...]) -> np.ndarray:
    """Per-layer (1, H, Q, K) -> (layers, H, Q, K) float32 numpy."""
    return torch.stack([m[0] for m in per_layer]).float().cpu().numpy()
