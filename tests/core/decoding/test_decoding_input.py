"""Bad input: each case is a clear transviz error in plain language, and the session is unchanged."""
import pytest

import transviz
from decoding_models import SOURCE, one_thread, tiny_model  # noqa: F401 (autouse)
from transviz.core.decoding.session import DecodingSession
from transviz.core.decoding.strategies import Beam, Greedy, Sampling


@pytest.fixture(scope="module")
def model():
    return tiny_model()


@pytest.mark.parametrize("source, message", [
    ("", "empty"),
    ("   \t\n", "empty"),
    ("wasser saft milch", r"none of the words \(wasser, saft, milch\) is in this model's vocabulary"),
    ("bier " * 2000, "10000|2000 tokens; this model reads at most 40"),
    ("x" * 10_000, "none of the words .*xxx\u2026"),
    ("\U0001F37A\U0001F37A", "none of the words"),
    ("ich\x00 mochte\x07 bier", r"control characters \(U\+0000, U\+0007\)"),
    (42, "expected text"),
])
def test_bad_sentences_are_clear_errors(model, source, message):
    with pytest.raises(transviz.InputError, match=message) as error:
        DecodingSession(model, source)
    assert "\n" not in str(error.value) and len(str(error.value)) < 200  # one line for the CLI and the GUI


def test_emoji_among_known_words_are_reported_not_refused(model):
    session = DecodingSession(model, "ich mochte \U0001F37A bier")
    assert session.unknown_tokens == [(2, "\U0001F37A")]
    assert session.step().index == 0


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(top_k=0), transviz.InputError, "top_k"),
    (dict(top_k=2.5), transviz.InputError, "top_k"),
    (dict(max_len=0), transviz.InputError, "max_len"),
    (dict(max_len="10"), transviz.InputError, "max_len"),
    (dict(strategy="greedy"), transviz.ConfigError, "Greedy"),
    (dict(reference=""), transviz.InputError, "empty"),
    (dict(reference="beer " * 60), transviz.InputError, "at most 40"),
    (dict(reference="i want", strategy=Beam(2)), transviz.InputError, "teacher forcing feeds the reference"),
])
def test_bad_settings_are_clear_errors(model, kwargs, error, message):
    with pytest.raises(error, match=message):
        DecodingSession(model, SOURCE, **kwargs)


@pytest.mark.parametrize("make, message", [
    (lambda: Sampling(temperature=0), "temperature"),
    (lambda: Sampling(temperature=float("nan")), "temperature"),
    (lambda: Sampling(top_k=-1), "top_k"),
    (lambda: Sampling(top_p=0), "top_p"),
    (lambda: Sampling(top_p=1.5), "top_p"),
    (lambda: Sampling(seed=-3), "seed"),
    (lambda: Beam(width=0), "width"),
    (lambda: Beam(width=1000), "width"),
    (lambda: Beam(length_penalty=-1), "length_penalty"),
])
def test_bad_strategy_settings_are_config_errors(make, message):
    with pytest.raises(transviz.ConfigError, match=message):
        make()


def snapshot(session):
    return session.history, session.beam_history, session.strategy, session.max_len


@pytest.mark.parametrize("operation, message", [
    (lambda s: s.force("wasser"), "'wasser' is not in this model's vocabulary"),
    (lambda s: s.force("a beer"), "one word at a time"),
    (lambda s: s.force("   "), "type the word"),
    (lambda s: s.force("<pad>"), "special token"),
    (lambda s: s.force("<s>"), "special token"),
    (lambda s: s.force(7), "expected a word"),
    (lambda s: s.rewind(5), "from 0 to 2"),
    (lambda s: s.rewind(-1), "from 0 to 2"),
    (lambda s: s.hypothesis_attention(3), "no hypothesis 3"),
    (lambda s: s.set_strategy(None), "strategy must be"),
])
def test_bad_operations_leave_the_session_unchanged(model, operation, message):
    session = DecodingSession(model, SOURCE, max_len=10)
    control = DecodingSession(model, SOURCE, max_len=10)
    session.step(), session.step(), control.step(), control.step()
    before = snapshot(session)
    with pytest.raises(transviz.TransvizError, match=message):
        operation(session)
    assert snapshot(session) == before
    # and the cache is intact: the next step is the one an untouched session takes
    after, expected = session.step(), control.step()
    assert (after.token, after.probability, after.index) == (expected.token, expected.probability, expected.index)
    assert (after.self_rows == expected.self_rows).all()


def test_stepping_past_the_end_is_refused(model):
    session = DecodingSession(model, SOURCE)
    session.force("</s>")
    before = snapshot(session)
    assert session.cant_step() is not None
    for operation in (session.step, lambda: session.force("beer")):
        with pytest.raises(transviz.InputError, match="ended with the end token"):
            operation()
    assert session.run_to_end() == []
    assert snapshot(session) == before


def test_stepping_past_the_length_limit_is_refused(model):
    session = DecodingSession(model, SOURCE, max_len=2)
    session.force("beer"), session.force("beer")
    assert session.stop_reason == "max_len" and session.history[-1].stop == "max_len"
    with pytest.raises(transviz.InputError, match="length limit of 2 tokens"):
        session.step()
    assert session.position == 2


def test_going_back_from_the_start_is_refused(model):
    session = DecodingSession(model, SOURCE)
    assert session.cant_back() is not None
    with pytest.raises(transviz.InputError, match="nothing to undo"):
        session.back()
    assert session.position == 0 and session.step().index == 0


def test_strategies_are_values():
    assert Beam(3, 0.5) == Beam(3, 0.5) and Greedy() == Greedy()
    with pytest.raises(AttributeError):
        Beam().width = 2  # frozen
    assert transviz.decode.__doc__ and "beam" in transviz.decode.__doc__


def test_unknown_strategy_name_in_decode(model):
    with pytest.raises(transviz.InputError, match="choose greedy, sampling or beam"):
        transviz.decode(model, SOURCE, strategy="psychic")
