"""The student in the app (ClassClient) against a real server: joining, following, answering, the
result, and a dropped connection that rejoins with the same nickname and answers."""
from __future__ import annotations

import socket
import threading
import time

import pytest

from transviz.core.base.errors import InputError, TransvizError
from transviz.live import ClassClient, Left, Question, Rejoined
from transviz.live.client import socket_address

WAIT_S = 10.0


class Seen:
    """What a client's callbacks reported, and a way to wait for it."""

    def __init__(self):
        self.states, self.questions, self.results, self.statuses = [], [], [], []
        self.changed = threading.Condition()

    def adder(self, items):
        def add(item):
            with self.changed:
                items.append(item)
                self.changed.notify_all()
        return add

    def wait(self, done, what):
        deadline = time.monotonic() + WAIT_S
        with self.changed:
            while not done():
                if time.monotonic() > deadline:
                    raise AssertionError(f"no {what} in {WAIT_S} s; statuses {self.statuses}")
                self.changed.wait(0.1)

    def client(self, url, nickname="Ana", **kw):
        return ClassClient(url, nickname, on_state=self.adder(self.states), on_question=self.adder(self.questions),
                           on_result=self.adder(self.results), on_status=self.adder(self.statuses), **kw)


class Relay:
    """A TCP relay between a client and the server, to cut the way a Wi-Fi drop does (the server
    learns of it only from the broken connection). Threads and sockets close with it."""

    def __init__(self, port):
        self.target = port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(0.2)
        self.port = self.listener.getsockname()[1]
        self.pairs, self.stopped = [], threading.Event()
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self):
        while not self.stopped.is_set():
            try:
                near, _ = self.listener.accept()
            except OSError:
                continue
            far = socket.create_connection(("127.0.0.1", self.target))
            self.pairs.append((near, far))
            for a, b in ((near, far), (far, near)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(source, sink):
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        for s in (source, sink):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self):
        for near, far in self.pairs:
            for s in (near, far):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        self.pairs.clear()

    def close(self):
        self.stopped.set()
        self.cut()
        self.thread.join(2)
        self.listener.close()


@pytest.fixture
def relay(server):
    relay = Relay(server.port)
    yield relay
    relay.close()


def view(step):
    return {"sentence": "ich mochte ein bier", "source": ["ich", "mochte", "ein", "bier"],
            "output": ["i", "want", "a"][:step], "step": step}


def test_a_student_in_the_app_follows_answers_and_sees_the_result(server, events):
    seen = Seen()
    client = seen.client(server.join_url)
    client.connect()
    assert client.status.kind == "joined" and client.token
    for step in range(3):
        server.show(view(step))
        seen.wait(lambda step=step: seen.states and seen.states[-1]["step"] == step, f"view {step}")
    assert seen.states[-1]["output"] == ["i", "want"]
    server.ask(Question("q1", "next", {"en": "Next?", "zh": "下一个？"}, ("beer", "a", "the"), 1))
    seen.wait(lambda: seen.questions, "question")
    assert seen.questions[-1].choices == ("beer", "a", "the") and seen.questions[-1].open
    client.answer(0)
    client.answer(1)  # a change of mind at once: one answer, the last
    seen.wait(lambda: seen.questions[-1].choice == 1, "acknowledged answer")
    assert server.tally().counts == (0, 1, 0)
    server.reveal()
    seen.wait(lambda: seen.results, "result")
    assert (seen.results[-1].choice, seen.results[-1].answer, seen.results[-1].right) == (1, 1, True)
    with pytest.raises(InputError):
        client.answer(2)  # revealed: closed
    client.close()
    deadline = time.monotonic() + WAIT_S
    while not any(isinstance(e, Left) for e in events) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert any(isinstance(e, Left) for e in events)
    assert seen.statuses[-1].kind == "closed"


def test_a_dropped_connection_rejoins_with_the_same_nickname_and_answers(server, relay, events):
    seen = Seen()
    client = seen.client(f"127.0.0.1:{relay.port}/#{server.code}")
    client.connect()
    token = client.token
    server.ask(Question("q1", "next", "Next?", ("beer", "a", "the"), 2))
    seen.wait(lambda: seen.questions, "question")
    client.answer(2)
    seen.wait(lambda: seen.questions[-1].choice == 2, "acknowledged answer")
    relay.cut()
    seen.wait(lambda: [s.kind for s in seen.statuses][-2:] == ["reconnecting", "joined"], "rejoin")
    assert client.token == token
    assert any(isinstance(e, Rejoined) and e.nickname == "Ana" for e in events)
    seen.wait(lambda: len(seen.questions) >= 3 and seen.questions[-1].choice == 2, "the question again")
    server.show(view(2))
    seen.wait(lambda: seen.states and seen.states[-1]["step"] == 2, "a view after the rejoin")
    assert (server.room.count(), server.tally().counts) == (1, (0, 0, 1))
    client.close()


def test_an_answer_given_while_away_is_sent_after_the_rejoin(server, relay):
    seen = Seen()
    client = seen.client(f"http://127.0.0.1:{relay.port}/", code=server.code)
    client.connect()
    server.ask(Question("q1", "next", "Next?", ("beer", "a", "the"), 2))
    seen.wait(lambda: seen.questions, "question")
    relay.stopped.set()  # no new connection gets through for now
    relay.cut()
    seen.wait(lambda: seen.statuses[-1].kind == "reconnecting", "the drop")
    client.answer(1)
    relay.stopped.clear()
    relay.thread = threading.Thread(target=relay._accept, daemon=True)
    relay.thread.start()
    seen.wait(lambda: server.tally().answered == 1, "the answer counted")
    assert server.tally().counts == (0, 1, 0)
    client.close()


def test_a_refused_join_is_a_plain_error_and_the_client_stops(server):
    with pytest.raises(TransvizError, match="code is wrong"):
        ClassClient(f"{server.url}#AAAAAA", "Ana").connect()
    first = ClassClient(server.join_url, "Ana")
    first.connect()
    with pytest.raises(TransvizError, match="nickname is taken"):
        ClassClient(server.join_url, "ana").connect()
    first.close()


def test_an_unreachable_class_is_a_plain_error():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    started = time.monotonic()
    with pytest.raises(TransvizError, match="cannot reach"):
        ClassClient(f"127.0.0.1:{port}#K7Q2MX", "Ana").connect()
    assert time.monotonic() - started < WAIT_S


def test_the_end_of_the_class_ends_the_client(server):
    seen = Seen()
    client = seen.client(server.join_url)
    client.connect()
    server.stop()
    seen.wait(lambda: seen.statuses[-1].kind == "ended", "the end")
    client.close()


def test_a_removed_student_is_told(server):
    seen = Seen()
    client = seen.client(server.join_url)
    client.connect()
    server.remove("Ana")
    seen.wait(lambda: seen.statuses[-1].kind == "removed", "the removal")


@pytest.mark.parametrize("typed, expected", [
    ("http://192.168.1.20:8338/#k7q2mx", ("ws://192.168.1.20:8338/ws", "K7Q2MX")),
    ("192.168.1.20:8338#K7Q2MX", ("ws://192.168.1.20:8338/ws", "K7Q2MX")),
    ("192.168.1.20/#K7Q2MX", ("ws://192.168.1.20:8338/ws", "K7Q2MX")),
    ("  http://[fe80::1]:9000/#K7Q2MX ", ("ws://[fe80::1]:9000/ws", "K7Q2MX")),
])
def test_the_address_a_student_types(typed, expected):
    assert socket_address(typed) == expected


@pytest.mark.parametrize("typed", ["http://192.168.1.20:8338/", "#K7Q2MX", "http://host:port/#K7Q2MX"])
def test_an_address_without_host_or_code_is_refused(typed):
    with pytest.raises(InputError):
        socket_address(typed)


@pytest.mark.process
def test_the_class_runs_without_ssl_as_in_the_classroom_bundle():
    """build.spec leaves TLS out (the app never goes online): the server, the student client and
    the bench's simulated students must import and talk without ssl."""
    import subprocess
    import sys
    from pathlib import Path

    script = """
import sys
sys.modules["ssl"] = sys.modules["_ssl"] = sys.modules["_hashlib"] = None  # as the bundle leaves them out
import transviz.bench.live
from transviz.live import ClassClient, ClassServer
with ClassServer("127.0.0.1", 0) as server:
    client = ClassClient(server.join_url, "Ana")
    client.connect()
    print(client.status.kind, server.room.count())
    client.close()
"""
    root = Path(__file__).resolve().parents[2]
    result = subprocess.run([sys.executable, "-c", script], cwd=root, capture_output=True, text=True, timeout=120)
    assert result.stdout.split() == ["joined", "1"], result.stderr


def test_the_client_can_be_closed_from_its_own_callback(server):
    seen = Seen()
    client = seen.client(server.join_url)
    client.on_state = lambda state: client.close()
    client.connect()
    server.show(view(1))
    seen.wait(lambda: seen.statuses[-1].kind == "closed", "the close")
    client._thread.join(5)
    assert not client._thread.is_alive()
