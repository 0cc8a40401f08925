"""What sets a model apart from the paper's layers, in words: the variants of attention and
normalisation its config uses (the status bar names them, so a class sees which sibling is open)."""
from __future__ import annotations

from ..base.messages import Message, translate_noop
from .config import ModelConfig

POSITIONS = {
    "learned": translate_noop("CoreMessages", "learned positions"),
    "rotary": translate_noop("CoreMessages", "rotary positions"),
    "alibi": translate_noop("CoreMessages", "ALiBi positions"),
    "none": translate_noop("CoreMessages", "no positions"),
    "t5": translate_noop("CoreMessages", "T5's relative positions"),
}


ARCHITECTURES = {
    "prefix-lm": translate_noop("CoreMessages", "decoder-only, a prefix LM"),
    "decoder-only": translate_noop("CoreMessages", "decoder-only, causal"),
}


def variant_parts(config: ModelConfig) -> list[Message]:
    """One phrase per way ``config`` differs from the paper's attention and normalisation; none for
    the paper's own layout."""
    parts = []
    architecture = ARCHITECTURES.get(config.architecture)  # a template marked above
    if architecture is not None:
        parts.append(Message(architecture))
    if config.n_kv_heads == 1 < config.n_heads:
        parts.append(Message(translate_noop("CoreMessages", "multi-query attention")))
    elif config.n_kv_heads and config.n_kv_heads < config.n_heads:
        parts.append(Message(translate_noop("CoreMessages", "grouped-query attention, {0} key/value heads"),
                             config.n_kv_heads))
    positions = POSITIONS.get(config.positional)  # a template marked above
    if positions is not None:
        parts.append(Message(positions))
    if config.attention_window:
        parts.append(Message(translate_noop("CoreMessages", "a window of {0} keys"), config.attention_window))
    if not config.scale_scores:
        parts.append(Message(translate_noop("CoreMessages", "unscaled scores")))
    if config.gated_ffn:
        parts.append(Message(translate_noop("CoreMessages", "gated feed-forward")))
    if config.norm == "pre":
        parts.append(Message(translate_noop("CoreMessages", "pre-LN")))
    if config.layer_norm == "rms":
        parts.append(Message(translate_noop("CoreMessages", "RMSNorm")))
    return parts
