"""Gold alignments of the toy grammars (issue 39, item 3): every pair has one in range, and each
construction's links are written out here by hand, not computed by the generator's code."""
from __future__ import annotations

import pytest

from transviz.core.data.tasks import load_task, task_examples


def pharaoh(text):
    return {tuple(int(n) for n in link.split("-")) for link in text.split()}


@pytest.fixture(scope="module")
def de_en():
    data = load_task("toy-de-en")
    return {p.source: p for p in data.train + data.valid + data.test}


@pytest.fixture(scope="module")
def zh_en():
    data = load_task("toy-zh-en")
    return {p.source: p for p in data.train + data.valid + data.test}


@pytest.mark.parametrize("task", ["de_en", "zh_en"])
def test_every_pair_has_an_alignment_in_range_without_repeats(task, request):
    for pair in request.getfixturevalue(task).values():
        sources = len(pair.source.split()) if task == "de_en" else len(pair.source)
        targets = len(pair.target.split())
        assert pair.alignment, pair
        assert len(set(pair.alignment)) == len(pair.alignment), pair
        assert all(0 <= i < sources and 0 <= j < targets for i, j in pair.alignment), pair


# What may translate nothing: English auxiliaries, "to" after want, "of" after a measure; German's
# comma before "dass"; Chinese measure words without an English word and 吗, 了 in a question
UNALIGNED = {
    "de_en": ({","}, {"do", "does", "to"}),
    "zh_en": ({"只", "个", "本", "辆", "吗", "了"}, {"do", "does", "did", "will", "of"}),
}


@pytest.mark.parametrize("task", ["de_en", "zh_en"])
def test_only_words_that_translate_nothing_are_left_unaligned(task, request):
    may_source, may_target = UNALIGNED[task]
    for pair in request.getfixturevalue(task).values():
        source = pair.source.split() if task == "de_en" else list(pair.source)
        target = pair.target.split()
        linked_source = {i for i, _ in pair.alignment}
        linked_target = {j for _, j in pair.alignment}
        assert {w for i, w in enumerate(source) if i not in linked_source} <= may_source, pair
        assert {w for j, w in enumerate(target) if j not in linked_target} <= may_target, pair


# One sentence per construction of the de-en grammar's docstring, linked by hand
DE_EN = [
    # modal + infinitive: "to" translates nothing, the final infinitive is the English verb
    ("ich kann den stuhl kaufen", "i can buy the chair", "0-0 1-1 4-2 2-3 3-4"),
    ("ich möchte ein bier trinken", "i want to drink a beer", "0-0 1-1 4-3 2-4 3-5"),
    # subordinate clauses: the verb last in German, second in English
    ("er trinkt ein bier , weil er müde ist", "he drinks a beer , because he is tired",
     "0-0 1-1 2-2 3-3 4-4 5-5 6-6 8-7 7-8"),
    ("sie sagen , dass er meinen schnellen onkel anruft", "they say that he calls my fast uncle",
     "0-0 1-1 3-2 4-3 8-4 5-5 6-6 7-7"),
    # separable verbs: both parts to both English words
    ("er holt meine tochter ab", "he picks up my daughter", "0-0 1-1 1-2 4-1 4-2 2-3 3-4"),
    ("er ruft seine mutter an", "he calls his mother", "0-0 1-1 4-1 2-2 3-3"),
    # questions: "do" translates nothing; a modal's "want to" splits around the subject
    ("trinkst du ein bier ?", "do you drink a beer ?", "1-1 0-2 2-3 3-4 4-5"),
    ("willst du die tante hören ?", "do you want to hear the aunt ?", "1-1 0-2 4-4 2-5 3-6 5-7"),
    ("kannst du einen fisch füttern ?", "can you feed a fish ?", "0-0 1-1 4-2 2-3 3-4 5-5"),
    ("ist meine nachbarin krank ?", "is my neighbour sick ?", "0-0 1-1 2-2 3-3 4-4"),
    # negation: keinen -> not and a; nicht -> not; cannot <- kann and keinen
    ("ich habe keinen hund", "i do not have a dog", "0-0 2-2 1-3 2-4 3-5"),
    ("er sieht den hund nicht", "he does not see the dog", "0-0 4-2 1-3 2-4 3-5"),
    ("paul möchte keine tante anrufen", "paul does not want to call an aunt", "0-0 2-2 1-3 4-5 2-6 3-7"),
    ("der gute chef kann keinen fernseher ausmachen", "the good boss cannot turn off a television",
     "0-0 1-1 2-2 3-3 4-3 6-4 6-5 4-6 5-7"),
    ("die frau muss den vogel nicht lieben", "the woman does not have to love the bird",
     "0-0 1-1 5-3 2-4 2-5 6-6 3-7 4-8"),
    ("tom ist nicht müde", "tom is not tired", "0-0 1-1 2-2 3-3"),
    # adjectives, and a verb of two English words
    ("sie kauft einen großen hund", "she buys a big dog", "0-0 1-1 2-2 3-3 4-4"),
    ("er sucht ihren interessanten fahrer", "he looks for her interesting driver", "0-0 1-1 1-2 2-3 3-4 4-5"),
    # adverbs: the verb stays second in German, the adverb goes last in English
    ("heute schreibst du das rote buch", "today you write the red book", "0-0 2-1 1-2 3-3 4-4 5-5"),
    ("du hörst jetzt den guten sohn", "you hear the good son now", "0-0 1-1 3-2 4-3 5-4 2-5"),
]


@pytest.mark.parametrize(("source", "target", "links"), DE_EN, ids=[s for s, _, _ in DE_EN])
def test_de_en_constructions_align_as_written_by_hand(de_en, source, target, links):
    pair = de_en[source]
    assert pair.target == target
    assert set(pair.alignment) == pharaoh(links)


ZH_EN = [
    # each character of a word to its English; 了 to the past form; "of" and "will" to nothing
    ("我们昨天吃了橘子", "we ate oranges yesterday", "0-0 1-0 4-1 5-1 6-2 7-2 2-3 3-3"),
    ("他明年去美国", "he will go to america next year", "0-0 3-2 3-3 4-4 5-4 1-5 2-6"),
    ("他去年没买橘子", "he did not buy oranges last year", "0-0 3-2 4-3 5-4 6-4 1-5 2-6"),
    # a question: "does" and 吗 translate nothing, nor does the measure word 本
    ("小明要三本书吗？", "does xiaoming want three books ?", "0-1 1-1 2-2 3-3 5-4 7-5"),
    ("韩梅梅昨天看了三本书吗？", "did han meimei read three books yesterday ?",
     "0-1 1-2 2-2 5-3 7-4 9-5 3-6 4-6 11-7"),
    # names and possessives split by hand: 李 -> li, 雷的 -> lei's
    ("他们有李雷的牛奶", "they have li lei's milk", "0-0 1-0 2-1 3-2 4-3 5-3 6-4 7-4"),
    ("她每天要两只猫", "she wants two cats every day", "0-0 3-1 4-2 6-3 1-4 2-5"),
]


@pytest.mark.parametrize(("source", "target", "links"), ZH_EN, ids=[s for s, _, _ in ZH_EN])
def test_zh_en_constructions_align_as_written_by_hand(zh_en, source, target, links):
    pair = zh_en[source]
    assert pair.target == target
    assert set(pair.alignment) == pharaoh(links)


def test_examples_carry_their_alignments_in_the_data_and_in_menus(de_en, zh_en):
    for name, pairs in (("toy-de-en", de_en), ("toy-zh-en", zh_en)):
        for example in task_examples(name):
            assert example.alignment and pairs[example.source].alignment == example.alignment
    seed = task_examples("toy-zh-en")[0]
    assert (seed.source, set(seed.alignment)) == ("我爱中国", pharaoh("0-0 1-1 2-2 3-2"))


def test_copy_and_reverse_align_on_the_diagonals_and_sort_and_dates_not_at_all():
    copy, reverse = task_examples("copy")[1], task_examples("reverse")[1]
    assert copy.alignment == tuple((i, i) for i in range(10))
    assert set(reverse.alignment) == {(9 - j, j) for j in range(10)}
    assert reverse.source[9 - 2] == reverse.target[2]
    assert task_examples("sort")[0].alignment == () and task_examples("dates")[0].alignment == ()
    assert all(p.alignment == tuple((i, i) for i in range(len(p.source))) for p in load_task("copy").test)
