"""Many simulated students at once, for the load test and ``transviz bench``: each a real WebSocket
client speaking the protocol, all on one asyncio loop in a thread of their own, recording what
arrives and when (``time.perf_counter``, the clock the caller reads too)."""
from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .wire import WebSocket


@dataclass
class Student:
    """What one simulated student has received."""

    nickname: str
    token: str | None = None
    step: int | None = None  # the "step" of the latest view
    step_at: float = 0.0  # when it arrived
    question: str | None = None
    answered: dict[str, int] = field(default_factory=dict)  # question -> choice, as acknowledged
    results: dict[str, bool] = field(default_factory=dict)  # question -> right
    errors: list[str] = field(default_factory=list)
    closed: int | None = None  # the close code, once closed


class SimulatedClass:
    """``count`` students named ``prefix`` + number joining the class at ``socket_url`` (ws://) with ``code``."""

    def __init__(self, socket_url: str, code: str, count: int, prefix: str = "student") -> None:
        self.socket_url, self.code = socket_url, code
        self.students = [Student(f"{prefix}{i:03d}") for i in range(count)]
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="simulated-class", daemon=True)
        self._changed = threading.Condition()
        self._sockets: list[WebSocket | None] = [None] * count
        self._tasks: list[asyncio.Task[None]] = []

    def start(self, timeout: float = 30.0) -> None:
        """Connect every student and wait until all have joined; TimeoutError if they do not in time."""
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._connect_all(), self._loop).result(timeout)
        self.wait(lambda: all(s.token is not None for s in self.students), timeout, "every student to join")

    async def _connect_all(self) -> None:
        for index in range(len(self.students)):
            ws = await WebSocket.open(self.socket_url, timeout=10, max_size=2**21)
            self._sockets[index] = ws
            self._tasks.append(asyncio.get_running_loop().create_task(self._listen(index, ws)))
            await ws.send(json.dumps({"type": "join", "code": self.code, "nickname": self.students[index].nickname}))

    async def _listen(self, index: int, ws: WebSocket) -> None:
        student = self.students[index]
        try:
            while True:
                raw = await ws.recv()
                arrived = time.perf_counter()
                message = json.loads(raw)
                with self._changed:
                    _record(student, message, arrived)
                    self._changed.notify_all()
        except Exception:  # a closed or dropped connection ends this student's listening
            pass
        with self._changed:
            student.closed = ws.close_code or 1006
            self._changed.notify_all()

    def wait(self, done: Callable[[], bool], timeout: float, what: str = "the students") -> None:
        """Wait until ``done()`` (read under the lock the listeners write under); TimeoutError after ``timeout`` s."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while not done():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"waited {timeout} s for {what}")
                self._changed.wait(left)

    def wait_view(self, step: int, timeout: float) -> float:
        """Wait until every student holds the view of step ``step``; when the last one got it."""
        self.wait(lambda: all(s.step == step for s in self.students), timeout, f"the view of step {step}")
        return max(s.step_at for s in self.students)

    def wait_question(self, question: str, timeout: float) -> None:
        self.wait(lambda: all(s.question == question for s in self.students), timeout, f"question {question}")

    def wait_answers(self, question: str, timeout: float) -> None:
        """Wait until every student's answer to ``question`` is acknowledged as counted."""
        self.wait(lambda: all(question in s.answered for s in self.students), timeout, f"the answers to {question}")

    def send(self, index: int, message: dict[str, Any]) -> None:
        """Have student ``index`` send ``message`` (any JSON: the tests send what a student should not)."""
        self.send_many([(index, message)])

    def send_many(self, messages: list[tuple[int, dict[str, Any]]]) -> None:
        """Send each (student, message), all at once from the students' loop; returns once written."""
        async def send_all() -> None:
            await asyncio.gather(*(self._send(i, m) for i, m in messages))

        asyncio.run_coroutine_threadsafe(send_all(), self._loop).result(30)

    async def _send(self, index: int, message: dict[str, Any]) -> None:
        ws = self._sockets[index]
        assert ws is not None
        await ws.send(json.dumps(message))

    def answer_all(self, question: str, choice: Callable[[int], int]) -> None:
        """Every student answers ``question`` with ``choice(their index)``."""
        self.send_many([(i, {"type": "answer", "question": question, "choice": choice(i)})
                        for i in range(len(self.students))])

    def close(self) -> None:
        async def close_all() -> None:
            for task in self._tasks:  # the listeners stop reading, then each socket closes
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
            await asyncio.gather(*(ws.close() for ws in self._sockets if ws is not None), return_exceptions=True)

        if self._thread.is_alive():
            asyncio.run_coroutine_threadsafe(close_all(), self._loop).result(30)
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)
        self._loop.close()

    def __enter__(self) -> SimulatedClass:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _record(student: Student, message: dict[str, Any], arrived: float) -> None:
    kind = message.get("type")
    if kind == "welcome":
        student.token = message["token"]
    elif kind == "state":
        student.step, student.step_at = message["state"]["step"], arrived
    elif kind == "question":
        student.question = message["question"]["id"]
    elif kind == "answered":
        student.answered[message["question"]] = message["choice"]
    elif kind == "result":
        student.results[message["question"]] = message["right"]
    elif kind in ("error", "refused"):
        student.errors.append(message["reason"])
