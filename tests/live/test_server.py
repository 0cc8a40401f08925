"""The class server on the loopback address, with real WebSocket clients. Each rule of a class
that students share has a test here that tries to break it."""
from __future__ import annotations

import http.client
import json
import os
import socket
import sys
import threading

import pytest

from class_clients import close_code, join, nothing_more, raw, receive, receive_until
from transviz.core.base.errors import TransvizError
from transviz.core.io.resources import resource_dir
from transviz.live import Answered, ClassServer, Joined, Left, Question, Rejoined, Removed
from transviz.live.protocol import MAX_FAILED_JOINS_PER_ADDRESS, MAX_MESSAGE_BYTES, MAX_STRIKES
from transviz.live.server import CLOSE_ABUSE, CLOSE_ENDED, CLOSE_REFUSED, CLOSE_REMOVED, CLOSE_REPLACED

VIEW = {"sentence": "ich mochte ein bier", "source": ["ich", "mochte", "ein", "bier", "</s>"], "output": ["i"],
        "step": 1, "candidates": [["i", 0.9], ["you", 0.05]], "model": "toy-de-en",
        "head": {"kind": "cross", "layer": 2, "head": None, "rows": ["<s> -> i"],
                 "cols": ["ich", "mochte", "ein", "bier", "</s>"], "weights": [[0.7, 0.1, 0.1, 0.05, 0.05]]}}


def question(id="q1", answer=1, label=None):
    return Question(id, "next", {"en": "Next?", "zh": "下一个？"}, ("i", "you", "we"), answer, label)


def get(server, path, method="GET", host=None):
    """(status, headers, body) of a request for ``path`` sent exactly as written (no normalising)."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    try:
        connection.putrequest(method, path, skip_accept_encoding=True, skip_host=host is not None)
        if host is not None:
            connection.putheader("Host", host)
        connection.endheaders()
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    except (ConnectionError, http.client.HTTPException):
        return None, {}, b""  # the server hung up: nothing served either
    finally:
        connection.close()


# -- the page ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("path, name", [("/", "index.html"), ("/index.html", "index.html"), ("/class.js", "class.js"),
                                        ("/strings.js", "strings.js"), ("/class.css", "class.css"),
                                        ("/?x=1", "index.html")])
def test_the_page_is_served_without_the_code(server, path, name):
    status, headers, body = get(server, path)
    assert status == 200
    assert body == (resource_dir() / "class" / name).read_bytes()
    assert "script-src 'self'" in headers["Content-Security-Policy"]
    assert f"connect-src 'self' ws://127.0.0.1:{server.port};" in headers["Content-Security-Policy"]
    assert headers["X-Content-Type-Options"] == "nosniff"


@pytest.mark.parametrize("path", [
    "/../pyproject.toml", "/../../../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/%2E%2E%2Fpyproject.toml",
    "/..%2f..%2fetc%2fpasswd", "/class.js/../../../etc/passwd", "//etc/passwd", "/etc/passwd", "\\..\\..\\win.ini",
    "/resources/class/index.html", "/class/index.html", "/models/default.safetensors", "/i18n/transviz_zh_CN.qm",
    "/index.html%00.png", "/CLASS.JS", "/class.js.map", "/.git/config", "/ws/../index.html", "http://127.0.0.1/etc/passwd",
    "/" + "a" * 300, "/" + "../" * 2000 + "etc/passwd", "/" + "x" * 20000,
])
def test_nothing_else_is_served(server, path):
    status, _, body = get(server, path)
    assert status != 200
    assert b"root:" not in body and b"[project]" not in body


@pytest.mark.parametrize("host", ["evil.example; script-src *", "a b", "x" * 300, ""])
def test_a_forged_host_header_adds_nothing_to_the_pages_policy(server, host):
    status, headers, _ = get(server, "/", host=host)
    assert status == 200
    assert "connect-src 'self';" in headers["Content-Security-Policy"] and "*" not in headers["Content-Security-Policy"]


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "HEAD", "OPTIONS"])
def test_only_get_is_answered(server, method):
    assert get(server, "/index.html", method)[0] != 200


# -- getting in -------------------------------------------------------------------------------------

def test_only_the_join_code_lets_a_student_in(server):
    ws = raw(server)
    server.show(VIEW)
    assert nothing_more(ws)  # not joined: the teacher's view does not reach it
    for attempt in range(3):
        ws.send(json.dumps({"type": "join", "code": "WRONG" + str(attempt), "nickname": "Eve"}))
        assert receive(ws) == {"type": "refused", "reason": "wrong_code"}
    assert close_code(ws) == CLOSE_REFUSED  # three wrong codes a connection
    assert server.room.count() == 0
    ws, welcome = join(server, "Ana", code=server.code.lower())
    assert welcome["nickname"] == "Ana" and receive_until(ws, "state")["state"]["sentence"] == VIEW["sentence"]


def test_guessing_the_code_from_one_address_is_bounded(server):
    failures = 0
    while failures < MAX_FAILED_JOINS_PER_ADDRESS:  # three guesses a connection, then another connection
        ws = raw(server)
        for _ in range(3):
            ws.send(json.dumps({"type": "join", "code": "AAAAAA", "nickname": "Eve"}))
            assert receive(ws) == {"type": "refused", "reason": "wrong_code"}
            failures += 1
            if failures == MAX_FAILED_JOINS_PER_ADDRESS:
                break
        assert close_code(ws) == CLOSE_REFUSED
    ws = raw(server)  # now even the right code is refused from this address, for a while
    ws.send(json.dumps({"type": "join", "code": server.code, "nickname": "Eve"}))
    assert receive(ws) == {"type": "refused", "reason": "too_many_attempts"}
    assert close_code(ws) == CLOSE_REFUSED


def test_a_student_must_join_before_anything_else(server):
    ws = raw(server)
    server.ask(question())
    ws.send(json.dumps({"type": "answer", "question": "q1", "choice": 1}))
    assert receive(ws) == {"type": "error", "reason": "not_joined"}
    assert server.tally().answered == 0


# -- what a student may send ------------------------------------------------------------------------

BAD = [
    {"type": "state", "state": {"sentence": "hacked"}},
    {"type": "question", "question": {"id": "q9"}},
    {"type": "reveal"}, {"type": "remove", "nickname": "Bo"}, {"type": "export", "path": "/tmp/x.csv"},
    {"type": "answer", "question": "q1", "choice": 1, "nickname": "Bo"},  # answering for someone else
    {"type": "answer", "question": "q1", "choice": "1"},
    {"type": "join", "code": "X", "nickname": "Mallory"},  # a second nickname on one connection
]


def test_a_student_can_send_only_a_join_and_answers_and_abuse_closes_the_connection(server):
    eve, _ = join(server, "Eve")
    bo, _ = join(server, "Bo")
    server.show(VIEW)
    server.ask(question())
    receive_until(bo, "question")
    receive_until(eve, "question")
    for message in BAD:
        eve.send(json.dumps(message))
        assert receive(eve)["type"] == "error"
    eve.send(b"\x00\x01binary")
    assert receive(eve) == {"type": "error", "reason": "bad_message"}
    assert server.room.view["sentence"] == VIEW["sentence"]
    assert (server.tally().answered, server.room.current()[1], len(server.room.students())) == (0, True, 2)
    assert nothing_more(bo)  # nothing Eve sent reached Bo
    for _ in range(MAX_STRIKES - len(BAD) - 1):
        eve.send("{}")
    assert close_code(eve) == CLOSE_ABUSE


def test_a_frame_over_the_limit_closes_the_connection(server):
    ws, _ = join(server, "Eve")
    ws.send(json.dumps({"type": "answer", "question": "q1", "choice": 1, "pad": "x" * MAX_MESSAGE_BYTES}))
    assert close_code(ws) == 1009  # message too big: refused before it is read


def test_messages_faster_than_the_rate_are_refused(server):
    ws, _ = join(server, "Eve")
    server.ask(question())
    receive_until(ws, "question")
    for _ in range(30):
        ws.send(json.dumps({"type": "answer", "question": "q1", "choice": 2}))
    replies = []
    try:
        for _ in range(30):
            replies.append(receive(ws, 2)["type"])
    except Exception:
        pass
    assert "error" in replies  # too_fast: the burst is 20
    assert server.tally().answered == 1 and server.tally().counts == (0, 0, 1)


def test_an_answer_counts_once_per_student_and_question(server, events):
    ana, _ = join(server, "Ana")
    server.ask(question())
    receive_until(ana, "question")
    for choice in (0, 2, 1, 1):
        ana.send(json.dumps({"type": "answer", "question": "q1", "choice": choice}))
        assert receive_until(ana, "answered") == {"type": "answered", "question": "q1", "choice": choice}
    tally = server.tally()
    assert (tally.answered, tally.counts) == (1, (0, 1, 0))
    ana.send(json.dumps({"type": "answer", "question": "q1", "choice": 7}))
    assert receive(ana) == {"type": "error", "reason": "bad_choice"}
    ana.send(json.dumps({"type": "answer", "question": "q0", "choice": 0}))
    assert receive(ana) == {"type": "error", "reason": "no_question"}
    server.close_question()
    assert receive_until(ana, "closed") == {"type": "closed", "question": "q1"}
    ana.send(json.dumps({"type": "answer", "question": "q1", "choice": 2}))
    assert receive(ana) == {"type": "error", "reason": "question_closed"}
    assert server.tally().counts == (0, 1, 0)
    assert [type(e) for e in events].count(Answered) == 4


# -- nicknames --------------------------------------------------------------------------------------

def test_a_nickname_is_one_students_and_the_token_rejoins_with_the_answers(server, events):
    ana, welcome = join(server, "Ana")
    server.ask(question())
    receive_until(ana, "question")
    ana.send(json.dumps({"type": "answer", "question": "q1", "choice": 2}))
    receive_until(ana, "answered")
    impostor = raw(server)
    impostor.send(json.dumps({"type": "join", "code": server.code, "nickname": "ANA"}))
    assert receive(impostor) == {"type": "refused", "reason": "nickname_taken"}
    impostor.send(json.dumps({"type": "join", "code": server.code, "nickname": "Ana", "token": "A" * 32}))
    assert receive(impostor) == {"type": "refused", "reason": "nickname_taken"}
    again, rejoined = join(server, "ana", token=welcome["token"])
    assert rejoined == {"type": "welcome", "nickname": "Ana", "token": welcome["token"], "rejoined": True}
    assert receive_until(again, "question")["choice"] == 2  # the answer stayed
    assert close_code(ana) == CLOSE_REPLACED  # the old connection gives way
    assert server.tally().answered == 1
    assert any(isinstance(e, Rejoined) for e in events)


@pytest.mark.parametrize("nickname", ["", " ", "A" * 25, "Ana\nBob", "\u202eevE", "zero\u200bwidth"])
def test_a_bad_nickname_is_refused(server, nickname):
    ws = raw(server)
    ws.send(json.dumps({"type": "join", "code": server.code, "nickname": nickname}))
    assert receive(ws) == {"type": "refused", "reason": "bad_nickname"}
    assert server.room.count() == 0


def test_the_teacher_removes_a_student_for_good(server, events):
    ana, welcome = join(server, "Ana")
    bo, _ = join(server, "Bo")
    server.remove("ana")
    assert receive_until(ana, "removed") == {"type": "removed"}
    assert close_code(ana) == CLOSE_REMOVED
    back = raw(server)
    back.send(json.dumps({"type": "join", "code": server.code, "nickname": "Ana", "token": welcome["token"]}))
    assert receive(back) == {"type": "refused", "reason": "removed"}
    assert close_code(back) == CLOSE_REFUSED
    with pytest.raises(TransvizError):
        server.remove("Nobody")
    assert [e for e in events if isinstance(e, Removed)] == [Removed("Ana", 1)]
    assert nothing_more(bo)


def test_a_full_class_refuses_the_next_student(events):
    with ClassServer("127.0.0.1", 0, max_students=2) as server:
        join(server, "Ana")
        join(server, "Bo")
        ws = raw(server)
        ws.send(json.dumps({"type": "join", "code": server.code, "nickname": "Cy"}))
        assert receive(ws) == {"type": "refused", "reason": "full"}
        assert close_code(ws) == CLOSE_REFUSED


# -- following and answering ------------------------------------------------------------------------

def test_every_student_follows_the_teacher_and_a_late_one_catches_up(server):
    ana, _ = join(server, "Ana")
    for step in range(3):
        server.show({**VIEW, "step": step})
        assert receive_until(ana, "state")["state"]["step"] == step
    server.ask(question(label="pre"))
    asked = receive_until(ana, "question")
    assert asked == {"type": "question", "choice": None, "open": True,
                     "question": {"id": "q1", "kind": "next", "prompt": {"en": "Next?", "zh": "下一个？"},
                                  "choices": ["i", "you", "we"], "label": "pre"}}
    late, _ = join(server, "Late")
    assert receive(late)["state"]["step"] == 2
    assert receive(late)["question"]["id"] == "q1"


def test_the_reveal_tells_each_student_whether_they_were_right(server):
    students = {name: join(server, name)[0] for name in ("Ana", "Bo", "Cy")}
    server.ask(question(answer=1))
    for name, choice in (("Ana", 1), ("Bo", 0)):
        receive_until(students[name], "question")
        students[name].send(json.dumps({"type": "answer", "question": "q1", "choice": choice}))
        receive_until(students[name], "answered")
    server.reveal()
    results = {name: receive_until(ws, "result") for name, ws in students.items()}
    assert {name: (r["choice"], r["answer"], r["right"]) for name, r in results.items()} == {
        "Ana": (1, 1, True), "Bo": (0, 1, False), "Cy": (None, 1, False)}


def test_events_arrive_on_the_server_thread(server, events):
    threads = set()
    server.on_event = lambda event: (events.append(event), threads.add(threading.current_thread().name))
    ana, _ = join(server, "Ana")
    ana.close()
    server.room.count()
    for _ in range(50):
        if any(isinstance(e, Left) for e in events):
            break
        threading.Event().wait(0.05)
    assert [type(e) for e in events] == [Joined, Left]
    assert threads == {"transviz-class"}


def test_a_failing_event_callback_ends_nothing(server):
    server.on_event = lambda event: 1 / 0
    ana, welcome = join(server, "Ana")
    server.show(VIEW)
    assert receive_until(ana, "state")


# -- listening ------------------------------------------------------------------------------------

def connectable(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return False
    return True


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_server_listens_only_between_start_and_stop():
    port = free_port()
    server = ClassServer("127.0.0.1", port)
    assert not connectable(port)
    server.start()
    assert server.port == port and connectable(port)
    ana, _ = join(server, "Ana")
    server.stop()
    assert close_code(ana) == CLOSE_ENDED
    assert not connectable(port)
    server.stop()  # idempotent
    server.show(VIEW)  # no one to tell: nothing happens
    assert server.room.students()[0].nickname == "Ana"  # what the class did stays readable
    with pytest.raises(RuntimeError):
        server.start()


def test_a_taken_port_is_a_plain_error():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        server = ClassServer("127.0.0.1", taken.getsockname()[1])
        with pytest.raises(TransvizError, match="in use"):
            server.start()
        server.stop()


def test_the_addresses_to_show(server):
    assert server.url == f"http://127.0.0.1:{server.port}/"
    assert server.join_url == f"{server.url}#{server.code}"
    assert server.socket_url == f"ws://127.0.0.1:{server.port}/ws"
    every = ClassServer("0.0.0.0", 8338, code="K7Q2MX")
    assert every.join_url.endswith(":8338/#K7Q2MX") and "0.0.0.0" not in every.url


# -- the disk ---------------------------------------------------------------------------------------

WRITING = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
WRITES: list[str] = []
WATCHING = threading.Event()


def _writes(event, args):
    if not WATCHING.is_set() or event != "open" or len(args) < 3:
        return
    path, mode, flags = args[0], args[1], args[2]
    if isinstance(path, int):  # a file descriptor opened already (and seen then)
        return
    if (isinstance(mode, str) and any(c in mode for c in "wax+")) or (mode is None and flags & WRITING):
        WRITES.append(str(path))


sys.addaudithook(_writes)  # hooks cannot be removed: it records only while WATCHING


def test_nothing_about_students_is_written_unless_the_teacher_exports(server, tmp_path):
    WRITES.clear()
    WATCHING.set()
    try:
        ana, welcome = join(server, "Ana")
        server.show(VIEW)
        server.ask(question())
        receive_until(ana, "question")
        ana.send(json.dumps({"type": "answer", "question": "q1", "choice": 1}))
        receive_until(ana, "answered")
        server.reveal()
        receive_until(ana, "result")
        server.remove("Ana")
        close_code(ana)
        assert WRITES == []
        server.export_csv(tmp_path / "answers.csv")
        assert WRITES and all(os.path.dirname(w) == str(tmp_path) for w in WRITES)
    finally:
        WATCHING.clear()


def test_the_class_can_be_stopped_from_its_own_event():
    stopped = threading.Event()

    def on_event(event):
        if isinstance(event, Joined):
            server.stop()
            stopped.set()

    server = ClassServer("127.0.0.1", 0, on_event=on_event)
    server.start()
    ana, _ = join(server, "Ana")
    assert stopped.wait(5)
    assert close_code(ana) == CLOSE_ENDED
    server._thread.join(5)
    assert not connectable(server.port)
