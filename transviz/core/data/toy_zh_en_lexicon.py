"""The words of the ``toy-zh-en`` grammar: Chinese with its English, verb forms and the measure
words that count each noun. Small on purpose (a few hundred tokens a side) so a small model
learns it in minutes on a CPU."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Person = Literal["1sg", "3sg", "other"]
Kind = Literal["place", "person", "drink", "food", "animal", "thing", "book"]


@dataclass(frozen=True)
class Subject:
    chinese: str
    english: str
    person: Person
    objective: str = ""  # as an object ("me", "him"); empty: never an object


@dataclass(frozen=True)
class Noun:
    chinese: str
    english: str  # singular, or the mass noun
    kind: Kind
    plural: str = ""  # empty: a mass noun or a proper name
    measure: str = ""  # the Chinese measure word, for count nouns
    container: tuple[tuple[str, str, str], ...] = ()  # mass nouns: (measure, english, plural): 杯 glass glasses


@dataclass(frozen=True)
class Verb:
    chinese: str
    base: str
    third: str  # he ...
    past: str
    objects: frozenset[Kind]
    preposition: str = ""  # 去北京 -> go TO beijing
    tenses: frozenset[str] = frozenset({"present", "past", "future"})

    def form(self, person: Person) -> str:
        return self.third if person == "3sg" else self.base


PRONOUNS = (
    Subject("我", "i", "1sg", "me"), Subject("你", "you", "other", "you"), Subject("他", "he", "3sg", "him"),
    Subject("她", "she", "3sg", "her"), Subject("我们", "we", "other", "us"),
    Subject("他们", "they", "other", "them"), Subject("她们", "they", "other", "them"),
)
NAMES = (Subject("李雷", "li lei", "3sg"), Subject("韩梅梅", "han meimei", "3sg"), Subject("小明", "xiaoming", "3sg"))
POSSESSORS = (  # X的 -> english
    ("我的", "my"), ("你的", "your"), ("他的", "his"), ("她的", "her"), ("我们的", "our"), ("他们的", "their"),
    ("李雷的", "li lei's"), ("小明的", "xiaoming's"),
)
FAMILY = (  # people, always with a possessor: 我的妈妈 -> my mother
    Noun("妈妈", "mother", "person", "mothers"), Noun("爸爸", "father", "person", "fathers"),
    Noun("朋友", "friend", "person", "friends"), Noun("老师", "teacher", "person", "teachers"),
)
_GLASS, _CUP, _BOTTLE, _PIECE = ("杯", "glass", "glasses"), ("杯", "cup", "cups"), ("瓶", "bottle", "bottles"), \
    ("块", "piece", "pieces")
NOUNS = (
    Noun("中国", "china", "place"), Noun("北京", "beijing", "place"), Noun("上海", "shanghai", "place"),
    Noun("美国", "america", "place"), Noun("英国", "england", "place"), Noun("日本", "japan", "place"),
    Noun("德国", "germany", "place"), Noun("法国", "france", "place"),
    Noun("啤酒", "beer", "drink", container=(_GLASS, _BOTTLE)), Noun("茶", "tea", "drink", container=(_CUP,)),
    Noun("咖啡", "coffee", "drink", container=(_CUP,)), Noun("水", "water", "drink", container=(_GLASS, _BOTTLE)),
    Noun("牛奶", "milk", "drink", container=(_GLASS, _BOTTLE)), Noun("果汁", "juice", "drink", container=(_GLASS,)),
    Noun("苹果", "apple", "food", "apples", "个"), Noun("橘子", "orange", "food", "oranges", "个"),
    Noun("鸡蛋", "egg", "food", "eggs", "个"), Noun("包子", "bun", "food", "buns", "个"),
    Noun("蛋糕", "cake", "food", container=(_PIECE,)), Noun("面包", "bread", "food", container=(_PIECE,)),
    Noun("狗", "dog", "animal", "dogs", "只"), Noun("猫", "cat", "animal", "cats", "只"),
    Noun("鸟", "bird", "animal", "birds", "只"),
    Noun("书", "book", "book", "books", "本"), Noun("杂志", "magazine", "book", "magazines", "本"),
    Noun("车", "car", "thing", "cars", "辆"), Noun("自行车", "bike", "thing", "bikes", "辆"),
)
NUMBERS = (("一", "a", ""), ("两", "two", "s"), ("三", "three", "s"))  # "" singular, "s" plural

_ALL = frozenset({"present", "past", "future"})
VERBS = (
    Verb("爱", "love", "loves", "loved", frozenset({"place", "person", "drink", "animal"}),
         tenses=frozenset({"present"})),  # "she did not love america" is odd
    Verb("喜欢", "like", "likes", "liked", frozenset({"place", "person", "drink", "food", "animal", "thing", "book"}),
         tenses=frozenset({"present"})),
    Verb("要", "want", "wants", "wanted", frozenset({"drink", "food", "animal", "thing", "book"}),
         tenses=frozenset({"present"})),
    Verb("买", "buy", "buys", "bought", frozenset({"drink", "food", "animal", "thing", "book"})),
    Verb("喝", "drink", "drinks", "drank", frozenset({"drink"})),
    Verb("吃", "eat", "eats", "ate", frozenset({"food"})),
    Verb("有", "have", "has", "had", frozenset({"drink", "food", "animal", "thing", "book"}),
         tenses=frozenset({"present"})),
    Verb("去", "go", "goes", "went", frozenset({"place"}), preposition="to"),
    Verb("想", "miss", "misses", "missed", frozenset({"place", "person"}), tenses=frozenset({"present"})),
    Verb("看", "read", "reads", "read", frozenset({"book"})),
)
# time words: (chinese, english, tense)
TIMES = (
    ("今天", "today", "present"), ("每天", "every day", "present"), ("昨天", "yesterday", "past"),
    ("去年", "last year", "past"), ("明天", "tomorrow", "future"), ("明年", "next year", "future"),
)
assert all(v.tenses <= _ALL for v in VERBS)
