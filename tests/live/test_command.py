"""``transviz class``: the headless host, run as a teacher runs it, with a student on the loopback
address following its steps and answering its question."""
from __future__ import annotations

import csv
import json
import os
import queue
import re
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from transviz.cli import main

ROOT = Path(__file__).resolve().parents[2]
WAIT_S = 60.0  # the first line waits for the model to load


class Host:
    """``transviz class`` in a process of its own, its stdout read line by line on a thread."""

    def __init__(self, *args):
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
        self.process = subprocess.Popen([sys.executable, "-m", "transviz", "class", *args], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                                        encoding="utf-8")
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))

    def until(self, pattern, timeout=10.0):
        """The first line from now matching ``pattern`` (a regex)."""
        seen = []
        while True:
            try:
                line = self.lines.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(f"no line matching {pattern!r}; read {seen[-20:]}") from None
            seen.append(line)
            if re.search(pattern, line):
                return line

    def type(self, line):
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()


def receive_until(ws, kind):
    for _ in range(20):
        message = json.loads(ws.recv(10))
        if message["type"] == kind:
            return message
    raise AssertionError(f"no {kind}")


@pytest.mark.process
def test_the_headless_host_steps_asks_reveals_and_exports(tmp_path):
    host = Host("ich mochte ein bier", "--host", "127.0.0.1", "--port", "0", "--code", "K7Q2MX", "--no-qr")
    try:
        url = host.until(r"^join at http://127\.0\.0\.1:\d+/ with the code K7Q2MX$", WAIT_S).split()[2]
        port = int(url.rsplit(":", 1)[1].strip("/"))
        with connect(f"ws://127.0.0.1:{port}/ws", proxy=None, open_timeout=10) as ws:
            ws.send(json.dumps({"type": "join", "code": "k7q2mx", "nickname": "Ana"}))
            assert receive_until(ws, "welcome")["nickname"] == "Ana"
            first = receive_until(ws, "state")["state"]
            assert first["source"][:4] == ["ich", "mochte", "ein", "bier"] and first["output"] == []
            host.until(r"^\+ Ana joined \(1 in the class\)$")
            host.type("")  # Enter: one step
            stepped = receive_until(ws, "state")["state"]
            assert stepped["step"] == 1 and len(stepped["output"]) == 1 and stepped["head"]["kind"] == "cross"
            assert stepped["head"]["rows"] == [f"<s> -> {stepped['output'][0]}"]
            host.type("test pre")
            host.type("ask")
            asked = host.until(r"^asked q1 \(pre-test\): ")
            answer = next(int(n) - 1 for n, mark in re.findall(r"(\d)\) \S+( \*)?", asked) if mark)
            question = receive_until(ws, "question")["question"]
            assert question["label"] == "pre" and question["kind"] == "next" and "answer" not in question
            ws.send(json.dumps({"type": "answer", "question": "q1", "choice": answer}))
            receive_until(ws, "answered")
            host.until(r"^  1 of 1 answered q1$")
            host.type("reveal")
            assert receive_until(ws, "result")["right"] is True
            host.until(r"^q1: 1 of 1 answered .*; 1 of 1 right$")
            host.type("n")  # the answer the class predicted is the token written
            assert receive_until(ws, "state")["state"]["output"][1] == question["choices"][answer]
            host.type("who")
            host.until(r"^  Ana  1 answered$")
            host.type("kick Nobody")
            host.until(r"^! there is no student Nobody in this class$")
            out = tmp_path / "answers.csv"
            host.type(f"export {out}")
            host.until(r"^wrote ")
            host.type("q")
            with pytest.raises(ConnectionClosed):
                for _ in range(20):
                    ws.recv(10)
            assert ws.close_code == 1001  # the class ended
        assert host.process.wait(30) == 0
        host.until(r"^  q1 pre-test: 1 of 1 right \(100%\), 1 in the class$")
        rows = list(csv.DictReader(out.read_text(encoding="utf-8-sig").splitlines()))
        assert [(r["nickname"], r["test"], r["question"], r["right"]) for r in rows] == [("Ana", "pre", "q1", "yes")]
    finally:
        if host.process.poll() is None:
            host.process.kill()
            host.process.wait(10)


def test_a_taken_port_is_one_line_and_exit_status_1(capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["class", "ich mochte ein bier", "--host", "127.0.0.1", "--port", str(port), "--no-qr"]) == 1
    error = capsys.readouterr().err
    assert error == f"transviz: port {port} is in use on this computer (another class, or another program): stop " \
                    "it or choose another port\n"


def test_bad_options_fail_before_the_class_starts(capsys):
    assert main(["class", "ich", "--layer", "9", "--port", "0", "--host", "127.0.0.1"]) == 1
    assert "there is no layer 9" in capsys.readouterr().err
    assert main(["class", "ich", "--candidates", "1", "--port", "0", "--host", "127.0.0.1"]) == 1
    assert "--candidates must be from 2 to 9" in capsys.readouterr().err
