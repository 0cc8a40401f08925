"""The sibling recipes: toy-de-en with one change each, and each trains from the command line."""
from __future__ import annotations

import dataclasses

import pytest

import transviz
from transviz.cli import main
from transviz.core.model.config import ModelConfig
from transviz.core.training.recipes import RECIPES, SIBLING_CHANGES, recipe

EXPECTED = {  # what each sibling changes, written out here rather than read back from the recipes
    "gqa": ({"n_kv_heads": 2}, {}), "mqa": ({"n_kv_heads": 1}, {}),
    "rope": ({"positional": "rotary"}, {}), "alibi": ({"positional": "alibi"}, {}),
    "window": ({"attention_window": 3}, {}),
    "pre-norm": ({"norm": "pre", "layer_norm": "rms"}, {"schedule": "constant", "warmup_steps": 0}),
    "decoder-only": ({"architecture": "prefix-lm"}, {}),
}


def changed(a: dict, b: dict) -> dict:
    return {key: b[key] for key in b if a.get(key) != b[key]}


@pytest.mark.parametrize("name", list(EXPECTED))
def test_each_sibling_is_the_default_with_one_change(name):
    default, sibling = recipe("toy-de-en"), recipe(name)
    model_changes, train_changes = EXPECTED[name]
    assert sibling.task == default.task
    full = ModelConfig(100, 100, **default.model).to_dict(), ModelConfig(100, 100, **sibling.model).to_dict()
    assert changed(*full) == model_changes
    assert changed(dataclasses.asdict(default.train), dataclasses.asdict(sibling.train)) == train_changes
    assert sibling.train.seed == default.train.seed and sibling.train.steps == default.train.steps


def test_every_sibling_is_a_recipe():
    assert set(SIBLING_CHANGES) == set(EXPECTED) and set(EXPECTED) <= set(RECIPES)


def test_a_sibling_recipe_trains_from_the_command_line(tmp_path):
    out = tmp_path / "gqa.safetensors"
    assert main(["train", "--recipe", "mqa", "--steps", "2", "--eval-every", "0", "--eval-limit", "5",
                 "--snapshot-every", "0", "--device", "cpu", "--out", str(out)]) == 0
    config = transviz.load_model(str(out)).config
    assert (config.n_kv_heads, config.n_heads, config.n_encoder_layers) == (1, 4, 3)
