"""Tested training recipes: the settings that train the shipped models (``transviz train
--recipe NAME``, and the ``train_toy_de_en_to_95_s`` figure of ``transviz bench``)."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from ..base.errors import InputError
from ..base.messages import translate_noop
from ..model.config import TrainConfig


@dataclass(frozen=True)
class Recipe:
    task: str
    model: dict[str, Any] = field(default_factory=dict)  # ModelConfig settings (vocabulary sizes come from the data)
    train: TrainConfig = field(default_factory=TrainConfig)


RECIPES: dict[str, Recipe] = {
    # Goal: >= 95% test exact match on the CPU within the target of `transviz bench
    # train_toy_de_en_to_95_s` (the manual's performance table has the figure).
    "toy-de-en": Recipe(
        "toy-de-en",
        dict(d_model=128, n_heads=4, n_encoder_layers=3, n_decoder_layers=3, d_ff=512, dropout=0.1),
        TrainConfig(steps=1200, batch_size=64, lr=1e-3, schedule="warmup", warmup_steps=200,
                    label_smoothing=0.1, clip_norm=1.0, eval_every=250, snapshot_every=50),
    ),
    # The seed's weight sharing: one joint vocabulary and table, the output layer tied to it.
    "toy-de-en-shared": Recipe(
        "toy-de-en",
        dict(d_model=128, n_heads=4, n_encoder_layers=3, n_decoder_layers=3, d_ff=512, dropout=0.1,
             share_embeddings=True, tie_output=True),
        TrainConfig(steps=1200, batch_size=64, lr=1e-3, schedule="warmup", warmup_steps=200,
                    label_smoothing=0.1, clip_norm=1.0, eval_every=250, snapshot_every=50),
    ),
    # Chinese characters -> English words (the seed's "我爱中国"): sized like toy-de-en.
    "zh-en": Recipe(
        "toy-zh-en",
        dict(d_model=128, n_heads=4, n_encoder_layers=3, n_decoder_layers=3, d_ff=512, dropout=0.1),
        TrainConfig(steps=1200, batch_size=64, lr=1e-3, schedule="warmup", warmup_steps=200,
                    label_smoothing=0.1, clip_norm=1.0, eval_every=250, snapshot_every=50),
    ),
    # Character level: longer sequences, so larger batches of shorter updates.
    "dates": Recipe(
        "dates",
        dict(d_model=128, n_heads=4, n_encoder_layers=3, n_decoder_layers=3, d_ff=512, dropout=0.1),
        TrainConfig(steps=1500, batch_size=96, lr=1e-3, schedule="warmup", warmup_steps=200,
                    label_smoothing=0.1, clip_norm=1.0, eval_every=500, snapshot_every=50),
    ),
}


# The siblings of the shipped default: toy-de-en with one change each (same data, seed and steps), so
# that a class can set today's variants of attention side by side (docs/models/variants.md).
SIBLING_CHANGES: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {  # name: (model settings, training settings)
    "gqa": ({"n_kv_heads": 2}, {}),  # grouped-query: 2 key/value heads for 4 query heads
    "mqa": ({"n_kv_heads": 1}, {}),  # multi-query: one
    "rope": ({"positional": "rotary"}, {}),
    "alibi": ({"positional": "alibi"}, {}),
    "window": ({"attention_window": 3}, {}),  # self-attention sees keys fewer than 3 positions away
    # today's normalisation, and the seed's question: pre-norm trains without warm-up
    "pre-norm": ({"norm": "pre", "layer_norm": "rms"}, {"schedule": "constant", "warmup_steps": 0}),
    # one stack reads source, start token and target as one stream; the source sees itself both ways
    "decoder-only": ({"architecture": "prefix-lm"}, {}),
}
# What each sibling changes, in the words of a menu entry.
SIBLING_TITLES = {
    "gqa": translate_noop("CoreMessages", "grouped-query attention, 2 key/value heads"),
    "mqa": translate_noop("CoreMessages", "multi-query attention, 1 key/value head"),
    "rope": translate_noop("CoreMessages", "rotary positions (RoPE)"),
    "alibi": translate_noop("CoreMessages", "ALiBi positions"),
    "window": translate_noop("CoreMessages", "sliding window of 3 keys"),
    "pre-norm": translate_noop("CoreMessages", "pre-LN with RMSNorm, no warm-up"),
    "decoder-only": translate_noop("CoreMessages", "one stack reads source and output, a prefix LM"),
}
_DEFAULT = RECIPES["toy-de-en"]
RECIPES.update({name: Recipe(_DEFAULT.task, {**_DEFAULT.model, **model}, replace(_DEFAULT.train, **train))
                for name, (model, train) in SIBLING_CHANGES.items()})


def recipe(name: str) -> Recipe:
    if name not in RECIPES:
        raise InputError(
            translate_noop("CoreMessages", "no recipe called {0}; recipes: {1}"), repr(name), ", ".join(RECIPES))
    return RECIPES[name]
