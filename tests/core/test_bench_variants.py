"""The sibling figures of ``transviz bench``: the KV-cache bytes are counted from the cache's own
tensors and equal the README's formula, for every sibling; a step figure measures both models."""
from __future__ import annotations

import pytest

from transviz import bench
from transviz.bench import variants
from transviz.core.training.recipes import SIBLING_CHANGES


@pytest.mark.parametrize("name", list(SIBLING_CHANGES))
def test_the_cache_grows_by_the_formulas_bytes_per_token(name):
    model = variants.sibling_model(name)
    config = model.config
    kv_heads = config.n_kv_heads or config.n_heads
    expected = 2 * config.n_decoder_layers * kv_heads * config.d_model // config.n_heads * 4  # float32 keys, values
    assert variants.cache_bytes_per_token(model) == expected
    assert bench.REGISTRY[f"kv_cache_bytes_per_token_{name}"].target == expected
    for key, value in SIBLING_CHANGES[name][0].items():
        assert getattr(config, key) == value  # the sibling measured is the recipe's


def test_the_grouped_query_siblings_cache_less_than_the_default():
    default = variants._default_model()
    full = variants.cache_bytes_per_token(default)
    assert variants.cache_bytes_per_token(variants.sibling_model("gqa")) == full / 2
    assert variants.cache_bytes_per_token(variants.sibling_model("mqa")) == full / 4


def test_a_step_figure_is_the_sibling_over_the_default_measured_in_one_run(monkeypatch):
    monkeypatch.setattr(bench, "_quick", True)
    variants.step_ms.cache_clear()
    sibling, default = variants.step_ms("window")
    assert sibling > 0 and default > 0
    assert bench.REGISTRY["variant_step_ratio_window"].measure() == pytest.approx(sibling / default)
    assert {f"variant_step_ms_{n}" for n in SIBLING_CHANGES} <= set(bench.REGISTRY)
