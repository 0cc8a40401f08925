"""What :class:`~transviz.live.server.ClassServer` tells its owner through ``on_event``: small frozen
records, delivered on the server's thread (the window re-emits them as Qt signals; a callback must
not block, and what it raises is logged, never passed to the students)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .room import Tally


@dataclass(frozen=True)
class Joined:
    """A new student is in the class."""

    nickname: str
    students: int  # in the class now (removed students not counted)


@dataclass(frozen=True)
class Rejoined:
    """A student came back with their resume token (a dropped connection, a reloaded page)."""

    nickname: str
    students: int


@dataclass(frozen=True)
class Left:
    """A student's connection closed; they may rejoin with the same nickname and answers."""

    nickname: str
    connected: int  # students connected now


@dataclass(frozen=True)
class Answered:
    """A student's answer to ``question`` counted (it replaces one they gave before); ``tally``: the
    question's tally now."""

    nickname: str
    question: str
    choice: int
    tally: Tally


@dataclass(frozen=True)
class Removed:
    """The teacher removed a student: their connection is closed and the nickname cannot rejoin."""

    nickname: str
    students: int


Event = Joined | Rejoined | Left | Answered | Removed
