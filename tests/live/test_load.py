"""60 simulated students (real WebSocket clients, loopback only) join and answer 20 questions,
some changing their minds: every answer is counted exactly once, nothing is lost. Bounded: each
wait gives up after WAIT_S, the whole run after a minute at most."""
from __future__ import annotations

import time

from transviz.live import Answered, ClassServer, Question
from transviz.live.protocol import RATE_PER_S
from transviz.live.simulate import SimulatedClass

STUDENTS, QUESTIONS = 60, 20
WAIT_S = 20.0
PAUSE_S = 1 / RATE_PER_S  # between questions: no student sends faster than the rate limit lets a real one


def test_sixty_students_answer_twenty_questions_and_every_answer_counts_once():
    answered = []
    started = time.monotonic()
    with ClassServer("127.0.0.1", 0, on_event=lambda e: answered.append(e) if isinstance(e, Answered) else None) \
            as server, SimulatedClass(server.socket_url, server.code, STUDENTS) as students:
        assert server.room.count() == STUDENTS
        expected = {}
        for number in range(QUESTIONS):
            question = f"q{number}"
            time.sleep(PAUSE_S)
            server.ask(Question(question, "next", "Next?", ("a", "b", "c", "d"), number % 4))
            students.wait_question(question, WAIT_S)
            if number % 5 == 0:  # a change of mind first: it must replace, never add
                students.answer_all(question, lambda i: (i + 1) % 4)
            students.answer_all(question, lambda i, n=number: (i + n) % 4)
            students.wait_answers(question, WAIT_S)
            students.wait(lambda q=question: all(s.answered[q] == (i + int(q[1:])) % 4
                                                 for i, s in enumerate(students.students)), WAIT_S, "last answers")
            tally = server.tally()
            counts = [0] * 4
            for i in range(STUDENTS):
                counts[(i + number) % 4] += 1
            assert (tally.answered, tally.students, tally.counts) == (STUDENTS, STUDENTS, tuple(counts))
            expected[question] = sum(1 for i in range(STUDENTS) if (i + number) % 4 == number % 4)
        server.reveal()
        students.wait(lambda: all(f"q{QUESTIONS - 1}" in s.results for s in students.students), WAIT_S, "results")
        summary = {s.question: (s.answered, s.right) for s in server.summary()}
        assert summary == {q: (STUDENTS, right) for q, right in expected.items()}
        assert all(not s.errors for s in students.students), [s.errors for s in students.students if s.errors][:3]
        assert len(server.room.csv_text().splitlines()) == 1 + STUDENTS * QUESTIONS
    assert len(answered) == STUDENTS * (QUESTIONS + QUESTIONS // 5)  # each message counted, none lost
    assert time.monotonic() - started < 60
