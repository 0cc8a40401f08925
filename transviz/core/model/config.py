"""Typed, frozen, validated configuration of the Transformer."""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from numbers import Real
from typing import Any, Literal, TypeVar

from ..base.errors import ConfigError
from ..base.messages import Message, translate_noop
from .init import InitScheme
from .layout import tensor_layout
from .vocab import MAX_TOKENS, SPECIALS

Norm = Literal["post", "pre"]
Activation = Literal["relu", "gelu", "silu", "gelu-tanh"]
ACTIVATIONS: tuple[str, ...] = ("relu", "gelu", "silu", "gelu-tanh")  # silu: Marian's "swish"; gelu-tanh: gelu_new
# sinusoidal: the paper's table, sin and cos columns interleaved; sinusoidal-halves: the same table with
# all sin columns first (Marian, Pegasus); sinusoidal-fairseq: fairseq's variant (M2M100, FSMT: other
# rates, positions counted from 2); learned: one trained table per stack (BART). The kinds after these
# add nothing to the embeddings: rotary turns each self-attention query and key by angles that grow with
# its position (RoPE), alibi adds -slope x distance to each self-attention score (a slope per head), none
# gives the model no positions at all (the decoder's causal mask is all it has); t5 adds a learned bias
# per head to each self-attention score, one for each bucket of query-key offsets (T5's relative positions).
Positional = Literal["sinusoidal", "sinusoidal-halves", "sinusoidal-fairseq", "learned", "rotary", "alibi", "none",
                     "t5"]
POSITIONALS: tuple[str, ...] = ("sinusoidal", "sinusoidal-halves", "sinusoidal-fairseq", "learned", "rotary",
                                "alibi", "none", "t5")
IN_ATTENTION = ("rotary", "alibi", "none", "t5")  # the kinds that add no table to the embeddings
# what transviz trains with (the sine-table layouts of Marian and fairseq are for their own weights)
TRAINED_POSITIONALS: tuple[str, ...] = ("sinusoidal", "learned", "rotary", "alibi", "t5", "none")
# standard: torch.nn.LayerNorm, (x - mean) / sqrt(variance + eps); unbiased-std: the Annotated Transformer's,
# (x - mean) / (std + eps) with the unbiased standard deviation (see transformer.StdLayerNorm); rms:
# RMSNorm, x / sqrt(mean(x^2) + eps) times a weight, no mean taken away and no bias (today's models)
LayerNormKind = Literal["standard", "unbiased-std", "rms"]
LAYER_NORMS: tuple[str, ...] = ("standard", "unbiased-std", "rms")
# encoder-decoder: the paper's two stacks. The decoder-only kinds read one stream, the source, the start
# token as the separator, then the target, through one stack of self-attention layers: prefix-lm lets
# the source positions see each other both ways (a prefix LM), decoder-only masks them causally too.
Architecture = Literal["encoder-decoder", "prefix-lm", "decoder-only"]
ARCHITECTURES: tuple[str, ...] = ("encoder-decoder", "prefix-lm", "decoder-only")

# Settings that break one of these rules are named in the message, with the value given ({0}, {1}).
POSITIVE_INTEGER = translate_noop("CoreMessages", "{0} must be a positive integer, got {1}")
WHOLE_NUMBER = translate_noop("CoreMessages", "{0} must be a whole number >= 0, got {1}")
POSITIVE = translate_noop("CoreMessages", "{0} must be positive, got {1}")
IN_UNIT_INTERVAL = translate_noop("CoreMessages", "{0} must be in [0, 1), got {1}")
ONE_OF_TWO = translate_noop("CoreMessages", "{0} must be '{1}' or '{2}', got {3}")
AT_MOST = translate_noop("CoreMessages", "{0} must be at most {1}, got {2}")
NUMBER = translate_noop("CoreMessages", "{0} must be a number, got {1}")
TRUE_OR_FALSE = translate_noop("CoreMessages", "{0} must be true or false, got {1}")
TEXT = translate_noop("CoreMessages", "{0} must be text, got {1}")
ONE_OF = translate_noop("CoreMessages", "{0} must be one of {1}, got {2}")

# Upper bounds: far above any model a classroom trains or shows (the paper's big model has d_model
# 1024, 6 layers, d_ff 4096), low enough that a file or a typo asking for more is refused before
# memory is spent on it.
MAX_VOCAB = MAX_TOKENS + len(SPECIALS)
MAX_SIZES = {"d_model": 4096, "n_heads": 64, "n_encoder_layers": 48, "n_decoder_layers": 48, "d_ff": 16384,
             "max_len": 8192,  # positions; the positional table is max_len x d_model
             "src_vocab_size": MAX_VOCAB, "tgt_vocab_size": MAX_VOCAB}  # what a Vocab can hold
MAX_PARAMETERS = 500_000_000  # 2 GB of float32 weights: the largest checkpoint transviz reads
MAX_STEPS = 10_000_000  # optimiser steps (and every *_every setting)
MAX_BATCH = 4096  # sentences per batch
MAX_SEED = 2**32 - 1  # what every random number generator takes


def _check_integer(name: str, value: object, low: int, high: int) -> None:
    """An int (not a bool: JSON's true is no size) from ``low`` (0 or 1) to ``high``."""
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        if low:
            raise ConfigError(POSITIVE_INTEGER, name, repr(value))
        raise ConfigError(WHOLE_NUMBER, name, repr(value))
    if value > high:
        raise ConfigError(AT_MOST, name, high, repr(value))


def _check_number(name: str, value: object) -> None:
    """A real number (not a bool) that is a finite float (not NaN, infinite, or an int past float's range)."""
    try:
        finite = isinstance(value, Real) and not isinstance(value, bool) and math.isfinite(float(value))
    except OverflowError:
        finite = False
    if not finite:
        raise ConfigError(NUMBER, name, repr(value))


def _check_bool(name: str, value: object) -> None:
    if not isinstance(value, bool):  # "no" and 0 are not false: a file saying so is damaged
        raise ConfigError(TRUE_OR_FALSE, name, repr(value))


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
    # For models made elsewhere (torch.nn.Transformer): None ends each stack with a LayerNorm
    # exactly when norm is "pre" (transviz's own models); True/False say so outright.
    final_norm: bool | None = None
    scale_embeddings: bool = True  # embeddings multiplied by sqrt(d_model) before positions are added
    positional: Positional = "sinusoidal"  # what is added to the embeddings (see Positional)
    embedding_norm: bool = False  # a LayerNorm after embeddings + positions, one per stack (BART)
    bias: bool = True  # additive biases in attention, feed-forward and LayerNorm (nn.Transformer(bias=False))
    layer_norm: LayerNormKind = "standard"  # how every LayerNorm normalises (see LayerNormKind)
    # 0: self-attention sees every key it may; w: only keys fewer than w positions away (a sliding
    # window; in the decoder, with the causal mask, the last w keys, itself included)
    attention_window: int = 0
    # Heads of keys and values: 0 gives each query head its own (multi-head attention); fewer, dividing
    # n_heads, share each between n_heads / n_kv_heads query heads (grouped-query; 1: multi-query)
    n_kv_heads: int = 0
    architecture: Architecture = "encoder-decoder"
    # T5's relative positions (positional "t5"): buckets of offsets, and the offset from which all share the last
    relative_buckets: int = 32
    relative_max_distance: int = 128
    scale_scores: bool = True  # Q K^T / sqrt(d_k) (the paper); T5 leaves the scores as they are
    # a gated feed-forward layer (GLU, as T5 v1.1 and Llama): W_2 (act(x W_1) * x W_3)
    gated_ffn: bool = False
    rotary_base: float = 10000.0  # RoPE's base: pair i turns at base^(-2i/d_k) per position (Llama's rope_theta)
    # decoder-only: the first input after the source is the prompt's last token, not a start token (a GPT-2
    # or Llama prompt has no separator): the source is the prompt less that token (Transformer.encode)
    start_from_prompt: bool = False

    def __post_init__(self) -> None:
        for name, high in MAX_SIZES.items():
            _check_integer(name, getattr(self, name), 1, high)
        _check_number("dropout", self.dropout)
        _check_number("layer_norm_eps", self.layer_norm_eps)
        _check_number("rotary_base", self.rotary_base)
        if not self.rotary_base > 1:  # a base of 1 or less turns every pair alike, or backwards
            raise ConfigError(translate_noop("CoreMessages", "{0} must be above 1, got {1}"), "rotary_base",
                              repr(self.rotary_base))
        for name in ("share_embeddings", "tie_output", "scale_embeddings", "embedding_norm", "bias", "scale_scores",
                     "gated_ffn", "start_from_prompt"):
            _check_bool(name, getattr(self, name))
        if self.final_norm is not None:
            _check_bool("final_norm", self.final_norm)
        if self.d_model % self.n_heads:
            raise ConfigError(translate_noop("CoreMessages", "d_model ({0}) must be divisible by n_heads ({1}): each "
                                                             "head gets d_model / n_heads dimensions"),
                              self.d_model, self.n_heads)
        if not 0.0 <= self.dropout < 1.0:
            raise ConfigError(IN_UNIT_INTERVAL, "dropout", repr(self.dropout))
        if self.norm not in ("post", "pre"):
            raise ConfigError(ONE_OF_TWO, "norm", "post", "pre", repr(self.norm))
        if self.activation not in ACTIVATIONS:
            raise ConfigError(ONE_OF, "activation", ", ".join(ACTIVATIONS), repr(self.activation))
        if self.positional not in POSITIONALS:
            raise ConfigError(ONE_OF, "positional", ", ".join(POSITIONALS), repr(self.positional))
        if self.positional == "sinusoidal-fairseq" and self.d_model < 4:  # its rates divide by d_model / 2 - 1
            raise ConfigError(translate_noop("CoreMessages", "positional {0} needs d_model >= 4, got {1}"),
                              self.positional, self.d_model)
        if self.positional == "rotary" and self.d_k % 2:  # it turns pairs of a head's dimensions
            raise ConfigError(translate_noop("CoreMessages", "rotary positions need an even number of dimensions per "
                                                             "head, got d_model / n_heads = {0}"), self.d_k)
        if self.layer_norm not in LAYER_NORMS:
            raise ConfigError(ONE_OF, "layer_norm", ", ".join(LAYER_NORMS), repr(self.layer_norm))
        if self.share_embeddings and self.src_vocab_size != self.tgt_vocab_size:
            raise ConfigError(translate_noop("CoreMessages", "share_embeddings needs one joint vocabulary: source has "
                                                             "{0} tokens, target {1}"),
                              self.src_vocab_size, self.tgt_vocab_size)
        _check_integer("pad_id", self.pad_id, 0, MAX_SIZES["src_vocab_size"])
        _check_integer("attention_window", self.attention_window, 0, MAX_SIZES["max_len"])
        _check_integer("n_kv_heads", self.n_kv_heads, 0, self.n_heads)
        if self.n_heads % self.kv_heads:
            raise ConfigError(translate_noop("CoreMessages", "n_kv_heads ({0}) must divide n_heads ({1}): each "
                                                             "key/value head serves the same number of query heads"),
                              self.n_kv_heads, self.n_heads)
        self._check_architecture()
        _check_integer("relative_buckets", self.relative_buckets, 2, 1024)
        _check_integer("relative_max_distance", self.relative_max_distance, 1, MAX_SIZES["max_len"])
        if self.positional == "t5" and self.relative_max_distance <= self.relative_buckets // 2:
            raise ConfigError(translate_noop("CoreMessages", "relative_max_distance ({0}) must be above half of "
                                                             "relative_buckets ({1}): one bucket per offset reaches "
                                                             "that far"),
                              self.relative_max_distance, self.relative_buckets)
        if self.pad_id >= min(self.src_vocab_size, self.tgt_vocab_size):
            raise ConfigError(translate_noop("CoreMessages", "pad_id {0} is outside the vocabularies"), self.pad_id)
        if not self.layer_norm_eps > 0:
            raise ConfigError(POSITIVE, "layer_norm_eps", repr(self.layer_norm_eps))
        if self.layer_norm_eps > 1:  # added to a variance of about 1: more would wipe out the normalisation
            raise ConfigError(AT_MOST, "layer_norm_eps", 1, repr(self.layer_norm_eps))
        if self.parameter_count() > MAX_PARAMETERS:
            raise ConfigError(translate_noop("CoreMessages", "this model would have {0} parameters; transviz builds "
                                                             "at most {1}"),
                              f"{self.parameter_count():,}", f"{MAX_PARAMETERS:,}")

    def _check_architecture(self) -> None:
        if self.architecture not in ARCHITECTURES:
            raise ConfigError(ONE_OF, "architecture", ", ".join(ARCHITECTURES), repr(self.architecture))
        if self.start_from_prompt and not self.decoder_only:  # an encoder-decoder's decoder has its own start
            raise ConfigError(translate_noop("CoreMessages", "start_from_prompt needs a decoder-only model, not "
                                                             "{0}"), self.architecture)
        if not self.decoder_only:
            return
        if self.n_encoder_layers != self.n_decoder_layers:  # the source runs through the decoder's layers
            raise ConfigError(translate_noop("CoreMessages", "a {0} model reads its source with its decoder's "
                                                             "layers: n_encoder_layers ({1}) must equal "
                                                             "n_decoder_layers ({2})"),
                              self.architecture, self.n_encoder_layers, self.n_decoder_layers)
        if self.embedding_norm or self.positional in ("sinusoidal-halves", "sinusoidal-fairseq", "t5"):
            raise ConfigError(translate_noop("CoreMessages", "a {0} model cannot have {1}"), self.architecture,
                              "embedding_norm" if self.embedding_norm else self.positional)

    def parameter_count(self) -> int:
        """Distinct trainable parameters of the network built from this config (a tied table counts
        once), computed without building it."""
        return sum(math.prod(shape) for _, shape in tensor_layout(self))

    def layer_count(self, kind: str) -> int:
        """How many layers have the ``kind`` attention (encoder_self: the encoder's; decoder_self and
        cross: the decoder's): an encoder and a decoder may differ in depth."""
        return self.n_encoder_layers if kind == "encoder_self" else self.n_decoder_layers

    @property
    def decoder_only(self) -> bool:
        """Whether source and target are one stream through one stack (no encoder, no cross-attention)."""
        return self.architecture != "encoder-decoder"

    @property
    def d_k(self) -> int:
        """Dimensions per head (queries, keys and values alike)."""
        return self.d_model // self.n_heads

    @property
    def kv_heads(self) -> int:
        """Heads of keys and values (n_heads unless shared, see n_kv_heads)."""
        return self.n_kv_heads or self.n_heads

    @property
    def adds_positions(self) -> bool:
        """Whether the stacks add a positional table to their embeddings (else positions, if any, are
        in attention: rotary, alibi)."""
        return self.positional not in IN_ATTENTION

    def kv_cache_bytes_per_token(self, element_size: int = 4) -> int:
        """What each decoded token adds to the KV cache: a key and a value of d_k numbers per key/value
        head in every decoder layer, ``element_size`` bytes each (4: float32)."""
        return 2 * self.n_decoder_layers * self.kv_heads * self.d_k * element_size

    @property
    def has_final_norm(self) -> bool:
        """Whether the encoder and the decoder each end with a LayerNorm."""
        return self.norm == "pre" if self.final_norm is None else self.final_norm

    @property
    def embedding_scale(self) -> float:
        """What token embeddings are multiplied by before the positions are added."""
        return math.sqrt(self.d_model) if self.scale_embeddings else 1.0

    def to_dict(self) -> dict[str, Any]:
        """Every setting, less the switches added since the first checkpoints (imported models' and
        the variants') left at their defaults: a checkpoint records only the options it uses, and a
        transviz model's stays what it was before they existed (and what older transviz reads)."""
        data = dataclasses.asdict(self)
        for name, default in LATER_DEFAULTS.items():
            if data[name] == default:
                del data[name]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ModelConfig:
        return _from_dict(cls, data, Message(translate_noop("CoreMessages", "model")))


LATER_DEFAULTS: dict[str, object] = {"final_norm": None, "scale_embeddings": True, "positional": "sinusoidal",
                                     "embedding_norm": False, "bias": True, "layer_norm": "standard",
                                     "attention_window": 0, "n_kv_heads": 0, "architecture": "encoder-decoder",
                                     "relative_buckets": 32, "relative_max_distance": 128, "scale_scores": True,
                                     "gated_ffn": False, "rotary_base": 10000.0, "start_from_prompt": False}


Schedule = Literal["constant", "warmup", "warmup-decay", "noam"]
SCHEDULES: tuple[str, ...] = ("constant", "warmup", "warmup-decay", "noam")


@dataclass(frozen=True)
class TrainConfig:
    """How to train: optimiser, schedule, regularisation, evaluation and snapshots.

    ``lr`` is the peak learning rate of the ``constant``, ``warmup`` and ``warmup-decay``
    schedules; for ``noam`` it is the paper's scale factor (1.0 reproduces the paper), see
    :mod:`transviz.core.training.schedules`. ``init`` is a scheme of :mod:`transviz.core.model.init`, written
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
        _check_integer("steps", self.steps, 1, MAX_STEPS)
        _check_integer("batch_size", self.batch_size, 1, MAX_BATCH)
        for name in ("warmup_steps", "eval_every", "eval_limit", "snapshot_every", "checkpoint_every"):
            _check_integer(name, getattr(self, name), 0, MAX_STEPS)
        _check_integer("max_output_len", self.max_output_len, 0, MAX_SIZES["max_len"])
        _check_integer("seed", self.seed, 0, MAX_SEED)
        for name in ("lr", "label_smoothing", "clip_norm"):
            _check_number(name, getattr(self, name))
        for name in ("init", "device"):
            if not isinstance(getattr(self, name), str):
                raise ConfigError(TEXT, name, repr(getattr(self, name)))
        if self.probe is not None and not isinstance(self.probe, str):
            raise ConfigError(TEXT, "probe", repr(self.probe))
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
