"""The words that name a model's variants (the status bar's), from its config."""
from __future__ import annotations

import pytest

from transviz.core.model.config import ModelConfig
from transviz.core.model.variants import variant_parts


@pytest.mark.parametrize(("settings", "words"), [
    ({}, []),  # the paper's layers
    ({"n_kv_heads": 4}, []),  # as many key/value heads as query heads: multi-head attention
    ({"n_kv_heads": 2}, ["grouped-query attention, 2 key/value heads"]),
    ({"n_kv_heads": 1}, ["multi-query attention"]),
    ({"positional": "rotary", "attention_window": 3}, ["rotary positions", "a window of 3 keys"]),
    ({"positional": "sinusoidal-halves"}, []),  # Marian's sine table: the paper's, its columns reordered
    ({"norm": "pre", "layer_norm": "rms", "positional": "alibi"}, ["ALiBi positions", "pre-LN", "RMSNorm"]),
])
def test_each_variant_is_named_once(settings, words):
    assert [str(part) for part in variant_parts(ModelConfig(20, 20, n_heads=4, **settings))] == words
