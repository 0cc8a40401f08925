"""The class's state, without any I/O: the join code, the students, the questions asked and their
answers, the tally, the reveal, a summary per question and the CSV export.

Thread-safe: the server's thread joins students and counts answers while the teacher's thread
asks, reveals, reads the tally and exports; one lock guards every method. Nothing is written to
disk but by :meth:`Room.export_csv`.

A student is known by their nickname, compared without case ("Ana" and "ANA" are one), and by a
resume token given when they first join: the same nickname with the token rejoins (answers kept),
without it is refused. A removed student's nickname cannot join again, and their answers leave
the tally, the summary and the export.
"""
from __future__ import annotations

import csv
import hmac
import io
import os
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..core.base.errors import InputError
from ..core.base.files import write_atomically
from .protocol import (
    BAD_CHOICE,
    CODE_ALPHABET,
    CODE_LENGTH,
    FULL,
    MAX_STUDENTS,
    NICKNAME_TAKEN,
    NO_QUESTION,
    NOT_JOINED,
    QUESTION_CLOSED,
    REMOVED,
    WRONG_CODE,
    ProtocolError,
    Question,
    Text,
    check_state,
    clean_nickname,
    in_language,
    nickname_key,
    normalize_code,
)

CSV_COLUMNS = ("nickname", "test", "question", "kind", "prompt", "answer", "answer_text", "right", "time", "seconds")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")  # a spreadsheet would run a cell starting so as a formula


def new_code() -> str:
    """A fresh join code: :data:`~.protocol.CODE_LENGTH` characters of :data:`~.protocol.CODE_ALPHABET`."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def check_code(code: str) -> str:
    """A join code the teacher chose, normalized; InputError unless 4 to 12 characters of the alphabet."""
    normalized = normalize_code(code)
    if not 4 <= len(normalized) <= 12 or any(c not in CODE_ALPHABET for c in normalized):
        raise InputError("a join code is 4 to 12 characters of {0}, not {1}", CODE_ALPHABET, repr(code))
    return normalized


@dataclass(frozen=True)
class StudentInfo:
    nickname: str
    connected: bool
    removed: bool
    answered: int  # questions they answered


@dataclass(frozen=True)
class Tally:
    """How the class answered ``question`` so far: ``answered`` of ``students`` (removed students
    not counted), ``counts[i]`` answers for choice i. Never the right answer."""

    question: str | None  # None: no question asked yet
    answered: int
    students: int
    counts: tuple[int, ...]
    open: bool
    revealed: bool


@dataclass(frozen=True)
class QuestionSummary:
    """One question asked, over the class: how many answered, how many were right, and the count per choice."""

    question: str
    kind: str
    label: str | None
    prompt: Text
    choices: tuple[Text, ...]
    answer: int
    answered: int
    right: int
    students: int  # in the class when summarised
    counts: tuple[int, ...]

    @property
    def right_share(self) -> float | None:
        """The share of those who answered who were right (None: nobody answered)."""
        return self.right / self.answered if self.answered else None


@dataclass(frozen=True)
class JoinResult:
    nickname: str  # as cleaned
    token: str
    rejoined: bool


@dataclass(frozen=True)
class Result:
    """A student's result at the reveal: their choice (None: no answer) and whether it was right."""

    nickname: str
    question: str
    choice: int | None
    answer: int
    right: bool


@dataclass
class _Student:
    nickname: str
    token: str
    connected: bool = True
    removed: bool = False


@dataclass(frozen=True)
class _Answer:
    choice: int
    at: float  # wall time
    seconds: float  # since the question was asked


@dataclass
class _Asked:
    question: Question
    asked_at: float
    open: bool = True
    revealed: bool = False
    answers: dict[str, _Answer] = field(default_factory=dict)  # by nickname key


class Room:
    """A class's state. ``code``: the join code (a fresh one when None); ``clock``: wall time in
    seconds (answers' times and the export)."""

    def __init__(self, code: str | None = None, max_students: int = MAX_STUDENTS,
                 clock: Callable[[], float] = time.time) -> None:
        self.code = new_code() if code is None else check_code(code)
        self.max_students = max_students
        self._clock = clock
        self._lock = threading.Lock()
        self._students: dict[str, _Student] = {}  # by nickname key, in joining order
        self._asked: list[_Asked] = []
        self._view: dict[str, Any] | None = None

    # -- students ----------------------------------------------------------------------------------
    def join(self, code: str, nickname: str, token: str | None = None) -> JoinResult:
        """Let a student in; ProtocolError with WRONG_CODE, BAD_NICKNAME, REMOVED, NICKNAME_TAKEN or FULL."""
        if not hmac.compare_digest(normalize_code(code).encode(), self.code.encode()):
            raise ProtocolError(WRONG_CODE)
        nickname = clean_nickname(nickname)
        key = nickname_key(nickname)
        with self._lock:
            student = self._students.get(key)
            if student is not None:
                if student.removed:
                    raise ProtocolError(REMOVED)
                if token is None or not hmac.compare_digest(token.encode(), student.token.encode()):
                    raise ProtocolError(NICKNAME_TAKEN)
                student.connected = True
                return JoinResult(student.nickname, student.token, True)
            if self._count() >= self.max_students:
                raise ProtocolError(FULL)
            student = self._students[key] = _Student(nickname, secrets.token_urlsafe(24))
            return JoinResult(nickname, student.token, False)

    def leave(self, nickname: str) -> None:
        """The student's connection closed (they may rejoin)."""
        with self._lock:
            student = self._students.get(nickname_key(nickname))
            if student is not None:
                student.connected = False

    def remove(self, nickname: str) -> str | None:
        """Remove a student for good; their nickname as they joined with it, None if there is no
        such student in the class."""
        with self._lock:
            student = self._students.get(nickname_key(nickname))
            if student is None or student.removed:
                return None
            student.removed, student.connected = True, False
            return student.nickname

    def is_member(self, nickname: str) -> bool:
        with self._lock:
            student = self._students.get(nickname_key(nickname))
            return student is not None and not student.removed

    def students(self) -> list[StudentInfo]:
        """Every student who joined, in joining order, removed ones included (marked)."""
        with self._lock:
            return [StudentInfo(s.nickname, s.connected, s.removed,
                                sum(key in asked.answers for asked in self._asked))
                    for key, s in self._students.items()]

    def count(self) -> int:
        """Students in the class (removed ones not counted)."""
        with self._lock:
            return self._count()

    def connected(self) -> int:
        with self._lock:
            return sum(s.connected for s in self._students.values())

    def _count(self) -> int:
        return sum(not s.removed for s in self._students.values())

    # -- what the teacher shows --------------------------------------------------------------------
    def show(self, state: dict[str, Any]) -> dict[str, Any]:
        """Keep the teacher's view (checked: :func:`~.protocol.check_state`) for students who join later."""
        view = check_state(state)
        with self._lock:
            self._view = view
        return view

    @property
    def view(self) -> dict[str, Any] | None:
        with self._lock:
            return self._view

    # -- questions ---------------------------------------------------------------------------------
    def ask(self, question: Question) -> None:
        """Ask ``question`` (the one before it closes); InputError if its id was asked before."""
        with self._lock:
            if any(asked.question.id == question.id for asked in self._asked):
                raise InputError("question {0} was asked already in this class: give each question its own id",
                                 question.id)
            if self._asked:
                self._asked[-1].open = False
            self._asked.append(_Asked(question, self._clock()))

    def current(self) -> tuple[Question, bool, bool] | None:
        """The last question asked, whether it is open, whether it was revealed; None before the first."""
        with self._lock:
            if not self._asked:
                return None
            asked = self._asked[-1]
            return asked.question, asked.open, asked.revealed

    def choice_of(self, nickname: str, question_id: str) -> int | None:
        """The student's counted answer to ``question_id``, if any."""
        with self._lock:
            for asked in self._asked:
                if asked.question.id == question_id:
                    answer = asked.answers.get(nickname_key(nickname))
                    return None if answer is None else answer.choice
            return None

    def answer(self, nickname: str, question_id: str, choice: int) -> Tally:
        """Count a student's answer to the open question (replacing their earlier one); the tally
        after it. ProtocolError with NOT_JOINED, NO_QUESTION, QUESTION_CLOSED or BAD_CHOICE."""
        with self._lock:
            key = nickname_key(nickname)
            student = self._students.get(key)
            if student is None or student.removed:
                raise ProtocolError(NOT_JOINED)
            asked = next((a for a in self._asked if a.question.id == question_id), None)
            if asked is None:
                raise ProtocolError(NO_QUESTION)
            if not asked.open:
                raise ProtocolError(QUESTION_CLOSED)
            if not 0 <= choice < len(asked.question.choices):
                raise ProtocolError(BAD_CHOICE)
            now = self._clock()
            asked.answers[key] = _Answer(choice, now, max(0.0, now - asked.asked_at))
            return self._tally(asked)

    def close_question(self) -> Tally:
        """No more answers to the current question."""
        with self._lock:
            if self._asked:
                self._asked[-1].open = False
            return self._tally(self._asked[-1] if self._asked else None)

    def reveal(self) -> list[Result]:
        """Close the current question and say to each student in the class whether they were right
        (a student who did not answer was not)."""
        with self._lock:
            if not self._asked:
                return []
            asked = self._asked[-1]
            asked.open, asked.revealed = False, True
            question = asked.question
            results = []
            for key, student in self._students.items():
                if student.removed:
                    continue
                answer = asked.answers.get(key)
                choice = None if answer is None else answer.choice
                results.append(Result(student.nickname, question.id, choice, question.answer,
                                      choice == question.answer))
            return results

    def tally(self, question_id: str | None = None) -> Tally:
        """The tally of ``question_id`` (default: the current question)."""
        with self._lock:
            if question_id is None:
                return self._tally(self._asked[-1] if self._asked else None)
            asked = next((a for a in self._asked if a.question.id == question_id), None)
            if asked is None:
                raise InputError("no question {0} was asked in this class", question_id)
            return self._tally(asked)

    def _tally(self, asked: _Asked | None) -> Tally:
        students = self._count()
        if asked is None:
            return Tally(None, 0, students, (), False, False)
        counts = [0] * len(asked.question.choices)
        for answer in self._counted(asked).values():
            counts[answer.choice] += 1
        return Tally(asked.question.id, sum(counts), students, tuple(counts), asked.open, asked.revealed)

    def _counted(self, asked: _Asked) -> dict[str, _Answer]:
        """The question's answers from students still in the class."""
        return {key: answer for key, answer in asked.answers.items() if not self._students[key].removed}

    # -- afterwards --------------------------------------------------------------------------------
    def summary(self) -> list[QuestionSummary]:
        """Every question asked, in order."""
        with self._lock:
            result = []
            for asked in self._asked:
                question, tally = asked.question, self._tally(asked)
                right = sum(a.choice == question.answer for a in self._counted(asked).values())
                result.append(QuestionSummary(question.id, question.kind, question.label, question.prompt,
                                              question.choices, question.answer, tally.answered, right,
                                              tally.students, tally.counts))
            return result

    def csv_text(self, language: str = "en") -> str:
        """Every answer counted, a row each (:data:`CSV_COLUMNS`), questions in the order asked and
        students in joining order; prompts and answers in ``language`` where they have it."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\r\n")
        writer.writerow(CSV_COLUMNS)
        with self._lock:
            for asked in self._asked:
                question = asked.question
                for key, answer in self._counted(asked).items():
                    when = datetime.fromtimestamp(answer.at).astimezone().isoformat(timespec="seconds")
                    writer.writerow([_cell(self._students[key].nickname), question.label or "", question.id,
                                     question.kind, in_language(question.prompt, language), answer.choice,
                                     in_language(question.choices[answer.choice], language),
                                     "yes" if answer.choice == question.answer else "no", when,
                                     f"{answer.seconds:.1f}"])
        return out.getvalue()

    def export_csv(self, path: str | os.PathLike[str], language: str = "en") -> None:
        """Write :meth:`csv_text` to ``path`` (atomically; UTF-8 with a byte-order mark, so that a
        spreadsheet reads Chinese nicknames right). The only way anything about students reaches a disk."""
        write_atomically(path, self.csv_text(language).encode("utf-8-sig"))


def _cell(text: str) -> str:
    """A student's text as a cell a spreadsheet shows and never runs."""
    return "'" + text if text.startswith(_FORMULA_START) else text
