"""A live class: the teacher's app serves a session on the local network; students join from a
browser (the page in ``resources/class/``) or from the app, follow what the teacher shows and answer
the teacher's questions. Qt-free (an import-linter contract): the window adapts it.

* :mod:`.protocol`: the messages, their validation and every limit, as named constants.
* :mod:`.limits`: the rate limit and the count of failed joins (pure logic, a clock passed in).
* :mod:`.room`: the class's state: students, questions, answers, tally, summary, CSV export.
* :mod:`.events`: what the server tells its owner (joined, left, answered, ...).
* :mod:`.server`: :class:`~.server.ClassServer`, the page and the WebSocket on one port, on a thread.
* :mod:`.client`: :class:`~.client.ClassClient`, a student in the app.
* :mod:`.address`: the address to show on the projector, and the join URL.
* :mod:`.qr`: the join URL as a QR code.
* :mod:`.simulate`: many simulated students at once (the load test and ``transviz bench``).
"""
from __future__ import annotations

from .client import ClassClient, Status
from .events import Answered, Event, Joined, Left, Rejoined, Removed
from .protocol import DEFAULT_PORT, Question
from .room import QuestionSummary, Room, StudentInfo, Tally
from .server import ClassServer

__all__ = [
    "DEFAULT_PORT", "Answered", "ClassClient", "ClassServer", "Event", "Joined", "Left", "Question", "QuestionSummary",
    "Rejoined", "Removed", "Room", "Status", "StudentInfo", "Tally",
]
