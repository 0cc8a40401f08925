"""The live class's messages: JSON text frames over one WebSocket (path :data:`SOCKET_PATH`), and
every limit, named here so that the server, the tests and the README agree.

A student sends only two messages, each a JSON object with exactly these fields::

    {"type": "join", "code": "K7Q2MX", "nickname": "Ana", "token": "..."}   # token: only to rejoin
    {"type": "answer", "question": "q3", "choice": 2}                       # choice: index, from 0

Anything else (another type, a missing or extra field, a wrong type, a frame over
:data:`MAX_MESSAGE_BYTES`, binary frames, messages faster than :data:`RATE_PER_S`) is refused with an
``error`` message; :data:`MAX_STRIKES` refusals close the connection. :func:`parse_student` reads them.

The server sends (``reason`` is a code the page and the app translate, listed in :data:`REFUSALS` and
:data:`ERRORS`)::

    {"type": "welcome", "nickname": str, "token": str, "rejoined": bool}
    {"type": "state", "state": STATE}                       # what the teacher shows now
    {"type": "question", "question": QUESTION, "choice": int | null, "open": bool}
    {"type": "answered", "question": id, "choice": int}    # your answer is counted (it replaces one before)
    {"type": "closed", "question": id}                      # no more answers
    {"type": "result", "question": id, "choice": int | null, "answer": int, "right": bool}
    {"type": "refused", "reason": str}                      # the join failed; the connection closes
    {"type": "removed"}                                     # the teacher removed you; the connection closes
    {"type": "error", "reason": str}                        # a message was refused

STATE, the teacher's view (:func:`check_state` validates and bounds it on the teacher's side)::

    {"sentence": str, "source": [str], "output": [str], "step": int,
     "candidates": [[token, probability], ...],             # the next token's top k, most probable first
     "head": {"kind": "encoder" | "decoder" | "cross", "layer": int, "head": int | null (the mean),
              "rows": [str], "cols": [str],                 # rows: queries, cols: keys
              "weights": [[float]]} | null,                 # rows x cols
     "caption": {"en": str, "zh": str} | null, "model": str}

QUESTION, as students see it (:meth:`Question.public`: never the answer)::

    {"id": str, "kind": str, "prompt": TEXT, "choices": [TEXT], "label": "pre" | "post" | null}

where TEXT is a plain string, shown as it is, or ``{"en": str, "zh": str}``.
"""
from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..core.base.errors import InputError

DEFAULT_PORT = 8338  # the port the README tells teachers to open on their firewall
SOCKET_PATH = "/ws"  # the WebSocket's path; every other path is one of the page's files
CODE_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"  # no 0/O, 1/I: read off a projector, typed on a phone
CODE_LENGTH = 6  # 32**6, about 10**9 codes, against MAX_FAILED_JOINS_PER_ADDRESS guesses per window

# What a student may send
MAX_MESSAGE_BYTES = 4096  # a join or an answer is under 300 bytes
MAX_NICKNAME = 24  # characters, after trimming
TOKEN_PATTERN = re.compile(r"[A-Za-z0-9_-]{16,64}")  # resume tokens are secrets.token_urlsafe(24): 32 chars
QUESTION_ID_PATTERN = re.compile(r"[A-Za-z0-9_.:-]{1,32}")
RATE_PER_S = 10.0  # messages a connection may send per second, on average ...
RATE_BURST = 20  # ... and at once
MAX_STRIKES = 10  # refused messages before the connection is closed
MAX_FAILED_JOINS_PER_CONNECTION = 3  # wrong codes before the connection is closed
MAX_FAILED_JOINS_PER_ADDRESS = 20  # wrong codes from one address per window, then every join from it is refused
FAILED_JOIN_WINDOW_S = 300.0
JOIN_TIMEOUT_S = 60.0  # a connection that has not joined by then is closed
MAX_STUDENTS = 200  # then "full"
MAX_CONNECTIONS = 300  # open WebSockets, joined or not; then the handshake is refused (503)
OUTBOX_LIMIT = 64  # messages waiting for a slow student; past it the connection is closed (it rejoins)

# What the teacher may show (bounds that keep a broadcast to 200 students small)
MAX_TEXT = 2000  # characters of the sentence, a caption, a prompt
MAX_TOKENS = 256
MAX_TOKEN_CHARS = 64
MAX_CANDIDATES = 20
MAX_MAP_SIDE = 128  # rows and columns of the head map
MAX_CHOICES = 12
MAX_CHOICE_CHARS = 200
MAX_NAME = 100  # the model's name
WEIGHT_DECIMALS = 4  # weights are rounded for the wire: 1e-4 is below what a heatmap's colours show
HEAD_KINDS = ("encoder", "decoder", "cross")
TEST_LABELS = ("pre", "post")
LANGUAGES = ("en", "zh")
QUESTION_KIND_PATTERN = re.compile(r"[a-z_]{1,24}")

# Why a join is refused (the connection closes) ...
WRONG_CODE, NICKNAME_TAKEN, BAD_NICKNAME, FULL, REMOVED, TOO_MANY_ATTEMPTS = (
    "wrong_code", "nickname_taken", "bad_nickname", "full", "removed", "too_many_attempts")
REFUSALS = (WRONG_CODE, NICKNAME_TAKEN, BAD_NICKNAME, FULL, REMOVED, TOO_MANY_ATTEMPTS)
# ... and why one message is (the connection stays, until MAX_STRIKES)
BAD_MESSAGE, TOO_FAST, NOT_JOINED, ALREADY_JOINED, NO_QUESTION, QUESTION_CLOSED, BAD_CHOICE = (
    "bad_message", "too_fast", "not_joined", "already_joined", "no_question", "question_closed", "bad_choice")
ERRORS = (BAD_MESSAGE, TOO_FAST, NOT_JOINED, ALREADY_JOINED, NO_QUESTION, QUESTION_CLOSED, BAD_CHOICE)

Text = str | Mapping[str, str]  # shown as it is, or {"en": ..., "zh": ...}


class ProtocolError(ValueError):
    """A student's message refused; ``reason`` is one of :data:`ERRORS` or :data:`REFUSALS`."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# -- what a student sends ------------------------------------------------------------------------

@dataclass(frozen=True)
class Join:
    code: str
    nickname: str  # as typed: the room cleans it (clean_nickname)
    token: str | None


@dataclass(frozen=True)
class AnswerMessage:
    question: str
    choice: int


_FIELDS = {"join": ({"type", "code", "nickname"}, {"token"}), "answer": ({"type", "question", "choice"}, set())}


def parse_student(raw: str | bytes) -> Join | AnswerMessage:
    """A student's frame as a message; ProtocolError(BAD_MESSAGE) for anything but the two messages
    exactly as the module docstring writes them."""
    if not isinstance(raw, str) or len(raw) > MAX_MESSAGE_BYTES:  # binary frames are refused
        raise ProtocolError(BAD_MESSAGE)
    try:
        message = json.loads(raw, object_pairs_hook=_unique_keys, parse_constant=_no_constant)
    except (ValueError, RecursionError):  # not JSON, duplicate keys, NaN, too deep, a 5000-digit number
        raise ProtocolError(BAD_MESSAGE) from None
    if not isinstance(message, dict) or message.get("type") not in _FIELDS:
        raise ProtocolError(BAD_MESSAGE)
    required, optional = _FIELDS[message["type"]]
    if not required <= message.keys() <= required | optional:
        raise ProtocolError(BAD_MESSAGE)
    if message["type"] == "join":
        code, nickname, token = message["code"], message["nickname"], message.get("token")
        if not (isinstance(code, str) and len(code) <= 32 and isinstance(nickname, str) and len(nickname) <= 200
                and (token is None or isinstance(token, str) and TOKEN_PATTERN.fullmatch(token))):
            raise ProtocolError(BAD_MESSAGE)
        return Join(code, nickname, token)
    question, choice = message["question"], message["choice"]
    if not (isinstance(question, str) and QUESTION_ID_PATTERN.fullmatch(question)
            and isinstance(choice, int) and not isinstance(choice, bool) and 0 <= choice < MAX_CHOICES):
        raise ProtocolError(BAD_MESSAGE)
    return AnswerMessage(question, choice)


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    if len(set(keys)) != len(keys):  # {"choice": 1, "choice": 2}: which one counts would depend on the reader
        raise ValueError("duplicate key")
    return dict(pairs)


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def normalize_code(text: str) -> str:
    """A typed join code as the server compares it: capitals, spaces and dashes dropped."""
    return re.sub(r"[\s-]", "", text).upper()


def clean_nickname(text: str) -> str:
    """``text`` trimmed, its runs of spaces made one, in Unicode's composed form (NFC); ProtocolError
    (BAD_NICKNAME) when that is empty, longer than :data:`MAX_NICKNAME` characters, or holds a
    control or format character (line breaks, right-to-left overrides, zero-width joiners)."""
    composed = unicodedata.normalize("NFC", text)
    if any(unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp") for c in composed):
        raise ProtocolError(BAD_NICKNAME)
    nickname = " ".join(composed.split())  # the spaces left are Unicode's spaces (Zs): one between words
    if not 1 <= len(nickname) <= MAX_NICKNAME:
        raise ProtocolError(BAD_NICKNAME)
    return nickname


def nickname_key(nickname: str) -> str:
    """What makes two nicknames the same: "Ana" and "ANA" cannot both join (the class would not tell them apart)."""
    return nickname.casefold()


# -- what the teacher sends ------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class Question:
    """A question the teacher asks. ``answer`` (an index into ``choices``) stays on the teacher's
    side until the reveal; ``label`` marks a pre-test or post-test question. ``prompt`` and each
    choice are a plain string (shown as it is) or ``{"en": ..., "zh": ...}``. InputError when a
    field is out of bounds."""

    id: str
    kind: str
    prompt: Text
    choices: tuple[Text, ...]
    answer: int
    label: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not QUESTION_ID_PATTERN.fullmatch(self.id):
            raise InputError("a question's id is 1 to 32 letters, digits or _.:-, not {0}", repr(self.id))
        if not isinstance(self.kind, str) or not QUESTION_KIND_PATTERN.fullmatch(self.kind):
            raise InputError("a question's kind is 1 to 24 lowercase letters or _, not {0}", repr(self.kind))
        object.__setattr__(self, "prompt", _text(self.prompt, MAX_TEXT, "prompt"))
        choices = tuple(_text(choice, MAX_CHOICE_CHARS, "choice") for choice in self.choices)
        if not 2 <= len(choices) <= MAX_CHOICES:
            raise InputError("a question has 2 to {0} choices, not {1}", MAX_CHOICES, len(choices))
        object.__setattr__(self, "choices", choices)
        if isinstance(self.answer, bool) or not isinstance(self.answer, int) or not 0 <= self.answer < len(choices):
            raise InputError("a question's answer is the index of one of its {0} choices, not {1}", len(choices),
                             repr(self.answer))
        if self.label not in (None, *TEST_LABELS):
            raise InputError("a question's test label is 'pre', 'post' or none, not {0}", repr(self.label))

    def public(self) -> dict[str, Any]:
        """What students receive: everything but the answer."""
        return {"id": self.id, "kind": self.kind, "prompt": _plain(self.prompt),
                "choices": [_plain(choice) for choice in self.choices], "label": self.label}


def in_language(value: Text, language: str = "en") -> str:
    """``value`` (a prompt, a choice or a caption) in ``language``, else in the other language."""
    if isinstance(value, str):
        return value
    return value.get(language) or next(iter(value.values()))


def _text(value: object, limit: int, what: str) -> Text:
    if isinstance(value, str) and len(value) <= limit:
        return value
    if (isinstance(value, Mapping) and value and set(value) <= set(LANGUAGES)
            and all(isinstance(v, str) and len(v) <= limit for v in value.values())):
        return {language: value[language] for language in LANGUAGES if language in value}
    raise InputError("a question's {0} is a string or {{'en': ..., 'zh': ...}} of at most {1} characters",
                     what, limit)


def _plain(value: Text) -> str | dict[str, str]:
    return value if isinstance(value, str) else dict(value)


def check_state(state: Mapping[str, Any]) -> dict[str, Any]:
    """The teacher's view as it goes to students: only the fields the module docstring lists, each
    checked and bounded, weights rounded to :data:`WEIGHT_DECIMALS`. InputError names the first
    field that is wrong. Missing optional fields take their empty value."""
    known = {"sentence", "source", "output", "step", "candidates", "head", "caption", "model"}
    unknown = sorted(set(state) - known)
    if unknown:
        raise InputError("a class's view has no field {0}", repr(unknown[0]))
    head = state.get("head")
    caption = state.get("caption")
    return {
        "sentence": _string(state.get("sentence", ""), MAX_TEXT, "sentence"),
        "source": _tokens(state.get("source", ()), "source"),
        "output": _tokens(state.get("output", ()), "output"),
        "step": _count(state.get("step", 0), "step"),
        "candidates": _candidates(state.get("candidates", ())),
        "head": None if head is None else _head(head),
        "caption": None if caption is None else _caption(caption),
        "model": _string(state.get("model", ""), MAX_NAME, "model"),
    }


def _string(value: object, limit: int, what: str) -> str:
    if not isinstance(value, str) or len(value) > limit:
        raise InputError("the view's {0} must be a string of at most {1} characters", what, limit)
    return value


def _count(value: object, what: str, limit: int = 10**6) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= limit:
        raise InputError("the view's {0} must be a whole number from 0 to {1}", what, limit)
    return value


def _tokens(value: object, what: str, limit: int = MAX_TOKENS) -> list[str]:
    if isinstance(value, str) or not isinstance(value, Sequence) or len(value) > limit:
        raise InputError("the view's {0} must be a list of at most {1} tokens", what, limit)
    return [_string(token, MAX_TOKEN_CHARS, what + " token") for token in value]


def _number(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InputError("the view's {0} must hold finite numbers", what)
    return round(float(value), WEIGHT_DECIMALS)


def _candidates(value: object) -> list[list[Any]]:
    if isinstance(value, str) or not isinstance(value, Sequence) or len(value) > MAX_CANDIDATES:
        raise InputError("the view's candidates must be a list of at most {0} [token, probability]", MAX_CANDIDATES)
    result: list[list[Any]] = []
    for pair in value:
        if isinstance(pair, str) or not isinstance(pair, Sequence) or len(pair) != 2:
            raise InputError("the view's candidates must be a list of at most {0} [token, probability]",
                             MAX_CANDIDATES)
        result.append([_string(pair[0], MAX_TOKEN_CHARS, "candidate"), _number(pair[1], "candidates")])
    return result


def _head(value: object) -> dict[str, Any]:
    if not isinstance(value, Mapping) or set(value) != {"kind", "layer", "head", "rows", "cols", "weights"}:
        raise InputError("the view's head has exactly kind, layer, head, rows, cols and weights")
    if value["kind"] not in HEAD_KINDS:
        raise InputError("the view's head kind is encoder, decoder or cross, not {0}", repr(value["kind"]))
    rows = _tokens(value["rows"], "head rows", MAX_MAP_SIDE)
    cols = _tokens(value["cols"], "head cols", MAX_MAP_SIDE)
    weights = value["weights"]
    if (isinstance(weights, str) or not isinstance(weights, Sequence) or len(weights) != len(rows)
            or any(isinstance(row, str) or not isinstance(row, Sequence) or len(row) != len(cols) for row in weights)):
        raise InputError("the view's head weights must be {0} rows of {1} numbers", len(rows), len(cols))
    return {"kind": value["kind"], "layer": _count(value["layer"], "head layer", 1000),
            "head": None if value["head"] is None else _count(value["head"], "head", 1000),
            "rows": rows, "cols": cols, "weights": [[_number(w, "head weights") for w in row] for row in weights]}


def _caption(value: object) -> dict[str, str]:
    if not isinstance(value, Mapping) or not value or not set(value) <= set(LANGUAGES):
        raise InputError("the view's caption is {'en': ..., 'zh': ...}")
    return {language: _string(value[language], MAX_TEXT, "caption") for language in LANGUAGES if language in value}


def encode(message: Mapping[str, Any]) -> str:
    """A server message as one compact JSON text frame."""
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
