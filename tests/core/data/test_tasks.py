"""toy-de-en and the task registry, checked on the generated data itself.

German grammar facts (article and adjective endings, where verbs go) are written out here as
small independent tables, not taken from the generator.
"""
import hashlib
import inspect
import os
import re
import subprocess
import sys
from collections import Counter

import pytest

from transviz.core.base.errors import InputError
from transviz.core.data import toy_de_en
from transviz.core.data.tasks import TASKS, Dataset, describe_task, load_task, load_tsv
from transviz.core.data.toy_de_en_lexicon import ADJECTIVES, COPULA, MODALS, NOUNS, SEPARABLE_VERBS, THAT_VERBS, VERBS

NOVEL, SEEN = "novel-combinations", "seen-patterns"


@pytest.fixture(scope="module")
def data() -> Dataset:
    return load_task("toy-de-en")


def tokens(text):
    return text.split()


def all_pairs(data):
    return data.train + data.valid + data.test


def fingerprint(d):
    rows = [f"{p.source}\t{p.target}\t{p.group}" for p in d.train + d.valid + d.test] + list(d.examples)
    return hashlib.sha256("\n".join(rows).encode()).hexdigest()


@pytest.mark.process
def test_same_data_in_another_process_with_another_hash_seed(data, tmp_path):
    corpus = tmp_path / "corpus.tsv"
    corpus.write_text("".join(f"satz {i}\tsentence {i}\n" for i in range(60)), encoding="utf-8")
    code = inspect.getsource(fingerprint) + (  # the same function, in a fresh interpreter
        "import hashlib, sys\nfrom transviz.core.data.tasks import load_task, load_tsv\n"
        "print(fingerprint(load_task('toy-de-en')), fingerprint(load_task('dates')),"
        " fingerprint(load_tsv(sys.argv[1])))"
    )
    assert os.environ.get("PYTHONHASHSEED") != "12345"
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run([sys.executable, "-c", code, str(corpus)], env=env, capture_output=True, text=True,
                         check=True)
    here = [fingerprint(data), fingerprint(load_task("dates")), fingerprint(load_tsv(corpus))]
    assert out.stdout.split() == here


def test_another_seed_gives_other_data(data):
    assert fingerprint(load_task("toy-de-en", seed=1)) != fingerprint(data)


def test_sizes_and_vocabulary(data):
    assert len(data.train) >= 8000 and len(data.valid) == 500 and len(data.test) == 500
    assert len({p.source for p in all_pairs(data)}) == len(all_pairs(data)) >= 9000
    assert Counter(p.group for p in data.test) == {NOVEL: 250, SEEN: 250}
    german = {w for p in data.train for w in tokens(p.source)}
    english = {w for p in data.train for w in tokens(p.target)}
    assert len(german) >= 200 and len(english) >= 200
    lengths = [len(tokens(side)) for p in all_pairs(data) for side in (p.source, p.target)]
    assert min(lengths) >= 3 and max(lengths) <= 14


def test_splits_are_disjoint_and_each_source_has_one_target(data):
    train = {p.source for p in data.train}
    assert not train & {p.source for p in data.valid + data.test}
    assert not {p.source for p in data.valid} & {p.source for p in data.test}
    targets = {}
    for p in all_pairs(data):
        assert targets.setdefault(p.source, p.target) == p.target


def test_every_valid_and_test_word_was_seen_in_training(data):
    source_vocab, target_vocab = data.build_vocabs()
    for p in data.valid + data.test:
        assert source_vocab.encode(p.source).unknown == []
        assert target_vocab.encode(p.target).unknown == []


def test_seed_sentence_and_examples_are_in_training(data):
    train = {p.source: p.target for p in data.train}
    assert data.probe == "ich mochte ein bier"
    assert train["ich mochte ein bier"] == train["ich möchte ein bier"] == "i want a beer"
    assert train["ich möchte ein bier trinken"] == "i want to drink a beer"
    assert all(example in train for example in data.examples)
    assert len(data.examples) >= 7 and data.lowercase


def test_umlaut_less_spelling_is_used_like_the_umlaut(data):
    train = [p for p in data.train if "mochte" in tokens(p.source) or "mochtest" in tokens(p.source)]
    assert len(train) >= 50
    assert all("want" in tokens(p.target) or "wants" in tokens(p.target) for p in train)


# -- constructions whose alignment is not a diagonal ------------------------------------------------

INFINITIVES = {v.infinitive: v.english[0] for v in VERBS + SEPARABLE_VERBS}
MODAL_FORMS = {form for m in MODALS for form in m.forms} | {"mochte", "mochtest", "mochten"}
FINITE = ({f for v in VERBS + THAT_VERBS for f in v.forms} | {v.particle + f for v in SEPARABLE_VERBS for f in v.forms}
          | MODAL_FORMS | set(COPULA.values()))
MAIN_CLAUSE_FINITE = FINITE | {f for v in SEPARABLE_VERBS for f in v.forms}  # "rufst du ... an ?"


def clauses(pairs, german_word, english_word):
    """(German clause, English clause) after a subordinating word, e.g. "weil" / "because"."""
    for p in pairs:
        g, e = tokens(p.source), tokens(p.target)
        if german_word in g and english_word in e:
            yield g[g.index(german_word) + 1:], e[e.index(english_word) + 1:]


@pytest.mark.parametrize("german, english", [("weil", "because"), ("obwohl", "although"), ("dass", "that")])
def test_subordinate_clauses_put_the_german_verb_last_and_the_english_verb_second(data, german, english):
    found = list(clauses(data.train, german, english))
    assert len(found) >= 300
    for g, e in found:
        assert g[-1] in FINITE, g
        assert g[-1] not in e  # the German verb at the end has moved to the front in English
        assert e[1] in ENGLISH_VERB_WORDS or e[1] in {"am", "is", "are", "can", "must", "may"}, e


ENGLISH_VERB_WORDS = {w for v in VERBS + SEPARABLE_VERBS for form in v.english for w in form.split()[:1]} | {
    "want", "wants"}


def test_modal_verbs_send_the_infinitive_to_the_end(data):
    found = 0
    for p in data.train:
        g, e = tokens(p.source), tokens(p.target)
        if len(g) > 3 and g[1] in MODAL_FORMS and g[-1] in INFINITIVES and "," not in g:
            found += 1
            verb = INFINITIVES[g[-1]].split()[0]
            assert verb in e and e.index(verb) <= 5, (p.source, p.target)  # early in English, last in German
            assert e.index(verb) < len(e) - 1
    assert found >= 500


def test_separable_verbs_split_around_the_object(data):
    found = 0
    verbs = {(form, v.particle): v for v in SEPARABLE_VERBS for form in v.forms}
    for p in data.train:
        g, e = tokens(p.source), " ".join(tokens(p.target))
        if "," in g or g[-1] == "?":
            continue
        verb = verbs.get((g[1], g[-1])) or verbs.get((g[2], g[-1]) if len(g) > 2 else ("", ""))
        if verb:  # "er ruft seine mutter an": the verb second, its particle last
            found += 1
            assert re.search(rf"\b({verb.english[0]}|{verb.english[1]}) ", e), (p.source, p.target)
    assert found >= 300


def test_questions_invert_the_verb_and_english_adds_do(data):
    questions = [p for p in data.train if p.source.endswith(" ?")]
    assert len(questions) >= 800
    openers = Counter(tokens(p.target)[0] for p in questions)
    assert openers["do"] + openers["does"] >= 300 and openers["can"] >= 50
    for p in questions:
        assert tokens(p.source)[0] in MAIN_CLAUSE_FINITE and p.target.endswith(" ?")
    assert any(p.source == "trinkst du ein bier ?" and p.target == "do you drink a beer ?" for p in data.train) or \
        "trinkst du ein bier ?" in data.examples


def test_negation_with_kein_and_nicht_becomes_not(data):
    kein = [p for p in data.train if re.search(r"\bkein(e|en)?\b", p.source)]
    nicht = [p for p in data.train if " nicht" in p.source]
    assert len(kein) >= 500 and len(nicht) >= 500
    for p in kein + nicht:
        assert re.search(r"\b(not|cannot)\b", p.target), (p.source, p.target)
    for p in kein:  # "kein" is "not ... a": the English article is indefinite
        assert re.search(r"\b(a|an)\b", p.target), (p.source, p.target)
    negated = {p.source for p in data.train if re.search(r"\b(not|cannot)\b", p.target)}
    assert negated == {p.source for p in kein + nicht}


# Endings of an adjective between an article word and a noun, by article word and gender.
AGREEMENT = {
    ("ein", "m"): "er", ("ein", "n"): "es", ("eine", "f"): "e", ("einen", "m"): "en",
    ("der", "m"): "e", ("den", "m"): "en", ("die", "f"): "e", ("das", "n"): "e",
}
ARTICLE_BASES = ("ein", "kein", "mein", "dein", "sein", "ihr", "unser")


def article_key(word):
    for base in ARTICLE_BASES:
        if word.startswith(base) and word[len(base):] in ("", "e", "en"):
            return "ein" + word[len(base):]
    return word if word in ("der", "den", "die", "das") else None


def test_adjectives_agree_with_article_case_and_gender(data):
    gender = {n.german: n.gender for n in NOUNS}
    stems = {a.stem for a in ADJECTIVES}
    seen = Counter()
    for p in all_pairs(data):
        g = tokens(p.source)
        for article, adjective, noun in zip(g, g[1:], g[2:], strict=False):
            key = article_key(article)
            if key and noun in gender and any(adjective.startswith(s) for s in stems):
                ending = AGREEMENT[(key, gender[noun])]
                assert adjective.endswith(ending) and adjective[: -len(ending)] in stems, (article, adjective, noun)
                seen[(key, gender[noun])] += 1
    assert set(seen) == set(AGREEMENT) and min(seen.values()) >= 50
    train = {p.source for p in data.train}
    assert "sie kauft einen großen hund" in train


# -- held-out combinations ------------------------------------------------------------------------

def adjective_forms(adjective):
    stem = next(a.stem for a in ADJECTIVES if a.german == adjective)
    return {stem + ending for ending in ("e", "er", "en", "es")}


def verb_forms(verb):
    entry = next(v for v in VERBS if v.infinitive == verb)
    return set(entry.forms) | {entry.infinitive}


def mention_checks(combinations):
    """For each combination, a test of a source: the adjective right before its noun, or a form of
    the verb anywhere in the sentence with the noun."""
    checks = []
    for c in combinations:
        if c.kind == "adjective":
            bigrams = {f"{form} {c.noun}" for form in adjective_forms(c.head)}
            checks.append(lambda s, b=bigrams: any(f" {x} " in f" {s} " for x in b))
        else:
            forms, noun = verb_forms(c.head), c.noun
            checks.append(lambda s, f=forms, n=noun: n in tokens(s) and bool(f & set(tokens(s))))
    return checks


def test_held_out_verbs_have_forms_no_other_verb_shares():
    held = toy_de_en.held_out_combinations(0)
    others = {f for v in VERBS + SEPARABLE_VERBS + THAT_VERBS for f in v.forms + (v.infinitive,)}
    for verb in {c.head for c in held if c.kind == "verb"}:
        mine = verb_forms(verb)
        rest = {f for v in VERBS + SEPARABLE_VERBS + THAT_VERBS if v.infinitive != verb
                for f in v.forms + (v.infinitive,)} | MODAL_FORMS
        assert not mine & rest and mine <= others


def test_held_out_combinations_never_occur_in_training(data):
    held = toy_de_en.held_out_combinations(0)
    assert Counter(c.kind for c in held) == {"adjective": 40, "verb": 40}
    checks = mention_checks(held)
    for p in data.train:
        assert not any(check(p.source) for check in checks), p.source
    # ... while each of their words does, in other company
    train_words = Counter(w for p in data.train for w in tokens(p.source))
    for c in held:
        forms = adjective_forms(c.head) if c.kind == "adjective" else verb_forms(c.head)
        assert train_words[c.noun] >= 20 and sum(train_words[f] for f in forms) >= 20


def test_novel_group_holds_exactly_the_held_out_combinations(data):
    held = toy_de_en.held_out_combinations(0)
    checks = mention_checks(held)
    kinds = Counter()
    for p in data.valid + data.test:
        hit = [c for c, check in zip(held, checks, strict=False) if check(p.source)]
        assert bool(hit) == (p.group == NOVEL), p
        kinds.update(c.kind for c in hit)
    assert kinds["adjective"] >= 100 and kinds["verb"] >= 100


# -- registry ------------------------------------------------------------------------------------

def test_every_task_has_a_description_and_examples():
    assert list(TASKS)[:2] == ["toy-de-en", "dates"]
    for name in TASKS:
        text = describe_task(name)
        assert 20 < len(text) < 400 and text.endswith(".")
    assert load_task("copy").description == describe_task("copy")
    with pytest.raises(InputError, match="no task called 'nope'"):
        describe_task("nope")
    with pytest.raises(InputError, match="built-in tasks: toy-de-en, dates"):
        load_task("nope")


def test_description_of_toy_de_en_matches_its_dataset(data):
    assert data.description == describe_task("toy-de-en")
    assert data.groups == (SEEN, NOVEL)
