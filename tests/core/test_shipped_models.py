"""The models shipped in resources/models, run as users get them: each meets its accuracy bar on
its task's held-out test split, and the default one translates the seed sentence exactly."""
import pytest

import transviz
from transviz.core.data.tasks import load_task
from transviz.core.io.resources import shipped_models
from transviz.core.training.evaluate import greedy_batch

SHIPPED = {"default": "toy-de-en", "dates": "dates", "zh-en": "toy-zh-en"}


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
