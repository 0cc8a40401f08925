"""What a student may send, read strictly; what the teacher shows, checked and bounded."""
from __future__ import annotations

import json

import pytest

from transviz.core.base.errors import InputError
from transviz.live.protocol import (
    BAD_MESSAGE,
    BAD_NICKNAME,
    MAX_MAP_SIDE,
    MAX_MESSAGE_BYTES,
    AnswerMessage,
    Join,
    ProtocolError,
    Question,
    check_state,
    clean_nickname,
    nickname_key,
    normalize_code,
    parse_student,
)

TOKEN = "a" * 32


def test_the_two_messages_a_student_may_send_are_read():
    assert parse_student('{"type": "join", "code": "k7q2mx", "nickname": "Ana"}') == Join("k7q2mx", "Ana", None)
    assert parse_student(json.dumps({"type": "join", "code": "K7", "nickname": "A", "token": TOKEN})).token == TOKEN
    assert parse_student('{"type": "answer", "question": "q3", "choice": 2}') == AnswerMessage("q3", 2)


@pytest.mark.parametrize("raw", [
    b'{"type": "answer", "question": "q3", "choice": 2}',  # binary frame
    "not json", "[]", "null", '"join"', "{}",
    '{"type": "state", "state": {}}',  # a teacher's message from a student
    '{"type": "question", "question": {}}',
    '{"type": "answer", "question": "q3", "choice": 2, "extra": 1}',
    '{"type": "answer", "question": "q3"}',
    '{"type": "answer", "question": "q3", "choice": "2"}',
    '{"type": "answer", "question": "q3", "choice": true}',
    '{"type": "answer", "question": "q3", "choice": 2.0}',
    '{"type": "answer", "question": "q3", "choice": -1}',
    '{"type": "answer", "question": "q3", "choice": 99}',
    '{"type": "answer", "question": "../etc/passwd", "choice": 1}',
    '{"type": "answer", "question": "q3", "choice": 1, "choice": 2}',  # duplicate key
    '{"type": "answer", "question": "q3", "choice": NaN}',
    '{"type": "answer", "question": "q3", "choice": ' + "9" * 5000 + "}",
    '{"type": "join", "code": "K7", "nickname": "A", "token": "short"}',
    '{"type": "join", "code": "K7", "nickname": "A", "token": "' + "x" * 65 + '"}',
    '{"type": "join", "code": "K7", "nickname": ["A"]}',
    '{"type": "join", "code": "K7", "nickname": "' + "A" * 201 + '"}',
    '{"type": "join", "code": "K7", "nickname": "A", "admin": true}',
    "[" * 3000 + "]" * 3000,  # deeper than Python's recursion limit
    '{"type": "answer", "question": "q3", "choice": 1}' + " " * MAX_MESSAGE_BYTES,
])
def test_anything_else_is_refused(raw):
    with pytest.raises(ProtocolError) as refused:
        parse_student(raw)
    assert refused.value.reason == BAD_MESSAGE


@pytest.mark.parametrize("typed, kept", [("  Ana ", "Ana"), ("Ana   Li", "Ana Li"), ("小明", "小明"),
                                         ("e\u0301", "\u00e9"), ("<svg onload=alert(1)>", None)])
def test_a_nickname_is_trimmed_and_composed(typed, kept):
    assert clean_nickname(typed) == (kept or typed)


@pytest.mark.parametrize("nickname", ["", "   ", "A" * 25, "Ana\nBob", "Ana\x00", "\u202eanA", "A\u200dB", "A\u2028B",
                                      "\x1b[31mred"])
def test_a_nickname_too_long_empty_or_with_control_characters_is_refused(nickname):
    with pytest.raises(ProtocolError) as refused:
        clean_nickname(nickname)
    assert refused.value.reason == BAD_NICKNAME


def test_nicknames_that_differ_only_in_case_are_one_and_codes_ignore_case_and_dashes():
    assert nickname_key("Ana") == nickname_key("ANA")
    assert normalize_code(" k7q-2mx ") == "K7Q2MX"


def test_a_question_never_shows_its_answer_to_students():
    question = Question("q1", "next", {"en": "Next?", "zh": "下一个？"}, ("a", {"en": "b", "zh": "乙"}), 1, "pre")
    public = question.public()
    assert public == {"id": "q1", "kind": "next", "prompt": {"en": "Next?", "zh": "下一个？"},
                      "choices": ["a", {"en": "b", "zh": "乙"}], "label": "pre"}
    assert "answer" not in json.dumps(public)


@pytest.mark.parametrize("fields", [
    {"id": "no spaces"}, {"id": ""}, {"kind": "Next!"}, {"choices": ("only one",)}, {"choices": tuple("abcdefghijklm")},
    {"answer": 2}, {"answer": True}, {"label": "mid"}, {"prompt": {"fr": "Quoi ?"}}, {"prompt": "x" * 2001},
    {"choices": ("a", "b" * 201)}, {"prompt": 3},
])
def test_a_question_out_of_bounds_is_refused(fields):
    base = {"id": "q1", "kind": "next", "prompt": "Next?", "choices": ("a", "b"), "answer": 0}
    with pytest.raises(InputError):
        Question(**{**base, **fields})


def view(**fields):
    head = {"kind": "cross", "layer": 0, "head": 1, "rows": ["<s> -> I"], "cols": ["ich", "</s>"],
            "weights": [[0.123456, 0.876544]]}
    return {"sentence": "ich", "source": ["ich", "</s>"], "output": ["I"], "step": 1, "candidates": [["I", 0.9]],
            "head": head, "caption": {"en": "Look", "zh": "看"}, "model": "toy", **fields}


def test_the_teachers_view_is_checked_and_its_weights_rounded():
    checked = check_state(view())
    assert checked["head"]["weights"] == [[0.1235, 0.8765]]
    assert checked["caption"] == {"en": "Look", "zh": "看"}
    assert check_state({})["head"] is None  # every field optional


@pytest.mark.parametrize("fields", [
    {"secret": "x"}, {"sentence": "x" * 2001}, {"source": "ich"}, {"source": ["x" * 65]}, {"step": -1},
    {"candidates": [["I"]]}, {"candidates": [["I", float("nan")]]}, {"caption": {"fr": "x"}},
    {"head": {"kind": "cross"}}, {"head": {**view()["head"], "kind": "mystery"}},
    {"head": {**view()["head"], "weights": [[0.5]]}},  # rows x cols do not match
    {"head": {**view()["head"], "rows": ["r"] * (MAX_MAP_SIDE + 1), "weights": [[0, 0]] * (MAX_MAP_SIDE + 1)}},
    {"head": {**view()["head"], "weights": [[0.5, float("inf")]]}},
])
def test_a_view_out_of_bounds_is_refused_on_the_teachers_side(fields):
    with pytest.raises(InputError):
        check_state(view(**fields))
