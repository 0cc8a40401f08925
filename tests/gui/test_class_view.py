"""The live class's view of the explorer, against the session's own arrays: what students receive
is the session's sentence, tokens, candidates and one head's weights (rounded for the wire), and
while a quiz's question is open, nothing of the step it asks about."""
from __future__ import annotations

import json

import numpy as np
import pytest

import transviz
from transviz.core.decoding.session import DecodingSession
from transviz.gui.services.class_view import class_view
from transviz.live.protocol import WEIGHT_DECIMALS, check_state, encode

SENTENCE = "ich mochte ein bier"
WIRE = 10.0 ** -WEIGHT_DECIMALS / 2 + 1e-9  # rounding to the wire's decimals moves a weight at most this much


@pytest.fixture(scope="module")
def session():
    session = DecodingSession(transviz.load_model("default"), SENTENCE, top_k=6)
    for _ in range(3):
        session.step()
    return session


def test_the_view_is_the_sessions_own(session):
    view = check_state(class_view(session, "cross", 2, 1, "default"))
    assert view["sentence"] == SENTENCE and view["model"] == "default" and view["step"] == 3
    assert view["source"] == session.source_tokens and view["output"] == session.output_tokens
    assert [token for token, _ in view["candidates"]] == [c.token for c in session.history[-1].candidates]
    np.testing.assert_allclose([p for _, p in view["candidates"]],
                               [c.probability for c in session.history[-1].candidates], atol=WIRE)
    head = view["head"]
    assert (head["kind"], head["layer"], head["head"]) == ("cross", 2, 1)
    assert head["rows"] == session.query_labels and head["cols"] == session.source_tokens
    np.testing.assert_allclose(head["weights"], session.cross_attention()[2, 1], atol=WIRE)
    assert view["caption"] is None


def test_the_mean_of_heads_and_the_decoders_map(session):
    mean = class_view(session, "cross", 0, None, "default")["head"]
    assert mean["head"] is None
    np.testing.assert_allclose(mean["weights"], session.cross_attention()[0].mean(axis=0), atol=WIRE)
    decoder = class_view(session, "decoder_self", 1, 3, "default")["head"]
    assert decoder["kind"] == "decoder" and decoder["cols"] == session.target_tokens
    np.testing.assert_allclose(decoder["weights"], session.decoder_self_attention()[1, 3], atol=WIRE)
    encoder = class_view(session, "encoder_self", 0, 2, "default")["head"]
    np.testing.assert_allclose(encoder["weights"], session.encoder_attention[0, 2], atol=WIRE)


def test_an_open_question_leaves_its_step_out(session):
    """Its token, its candidates and its query row (in every kind that has one) are not sent."""
    newest, row = session.output_tokens[-1], session.query_labels[-1]
    for kind in ("cross", "decoder_self", "encoder_self"):
        view = check_state(class_view(session, kind, 2, 0, "default", hidden=True))
        assert view["output"] == session.output_tokens[:-1] and view["step"] == 2 and view["candidates"] == []
        text = encode(view)
        assert row not in text and f'"{newest}"' not in text, kind
        head = view["head"]
        if kind == "encoder_self":  # no step has a row there: the map is whole
            assert head["rows"] == session.source_tokens
            continue
        assert head["rows"] == session.query_labels[:-1]
        maps = session.cross_attention() if kind == "cross" else session.decoder_self_attention()
        np.testing.assert_allclose(head["weights"], maps[2, 0, :-1, :len(head["cols"])], atol=WIRE)


def test_before_the_first_step_and_with_the_first_step_hidden():
    session = DecodingSession(transviz.load_model("default"), SENTENCE, top_k=6)
    view = class_view(session, "cross", 0, 0, "default")
    assert view["output"] == [] and view["head"] is None and view["candidates"] == []
    session.step()
    hidden = check_state(class_view(session, "cross", 0, 0, "default", hidden=True))
    assert hidden["output"] == [] and hidden["head"] is None and hidden["step"] == 0


def test_a_slides_caption_goes_in_both_languages_and_an_empty_one_not_at_all(session):
    assert class_view(session, "cross", 0, 0, "m", {"en": "Look", "zh": "看"})["caption"] == {"en": "Look", "zh": "看"}
    assert class_view(session, "cross", 0, 0, "m", {"en": "Look", "zh": ""})["caption"] == {"en": "Look"}
    assert class_view(session, "cross", 0, 0, "m", {"en": "", "zh": ""})["caption"] is None
    assert json.loads(encode(check_state(class_view(session, "cross", 0, 0, "m", {"en": "Look"}))))["caption"]
