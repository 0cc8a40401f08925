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

Every pair carries its gold alignment (:attr:`Pair.alignment`): the grammar knows which German
word each English word translates. Words that translate nothing stay unaligned: English "do",
"does" and "to" ("do you drink", "want to drink"), the German comma before "dass". A German word
may translate several English words ("keinen" -> "not" and "a", "sucht" -> "looks for"), and an
English word several German ones ("calls" <- "ruft" and "an", "cannot" <- "kann" and "nicht").
"""
from __future__ import annotations

import dataclasses
import functools
import itertools
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

from .dataset import Dataset, Link, Pair, links
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
    Modal,
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
# The gold alignment of each example, (German word)-(English word), written by hand
EXAMPLE_ALIGNMENTS = tuple(links(a) for a in (
    "0-0 1-1 2-2 3-3",
    "0-0 1-1 2-2 3-3",
    "0-0 1-1 4-3 2-4 3-5",  # "to" translates nothing
    "0-0 1-1 2-2 3-3 4-4 5-5 6-6 8-7 7-8",
    "0-0 1-1 4-1 2-2 3-3",  # ruft ... an -> calls
    "1-1 0-2 2-3 3-4 4-5",  # "do" translates nothing
    "0-0 2-2 1-3 2-4 3-5",  # keinen -> not, a
    "0-0 4-2 1-3 2-4 3-5",  # nicht -> not
    "0-0 1-1 2-2 3-3 4-4",
    "0-0 1-1 3-2 4-3 8-4 5-5 6-6 7-7",  # the comma translates nothing
))
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


Tags = frozenset[str]
_NONE: Tags = frozenset()


@dataclass(frozen=True)
class Phrase:
    """German and English words plus the direct links among them; phrases concatenate with ``+``.

    ``alignment`` links German to English words within the phrase. A word far from its translation
    (a final infinitive, a separable verb's particle) carries a tag instead, and :meth:`resolved`
    links the German and English words of a clause that share one.
    """

    german: tuple[str, ...] = ()
    english: tuple[str, ...] = ()
    links: frozenset[Combination] = frozenset()
    alignment: tuple[Link, ...] = ()  # (German word, English word)
    german_tags: tuple[Tags, ...] = ()  # one per German word
    english_tags: tuple[Tags, ...] = ()  # one per English word

    def __add__(self, other: Phrase) -> Phrase:
        links = self.links | other.links if other.links else self.links
        shifted = tuple((i + len(self.german), j + len(self.english)) for i, j in other.alignment)
        return Phrase(self.german + other.german, self.english + other.english, links, self.alignment + shifted,
                      self.german_tags + other.german_tags, self.english_tags + other.english_tags)

    def resolved(self) -> Phrase:
        """The phrase with its tags turned into links (done per clause: two clauses reuse tags)."""
        tagged = tuple((i, j) for i, g in enumerate(self.german_tags) for j, e in enumerate(self.english_tags)
                       if g & e)
        return Phrase(self.german, self.english, self.links, tuple(sorted(set(self.alignment + tagged))),
                      (_NONE,) * len(self.german), (_NONE,) * len(self.english))


@functools.lru_cache(maxsize=4096)  # the same few thousand words, asked for ~100,000 times
def _words(german: str = "", english: str = "") -> Phrase:
    """Words of both sides; ``word@tag`` links a word to the other side's words of that tag in
    its clause, ``word@`` to nothing. The untagged words link among themselves: one word to all of
    the other side's, or equally many one to one (anything else is a grammar bug)."""
    german_words, german_tags = _split_tags(german)
    english_words, english_tags = _split_tags(english)
    free_german = [i for i, t in enumerate(german_tags) if t is None]
    free_english = [j for j, t in enumerate(english_tags) if t is None]
    if len(free_german) == 1 or len(free_english) == 1:
        alignment = tuple((i, j) for i in free_german for j in free_english)
    elif len(free_german) == len(free_english):
        alignment = tuple(zip(free_german, free_english, strict=True))
    else:
        raise ValueError(f"grammar bug: which of {german!r} translates which of {english!r}?")
    return Phrase(german_words, english_words, alignment=alignment, german_tags=tuple(t or _NONE for t in german_tags),
                  english_tags=tuple(t or _NONE for t in english_tags))


def _split_tags(text: str) -> tuple[tuple[str, ...], tuple[Tags | None, ...]]:
    """``"trinken@verb ?"`` -> the words and their tags (None: untagged)."""
    words = [w.split("@") for w in text.split()]
    return tuple(w[0] for w in words), tuple(frozenset(t for t in w[1:] if t) if len(w) > 1 else None for w in words)


def _tag(text: str, tag: str) -> str:
    """Every word of ``text`` tagged ``tag`` (``""``: translating nothing)."""
    return " ".join(f"{word}@{tag}" for word in text.split())


def _modal_english(text: str) -> str:
    """A modal's English tagged: "do not want to" -> do and to translate nothing, not is the
    negation's, want the modal's; the "to" of "have to" is the modal's too."""
    words = text.split()
    tags = {"do": "", "does": "", "not": "neg", "cannot": "modal@neg"}
    return " ".join(f"{w}@{'' if w == 'to' and i and words[i - 1] in ('want', 'wants') else tags.get(w, 'modal')}"
                    for i, w in enumerate(words))


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
    german = tuple(german_noun_phrase(determiner, case, noun, adjective, possessive))
    english_words = tuple(english_noun_phrase(english, noun, adjective))
    # determiner -> determiner, adjective -> adjective, noun -> the noun's words; "keinen" is "not" too
    alignment = ((0, 0), *(((1, 1),) if adjective else ()),
                 *((len(german) - 1, j) for j in range(len(german) - 1, len(english_words))))
    german_tags = (frozenset({"neg"}) if determiner == "negative" else _NONE,) + (_NONE,) * (len(german) - 1)
    return Phrase(german, english_words, links, alignment, german_tags, (_NONE,) * len(english_words))


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
    return _words(_tag(verb.particle, "verb"))


def _verb(verb: Verb, person: Person) -> Phrase:
    """The finite verb and its English, linked through the tag "verb" (a particle may follow)."""
    return _words(_tag(verb.finite(person), "verb"), _tag(verb.english_form(person), "verb"))


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
    finite, obj = _verb(verb, person), _object(rng, verb, _ANY)
    if verb.particle or rng.random() < 0.7:
        return subject + finite + obj + _particle(verb)
    adverb, english = rng.choice(ADVERBS)
    if rng.random() < 0.5:  # heute trinkt er ein bier -> today he drinks a beer (the verb stays second)
        verb_words = (_words(_tag(verb.finite(person), "verb")) + subject
                      + _words("", _tag(verb.english_form(person), "verb")))
        return _words(adverb, english) + verb_words + obj
    return (subject + finite + _words(_tag(adverb, "adverb")) + obj
            + _words("", _tag(english, "adverb")))  # -> he drinks a beer today


def _modal_clause(rng: random.Random) -> Phrase:
    """ich möchte ein bier trinken -> i want to drink a beer."""
    subject, person = _subject(rng)
    modal, verb = rng.choice(MODALS), rng.choice(_INFINITIVES)
    obj = _object(rng, verb, _ANY)
    return (subject + _modal(modal, person, modal.affirmative) + _words("", _tag(verb.english[0], "infinitive"))
            + obj + _words(_tag(verb.infinitive, "infinitive")))


def _modal(modal: Modal, person: Person, english: tuple[str, str]) -> Phrase:
    return _words(_tag(modal.finite(person), "modal"), _modal_english(modal.pick(english, person)))


def _negation(rng: random.Random) -> Phrase:
    """ich habe keinen hund -> i do not have a dog; er sieht den hund nicht -> he does not see the dog."""
    subject, person = _subject(rng)
    with_modal, with_kein = rng.random() < 0.35, rng.random() < 0.5
    verb = rng.choice(_INFINITIVES if with_modal else _TRANSITIVE)
    obj = _object(rng, verb, ("negative",) if with_kein else _KNOWN)
    nicht = Phrase() if with_kein else _words("nicht@neg")
    if with_modal:
        modal = rng.choice(MODALS)
        return (subject + _modal(modal, person, modal.negated) + _words("", _tag(verb.english[0], "infinitive"))
                + obj + nicht + _words(_tag(verb.infinitive, "infinitive")))
    negated = _words(_tag(verb.finite(person), "verb"), f"{_do(person)}@ not@neg {_tag(verb.english[0], 'verb')}")
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
        after = f"{_modal_english(modal.after_subject)} {_tag(verb.english[0], 'infinitive')}"
        return (_modal(modal, person, modal.question) + subject + _words("", after) + obj
                + _words(f"{_tag(verb.infinitive, 'infinitive')} ?", "?"))
    return (_words(_tag(verb.finite(person), "verb"), f"{_do(person)}@") + subject
            + _words("", _tag(verb.english[0], "verb")) + obj + _words(f"{_tag(verb.particle, 'verb')} ?", "?"))


def _subordinate(rng: random.Random) -> Phrase:
    """The verb goes last: (weil) er müde ist / er seine mutter anruft / er ein bier trinken möchte."""
    subject, person = _subject(rng, noun_phrases=False)
    kind = rng.random()
    if kind < 0.3:
        state, english = rng.choice(STATES)
        return (subject + _words(f"{state}@state")
                + _words(f"{COPULA[person]}@copula", f"{ENGLISH_COPULA[person]}@copula {english}@state"))
    verb = rng.choice(_INFINITIVES if kind < 0.5 else _TRANSITIVE)
    if kind < 0.5:
        modal = rng.choice(MODALS)
        english = f"{_modal_english(modal.pick(modal.affirmative, person))} {_tag(verb.english[0], 'infinitive')}"
        obj = _object(rng, verb, _ANY, 0.25)
        return (subject + _words("", english) + obj
                + _words(f"{_tag(verb.infinitive, 'infinitive')} {_tag(modal.finite(person), 'modal')}"))
    obj = _object(rng, verb, _ANY, 0.25)
    return (subject + _words("", _tag(verb.english_form(person), "verb")) + obj
            + _words(_tag(verb.final(person), "verb")))


def _short_main(rng: random.Random) -> Phrase:
    if rng.random() < 0.25:
        return _copula(rng)
    subject, person = _subject(rng, noun_phrases=False)
    verb = rng.choice(_TRANSITIVE)
    obj = _object(rng, verb, _ANY, 0.0)
    return subject + _verb(verb, person) + obj + _particle(verb)


def _because(rng: random.Random) -> Phrase:
    """er trinkt ein bier , weil er müde ist -> he drinks a beer , because he is tired."""
    german, english = rng.choice(CONJUNCTIONS)
    return _short_main(rng).resolved() + _words(f", {german}", f", {english}") + _subordinate(rng).resolved()


def _that(rng: random.Random) -> Phrase:
    """ich glaube , dass er müde ist -> i think that he is tired."""
    subject, person = _subject(rng, noun_phrases=False)
    verb = rng.choice(THAT_VERBS)
    main = subject + _verb(verb, person) + _words(", dass@that", "that@that")  # the comma translates nothing
    return main.resolved() + _subordinate(rng).resolved()


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
            return dataclasses.replace(phrase, german=german).resolved()


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
    train = example_pairs() + tuple(seen[reserve:])
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


def example_pairs() -> tuple[Pair, ...]:
    """The examples as pairs with their hand-written alignments, in order."""
    return tuple(Pair(s, t, alignment=a) for (s, t), a in zip(EXAMPLES, EXAMPLE_ALIGNMENTS, strict=True))


def _generate(rng: random.Random, held_out: tuple[Combination, ...]) -> tuple[list[Pair], list[Pair]]:
    """Distinct pairs until there are enough of each group, the examples excluded. A sentence that
    touches a held-out combination other than through a direct link is dropped (it is neither)."""
    wanted_seen = TRAIN_SIZE - len(EXAMPLES) + 2 * SEEN_SIZE + _MARGIN
    wanted_novel = 2 * HELD_OUT_SIZE + _MARGIN
    by_noun: dict[str, list[Combination]] = {}
    for combination in held_out:
        by_noun.setdefault(combination.noun, []).append(combination)
    known = {p.source: p for p in example_pairs()}
    seen: list[Pair] = []
    novel: list[Pair] = []
    for _ in range(20 * (wanted_seen + wanted_novel)):
        if len(seen) >= wanted_seen and len(novel) >= wanted_novel:
            return seen, novel
        phrase = sentence(rng)
        pair = Pair(" ".join(phrase.german), " ".join(phrase.english), alignment=phrase.alignment)
        if pair.source in known:  # a repeat, or an example (whose alignment was written by hand)
            earlier = known[pair.source]
            if (earlier.target, set(earlier.alignment)) != (pair.target, set(pair.alignment)):
                raise RuntimeError(f"grammar bug: {pair!r} and {earlier!r}")
            continue
        known[pair.source] = pair
        touched = {c for noun in by_noun.keys() & set(phrase.german) for c in by_noun[noun]
                   if c.occurs_in(phrase.german)}
        if not touched and len(seen) < wanted_seen:
            seen.append(pair)
        elif touched & phrase.links and len(novel) < wanted_novel:
            novel.append(dataclasses.replace(pair, group=NOVEL))
    raise RuntimeError("the toy-de-en grammar yields too few distinct sentences")
