"""task_examples(name): each built-in task's examples with their targets, without generating the
task, equal to what the generated task lists and trains on."""
from __future__ import annotations

import pytest

from transviz import InputError
from transviz.core.data.tasks import TASKS, load_task, task_examples


@pytest.mark.parametrize("name", ["toy-de-en", "dates", "toy-zh-en"])
def test_examples_are_the_generated_tasks_examples_with_their_training_targets(name):
    dataset = load_task(name)
    pairs = task_examples(name)
    assert [p.source for p in pairs] == list(dataset.examples)
    training = {p.source: p.target for p in dataset.train}
    assert all(training[p.source] == p.target for p in pairs)  # every example is trained on, with this target


RULES = {"copy": lambda s: s, "reverse": lambda s: "".join(reversed(s)), "sort": lambda s: "".join(sorted(s))}


@pytest.mark.parametrize("name", list(RULES))
def test_algorithmic_examples_follow_the_rule(name):
    assert set(TASKS) == {"toy-de-en", "dates", "toy-zh-en", *RULES}  # a new task needs a test here
    pairs = task_examples(name)
    assert [p.source for p in pairs] == list(load_task(name).examples)
    assert [p.target for p in pairs] == [RULES[name](p.source) for p in pairs]


def test_the_seed_sentence_is_the_first_toy_de_en_example():
    first = task_examples("toy-de-en")[0]
    assert (first.source, first.target) == ("ich mochte ein bier", "i want a beer")


def test_the_seed_sentence_is_the_first_toy_zh_en_example():
    first = task_examples("toy-zh-en")[0]
    assert (first.source, first.target) == ("我爱中国", "i love china")


def test_an_unknown_task_is_refused():
    with pytest.raises(InputError, match="no task called 'unit-test'"):
        task_examples("unit-test")
