"""The teacher's side of a live class: :class:`ClassServer` serves the students' page and its
WebSocket on one port, from a thread of its own with its own asyncio loop, so a busy window never
delays a broadcast.

The server is the ``websockets`` library: its ``process_request`` hook answers plain HTTP requests
for the page's few files (a fixed list, read once; nothing else on disk is reachable), and the path
:data:`~.protocol.SOCKET_PATH` opens the WebSocket. Every student message is checked by
:func:`~.protocol.parse_student` and counted against a token bucket; the limits are in
:mod:`.protocol`.

The teacher's methods (:meth:`ClassServer.show`, :meth:`~ClassServer.ask`, ...) may be called from
any thread: they update the :class:`~.room.Room` at once and hand the sending to the server's loop.
Each student has an outbox that a task of their own empties, so a slow phone delays nobody else;
a view not yet sent is replaced by a newer one (a student gets the latest, not every one in
between), and a student too far behind is disconnected and rejoins with everything as it stands.
"""
from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import re
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path
from typing import Any

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from ..core.base.errors import InputError, TransvizError
from ..core.io.resources import resource_dir
from .address import join_url, page_url
from .events import Answered, Event, Joined, Left, Rejoined, Removed
from .limits import FailedJoins, TokenBucket
from .protocol import (
    BAD_MESSAGE,
    DEFAULT_PORT,
    FULL,
    JOIN_TIMEOUT_S,
    MAX_CONNECTIONS,
    MAX_FAILED_JOINS_PER_CONNECTION,
    MAX_MESSAGE_BYTES,
    MAX_STRIKES,
    MAX_STUDENTS,
    NOT_JOINED,
    OUTBOX_LIMIT,
    REMOVED,
    SOCKET_PATH,
    TOO_FAST,
    TOO_MANY_ATTEMPTS,
    WRONG_CODE,
    AnswerMessage,
    Join,
    ProtocolError,
    Question,
    encode,
    nickname_key,
    parse_student,
)
from .room import QuestionSummary, Result, Room, Tally

log = logging.getLogger(__name__)

# Close codes the student's page and client read (4000-4999 are the application's own)
CLOSE_ENDED = 1001  # the class ended (going away): do not reconnect
CLOSE_ABUSE = 1008  # too many refused messages: do not reconnect
CLOSE_SLOW = 1013  # too far behind (try again later): reconnect and rejoin
CLOSE_REFUSED = 4000  # the join was refused (the last message says why)
CLOSE_REPLACED = 4001  # the same student joined from another connection
CLOSE_REMOVED = 4002  # the teacher removed the student

START_TIMEOUT_S = 10.0
STOP_TIMEOUT_S = 10.0
CLOSE_TIMEOUT_S = 2.0  # how long a closing handshake may take (stop() waits for them)

# The page's files: URL path -> (file in resources/class, content type). Nothing else is served.
PAGE = "resources/class"
FILES = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/index.html": ("index.html", "text/html; charset=utf-8"),
    "/class.js": ("class.js", "text/javascript; charset=utf-8"),
    "/strings.js": ("strings.js", "text/javascript; charset=utf-8"),
    "/class.css": ("class.css", "text/css; charset=utf-8"),
}
# The page runs only its own scripts and styles and talks only to this server: connect-src names
# the WebSocket's origin too, as older Safari's 'self' does not cover ws:. No frame may hold it.
POLICY = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'{0}; "
          "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
HOST_HEADER = re.compile(r"[A-Za-z0-9.-]{1,253}(:\d{1,5})?|\[[0-9A-Fa-f:.]{2,45}\](:\d{1,5})?")
SECURITY_HEADERS = (
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
    ("Cache-Control", "no-store"),
)


def page_files(folder: Path | None = None) -> dict[str, tuple[bytes, str]]:
    """The page's files as served: URL path -> (bytes, content type)."""
    folder = folder or resource_dir() / "class"
    return {path: ((folder / name).read_bytes(), kind) for path, (name, kind) in FILES.items()}


@dataclass(eq=False)  # kept in a set: each connection is itself
class _Connection:
    """One WebSocket, joined or not. Touched only on the server's loop."""

    ws: ServerConnection
    address: str
    bucket: TokenBucket
    nickname: str | None = None
    strikes: int = 0
    failed_joins: int = 0
    closing: bool = False

    def __post_init__(self) -> None:
        self.outbox: deque[tuple[str, str]] = deque()  # (kind, text)
        self.wakeup = asyncio.Event()

    def push(self, kind: str, text: str) -> None:
        """Queue a message; a view (kind "state") replaces one not yet sent."""
        if self.closing:
            return
        if kind == "state":
            stale = [item for item in self.outbox if item[0] == "state"]
            for item in stale:
                self.outbox.remove(item)
        self.outbox.append((kind, text))
        if len(self.outbox) > OUTBOX_LIMIT:  # too far behind: it rejoins and gets what stands then
            self.outbox.clear()
            self.close(CLOSE_SLOW, "too slow")
        self.wakeup.set()

    def close(self, code: int, reason: str) -> None:
        """Close after the messages queued so far are sent."""
        if not self.closing:
            self.outbox.append(("close", f"{code} {reason}"))
            self.closing = True
            self.wakeup.set()

    async def send_all(self) -> None:
        """Empty the outbox as messages come, until the connection closes."""
        with contextlib.suppress(ConnectionClosed):
            while True:
                await self.wakeup.wait()
                self.wakeup.clear()
                while self.outbox:
                    kind, text = self.outbox.popleft()
                    if kind == "close":
                        code, reason = text.split(" ", 1)
                        await self.ws.close(int(code), reason)
                        return
                    await self.ws.send(text)


class ClassServer:
    """A live class on ``host``:``port`` (port 0: any free port, read :attr:`port` after
    :meth:`start`), with join code ``code`` (a fresh one when None).

    ``on_event`` is called **on the server's thread** with a small frozen record (:mod:`.events`):
    :class:`~.events.Joined`, :class:`~.events.Rejoined`, :class:`~.events.Left`,
    :class:`~.events.Answered` (with the tally) and :class:`~.events.Removed`. It must return
    quickly (a window re-emits it as a Qt signal); what it raises is logged and goes no further.

    Every other method may be called from any thread. Nothing listens before :meth:`start` or
    after :meth:`stop`; the :attr:`room` (students, answers) stays readable after :meth:`stop`.
    """

    def __init__(self, host: str = "0.0.0.0", port: int = DEFAULT_PORT, code: str | None = None,
                 on_event: Callable[[Event], None] | None = None, max_students: int = MAX_STUDENTS) -> None:
        self.host = host
        self.port = port
        self.room = Room(code, max_students)
        self.code = self.room.code
        self.on_event = on_event
        self._files = page_files()
        self._failed_joins = FailedJoins()
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: Server | None = None
        self._stopped = False
        self._connections: set[_Connection] = set()  # the loop's
        self._joined: dict[str, _Connection] = {}  # by nickname key; the loop's

    # -- addresses -----------------------------------------------------------------------------
    @property
    def url(self) -> str:
        """``http://LAN-ADDRESS:PORT/``, the join address shown on the projector."""
        return page_url(self.host, self.port)

    @property
    def join_url(self) -> str:
        """:attr:`url` with the code as its fragment (``#CODE``): what the QR code holds."""
        return join_url(self.url, self.code)

    @property
    def socket_url(self) -> str:
        """``ws://LAN-ADDRESS:PORT/ws``, the WebSocket students talk to."""
        return "ws://" + self.url.split("://", 1)[1].rstrip("/") + SOCKET_PATH

    @property
    def running(self) -> bool:
        return self._thread is not None and not self._stopped

    # -- start and stop ------------------------------------------------------------------------
    def start(self) -> None:
        """Listen; returns once listening. TransvizError with a plain message when the port is
        taken or the address cannot be used."""
        with self._lock:
            if self._thread is not None or self._stopped:
                raise RuntimeError("a ClassServer starts once: make a new one for the next class")
            loop = self._loop = asyncio.new_event_loop()
            ready = threading.Event()
            failure: list[OSError] = []
            self._thread = threading.Thread(target=self._run, args=(loop, ready, failure), name="transviz-class",
                                            daemon=True)
            self._thread.start()
        if not ready.wait(START_TIMEOUT_S):
            self.stop()
            raise TransvizError("the class could not start listening on port {0} in {1} s", self.port,
                                START_TIMEOUT_S)
        if failure:
            self._thread.join(START_TIMEOUT_S)
            self._stopped = True
            raise _listen_error(failure[0], self.host, self.port)

    def _run(self, loop: asyncio.AbstractEventLoop, ready: threading.Event, failure: list[OSError]) -> None:
        asyncio.set_event_loop(loop)
        try:
            try:
                self._server = loop.run_until_complete(self._listen())
            except OSError as exc:
                failure.append(exc)
                ready.set()
                return
            self.port = self._server.sockets[0].getsockname()[1]
            ready.set()
            loop.run_forever()
        finally:
            for task in asyncio.all_tasks(loop):
                task.cancel()
            with contextlib.suppress(Exception):
                loop.run_until_complete(asyncio.gather(*asyncio.all_tasks(loop), return_exceptions=True))
            loop.close()

    async def _listen(self) -> Server:
        return await serve(
            self._handle, self.host, self.port,
            process_request=self._http,
            max_size=MAX_MESSAGE_BYTES,  # a larger frame closes the connection (1009) before it is read
            max_queue=16,
            compression=None,  # one copy of each view goes to every student: compressing it 60 times costs more
            close_timeout=CLOSE_TIMEOUT_S,
            server_header=None,
        )

    def stop(self) -> None:
        """Close every connection and stop listening; idempotent. Returns once the port is closed
        (called from ``on_event``, on the server's thread: at once, the closing goes on behind)."""
        with self._lock:
            if self._stopped:
                return
            self._stopped = True
            loop, thread, server = self._loop, self._thread, self._server
        if loop is None or thread is None:
            return
        if threading.current_thread() is thread:  # from on_event: the loop cannot wait for itself
            if server is not None:
                loop.create_task(self._close(server)).add_done_callback(lambda _: loop.stop())
            return
        if server is not None and loop.is_running():
            future = asyncio.run_coroutine_threadsafe(self._close(server), loop)
            with contextlib.suppress(Exception):
                future.result(STOP_TIMEOUT_S)
            loop.call_soon_threadsafe(loop.stop)
        thread.join(STOP_TIMEOUT_S)

    async def _close(self, server: Server) -> None:
        server.close(code=CLOSE_ENDED, reason="the class ended")
        await asyncio.wait_for(server.wait_closed(), STOP_TIMEOUT_S - 1)

    def __enter__(self) -> ClassServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- what the teacher does (any thread) ------------------------------------------------------
    def show(self, state: dict[str, Any]) -> None:
        """Show ``state`` (the schema in :mod:`.protocol`; checked and bounded, InputError if not)
        to every student, and to every student who joins later."""
        text = encode({"type": "state", "state": self.room.show(state)})
        self._on_loop(self._broadcast, "state", text)

    def ask(self, question: Question) -> None:
        """Ask ``question`` (the one before closes); students see it without its answer."""
        self.room.ask(question)
        text = encode({"type": "question", "question": question.public(), "choice": None, "open": True})
        self._on_loop(self._broadcast, "question", text)

    def close_question(self) -> Tally:
        """No more answers to the current question; the tally as it stands."""
        tally = self.room.close_question()
        if tally.question is not None:
            self._on_loop(self._broadcast, "closed", encode({"type": "closed", "question": tally.question}))
        return tally

    def reveal(self) -> list[Result]:
        """Close the current question and tell each student whether they were right."""
        results = self.room.reveal()
        self._on_loop(self._send_results, results)
        return results

    def remove(self, nickname: str) -> None:
        """Remove a student: their connection closes and the nickname cannot join again.
        InputError if no such student is in the class."""
        removed = self.room.remove(nickname)
        if removed is None:
            raise InputError("there is no student {0} in this class", nickname)
        self._on_loop(self._removed, removed)

    def tally(self) -> Tally:
        """The current question's tally: answered, students, counts per choice (never the answer)."""
        return self.room.tally()

    def summary(self) -> list[QuestionSummary]:
        return self.room.summary()

    def export_csv(self, path: str | Path, language: str = "en") -> None:
        """Write every answer as CSV (:meth:`.room.Room.export_csv`): nickname, test (pre/post),
        question, kind, prompt, answer, answer_text, right, time, seconds."""
        self.room.export_csv(path, language)

    def _on_loop(self, callback: Callable[..., None], *args: Any) -> None:
        loop = self._loop
        if loop is not None and not self._stopped:
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: nobody left to tell
                loop.call_soon_threadsafe(callback, *args)

    # -- on the loop -------------------------------------------------------------------------------
    def _broadcast(self, kind: str, text: str) -> None:
        for connection in self._joined.values():
            connection.push(kind, text)

    def _send_results(self, results: list[Result]) -> None:
        for result in results:
            connection = self._joined.get(nickname_key(result.nickname))
            if connection is not None:
                connection.push("result", encode(_result_message(result)))

    def _removed(self, nickname: str) -> None:
        connection = self._joined.pop(nickname_key(nickname), None)
        if connection is not None:
            connection.nickname = None  # its end is a removal, not a leaving
            connection.push("removed", encode({"type": "removed"}))
            connection.close(CLOSE_REMOVED, "removed")
        self._emit(Removed(nickname, self.room.count()))

    def _emit(self, event: Event) -> None:
        if self.on_event is None:
            return
        try:
            self.on_event(event)
        except Exception:  # the owner's bug must not end a student's connection
            log.exception("the class's on_event callback failed on %r", event)

    def _http(self, connection: ServerConnection, request: Request) -> Response | None:
        """A plain request for one of the page's files, or the WebSocket's opening handshake."""
        if getattr(request, "method", "GET") != "GET":  # websockets before 16 refuses other methods itself
            return _response(HTTPStatus.METHOD_NOT_ALLOWED, b"only GET\n", "text/plain; charset=utf-8")
        path = request.path.split("?", 1)[0]
        if path == SOCKET_PATH:
            if len(self._connections) >= MAX_CONNECTIONS or self._stopped:
                return _response(HTTPStatus.SERVICE_UNAVAILABLE, b"the class is full\n", "text/plain; charset=utf-8")
            return None  # the handshake goes on (426 when it is not one)
        file = self._files.get(path)
        if file is None:
            return _response(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain; charset=utf-8")
        host = request.headers.get("Host", "")
        socket_origin = f" ws://{host}" if HOST_HEADER.fullmatch(host) else ""
        return _response(HTTPStatus.OK, *file, policy=POLICY.format(socket_origin))

    async def _handle(self, ws: ServerConnection) -> None:
        remote = ws.remote_address
        connection = _Connection(ws, str(remote[0]) if remote else "?", TokenBucket())
        self._connections.add(connection)
        sender = asyncio.get_running_loop().create_task(connection.send_all())
        try:
            await self._receive(connection)
        except ConnectionClosed:
            pass
        finally:
            self._connections.discard(connection)
            if connection.closing:  # the sender sends what is queued, then closes with its code
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(sender, CLOSE_TIMEOUT_S)
            sender.cancel()
            nickname = connection.nickname
            if nickname is not None and self._joined.get(nickname_key(nickname)) is connection:
                del self._joined[nickname_key(nickname)]
                self.room.leave(nickname)
                self._emit(Left(nickname, self.room.connected()))

    async def _receive(self, connection: _Connection) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + JOIN_TIMEOUT_S
        while not connection.closing:
            if connection.nickname is None:
                try:
                    raw = await asyncio.wait_for(connection.ws.recv(), max(0.0, deadline - loop.time()))
                except asyncio.TimeoutError:
                    connection.close(CLOSE_ABUSE, "join first")
                    return
            else:
                raw = await connection.ws.recv()
            try:
                if not connection.bucket.take(time.monotonic()):
                    raise ProtocolError(TOO_FAST)
                message = parse_student(raw)
                if isinstance(message, Join):
                    self._join(connection, message)
                else:
                    self._answer(connection, message)
            except ProtocolError as exc:
                self._refuse(connection, exc.reason)

    def _refuse(self, connection: _Connection, reason: str) -> None:
        connection.push("error", encode({"type": "error", "reason": reason}))
        connection.strikes += 1
        if connection.strikes >= MAX_STRIKES:
            connection.close(CLOSE_ABUSE, "too many refused messages")

    def _join(self, connection: _Connection, join: Join) -> None:
        if connection.nickname is not None:
            raise ProtocolError(BAD_MESSAGE)  # joined already: one nickname a connection
        now = time.monotonic()
        if self._failed_joins.blocked(connection.address, now):
            self._refuse_join(connection, TOO_MANY_ATTEMPTS, close=True)
            return
        try:
            result = self.room.join(join.code, join.nickname, join.token)
        except ProtocolError as exc:
            if exc.reason == WRONG_CODE:
                self._failed_joins.fail(connection.address, now)
                connection.failed_joins += 1
            close = (exc.reason in (FULL, REMOVED) or connection.failed_joins >= MAX_FAILED_JOINS_PER_CONNECTION
                     or self._failed_joins.blocked(connection.address, now))
            self._refuse_join(connection, exc.reason, close)
            return
        key = nickname_key(result.nickname)
        earlier = self._joined.get(key)
        if earlier is not None and earlier is not connection:  # the same student from a new connection
            earlier.nickname = None
            earlier.close(CLOSE_REPLACED, "joined again elsewhere")
        connection.nickname = result.nickname
        self._joined[key] = connection
        connection.push("welcome", encode({"type": "welcome", "nickname": result.nickname, "token": result.token,
                                           "rejoined": result.rejoined}))
        self._catch_up(connection, result.nickname)
        students = self.room.count()
        self._emit(Rejoined(result.nickname, students) if result.rejoined else Joined(result.nickname, students))

    def _refuse_join(self, connection: _Connection, reason: str, close: bool) -> None:
        connection.push("refused", encode({"type": "refused", "reason": reason}))
        if close:
            connection.close(CLOSE_REFUSED, reason)
        else:
            connection.strikes += 1
            if connection.strikes >= MAX_STRIKES:
                connection.close(CLOSE_ABUSE, "too many refused messages")

    def _catch_up(self, connection: _Connection, nickname: str) -> None:
        """What a student who joins now has missed: the view, the question and their answer, the result."""
        view = self.room.view
        if view is not None:
            connection.push("state", encode({"type": "state", "state": view}))
        current = self.room.current()
        if current is None:
            return
        question, is_open, revealed = current
        choice = self.room.choice_of(nickname, question.id)
        connection.push("question", encode({"type": "question", "question": question.public(), "choice": choice,
                                            "open": is_open}))
        if revealed:
            connection.push("result", encode(_result_message(Result(nickname, question.id, choice, question.answer,
                                                                    choice == question.answer))))

    def _answer(self, connection: _Connection, answer: AnswerMessage) -> None:
        nickname = connection.nickname
        if nickname is None:
            raise ProtocolError(NOT_JOINED)
        tally = self.room.answer(nickname, answer.question, answer.choice)
        connection.push("answered", encode({"type": "answered", "question": answer.question,
                                            "choice": answer.choice}))
        self._emit(Answered(nickname, answer.question, answer.choice, tally))


def _result_message(result: Result) -> dict[str, Any]:
    return {"type": "result", "question": result.question, "choice": result.choice, "answer": result.answer,
            "right": result.right}


def _response(status: HTTPStatus, body: bytes, kind: str, policy: str = POLICY.format("")) -> Response:
    headers = Headers([("Content-Type", kind), ("Content-Length", str(len(body))), ("Connection", "close"),
                       ("Content-Security-Policy", policy), *SECURITY_HEADERS])
    return Response(status.value, status.phrase, headers, body)


def _listen_error(exc: OSError, host: str, port: int) -> TransvizError:
    if exc.errno in (errno.EADDRINUSE, getattr(errno, "WSAEADDRINUSE", -1)):
        return TransvizError("port {0} is in use on this computer (another class, or another program): stop it "
                             "or choose another port", port)
    if exc.errno in (errno.EACCES, getattr(errno, "WSAEACCES", -1)):
        return TransvizError("this computer does not let transviz listen on port {0}: choose a port above 1023",
                             port)
    return TransvizError("cannot listen on {0} port {1}: {2}", host, port, exc.strerror or str(exc))
