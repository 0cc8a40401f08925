"""The models shipped in resources/models, run as users get them: each meets its accuracy bar on
its task's held-out test split, the default one translates the seed sentence exactly, and each
sibling is the default's recipe with its one change, stored in float16."""
import pytest
from safetensors import safe_open

import transviz
from transviz.core.data.tasks import load_task
from transviz.core.io.resources import shipped_models
from transviz.core.model.config import ModelConfig
from transviz.core.training.evaluate import greedy_batch
from transviz.core.training.recipes import recipe

SIBLINGS = {"gqa": {"n_kv_heads": 2}, "mqa": {"n_kv_heads": 1}, "rope": {"positional": "rotary"},
            "alibi": {"positional": "alibi"}, "window": {"attention_window": 3},
            "pre-norm": {"norm": "pre", "layer_norm": "rms"}, "decoder-only": {"architecture": "prefix-lm"}}
SHIPPED = {"default": "toy-de-en", "dates": "dates", "zh-en": "toy-zh-en", **dict.fromkeys(SIBLINGS, "toy-de-en")}


@pytest.mark.parametrize("name, task", SHIPPED.items())
def test_shipped_model_reaches_95_percent_on_its_test_split(name, task):
    assert name in shipped_models(), f"resources/models/{name}.safetensors is missing"
    model = transviz.load_model(name)
    assert model.facts["task"] == task
    test = load_task(task).test  # the task is deterministic, so this is the split held out in training
    outputs = greedy_batch(model, [p.source for p in test])
    hits = [out == model.tgt_vocab.tokenize(p.target) for out, p in zip(outputs, test, strict=True)]
    assert sum(hits) / len(hits) >= 0.95
    for group in {p.group for p in test}:  # every group on its own, novel combinations included
        group_hits = [h for h, p in zip(hits, test, strict=True) if p.group == group]
        assert sum(group_hits) / len(group_hits) >= 0.95, group


@pytest.mark.parametrize("sentence", ["ich mochte ein bier", "ich möchte ein bier"])
def test_default_model_translates_the_seed_sentence(sentence):
    trace = transviz.decode(transviz.load_model("default"), sentence)
    assert trace.translation == "i want a beer" and trace.stop_reason == "end"


def test_dates_model_writes_iso_dates():
    model = transviz.load_model("dates")
    assert transviz.decode(model, "Wednesday, 3 March 2021").translation == "2021-03-03"
    assert transviz.decode(model, "2021年3月3日").translation == "2021-03-03"


def test_zh_en_model_translates_the_seed_sentence():
    """seeds/001: "我爱中国" -> "i love china", the Chinese read one character at a time."""
    model = transviz.load_model("zh-en")
    trace = transviz.decode(model, "我爱中国")
    assert model.src_vocab.tokenize("我爱中国") == ["我", "爱", "中", "国"]
    assert trace.translation == "i love china" and trace.stop_reason == "end"


@pytest.mark.parametrize("name", list(SIBLINGS))
def test_each_sibling_is_the_default_with_its_one_change(name):
    default, sibling = transviz.load_model("default").config, transviz.load_model(name).config
    differences = {key: value for key, value in sibling.to_dict().items() if default.to_dict().get(key) != value}
    assert {key: value for key, value in differences.items() if "vocab_size" not in key} == SIBLINGS[name]
    assert sibling == ModelConfig(sibling.src_vocab_size, sibling.tgt_vocab_size, **recipe(name).model,
                                  max_len=sibling.max_len)
    assert transviz.load_model(name).facts["train_config"]["steps"] == 1200


@pytest.mark.parametrize("name", list(SHIPPED))
def test_every_shipped_model_is_stored_in_float16(name):
    with safe_open(str(shipped_models()[name]), framework="pt") as f:
        assert {f.get_slice(k).get_dtype() for k in f.keys() if not k.startswith("extra.")} == {"F16"}
