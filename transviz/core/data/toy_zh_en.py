"""``toy-zh-en``: Chinese -> English sentences from a small grammar around the seed's "我爱中国".

The seed tutorial (seeds/001) trains on "我爱中国" -> "i love china". This task grows that sentence
into a corpus whose constructions do NOT align diagonally:

* time words before the verb: "我明天去北京" -> "i will go to beijing tomorrow"
* measure words: "一杯啤酒" -> "a glass of beer", "两只狗" -> "two dogs"
* questions with 吗: "你喜欢中国吗？" -> "do you like china ?"
* 了 for the past: "他喝了一杯啤酒" -> "he drank a glass of beer"
* 的 possessives: "我的朋友" -> "my friend"
* negation with 不 and 没: "她不喝咖啡" -> "she does not drink coffee", "他没去上海" -> "he did not go to shanghai"

The Chinese side is read one CHARACTER at a time (no word segmenter to ship, and the class sees
中 and 国 each attend to "china"); the English side word by word, lower case. Verb-object
combinations chosen per seed never occur in training; test sentences with them form the group
``novel-combinations``, the rest ``seen-patterns``. Every source has exactly one target.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from .dataset import Dataset, Pair
from .toy_zh_en_lexicon import FAMILY, NAMES, NOUNS, NUMBERS, POSSESSORS, PRONOUNS, TIMES, VERBS, Noun, Person, Verb

NAME = "toy-zh-en"
NOVEL = "novel-combinations"
DESCRIPTION = (
    "Translate short Chinese sentences into English, the Chinese read character by character. Built "
    "around the tutorial's \"我爱中国\" -> \"i love china\", with orders that differ: time words before the "
    "verb, measure words, questions with 吗, 了 for the past, 的 possessives, negation with 不 and 没."
)
EXAMPLES = (  # (Chinese, English): the seed sentence first, then one per construction. Always in training.
    ("我爱中国", "i love china"),
    ("我明天去北京", "i will go to beijing tomorrow"),
    ("他喝了一杯啤酒", "he drank a glass of beer"),
    ("你喜欢中国吗？", "do you like china ?"),
    ("我的朋友有一只狗", "my friend has a dog"),
    ("她不喝咖啡", "she does not drink coffee"),
    ("他们昨天没去上海", "they did not go to shanghai yesterday"),
    ("我要两瓶水", "i want two bottles of water"),
)
SEEN_SIZE, HELD_OUT_SIZE = 250, 250  # per group, in each of valid and test
TRAIN_SIZE = 10_000
HELD_OUT_PAIRS = 30
_MARGIN = 50


@dataclass(frozen=True)
class Sentence:
    chinese: str
    english: tuple[str, ...]
    link: tuple[str, str]  # (verb, noun) in Chinese: the sentence's verb-object combination


_OBJECT_NOUNS = NOUNS + FAMILY


def _objects(verb: Verb) -> tuple[Noun, ...]:
    return tuple(n for n in _OBJECT_NOUNS if n.kind in verb.objects)


def _subject(rng: random.Random) -> tuple[str, list[str], Person, str]:
    """(Chinese, English, person, the Chinese pronoun or "")."""
    roll = rng.random()
    if roll < 0.6:
        p = rng.choice(PRONOUNS)
        return p.chinese, p.english.split(), p.person, p.chinese
    if roll < 0.8:
        n = rng.choice(NAMES)
        return n.chinese, n.english.split(), "3sg", ""
    possessor, english = rng.choice(POSSESSORS)
    family = rng.choice(FAMILY)
    return possessor + family.chinese, [*english.split(), family.english], "3sg", ""


def _count(rng: random.Random, noun: Noun) -> tuple[str, list[str]]:
    """一杯啤酒 -> a glass of beer; 两只狗 -> two dogs."""
    number, english, plural = rng.choice(NUMBERS)
    if noun.container:
        measure, single, many = rng.choice(noun.container)
        return number + measure + noun.chinese, [english, many if plural else single, "of", noun.english]
    article = "an" if english == "a" and noun.english[0] in "aeiou" else english
    return number + noun.measure + noun.chinese, [article, noun.plural if plural else noun.english]


def _object(rng: random.Random, noun: Noun) -> tuple[str, list[str]]:
    if noun.kind == "place":
        return noun.chinese, [noun.english]
    roll = rng.random()
    if noun.kind == "person":
        possessor, english = rng.choice(POSSESSORS)
        return possessor + noun.chinese, [*english.split(), noun.english]
    if roll < 0.45:
        return _count(rng, noun)
    if roll < 0.7:
        possessor, english = rng.choice(POSSESSORS)
        return possessor + noun.chinese, [*english.split(), noun.english]
    return noun.chinese, [noun.plural or noun.english]  # bare: 我喜欢狗 -> i like dogs


def sentence(rng: random.Random) -> Sentence:
    """One random sentence pair of the grammar."""
    subject, english_subject, person, pronoun = _subject(rng)
    verb = rng.choice(VERBS)
    candidates = _objects(verb)
    if "person" in verb.objects and rng.random() < 0.15:  # a pronoun object: 我爱你 -> i love you
        target = rng.choice([p for p in PRONOUNS if p.chinese != pronoun])
        obj, english_obj, noun_key = target.chinese, [target.objective], target.chinese
    else:
        noun = rng.choice(candidates)
        obj, english_obj = _object(rng, noun)
        noun_key = noun.chinese
    tense = rng.choice(sorted(verb.tenses))
    times = [t for t in TIMES if t[2] == tense]
    time_zh, time_en = "", []
    if tense == "future" or rng.random() < (0.6 if tense == "past" else 0.3):
        chosen_zh, chosen_en, _ = rng.choice(times)
        time_zh, time_en = chosen_zh, chosen_en.split()
    negated, question = rng.random() < 0.3, rng.random() < 0.25
    if negated and question:
        question = False
    verb_en = [verb.base] + ([verb.preposition] if verb.preposition else [])
    if tense == "present":
        neg_zh = ("没" if verb.chinese == "有" else "不") if negated else ""
        zh = subject + time_zh + neg_zh + verb.chinese + obj
        do = "does" if person == "3sg" else "do"
        if question:
            en = [do, *english_subject, *verb_en, *english_obj, *time_en]
        elif negated:
            en = [*english_subject, do, "not", *verb_en, *english_obj, *time_en]
        else:
            en = [*english_subject, verb.form(person), *verb_en[1:], *english_obj, *time_en]
    elif tense == "past":
        zh = subject + time_zh + ("没" + verb.chinese if negated else verb.chinese + "了") + obj
        if question:
            en = ["did", *english_subject, *verb_en, *english_obj, *time_en]
        elif negated:
            en = [*english_subject, "did", "not", *verb_en, *english_obj, *time_en]
        else:
            en = [*english_subject, verb.past, *verb_en[1:], *english_obj, *time_en]
    else:
        zh = subject + time_zh + ("不" if negated else "") + verb.chinese + obj
        if question:
            en = ["will", *english_subject, *verb_en, *english_obj, *time_en]
        else:
            en = [*english_subject, "will", *(["not"] if negated else []), *verb_en, *english_obj, *time_en]
    if question:
        zh, en = zh + "吗？", [*en, "?"]
    return Sentence(zh, tuple(en), (verb.chinese, noun_key))


def held_out_combinations(seed: int = 0) -> tuple[tuple[str, str], ...]:
    """(verb, noun) pairs never in training for ``seed``: at most two per verb and one per noun,
    none in the examples, only among verbs with more than three objects (each keeps company)."""
    rng = random.Random(f"{NAME}-held-out-{seed}")
    examples = {e for e, _ in EXAMPLES}
    candidates = [(v.chinese, n.chinese) for v in VERBS if len(_objects(v)) > 3 for n in _objects(v)]
    rng.shuffle(candidates)
    chosen: list[tuple[str, str]] = []
    for verb, noun in candidates:
        if len(chosen) == HELD_OUT_PAIRS:
            break
        if sum(v == verb for v, _ in chosen) >= 3 or any(n == noun for _, n in chosen):
            continue
        if any(verb in e and noun in e for e in examples):
            continue
        chosen.append((verb, noun))
    return tuple(chosen)


def _touches(chinese: str, combination: tuple[str, str]) -> bool:
    return combination[0] in chinese and combination[1] in chinese


def _generate(rng: random.Random, held_out: tuple[tuple[str, str], ...]) -> tuple[list[Pair], list[Pair]]:
    """Distinct pairs until there are enough of each group, the examples excluded. A sentence that
    holds a held-out verb and noun other than as its verb and object is dropped (it is neither)."""
    wanted_seen = TRAIN_SIZE - len(EXAMPLES) + 2 * SEEN_SIZE + _MARGIN
    wanted_novel = 2 * HELD_OUT_SIZE + _MARGIN
    targets: dict[str, str] = dict(EXAMPLES)
    seen: list[Pair] = []
    novel: list[Pair] = []
    for _ in range(30 * (wanted_seen + wanted_novel)):
        if len(seen) >= wanted_seen and len(novel) >= wanted_novel:
            return seen, novel
        s = sentence(rng)
        target = " ".join(s.english)
        if s.chinese in targets:
            if targets[s.chinese] != target:
                raise RuntimeError(f"grammar bug: {s.chinese!r} -> {targets[s.chinese]!r} and {target!r}")
            continue
        targets[s.chinese] = target
        touched = [c for c in held_out if _touches(s.chinese, c)]
        if not touched and len(seen) < wanted_seen:
            seen.append(Pair(s.chinese, target))
        elif touched == [s.link] and len(novel) < wanted_novel:
            novel.append(Pair(s.chinese, target, NOVEL))
    raise RuntimeError("the toy-zh-en grammar yields too few distinct sentences")


def make(seed: int = 0) -> Dataset:
    """The ``toy-zh-en`` task: 10,000 training pairs, 500 valid and 500 test (half novel combinations)."""
    held_out = held_out_combinations(seed)
    seen, novel = _generate(random.Random(f"{NAME}-{seed}"), held_out)
    random.Random(f"{NAME}-split-{seed}").shuffle(seen)
    reserve = 2 * SEEN_SIZE + _MARGIN
    train = tuple(Pair(s, t) for s, t in EXAMPLES) + tuple(seen[reserve:])
    chars = {c for pair in train for c in pair.source}
    words = {w for pair in train for w in pair.target.split()}

    def usable(pairs: list[Pair], size: int) -> list[Pair]:
        """A held-out sentence must be made of characters and words the model saw in training."""
        return [p for p in pairs if chars.issuperset(p.source) and words.issuperset(p.target.split())][: 2 * size]

    held_seen, held_novel = usable(seen[:reserve], SEEN_SIZE), usable(novel, HELD_OUT_SIZE)
    valid = tuple(held_seen[:SEEN_SIZE] + held_novel[:HELD_OUT_SIZE])
    test = tuple(held_seen[SEEN_SIZE:] + held_novel[HELD_OUT_SIZE:])
    return Dataset(NAME, "char", "word", train, valid, test, tuple(s for s, _ in EXAMPLES),
                   lowercase=True, description=DESCRIPTION)
