"""A student in the app: :class:`ClassClient` joins a class, follows the teacher's view and
questions, answers, and after a dropped connection rejoins by itself with the same nickname and
resume token, so its answers stay. It runs its own thread with its own asyncio loop; the callbacks
are called on that thread (the window re-emits them as Qt signals)."""
from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlsplit

from websockets.exceptions import InvalidHandshake

from ..core.base.errors import InputError, TransvizError
from .protocol import DEFAULT_PORT, REFUSALS, SOCKET_PATH, normalize_code
from .wire import Closed, WebSocket

log = logging.getLogger(__name__)

MAX_SERVER_MESSAGE = 2 * 1024**2  # a view with a 128 x 128 map is ~150 kB
OPEN_TIMEOUT_S = 5.0
IDLE_TIMEOUT_S = 45.0  # the server pings every 20 s (websockets' default): this long silent, it is gone
RECONNECTS = 30  # tries after a drop, waiting BACKOFF_S doubled each time up to BACKOFF_MAX_S: ~2 minutes
BACKOFF_S = 0.25
BACKOFF_MAX_S = 5.0
ANSWER_GAP_S = 0.1  # answers closer than this are sent as one
# Close codes after which trying again would not help (see server.py): the class ended, the
# student was refused, replaced by a new connection, removed, or disconnected for abuse.
FINAL_CLOSES = {1001: "ended", 1008: "closed", 4000: "refused", 4001: "replaced", 4002: "removed"}


@dataclass(frozen=True)
class Status:
    """Where the client stands: ``kind`` is "connecting", "joined", "reconnecting" (``attempt``
    counts), "refused" (``reason``: a refusal code of :mod:`.protocol`), "removed", "replaced" (the
    nickname joined from elsewhere), "ended" (the teacher stopped the class), "closed" (by
    :meth:`ClassClient.close`, or for too many refused messages), "gave_up" (the server stayed
    unreachable), or "error" (a message refused: ``reason``)."""

    kind: str
    reason: str | None = None
    attempt: int = 0


@dataclass(frozen=True)
class QuestionView:
    """A question as the student sees it: never its answer. ``choice``: the student's counted answer."""

    id: str
    kind: str
    prompt: str | dict[str, str]
    choices: tuple[str | dict[str, str], ...]
    label: str | None
    choice: int | None
    open: bool


@dataclass(frozen=True)
class ResultView:
    question: str
    choice: int | None
    answer: int
    right: bool


def socket_address(text: str, code: str | None = None) -> tuple[str, str]:
    """The WebSocket URL and the join code from what a student typed: the join address
    (``http://192.168.1.20:8338/#K7Q2MX``, the scheme and port optional) or the address with the
    code given apart. InputError when there is no host or no code."""
    text = text.strip()
    if not re.match(r"^[a-z][a-z0-9+.-]*://", text, re.IGNORECASE):
        text = "http://" + text
    parts = urlsplit(text)
    code = normalize_code(code or parts.fragment)
    try:
        host, port = parts.hostname, parts.port or DEFAULT_PORT
    except ValueError:  # a port that is not a number
        host = None
    if not host:
        raise InputError("{0} is not a class's address: type it as the teacher's screen shows it", text)
    if not code:
        raise InputError("the address has no join code: type the address with #CODE, as the teacher's screen "
                         "shows it")
    scheme = "wss" if parts.scheme in ("https", "wss") else "ws"
    host = f"[{host}]" if ":" in host else host
    return f"{scheme}://{host}:{port}{SOCKET_PATH}", code


class ClassClient:
    """A student named ``nickname`` in the class at ``url`` (the join address with ``#CODE``, or
    give ``code`` apart).

    Callbacks, each called on the client's thread: ``on_state(dict)`` with the teacher's view (the
    schema in :mod:`.protocol`), ``on_question(QuestionView)`` when a question is asked, answered,
    or closed, ``on_result(ResultView)`` at the reveal, ``on_status(Status)`` when the connection's
    state changes.
    """

    def __init__(self, url: str, nickname: str, on_state: Callable[[dict[str, Any]], None] | None = None,
                 on_question: Callable[[QuestionView], None] | None = None,
                 on_result: Callable[[ResultView], None] | None = None,
                 on_status: Callable[[Status], None] | None = None, code: str | None = None) -> None:
        self.socket_url, self.code = socket_address(url, code)
        self.nickname = nickname
        self.on_state, self.on_question, self.on_result, self.on_status = on_state, on_question, on_result, on_status
        self.token: str | None = None
        self.state: dict[str, Any] | None = None
        self.question: QuestionView | None = None
        self.result: ResultView | None = None
        self.status = Status("connecting")
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._ws: WebSocket | None = None
        self._closing: asyncio.Event | None = None
        self._first = threading.Event()  # the first join's outcome is known
        self._pending: tuple[str, int] | None = None  # an answer not yet acknowledged: sent again after a rejoin
        self._joined_now = False  # the current connection has joined
        self._answer_timer: asyncio.TimerHandle | None = None
        self._last_sent = -ANSWER_GAP_S

    # -- the owner's thread ----------------------------------------------------------------------
    def connect(self, timeout: float = 10.0) -> None:
        """Join; returns once joined. TransvizError when the class refuses (wrong code, nickname
        taken, ...) or cannot be reached; the client then stops."""
        if self._thread is not None:
            raise RuntimeError("a ClassClient connects once")
        loop = self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, args=(loop,), name="transviz-class-client", daemon=True)
        self._thread.start()
        self._first.wait(timeout)
        status = self.status
        if status.kind != "joined":
            self.close()
            if status.kind == "refused":
                raise TransvizError("the class refused to let you in: {0}", _REFUSALS.get(status.reason or "",
                                                                                      status.reason or "?"))
            raise TransvizError("cannot reach the class at {0}: check the address, and that this computer is on "
                                "the teacher's network", self.socket_url)

    def answer(self, choice: int) -> None:
        """Answer the open question with choice ``choice`` (from 0); a later answer replaces it.
        InputError when no question is open or there is no such choice."""
        question = self.question
        if question is None or not question.open:
            raise InputError("no question is open")
        if isinstance(choice, bool) or not isinstance(choice, int) or not 0 <= choice < len(question.choices):
            raise InputError("the question has choices 0 to {0}, not {1}", len(question.choices) - 1, repr(choice))
        self._pending = (question.id, choice)
        self._call(self._schedule_answer)

    def close(self) -> None:
        """Leave the class and stop the thread; idempotent."""
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        self._call(self._stop)
        if threading.current_thread() is not thread:  # from a callback the thread ends after it returns
            thread.join(5.0)

    def _call(self, callback: Callable[[], object]) -> None:
        loop = self._loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop has ended: nothing to do
                loop.call_soon_threadsafe(callback)

    # -- the client's thread -----------------------------------------------------------------------
    def _run(self, loop: asyncio.AbstractEventLoop) -> None:
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(self._main())
        finally:
            self._first.set()
            loop.close()

    def _stop(self) -> None:
        if self._closing is not None:
            self._closing.set()
        self._close_socket()

    def _close_socket(self) -> None:
        """Start closing the connection; the reading session sees it end (or, a second later, it is dropped)."""
        ws = self._ws
        if ws is not None:
            loop = asyncio.get_running_loop()
            loop.create_task(ws.start_close()).add_done_callback(_quiet)
            loop.call_later(1.0, ws.abort)

    async def _main(self) -> None:
        self._closing = asyncio.Event()
        failures = 0
        while True:
            final, joined = await self._session()
            if self._closing.is_set():
                self._set_status(Status("closed"))
                return
            if final is not None:
                self._set_status(final)
                return
            failures = 1 if joined else failures + 1  # a session that joined starts a fresh count
            if self.token is None or failures > RECONNECTS:  # never joined, or unreachable for long
                self._set_status(Status("gave_up", attempt=failures))
                return
            self._set_status(Status("reconnecting", attempt=failures))
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._closing.wait(), min(BACKOFF_MAX_S, BACKOFF_S * 2 ** (failures - 1)))

    async def _session(self) -> tuple[Status | None, bool]:
        """One connection, from opening to closing: the final status when it should not be tried
        again (else None), and whether it joined."""
        ws: WebSocket | None = None
        self._joined_now = False
        try:
            ws = self._ws = await WebSocket.open(self.socket_url, OPEN_TIMEOUT_S, MAX_SERVER_MESSAGE)
            join = {"type": "join", "code": self.code, "nickname": self.nickname}
            if self.token is not None:
                join["token"] = self.token
            await ws.send(_json(join))
            while True:  # the server pings every 20 s: silence for IDLE_TIMEOUT_S means it is gone
                self._receive(await ws.recv(IDLE_TIMEOUT_S))
        except Closed:
            pass
        except (OSError, asyncio.TimeoutError, InvalidHandshake) as exc:
            log.info("class at %s not reached or gone silent: %s", self.socket_url, exc)
        finally:
            self._ws = None
            if ws is not None:
                ws.abort()
        if self.status.kind in ("refused", "removed"):
            return self.status, self._joined_now
        code = None if ws is None else ws.close_code
        if code in FINAL_CLOSES:
            return Status(FINAL_CLOSES[code]), self._joined_now
        return None, self._joined_now

    def _receive(self, raw: str) -> None:
        try:
            self._handle(json.loads(raw))
        except (ValueError, KeyError, TypeError, IndexError):  # not this protocol: skipped, the class goes on
            log.warning("the class sent a message that is not one: %.80r", raw)

    def _handle(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "welcome":
            self.token, self.nickname = message["token"], message["nickname"]
            self._joined_now = True
            self._set_status(Status("joined"))
        elif kind == "state":
            self.state = message["state"]
            self._callback(self.on_state, self.state)
        elif kind == "question":
            q = message["question"]
            self.question = QuestionView(q["id"], q["kind"], q["prompt"], tuple(q["choices"]), q.get("label"),
                                         message.get("choice"), bool(message.get("open")))
            if self.result is not None and self.result.question != q["id"]:
                self.result = None
            self._resend_pending()
            self._callback(self.on_question, self.question)
        elif kind == "answered" and self.question is not None and self.question.id == message["question"]:
            if self._pending == (message["question"], message["choice"]):
                self._pending = None
            self.question = replace(self.question, choice=message["choice"])
            self._callback(self.on_question, self.question)
        elif kind == "closed" and self.question is not None and self.question.id == message["question"]:
            self._pending = None
            self.question = replace(self.question, open=False)
            self._callback(self.on_question, self.question)
        elif kind == "result":
            self.result = ResultView(message["question"], message["choice"], message["answer"], message["right"])
            if self.question is not None and self.question.id == self.result.question:
                self.question = replace(self.question, open=False)
            self._callback(self.on_result, self.result)
        elif kind == "refused":  # the server may keep the connection for another try: this client stops
            self._set_status(Status("refused", message.get("reason")))
            self._close_socket()
        elif kind == "removed":
            self._set_status(Status("removed"))
        elif kind == "error":
            self._callback(self.on_status, Status("error", message.get("reason")))

    def _resend_pending(self) -> None:
        """After a rejoin: an answer the server had not acknowledged is sent again (once the question
        is still open and the server holds another choice)."""
        pending, question = self._pending, self.question
        if pending is None or question is None:
            return
        if question.id != pending[0] or not question.open or question.choice == pending[1]:
            self._pending = None
            return
        self._send_answer()

    def _schedule_answer(self) -> None:
        """Send the latest answer, at most one every ANSWER_GAP_S: quick changes of mind go as one
        message, well within the server's rate limit."""
        if self._answer_timer is not None:
            return
        loop = asyncio.get_running_loop()
        self._answer_timer = loop.call_later(max(0.0, self._last_sent + ANSWER_GAP_S - loop.time()), self._flush)

    def _flush(self) -> None:
        self._answer_timer = None
        self._last_sent = asyncio.get_running_loop().time()
        self._send_answer()

    def _send_answer(self) -> None:
        ws, pending = self._ws, self._pending
        if ws is None or pending is None:
            return  # sent after the rejoin
        message = _json({"type": "answer", "question": pending[0], "choice": pending[1]})
        asyncio.get_running_loop().create_task(ws.send(message)).add_done_callback(_quiet)

    def _set_status(self, status: Status) -> None:
        if status == self.status and status.kind != "joined":
            return
        self.status = status
        if status.kind in ("joined", "refused", "gave_up", "closed", "ended", "removed", "replaced"):
            self._first.set()
        self._callback(self.on_status, status)

    @staticmethod
    def _callback(callback: Callable[[Any], None] | None, value: object) -> None:
        if callback is None:
            return
        try:
            callback(value)
        except Exception:  # the owner's bug must not end the connection
            log.exception("a ClassClient callback failed")


_REFUSALS = {
    "wrong_code": "the join code is wrong", "nickname_taken": "that nickname is taken: choose another",
    "bad_nickname": "a nickname is 1 to 24 characters, without line breaks or control characters",
    "full": "the class is full", "removed": "the teacher removed this nickname from the class",
    "too_many_attempts": "too many wrong codes from this computer: wait a few minutes",
}
assert set(_REFUSALS) == set(REFUSALS)


def _json(message: dict[str, Any]) -> str:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"))


def _quiet(task: asyncio.Task[None]) -> None:
    """A send or close that failed because the connection dropped (an answer is sent again after the rejoin)."""
    if not task.cancelled():
        task.exception()
