"""toy-zh-en (issue 18, part 6), checked on the generated data: deterministic, large enough, no test
sentence or held-out combination in training, and each construction's English as written out
here by hand (not taken from the generator)."""
from __future__ import annotations

import re

import pytest

from transviz.core.data import toy_zh_en
from transviz.core.data.tasks import Dataset, describe_task, load_task

NOVEL, SEEN = "novel-combinations", "seen-patterns"


@pytest.fixture(scope="module")
def data() -> Dataset:
    return load_task("toy-zh-en")


@pytest.fixture(scope="module")
def pairs(data) -> dict[str, str]:
    return {p.source: p.target for p in data.train + data.valid + data.test}


def test_the_same_seed_gives_the_same_pairs_and_another_seed_others(data):
    again = load_task("toy-zh-en")
    assert again.train == data.train and again.valid == data.valid and again.test == data.test
    assert load_task("toy-zh-en", seed=1).train != data.train


def test_at_least_8000_distinct_pairs_and_no_test_pair_in_training(data):
    sources = [p.source for p in data.train + data.valid + data.test]
    assert len(set(sources)) == len(sources) >= 8000
    train = {p.source for p in data.train}
    assert train.isdisjoint(p.source for p in data.valid + data.test)
    assert data.groups == (SEEN, NOVEL)
    assert sum(p.group == NOVEL for p in data.test) >= 200


def test_chinese_is_read_by_character_and_english_by_word(data):
    source, target = data.build_vocabs()
    assert source.tokenize("我爱中国") == ["我", "爱", "中", "国"]
    assert target.tokenize("i love china") == ["i", "love", "china"]
    assert len(source) < 200 and len(target) < 300  # a small grammar, trained in minutes


def test_held_out_combinations_never_occur_in_training(data):
    held_out = toy_zh_en.held_out_combinations()
    assert len(held_out) >= 20
    for verb, noun in held_out:
        assert not any(verb in p.source and noun in p.source for p in data.train), (verb, noun)
    for p in data.test:  # a novel sentence holds a held-out verb and its object; a seen one none
        touched = any(v in p.source and n in p.source for v, n in held_out)
        assert touched == (p.group == NOVEL)


def test_seed_sentence_and_examples_are_in_training(data):
    train = {p.source: p.target for p in data.train}
    assert data.examples[0] == "我爱中国" and train["我爱中国"] == "i love china"
    assert describe_task("toy-zh-en") == data.description


# hand-written: each construction's Chinese and the English it must have
@pytest.mark.parametrize("chinese, english", [
    ("我明天去北京", "i will go to beijing tomorrow"),  # the time word before the verb, last in English
    ("他喝了一杯啤酒", "he drank a glass of beer"),  # measure word and 了
    ("你喜欢中国吗？", "do you like china ?"),
    ("我的朋友有一只狗", "my friend has a dog"),
    ("她不喝咖啡", "she does not drink coffee"),
    ("他们昨天没去上海", "they did not go to shanghai yesterday"),
])
def test_examples_of_each_construction(data, pairs, chinese, english):
    assert pairs[chinese] == english


def sentences_matching(pairs: dict[str, str], pattern: str) -> list[tuple[str, str]]:
    found = [(s, t) for s, t in pairs.items() if re.search(pattern, s)]
    assert len(found) >= 5, pattern  # the construction is there, more than once
    return found


def test_a_glass_of_beer_inside_sentences(pairs):
    for source, target in sentences_matching(pairs, "一杯啤酒"):
        assert "a glass of beer" in target, source
    for source, target in sentences_matching(pairs, "两只狗"):
        assert "two dogs" in target, source
    for source, target in sentences_matching(pairs, "一个苹果"):
        assert "an apple" in target, source


def test_time_words_stand_before_the_chinese_verb_and_last_in_english(pairs):
    for source, target in sentences_matching(pairs, "^我明天去[^吗]*$"):
        assert target.startswith("i will go to "), source
    for source, target in sentences_matching(pairs, "明天[^吗]*$"):
        assert target.split()[-1] == "tomorrow" and " will " in f" {target} ", source


def test_questions_with_ma_put_do_did_or_will_first(pairs):
    for source, target in sentences_matching(pairs, "吗？$"):
        assert target.endswith(" ?") and target.split()[0] in {"do", "does", "did", "will"}, source


def test_le_is_the_past_and_mei_its_negation(pairs):
    for source, target in sentences_matching(pairs, "喝了[^吗]*$"):
        assert " drank " in f" {target} ", source
    for source, target in sentences_matching(pairs, "没去[^吗]*$"):
        assert " did not go to " in f" {target} ", source
    for source, target in sentences_matching(pairs, "^我没有[^吗]*$"):
        assert target.startswith("i do not have"), source  # 没有: "do not have", in the present


def test_bu_negates_the_present_and_the_future(pairs):
    for source, target in sentences_matching(pairs, "^(他|她)不[^吗]*$"):
        assert target.split()[1:3] == ["does", "not"], source
    for source, target in sentences_matching(pairs, "^我明天不[^吗]*$"):
        assert target.startswith("i will not "), source


def test_de_makes_possessives(pairs):
    for source, target in sentences_matching(pairs, "^我的妈妈[^吗]*$"):
        assert target.startswith("my mother "), source
    for source, target in sentences_matching(pairs, "李雷的"):
        assert "li lei's" in target, source
