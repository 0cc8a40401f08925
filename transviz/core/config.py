"""Typed, frozen, validated configuration of the Transformer."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from .errors import ConfigError
from .init import InitScheme
from .messages import Message, translate_noop

Norm = Literal["post", "pre"]
Activation = Literal["relu", "gelu"]

# Settings that break one of these rules are named in the message, with the value given ({0}, {1}).
POSITIVE_INTEGER = translate_noop("CoreMessages", "{0} must be a positive integer, got {1}")
WHOLE_NUMBER = translate_noop("CoreMessages", "{0} must be a whole number >= 0, got {1}")
POSITIVE = translate_noop("CoreMessages", "{0} must be positive, got {1}")
IN_UNIT_INTERVAL = translate_noop("CoreMessages", "{0} must be in [0, 1), got {1}")
ONE_OF_TWO = translate_noop("CoreMessages", "{0} must be '{1}' or '{2}', got {3}")


@dataclass(frozen=True)
class ModelConfig:
    """Sizes and switches of an encoder-decoder Transformer.

    Defaults are a small classroom model; the paper's base model is
    ``ModelConfig(v, v, d_model=512, n_heads=8, n_encoder_layers=6, n_decoder_layers=6, d_ff=2048)``.
    """

    src_vocab_size: int
    tgt_vocab_size: int
    d_model: int = 128
    n_heads: int = 4
    n_encoder_layers: int = 2
    n_decoder_layers: int = 2
    d_ff: int = 512
    dropout: float = 0.1
    max_len: int = 128
    norm: Norm = "post"
    activation: Activation = "relu"
    share_embeddings: bool = False  # one table for source and target (joint vocabulary)
    tie_output: bool = False  # output projection = target embedding transposed
    layer_norm_eps: float = 1e-5
    pad_id: int = 0

    def __post_init__(self) -> None:
        for name in ("src_vocab_size", "tgt_vocab_size", "d_model", "n_heads", "d_ff", "max_len"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ConfigError(POSITIVE_INTEGER, name, repr(value))
        for name in ("n_encoder_layers", "n_decoder_layers"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ConfigError(translate_noop("CoreMessages", "{0} must be at least 1, got {1}"), name, repr(value))
        if self.d_model % self.n_heads:
            raise ConfigError(translate_noop("CoreMessages", "d_model ({0}) must be divisible by n_heads ({1}): each "
                                                             "head gets d_model / n_heads dimensions"),
                              self.d_model, self.n_heads)
        if not 0.0 <= self.dropout < 1.0:
            raise ConfigError(IN_UNIT_INTERVAL, "dropout", repr(self.dropout))
        if self.norm not in ("post", "pre"):
            raise ConfigError(ONE_OF_TWO, "norm", "post", "pre", repr(self.norm))
        if self.activation not in ("relu", "gelu"):
            raise ConfigError(ONE_OF_TWO, "activation", "relu", "gelu", repr(self.activation))
        if self.share_embeddings and self.src_vocab_size != self.tgt_vocab_size:
            raise ConfigError(translate_noop("CoreMessages", "share_embeddings needs one joint vocabulary: source has "
                                                             "{0} tokens, target {1}"),
                              self.src_vocab_size, self.tgt_vocab_size)
        if not 0 <= self.pad_id < min(self.src_vocab_size, self.tgt_vocab_size):
            raise ConfigError(translate_noop("CoreMessages", "pad_id {0} is outside the vocabularies"), self.pad_id)
        if self.layer_norm_eps <= 0:
            raise ConfigError(POSITIVE, "layer_norm_eps", repr(self.layer_norm_eps))

    @property
    def d_k(self) -> int:
        """Dimensions per head (queries, keys and values alike)."""
        return self.d_model // self.n_heads

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ModelConfig:
        return _from_dict(cls, data, Message(translate_noop("CoreMessages", "model")))


Schedule = Literal["constant", "warmup", "warmup-decay", "noam"]
SCHEDULES: tuple[str, ...] = ("constant", "warmup", "warmup-decay", "noam")


@dataclass(frozen=True)
class TrainConfig:
    """How to train: optimiser, schedule, regularisation, evaluation and snapshots.

    ``lr`` is the peak learning rate of the ``constant``, ``warmup`` and ``warmup-decay``
    schedules; for ``noam`` it is the paper's scale factor (1.0 reproduces the paper), see
    :mod:`transviz.core.schedules`. ``init`` is a scheme of :mod:`transviz.core.init`, written
    ``name`` or ``name:value`` (``normal:0.02``, ``uniform:0.05``). Every ``*_every`` setting
    counts optimiser steps; 0 turns it off.
    """

    steps: int = 4000
    batch_size: int = 64  # sentences per batch, grouped by similar length
    lr: float = 1e-3
    schedule: Schedule = "warmup"
    warmup_steps: int = 400
    label_smoothing: float = 0.1
    clip_norm: float = 1.0  # largest gradient norm; 0 = no clipping
    init: str = "default"
    seed: int = 0
    device: str = "auto"  # auto, cpu, cuda, cuda:N, mps
    eval_every: int = 500  # validation (loss, exact match, BLEU)
    eval_limit: int = 500  # validation sentences decoded each time
    snapshot_every: int = 100  # attention of the probe sentence
    # Write the checkpoint during training too (always at the end), so a crash or a kill keeps the
    # last one: every 200 steps loses little work, and one save costs far less than 200 steps.
    checkpoint_every: int = 200
    probe: str | None = None  # source sentence for snapshots; None = the task's first example
    max_output_len: int = 0  # greedy decoding limit in evaluation; 0 = longest target + 10

    def __post_init__(self) -> None:
        for name in ("steps", "batch_size"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ConfigError(POSITIVE_INTEGER, name, repr(value))
        for name in ("warmup_steps", "eval_every", "eval_limit", "snapshot_every", "checkpoint_every",
                     "max_output_len", "seed"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ConfigError(WHOLE_NUMBER, name, repr(value))
        if not self.lr > 0:
            raise ConfigError(POSITIVE, "lr", repr(self.lr))
        if self.schedule not in SCHEDULES:
            raise ConfigError(translate_noop("CoreMessages", "schedule must be one of {0}; got {1}"),
                              ", ".join(SCHEDULES), repr(self.schedule))
        if self.schedule in ("warmup-decay", "noam") and self.warmup_steps < 1:
            raise ConfigError(translate_noop("CoreMessages", "the {0} schedule needs warmup_steps >= 1"), self.schedule)
        if self.schedule == "warmup-decay" and self.warmup_steps >= self.steps:
            raise ConfigError(translate_noop("CoreMessages", "warmup_steps ({0}) must be below steps ({1}) to leave "
                                                             "room to decay"), self.warmup_steps, self.steps)
        if not 0.0 <= self.label_smoothing < 1.0:
            raise ConfigError(IN_UNIT_INTERVAL, "label_smoothing", repr(self.label_smoothing))
        if not self.clip_norm >= 0:
            raise ConfigError(translate_noop("CoreMessages", "clip_norm must be >= 0 (0 = off), got {0}"),
                              repr(self.clip_norm))
        if self.probe is not None and not self.probe.strip():
            raise ConfigError(translate_noop("CoreMessages", "the probe sentence is empty"))
        InitScheme.parse(self.init)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrainConfig:
        return _from_dict(cls, data, Message(translate_noop("CoreMessages", "training")))


Config = TypeVar("Config", ModelConfig, TrainConfig)


def _from_dict(cls: type[Config], data: dict[str, Any], what: Message) -> Config:
    """``cls(**data)``, with a ConfigError naming unknown or missing settings."""
    known = {f.name for f in dataclasses.fields(cls)}
    unknown = set(data) - known
    if unknown:
        raise ConfigError(translate_noop("CoreMessages", "unknown {0} settings: {1}"), what, ", ".join(sorted(unknown)))
    try:
        return cls(**data)
    except TypeError as exc:  # a required field is missing
        raise ConfigError(translate_noop("CoreMessages", "incomplete {0} settings: {1}"), what, str(exc)) from None
