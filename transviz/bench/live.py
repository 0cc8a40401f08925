"""Figures of the live class: how soon a whole class holds the teacher's new view, and how many
answers a second the server counts. Real server, real WebSocket clients (:mod:`transviz.live.simulate`),
on the loopback address only."""
from __future__ import annotations

import statistics
import time
from typing import Any

from ..live.protocol import RATE_PER_S, Question
from ..live.server import ClassServer
from ..live.simulate import SimulatedClass
from . import figure, size

STUDENTS = 60
LOOPBACK = "127.0.0.1"
WAIT_S = 30.0
PAUSE_S = 1 / RATE_PER_S  # the most one view or one round of answers may take before the figure fails


def _view(step: int, tokens: int = 12) -> dict[str, Any]:
    """A view the size of a classroom sentence: 12 source tokens, a 12 x 12 cross-attention map, 5 candidates."""
    source = [f"w{i}" for i in range(tokens)]
    output = [f"o{i}" for i in range(min(step % tokens + 1, tokens))]
    weights = [[1.0 / tokens] * tokens for _ in output]
    return {"sentence": " ".join(source), "source": source, "output": output, "step": step,
            "candidates": [[f"c{i}", 0.5 / (i + 1)] for i in range(5)],
            "head": {"kind": "cross", "layer": 2, "head": 1, "rows": output, "cols": source, "weights": weights},
            "caption": {"en": "Cross-attention: where each output token looks", "zh": "交叉注意力"},
            "model": "toy-de-en"}


def p95(values: list[float]) -> float:
    """The 95th percentile (the largest value for fewer than 20)."""
    return statistics.quantiles(values, n=20, method="inclusive")[18] if len(values) >= 20 else max(values)


@figure("class_broadcast_ms_p95_60", "ms", 150.0, "lower")
def broadcast_ms_p95() -> float:
    """From the teacher's show() to the 60th of 60 simulated students holding the new view, 95th
    percentile over 50 views (loopback; a 12-token sentence with a 12 x 12 head)."""
    with ClassServer(LOOPBACK, 0) as server, \
            SimulatedClass(server.socket_url, server.code, size(STUDENTS, 10)) as students:
        latencies = []
        for step in range(size(50, 3) + 2):  # the first two warm up
            start = time.perf_counter()
            server.show(_view(step))
            latencies.append(students.wait_view(step, WAIT_S) - start)
        return 1000 * p95(latencies[2:])


@figure("class_answers_per_s", "answers/s", 500.0, "higher")
def answers_per_s() -> float:
    """Answers counted per second with 60 simulated students answering 20 questions, each at once:
    from the first answer sent to the last acknowledged as counted (loopback)."""
    with ClassServer(LOOPBACK, 0) as server, \
            SimulatedClass(server.socket_url, server.code, size(STUDENTS, 10)) as students:
        counted, seconds = 0, 0.0
        for number in range(size(20, 2)):
            question = f"q{number}"
            time.sleep(PAUSE_S)  # untimed: no student answers faster than the rate limit lets a real one
            server.ask(Question(question, "next", "Which token comes next?", ("a", "b", "c", "d"), 0))
            students.wait_question(question, WAIT_S)
            start = time.perf_counter()
            students.answer_all(question, lambda i: i % 4)
            students.wait_answers(question, WAIT_S)
            seconds += time.perf_counter() - start
            counted += server.tally().answered
        return counted / seconds
