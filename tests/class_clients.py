"""Raw WebSocket clients for the live class's tests: they speak the protocol by hand, so a test can
send what a well-behaved student never would. Every connection opened is closed after the test
(tests/live/conftest.py)."""
from __future__ import annotations

import json

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from transviz.live.server import ClassServer

WAIT_S = 5.0  # the most a test waits for one message
OPEN: list[ClientConnection] = []


def raw(server: ClassServer) -> ClientConnection:
    """A WebSocket to ``server``, nothing sent yet."""
    ws = connect(server.socket_url, proxy=None, open_timeout=WAIT_S, compression=None, close_timeout=1).__enter__()
    OPEN.append(ws)
    return ws


def close_all() -> None:
    while OPEN:
        OPEN.pop().close()


def receive(ws: ClientConnection, timeout: float = WAIT_S) -> dict:
    return json.loads(ws.recv(timeout))


def receive_until(ws: ClientConnection, kind: str, timeout: float = WAIT_S) -> dict:
    """The next message of type ``kind``, skipping others (at most 50)."""
    for _ in range(50):
        message = receive(ws, timeout)
        if message["type"] == kind:
            return message
    raise AssertionError(f"no {kind!r} message among 50")


def join(server: ClassServer, nickname: str, token: str | None = None, code: str | None = None):
    """A joined student: (the connection, the welcome message)."""
    ws = raw(server)
    message = {"type": "join", "code": code or server.code, "nickname": nickname}
    if token:
        message["token"] = token
    ws.send(json.dumps(message))
    return ws, receive_until(ws, "welcome")


def close_code(ws: ClientConnection, timeout: float = WAIT_S) -> int | None:
    """Read until the server closes the connection; its close code."""
    try:
        for _ in range(200):
            ws.recv(timeout)
    except ConnectionClosed:
        pass
    return ws.close_code


def nothing_more(ws: ClientConnection, wait: float = 0.3) -> bool:
    """Whether nothing arrives within ``wait`` seconds."""
    try:
        ws.recv(wait)
    except TimeoutError:
        return True
    return False
