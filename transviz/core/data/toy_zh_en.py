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

Every pair carries its gold alignment (:attr:`Pair.alignment`), Chinese character to English word:
each character of a word links to the word's English (中 and 国 to "china"), 了 to the past
form ("drank"), 不 and 没 to "not", 去 to "go" and its "to". Measure words without an English word
(只, 个) and 吗 link to nothing, and so do English "do", "does", "did", "will" and "of".
"""
from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass

from .dataset import Dataset, Link, Pair, links
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
# The gold alignment of each example, (Chinese character)-(English word), written by hand
EXAMPLE_ALIGNMENTS = tuple(links(a) for a in (
    "0-0 1-1 2-2 3-2",
    "0-0 3-2 3-3 4-4 5-4 1-5 2-5",  # "will" translates nothing
    "0-0 1-1 2-1 3-2 4-3 5-5 6-5",  # 了 -> drank; "of" translates nothing
    "0-1 1-2 2-2 3-3 4-3 6-4",  # "do" and 吗 translate nothing
    "0-0 1-0 2-1 3-1 4-2 5-3 7-4",  # 只 translates nothing
    "0-0 1-2 2-3 3-4 4-4",
    "0-0 1-0 4-2 5-3 5-4 6-5 7-5 2-6 3-6",
    "0-0 1-1 2-2 3-3 4-5",
))
SEEN_SIZE, HELD_OUT_SIZE = 250, 250  # per group, in each of valid and test
TRAIN_SIZE = 10_000
HELD_OUT_PAIRS = 30
_MARGIN = 50


@dataclass(frozen=True)
class Sentence:
    chinese: str
    english: tuple[str, ...]
    link: tuple[str, str]  # (verb, noun) in Chinese: the sentence's verb-object combination
    alignment: tuple[Link, ...] = ()  # (Chinese character, English word)


Words = tuple[tuple[str, tuple[int, ...]], ...]  # English words, each with the characters it translates


@dataclass(frozen=True)
class Piece:
    """Chinese characters and their English words; pieces concatenate with ``+``."""

    chinese: str = ""
    english: Words = ()

    def __add__(self, other: Piece) -> Piece:
        return Piece(self.chinese + other.chinese, self.english + other.shifted(len(self.chinese)))

    def shifted(self, start: int) -> Words:
        """The English words with the characters counted from ``start``."""
        return tuple((word, tuple(start + i for i in chars)) for word, chars in self.english)


# Words whose characters do not simply all go to each English word, or one to one
_SPLIT: dict[tuple[str, str], tuple[tuple[int, ...], ...]] = {
    ("韩梅梅", "han meimei"): ((0,), (1, 2)), ("李雷的", "li lei's"): ((0,), (1, 2))}


def _piece(chinese: str, english: str) -> Piece:
    """A word and its English: every character to one English word, one character to every word,
    or equally many one to one (names, "每天" -> "every day")."""
    words = english.split()
    chars = _SPLIT.get((chinese, english))
    if chars is None:
        every = tuple(range(len(chinese)))
        chars = tuple((i,) for i in every) if len(words) == len(chinese) else (every,) * len(words)
    return Piece(chinese, tuple(zip(words, chars, strict=True)))


def _unlinked(*english: str) -> Words:
    return tuple((word, ()) for word in english)


_OBJECT_NOUNS = NOUNS + FAMILY


def _objects(verb: Verb) -> tuple[Noun, ...]:
    return tuple(n for n in _OBJECT_NOUNS if n.kind in verb.objects)


def _subject(rng: random.Random) -> tuple[Piece, Person, str]:
    """(the subject, person, the Chinese pronoun or "")."""
    roll = rng.random()
    if roll < 0.6:
        p = rng.choice(PRONOUNS)
        return _piece(p.chinese, p.english), p.person, p.chinese
    if roll < 0.8:
        n = rng.choice(NAMES)
        return _piece(n.chinese, n.english), "3sg", ""
    possessor, english = rng.choice(POSSESSORS)
    family = rng.choice(FAMILY)
    return _piece(possessor, english) + _piece(family.chinese, family.english), "3sg", ""


def _count(rng: random.Random, noun: Noun) -> Piece:
    """一杯啤酒 -> a glass of beer; 两只狗 -> two dogs (只 translates nothing, nor does "of")."""
    number, english, plural = rng.choice(NUMBERS)
    if noun.container:
        measure, single, many = rng.choice(noun.container)
        return (_piece(number, english) + _piece(measure, many if plural else single) + Piece("", _unlinked("of"))
                + _piece(noun.chinese, noun.english))
    article = "an" if english == "a" and noun.english[0] in "aeiou" else english
    return _piece(number, article) + Piece(noun.measure) + _piece(noun.chinese, noun.plural if plural else noun.english)


def _object(rng: random.Random, noun: Noun) -> Piece:
    if noun.kind == "place":
        return _piece(noun.chinese, noun.english)
    roll = rng.random()
    if noun.kind == "person":
        possessor, english = rng.choice(POSSESSORS)
        return _piece(possessor, english) + _piece(noun.chinese, noun.english)
    if roll < 0.45:
        return _count(rng, noun)
    if roll < 0.7:
        possessor, english = rng.choice(POSSESSORS)
        return _piece(possessor, english) + _piece(noun.chinese, noun.english)
    return _piece(noun.chinese, noun.plural or noun.english)  # bare: 我喜欢狗 -> i like dogs


def sentence(rng: random.Random) -> Sentence:
    """One random sentence pair of the grammar."""
    subject, person, pronoun = _subject(rng)
    verb = rng.choice(VERBS)
    candidates = _objects(verb)
    if "person" in verb.objects and rng.random() < 0.15:  # a pronoun object: 我爱你 -> i love you
        target = rng.choice([p for p in PRONOUNS if p.chinese != pronoun])
        obj, noun_key = _piece(target.chinese, target.objective), target.chinese
    else:
        noun = rng.choice(candidates)
        obj, noun_key = _object(rng, noun), noun.chinese
    tense = rng.choice(sorted(verb.tenses))
    times = [t for t in TIMES if t[2] == tense]
    time = Piece()
    if tense == "future" or rng.random() < (0.6 if tense == "past" else 0.3):
        chosen_zh, chosen_en, _ = rng.choice(times)
        time = _piece(chosen_zh, chosen_en)
    negated, question = rng.random() < 0.3, rng.random() < 0.25
    if negated and question:
        question = False
    # the Chinese in its order: subject, time, 不 or 没, the verb, 了, the object, 吗？
    negation = ("没" if verb.chinese == "有" or tense == "past" else "不") if negated else ""
    past = "了" if tense == "past" and not negated else ""
    parts = (subject, time, Piece(negation), Piece(verb.chinese), Piece(past), obj, Piece("吗？" if question else ""))
    starts = [sum(len(p.chinese) for p in parts[:k]) for k in range(len(parts))]
    who, when, what = subject.shifted(starts[0]), time.shifted(starts[1]), obj.shifted(starts[5])
    verb_chars = tuple(range(starts[3], starts[3] + len(verb.chinese)))
    not_ = (("not", tuple(range(starts[2], starts[2] + len(negation)))),) if negated else ()
    plain = ((verb.base, verb_chars),) + (((verb.preposition, verb_chars),) if verb.preposition else ())
    auxiliary = {"present": "does" if person == "3sg" else "do", "past": "did", "future": "will"}[tense]
    if question:
        en = _unlinked(auxiliary) + who + plain + what + when
    elif negated or tense == "future":
        en = who + _unlinked(auxiliary) + not_ + plain + what + when
    else:
        form = verb.form(person) if tense == "present" else verb.past
        finite = tuple(range(starts[3], starts[3] + len(verb.chinese) + len(past)))  # 喝了 -> drank
        en = who + ((form, finite),) + plain[1:] + what + when
    if question:
        en += (("?", (starts[6] + 1,)),)  # 吗 translates nothing
    chinese = "".join(p.chinese for p in parts)
    alignment = tuple(sorted((i, j) for j, (_, chars) in enumerate(en) for i in chars))
    return Sentence(chinese, tuple(word for word, _ in en), (verb.chinese, noun_key), alignment)


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


def example_pairs() -> tuple[Pair, ...]:
    """The examples as pairs with their hand-written alignments, in order."""
    return tuple(Pair(s, t, alignment=a) for (s, t), a in zip(EXAMPLES, EXAMPLE_ALIGNMENTS, strict=True))


def _touches(chinese: str, combination: tuple[str, str]) -> bool:
    return combination[0] in chinese and combination[1] in chinese


def _generate(rng: random.Random, held_out: tuple[tuple[str, str], ...]) -> tuple[list[Pair], list[Pair]]:
    """Distinct pairs until there are enough of each group, the examples excluded. A sentence that
    holds a held-out verb and noun other than as its verb and object is dropped (it is neither)."""
    wanted_seen = TRAIN_SIZE - len(EXAMPLES) + 2 * SEEN_SIZE + _MARGIN
    wanted_novel = 2 * HELD_OUT_SIZE + _MARGIN
    known = {p.source: p for p in example_pairs()}
    seen: list[Pair] = []
    novel: list[Pair] = []
    for _ in range(30 * (wanted_seen + wanted_novel)):
        if len(seen) >= wanted_seen and len(novel) >= wanted_novel:
            return seen, novel
        s = sentence(rng)
        pair = Pair(s.chinese, " ".join(s.english), alignment=s.alignment)
        if s.chinese in known:  # a repeat, or an example (whose alignment was written by hand)
            earlier = known[s.chinese]
            if (earlier.target, set(earlier.alignment)) != (pair.target, set(pair.alignment)):
                raise RuntimeError(f"grammar bug: {pair!r} and {earlier!r}")
            continue
        known[s.chinese] = pair
        touched = [c for c in held_out if _touches(s.chinese, c)]
        if not touched and len(seen) < wanted_seen:
            seen.append(pair)
        elif touched == [s.link] and len(novel) < wanted_novel:
            novel.append(dataclasses.replace(pair, group=NOVEL))
    raise RuntimeError("the toy-zh-en grammar yields too few distinct sentences")


def make(seed: int = 0) -> Dataset:
    """The ``toy-zh-en`` task: 10,000 training pairs, 500 valid and 500 test (half novel combinations)."""
    held_out = held_out_combinations(seed)
    seen, novel = _generate(random.Random(f"{NAME}-{seed}"), held_out)
    random.Random(f"{NAME}-split-{seed}").shuffle(seen)
    reserve = 2 * SEEN_SIZE + _MARGIN
    train = example_pairs() + tuple(seen[reserve:])
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
