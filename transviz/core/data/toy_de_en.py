"""``toy-de-en``: German -> English sentences from a small grammar around the seed's example.

The seed tutorial translates "ich mochte ein bier" (its umlaut-less spelling of "ich möchte ein
bier") into "i want a beer". This task grows that sentence into a word-level, lowercase corpus
whose constructions do NOT align diagonally, so cross-attention has something to show:

* modal verb + final infinitive: "ich möchte ein bier trinken" -> "i want to drink a beer"
* verb-final subordinate clauses: "..., weil er müde ist" -> "..., because he is tired"
* separable verbs: "er ruft seine mutter an" -> "he calls his mother"
* questions with inversion: "trinkst du ein bier ?" -> "do you drink a beer ?"
* negation: "ich habe keinen hund" -> "i do not have a dog", "er sieht den hund nicht" -> "he does not see the dog"
* adjective + noun with agreement: ein großer hund / einen großen hund / eine große katze / ein großes haus

Every source has exactly one target (a duplicate source with another target is a bug and raises).
The grammar is regular and each translation depends only on the sentence, so a small model can
learn the mapping. The held-out combinations (an adjective never seen with a noun, a verb never
seen with an object) are chosen from the seed and kept out of training entirely; test sentences
with them form the group ``novel-combinations``, the rest ``seen-patterns``.
"""
from __future__ import annotations

import functools
import itertools
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

from .dataset import Dataset, Pair
from .toy_de_en_lexicon import (
    ADJECTIVES,
    ADVERBS,
    CONJUNCTIONS,
    COPULA,
    ENGLISH_COPULA,
    MODALS,
    NAMES,
    NOUNS,
    POSSESSIVES,
    PRONOUNS,
    SEPARABLE_VERBS,
    STATES,
    THAT_VERBS,
    VERBS,
    Adjective,
    Case,
    Determiner,
    Noun,
    Person,
    Subject,
    Verb,
    english_noun_phrase,
    german_noun_phrase,
)

NAME = "toy-de-en"
NOVEL = "novel-combinations"
DESCRIPTION = (
    "Translate short German sentences into English, word by word. Built around the tutorial's "
    "\"ich mochte ein bier\" -> \"i want a beer\", with word orders that differ: verbs at the end, "
    "separable verbs, questions, negation and adjective agreement."
)
# (German, English): the seed sentence first, then one sentence per construction. Always in training.
EXAMPLES = (
    ("ich mochte ein bier", "i want a beer"),
    ("ich möchte ein bier", "i want a beer"),
    ("ich möchte ein bier trinken", "i want to drink a beer"),
    ("er trinkt ein bier , weil er müde ist", "he drinks a beer , because he is tired"),
    ("er ruft seine mutter an", "he calls his mother"),
    ("trinkst du ein bier ?", "do you drink a beer ?"),
    ("ich habe keinen hund", "i do not have a dog"),
    ("er sieht den hund nicht", "he does not see the dog"),
    ("sie kauft einen großen hund", "she buys a big dog"),
    ("ich glaube , dass sie eine große katze hat", "i think that she has a big cat"),
)
SEEN_SIZE, HELD_OUT_SIZE = 250, 250  # per group, in each of valid and test
TRAIN_SIZE = 10_000
MAX_TOKENS = 14
HELD_OUT_ADJECTIVE_NOUNS, HELD_OUT_VERB_OBJECTS = 40, 40
UMLAUT_LESS_RATE = 0.25  # how often a form of "möchten" is spelt like the seed: "mochte"

LinkKind = Literal["adjective", "verb"]


@dataclass(frozen=True)
class Combination:
    """A pair of words that combine directly: an adjective and its noun, or a verb and its object."""

    kind: LinkKind
    head: str  # the adjective's or verb's dictionary form ("groß", "trinken")
    noun: str

    def occurs_in(self, tokens: Iterable[str]) -> bool:
        """Whether German tokens hold this combination: the adjective right before the noun, or a
        form of the verb anywhere in a sentence with the noun (stricter than "is its object")."""
        tokens = list(tokens)
        if self.kind == "adjective":
            forms = _ADJECTIVE_FORMS[self.head]
            return any(a in forms and b == self.noun for a, b in itertools.pairwise(tokens))
        return self.noun in tokens and not _VERB_FORMS[self.head].isdisjoint(tokens)


@dataclass(frozen=True)
class Phrase:
    """German and English words plus the direct links among them; phrases concatenate with ``+``."""

    german: tuple[str, ...] = ()
    english: tuple[str, ...] = ()
    links: frozenset[Combination] = frozenset()

    def __add__(self, other: Phrase) -> Phrase:
        links = self.links | other.links if other.links else self.links
        return Phrase(self.german + other.german, self.english + other.english, links)


@functools.lru_cache(maxsize=4096)  # the same few thousand words, asked for ~100,000 times
def _words(german: str = "", english: str = "") -> Phrase:
    return Phrase(tuple(german.split()), tuple(english.split()))


_ADJECTIVE_FORMS = {a.german: frozenset(a.stem + e for e in ("e", "er", "en", "es")) for a in ADJECTIVES}
_VERB_FORMS = {v.infinitive: frozenset(v.forms + (v.infinitive,)) for v in VERBS}
_OBJECTS = {v.infinitive: tuple(n for n in NOUNS if n.tags & v.tags) for v in VERBS + SEPARABLE_VERBS}
_ADJECTIVES_FOR = {n.german: tuple(a for a in ADJECTIVES if a.tags & n.tags) for n in NOUNS}
_PEOPLE = tuple(n for n in NOUNS if "person" in n.tags)


# -- noun phrases and subjects ------------------------------------------------------------------

def _noun_phrase(rng: random.Random, noun: Noun, case: Case, determiner: Determiner,
                 adjective_rate: float = 0.35) -> Phrase:
    if determiner == "indefinite" and "family" in noun.tags:  # "meine mutter", not "eine mutter"
        determiner = "possessive"
    adjective: Adjective | None = None
    if rng.random() < adjective_rate and _ADJECTIVES_FOR[noun.german]:
        adjective = rng.choice(_ADJECTIVES_FOR[noun.german])
    possessive, english = "", {"definite": "the", "indefinite": "a", "negative": "a"}.get(determiner, "")
    if determiner == "possessive":
        possessive, english = rng.choice(POSSESSIVES)
    links = frozenset({Combination("adjective", adjective.german, noun.german)} if adjective else ())
    return Phrase(tuple(german_noun_phrase(determiner, case, noun, adjective, possessive)),
                   tuple(english_noun_phrase(english, noun, adjective)), links)


def _object(rng: random.Random, verb: Verb, determiners: tuple[Determiner, ...],
            adjective_rate: float = 0.35) -> Phrase:
    noun = rng.choice(_OBJECTS[verb.infinitive])
    phrase = _noun_phrase(rng, noun, "acc", rng.choice(determiners), adjective_rate)
    return phrase + Phrase(links=frozenset({Combination("verb", verb.infinitive, noun.german)}))


def _subject(rng: random.Random, noun_phrases: bool = True) -> tuple[Phrase, Person]:
    """A pronoun, a name or (if ``noun_phrases``) "der alte mann" / "meine mutter"."""
    roll = rng.random() * (1.0 if noun_phrases else 0.8)
    if roll < 0.6:
        pronoun: Subject = rng.choice(PRONOUNS)
        return _words(pronoun.german, pronoun.english), pronoun.person
    if roll < 0.8:
        name: Subject = rng.choice(NAMES)
        return _words(name.german, name.english), "3sg"
    determiner: Determiner = "definite" if rng.random() < 0.5 else "possessive"
    return _noun_phrase(rng, rng.choice(_PEOPLE), "nom", determiner, 0.3), "3sg"


def _do(person: Person) -> str:
    return "does" if person == "3sg" else "do"


def _particle(verb: Verb) -> Phrase:
    return _words(verb.particle)


# -- clauses ----------------------------------------------------------------------------------

_ANY: tuple[Determiner, ...] = ("indefinite", "indefinite", "definite", "possessive")
_KNOWN: tuple[Determiner, ...] = ("definite", "possessive")  # "nicht" follows a definite object
_TRANSITIVE = VERBS + SEPARABLE_VERBS
# after a modal: not "möchten" itself, nor "mögen" or "brauchen" ("i want to need a bike" is odd)
_INFINITIVES = tuple(v for v in _TRANSITIVE if v.infinitive not in ("möchten", "mögen", "brauchen"))


def _statement(rng: random.Random) -> Phrase:
    """er trinkt ein bier -> he drinks a beer; er ruft seine mutter an -> he calls his mother."""
    subject, person = _subject(rng)
    verb = rng.choice(_TRANSITIVE)
    finite, obj = _words(verb.finite(person), verb.english_form(person)), _object(rng, verb, _ANY)
    if verb.particle or rng.random() < 0.7:
        return subject + finite + obj + _particle(verb)
    adverb, english = rng.choice(ADVERBS)
    if rng.random() < 0.5:  # heute trinkt er ein bier -> today he drinks a beer (the verb stays second)
        verb_words = _words(verb.finite(person)) + subject + _words("", verb.english_form(person))
        return _words(adverb, english) + verb_words + obj
    return subject + finite + _words(adverb) + obj + _words("", english)  # -> he drinks a beer today


def _modal_clause(rng: random.Random) -> Phrase:
    """ich möchte ein bier trinken -> i want to drink a beer."""
    subject, person = _subject(rng)
    modal, verb = rng.choice(MODALS), rng.choice(_INFINITIVES)
    obj = _object(rng, verb, _ANY)
    return (subject + _words(modal.finite(person), modal.pick(modal.affirmative, person)) + _words("", verb.english[0])
            + obj + _words(verb.infinitive))


def _negation(rng: random.Random) -> Phrase:
    """ich habe keinen hund -> i do not have a dog; er sieht den hund nicht -> he does not see the dog."""
    subject, person = _subject(rng)
    with_modal, with_kein = rng.random() < 0.35, rng.random() < 0.5
    verb = rng.choice(_INFINITIVES if with_modal else _TRANSITIVE)
    obj = _object(rng, verb, ("negative",) if with_kein else _KNOWN)
    nicht = Phrase() if with_kein else _words("nicht")
    if with_modal:
        modal = rng.choice(MODALS)
        return (subject + _words(modal.finite(person), modal.pick(modal.negated, person))
                + _words("", verb.english[0]) + obj + nicht + _words(verb.infinitive))
    negated = _words(verb.finite(person), f"{_do(person)} not {verb.english[0]}")
    return subject + negated + obj + nicht + _particle(verb)


def _copula(rng: random.Random) -> Phrase:
    """er ist müde -> he is tired; er ist nicht müde -> he is not tired."""
    subject, person = _subject(rng)
    state, english = rng.choice(STATES)
    nicht = _words("nicht", "not") if rng.random() < 0.3 else Phrase()
    return subject + _words(COPULA[person], ENGLISH_COPULA[person]) + nicht + _words(state, english)


def _question(rng: random.Random) -> Phrase:
    """trinkst du ein bier ? -> do you drink a beer ?; kannst du ... trinken ? -> can you drink ... ?"""
    subject, person = _subject(rng)
    while person == "1sg":  # "trinke ich ein bier ?" is odd in both languages
        subject, person = _subject(rng)
    kind = rng.random()
    if kind < 0.15:
        state, english = rng.choice(STATES)
        return _words(COPULA[person], ENGLISH_COPULA[person]) + subject + _words(f"{state} ?", f"{english} ?")
    verb = rng.choice(_INFINITIVES if kind < 0.5 else _TRANSITIVE)
    obj = _object(rng, verb, _ANY)
    if kind < 0.5:
        modal = rng.choice(MODALS)
        return (_words(modal.finite(person), modal.pick(modal.question, person)) + subject
                + _words("", f"{modal.after_subject} {verb.english[0]}") + obj + _words(f"{verb.infinitive} ?", "?"))
    return (_words(verb.finite(person), _do(person)) + subject + _words("", verb.english[0])
            + obj + _words(f"{verb.particle} ?", "?"))


def _subordinate(rng: random.Random) -> Phrase:
    """The verb goes last: (weil) er müde ist / er seine mutter anruft / er ein bier trinken möchte."""
    subject, person = _subject(rng, noun_phrases=False)
    kind = rng.random()
    if kind < 0.3:
        state, english = rng.choice(STATES)
        return subject + _words(state) + _words(COPULA[person], f"{ENGLISH_COPULA[person]} {english}")
    verb = rng.choice(_INFINITIVES if kind < 0.5 else _TRANSITIVE)
    if kind < 0.5:
        modal = rng.choice(MODALS)
        english = f"{modal.pick(modal.affirmative, person)} {verb.english[0]}"
        obj = _object(rng, verb, _ANY, 0.25)
        return subject + _words("", english) + obj + _words(f"{verb.infinitive} {modal.finite(person)}")
    obj = _object(rng, verb, _ANY, 0.25)
    return subject + _words("", verb.english_form(person)) + obj + _words(verb.final(person))


def _short_main(rng: random.Random) -> Phrase:
    if rng.random() < 0.25:
        return _copula(rng)
    subject, person = _subject(rng, noun_phrases=False)
    verb = rng.choice(_TRANSITIVE)
    obj = _object(rng, verb, _ANY, 0.0)
    return subject + _words(verb.finite(person), verb.english_form(person)) + obj + _particle(verb)


def _because(rng: random.Random) -> Phrase:
    """er trinkt ein bier , weil er müde ist -> he drinks a beer , because he is tired."""
    german, english = rng.choice(CONJUNCTIONS)
    return _short_main(rng) + _words(f", {german}", f", {english}") + _subordinate(rng)


def _that(rng: random.Random) -> Phrase:
    """ich glaube , dass er müde ist -> i think that he is tired."""
    subject, person = _subject(rng, noun_phrases=False)
    verb = rng.choice(THAT_VERBS)
    return subject + _words(f"{verb.finite(person)} , dass", f"{verb.english_form(person)} that") + _subordinate(rng)


_TEMPLATES: tuple[tuple[Callable[[random.Random], Phrase], float], ...] = (
    (_statement, 3.0), (_modal_clause, 2.0), (_negation, 2.0), (_copula, 0.6),
    (_question, 2.0), (_because, 2.0), (_that, 1.2),
)
_TEMPLATE_FUNCTIONS = tuple(t for t, _ in _TEMPLATES)
_CUMULATIVE_WEIGHTS = tuple(itertools.accumulate(w for _, w in _TEMPLATES))


def sentence(rng: random.Random) -> Phrase:
    """One random sentence pair of the grammar, at most :data:`MAX_TOKENS` tokens a side."""
    while True:
        phrase = rng.choices(_TEMPLATE_FUNCTIONS, cum_weights=_CUMULATIVE_WEIGHTS)[0](rng)
        if len(phrase.german) <= MAX_TOKENS and len(phrase.english) <= MAX_TOKENS:
            german = tuple(_umlaut_less(w) if w in _MOECHTEN and rng.random() < UMLAUT_LESS_RATE else w
                           for w in phrase.german)
            return Phrase(german, phrase.english, phrase.links)


_MOECHTEN = frozenset(("möchte", "möchtest", "möchten"))


def _umlaut_less(word: str) -> str:
    return word.replace("ö", "o")


# -- held-out combinations and the split ----------------------------------------------------------

def held_out_combinations(seed: int = 0) -> tuple[Combination, ...]:
    """The adjective-noun and verb-object combinations that never occur in training for ``seed``.

    Each noun is held out at most once per kind and each adjective or verb at most twice, so every
    word keeps plenty of other company in training. Verbs whose forms another verb shares (the
    separable ones, "möchten") are never held out: their combinations could not be told apart.
    """
    rng = random.Random(f"{NAME}-held-out-{seed}")
    examples = [german.split() for german, _ in EXAMPLES]
    adjective_pairs = [Combination("adjective", a.german, n.german) for n in NOUNS for a in _ADJECTIVES_FOR[n.german]]
    verb_pairs = [Combination("verb", v.infinitive, n.german) for v in VERBS if v.infinitive != "möchten"
                  for n in _OBJECTS[v.infinitive] if len(_OBJECTS[v.infinitive]) > 2]
    chosen: list[Combination] = []
    for candidates, count in ((adjective_pairs, HELD_OUT_ADJECTIVE_NOUNS), (verb_pairs, HELD_OUT_VERB_OBJECTS)):
        rng.shuffle(candidates)
        heads: dict[str, int] = {}
        nouns: set[str] = set()
        for combination in candidates:
            if len([c for c in chosen if c.kind == combination.kind]) == count:
                break
            if heads.get(combination.head, 0) >= 2 or combination.noun in nouns:
                continue
            if any(combination.occurs_in(tokens) for tokens in examples):
                continue
            chosen.append(combination)
            heads[combination.head] = heads.get(combination.head, 0) + 1
            nouns.add(combination.noun)
    return tuple(chosen)


def make(seed: int = 0) -> Dataset:
    """The ``toy-de-en`` task: 10,000 training pairs, 500 valid and 500 test (half novel combinations)."""
    held_out = held_out_combinations(seed)
    seen, novel = _generate(random.Random(f"{NAME}-{seed}"), held_out)
    random.Random(f"{NAME}-split-{seed}").shuffle(seen)
    reserve = 2 * SEEN_SIZE + _MARGIN
    train = tuple(Pair(s, t) for s, t in EXAMPLES) + tuple(seen[reserve:])
    known = {word for pair in train for side in (pair.source, pair.target) for word in side.split()}

    def usable(pairs: list[Pair], size: int) -> list[Pair]:
        """A held-out sentence must be made of words the model saw in training, on both sides."""
        ok = [p for p in pairs if known.issuperset(p.source.split()) and known.issuperset(p.target.split())]
        return ok[: 2 * size]

    held_seen, held_novel = usable(seen[:reserve], SEEN_SIZE), usable(novel, HELD_OUT_SIZE)
    valid = tuple(held_seen[:SEEN_SIZE] + held_novel[:HELD_OUT_SIZE])
    test = tuple(held_seen[SEEN_SIZE:] + held_novel[HELD_OUT_SIZE:])
    return Dataset(NAME, "word", "word", train, valid, test, tuple(s for s, _ in EXAMPLES),
                   lowercase=True, description=DESCRIPTION)


_MARGIN = 50  # spare held-out sentences, for those with a word training lacks


def _generate(rng: random.Random, held_out: tuple[Combination, ...]) -> tuple[list[Pair], list[Pair]]:
    """Distinct pairs until there are enough of each group, the examples excluded. A sentence that
    touches a held-out combination other than through a direct link is dropped (it is neither)."""
    wanted_seen = TRAIN_SIZE - len(EXAMPLES) + 2 * SEEN_SIZE + _MARGIN
    wanted_novel = 2 * HELD_OUT_SIZE + _MARGIN
    by_noun: dict[str, list[Combination]] = {}
    for combination in held_out:
        by_noun.setdefault(combination.noun, []).append(combination)
    targets: dict[str, str] = dict(EXAMPLES)
    seen: list[Pair] = []
    novel: list[Pair] = []
    for _ in range(20 * (wanted_seen + wanted_novel)):
        if len(seen) >= wanted_seen and len(novel) >= wanted_novel:
            return seen, novel
        pair = sentence(rng)
        source, target = " ".join(pair.german), " ".join(pair.english)
        if source in targets:  # a repeat, or an example
            if targets[source] != target:
                raise RuntimeError(f"grammar bug: {source!r} -> {targets[source]!r} and {target!r}")
            continue
        targets[source] = target
        touched = {c for noun in by_noun.keys() & set(pair.german) for c in by_noun[noun] if c.occurs_in(pair.german)}
        if not touched and len(seen) < wanted_seen:
            seen.append(Pair(source, target))
        elif touched & pair.links and len(novel) < wanted_novel:
            novel.append(Pair(source, target, NOVEL))
    raise RuntimeError("the toy-de-en grammar yields too few distinct sentences")
