"""The class's state without a network: joining and rejoining, answers counted once, the tally,
the reveal, the summary and the CSV export."""
from __future__ import annotations

import csv
import io
import threading

import pytest

from transviz.core.base.errors import InputError
from transviz.live.protocol import (
    CODE_ALPHABET,
    FULL,
    NICKNAME_TAKEN,
    NO_QUESTION,
    QUESTION_CLOSED,
    REMOVED,
    WRONG_CODE,
    ProtocolError,
    Question,
)
from transviz.live.room import CSV_COLUMNS, Room, check_code, new_code


class Clock:
    def __init__(self):
        self.now = 1_700_000_000.0

    def __call__(self):
        return self.now


def question(id="q1", answer=2, label=None):
    return Question(id, "next", {"en": "Which token next?", "zh": "下一个词？"}, ("I", "you", "we"), answer, label)


def refused(reason, call, *args):
    with pytest.raises(ProtocolError) as error:
        call(*args)
    assert error.value.reason == reason


def test_a_fresh_code_has_six_unambiguous_characters():
    codes = {new_code() for _ in range(200)}
    assert len(codes) > 190
    assert all(len(code) == 6 and set(code) <= set(CODE_ALPHABET) for code in codes)
    assert not set("01OI") & set(CODE_ALPHABET)
    assert check_code("k7q-2mx") == "K7Q2MX"
    with pytest.raises(InputError):
        check_code("K0O1")


def test_only_the_code_lets_a_student_in_and_a_nickname_is_one_students():
    room = Room("K7Q2MX")
    refused(WRONG_CODE, room.join, "K7Q2MY", "Ana")
    first = room.join("k7q2mx", " Ana ")  # the code as typed on a phone
    assert (first.nickname, first.rejoined) == ("Ana", False)
    refused(NICKNAME_TAKEN, room.join, "K7Q2MX", "ana")
    refused(NICKNAME_TAKEN, room.join, "K7Q2MX", "Ana", "x" * 32)  # a guessed token
    again = room.join("K7Q2MX", "ANA", first.token)
    assert (again.nickname, again.token, again.rejoined) == ("Ana", first.token, True)
    assert room.count() == 1


def test_an_answer_counts_once_a_changed_answer_replaces_it():
    room = Room("K7Q2MX")
    room.join(room.code, "Ana")
    room.join(room.code, "Bo")
    refused(NO_QUESTION, room.answer, "Ana", "q1", 0)
    room.ask(question())
    for choice in (0, 0, 1, 2):
        room.answer("Ana", "q1", choice)
    tally = room.answer("Bo", "q1", 2)
    assert (tally.answered, tally.students, tally.counts) == (2, 2, (0, 0, 2))
    room.close_question()
    refused(QUESTION_CLOSED, room.answer, "Ana", "q1", 1)
    assert room.tally().counts == (0, 0, 2) and not room.tally().open


def test_a_new_question_closes_the_last_and_ids_are_never_reused():
    room = Room()
    room.join(room.code, "Ana")
    room.ask(question("q1"))
    room.ask(question("q2"))
    refused(QUESTION_CLOSED, room.answer, "Ana", "q1", 0)
    with pytest.raises(InputError):
        room.ask(question("q1"))


def test_the_reveal_tells_every_student_and_the_summary_counts_the_right_ones():
    clock = Clock()
    room = Room(clock=clock)
    for name in ("Ana", "Bo", "Cy"):
        room.join(room.code, name)
    room.ask(question(answer=1, label="pre"))
    room.answer("Ana", "q1", 1)
    room.answer("Bo", "q1", 0)
    results = {r.nickname: (r.choice, r.right) for r in room.reveal()}
    assert results == {"Ana": (1, True), "Bo": (0, False), "Cy": (None, False)}
    [summary] = room.summary()
    assert (summary.answered, summary.right, summary.students, summary.counts, summary.label) == (2, 1, 3, (1, 1, 0),
                                                                                                  "pre")
    assert summary.right_share == 0.5
    assert room.current()[1:] == (False, True)


def test_a_removed_student_cannot_rejoin_and_leaves_the_tally():
    room = Room()
    ana = room.join(room.code, "Ana")
    room.join(room.code, "Bo")
    room.ask(question())
    room.answer("Ana", "q1", 2)
    room.answer("Bo", "q1", 2)
    assert room.remove("ana") == "Ana"
    refused(REMOVED, room.join, room.code, "Ana", ana.token)
    refused(REMOVED, room.join, room.code, "Ana")
    assert (room.tally().answered, room.tally().students) == (1, 1)
    assert room.remove("Nobody") is None
    assert [s.nickname for s in room.students() if s.removed] == ["Ana"]


def test_a_full_class_refuses_the_next_student_but_not_a_rejoin():
    room = Room(max_students=2)
    ana = room.join(room.code, "Ana")
    room.join(room.code, "Bo")
    refused(FULL, room.join, room.code, "Cy")
    assert room.join(room.code, "Ana", ana.token).rejoined


def test_the_csv_holds_every_answer_and_runs_no_formula(tmp_path):
    clock = Clock()
    room = Room(clock=clock)
    room.join(room.code, "=HYPERLINK(1)")
    room.join(room.code, "小明")
    room.ask(question(label="post"))
    clock.now += 4.25
    room.answer("=HYPERLINK(1)", "q1", 2)
    room.answer("小明", "q1", 0)
    path = tmp_path / "answers.csv"
    room.export_csv(path)
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf")  # a spreadsheet then reads the Chinese right
    rows = list(csv.reader(io.StringIO(data.decode("utf-8-sig"))))
    assert rows[0] == list(CSV_COLUMNS)
    assert [r[:8] for r in rows[1:]] == [
        ["'=HYPERLINK(1)", "post", "q1", "next", "Which token next?", "2", "we", "yes"],
        ["小明", "post", "q1", "next", "Which token next?", "0", "I", "no"]]
    assert rows[1][9] == "4.2" or rows[1][9] == "4.3"
    assert rows[1][8].startswith("2023-11-1")  # ISO time, local
    chinese = list(csv.reader(io.StringIO(room.csv_text("zh"))))
    assert chinese[2][4:7] == ["下一个词？", "0", "I"]


def test_threads_answering_at_once_lose_nothing():
    room = Room(max_students=200)
    names = [f"s{i}" for i in range(100)]
    for name in names:
        room.join(room.code, name)
    room.ask(question())

    def answer(chunk):
        for name in chunk:
            for choice in (0, 1, 2):
                room.answer(name, "q1", choice)

    threads = [threading.Thread(target=answer, args=(names[i::4],)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert room.tally().counts == (0, 0, 100)
