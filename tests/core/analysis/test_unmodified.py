"""The comparison with the unmodified model: it follows the session's forced tokens and steps,
reports where the unmodified translation had already ended, and scores the unmodified tokens
against a separate step-by-step teacher-forced session."""
from __future__ import annotations

import math

import pytest

import transviz
from transviz import AblateHead, ScaleScores
from transviz.core.analysis.unmodified import Unmodified
from transviz.core.decoding.session import DecodingSession

SENTENCE = "der hund sieht die katze"  # the shipped model: "the dog sees the cat"


@pytest.fixture(scope="module")
def model():
    return transviz.load_model("default")


def test_without_interventions_there_is_nothing_to_compare(model):
    session = DecodingSession(model, SENTENCE)
    session.run_to_end()
    assert Unmodified().compare(session) == []


def test_an_edit_that_ends_sooner_is_compared_token_by_token(model):
    edit = AblateHead("decoder_self", 0, 0)
    session = DecodingSession(model, SENTENCE, interventions=[edit])
    session.run_to_end()
    compared = Unmodified().compare(session)
    assert [(c.written, c.original, c.changed) for c in compared] == [
        ("the", "the", False), ("dog", "dog", False), ("</s>", "sees", True)]
    plain = DecodingSession(model, SENTENCE, reference="the dog sees the cat")
    edited = DecodingSession(model, SENTENCE, reference="the dog sees the cat", interventions=[edit])
    for fed in (plain, edited):
        fed.run_to_end()
    for i, comparison in enumerate(compared):
        assert comparison.before == pytest.approx(math.log(plain.history[i].gold_probability), abs=2e-4)
        assert comparison.after == pytest.approx(math.log(edited.history[i].gold_probability), abs=2e-4)


def test_a_longer_output_has_no_original_past_the_unmodified_end(model):
    edits = [ScaleScores(0.0, "cross", layer) for layer in range(3)]
    session = DecodingSession(model, SENTENCE, interventions=edits)
    session.run_to_end()
    compared = Unmodified().compare(session)
    assert len(compared) == len(session.output_tokens) == 7
    assert compared[-1].original is None and compared[-1].changed and compared[-1].delta is None


def test_forced_tokens_are_forced_in_the_unmodified_run_too_and_going_back_follows(model):
    unmodified = Unmodified()
    session = DecodingSession(model, SENTENCE, interventions=[AblateHead("cross", 2, 0)])
    session.force("a")
    session.run_to_end()
    first = unmodified.compare(session)
    alone = DecodingSession(model, SENTENCE)
    alone.force("a")
    alone.run_to_end()
    assert first[0].original == "a" and not first[0].changed
    assert [c.original for c in first][: len(alone.output_tokens)] == alone.output_tokens[: len(first)]
    session.rewind(2)
    assert [c.original for c in unmodified.compare(session)] == alone.output_tokens[:2]
