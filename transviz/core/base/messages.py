"""Messages a user can see, kept as a template and its arguments rather than as finished English.

The CLI prints a message in English (``str(message)``); the GUI looks its template up in Qt's
catalogue, then fills in the arguments, each translated the same way when it is a message itself.
Nothing ever translates by matching English wording.

The core never imports Qt, so it marks each template with its own no-op, :func:`translate_noop`.
Qt's lupdate reads Python sources and is told to take it for QT_TRANSLATE_NOOP
(``pyside6-lupdate -tr-function-alias QT_TRANSLATE_NOOP+=translate_noop``, the manual's Internationalisation page): the
context is written at each call because lupdate only takes a literal there. Every template of the
core lives in the one context :data:`CONTEXT`.

Typical use::

    raise ConfigError(translate_noop("CoreMessages", "lr must be positive, got {0}"), repr(lr))
    Message(translate_noop("CoreMessages", "finished {0} steps"), 100)
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, Union

CONTEXT: Final = "CoreMessages"

Arg = Union[str, int, float, "Message"]


def translate_noop(context: Literal["CoreMessages"], template: str) -> str:
    """``template``, unchanged: marks it for lupdate (see the module docstring)."""
    return template


@dataclass(frozen=True, init=False)
class Message:
    """A template with ``{0}``, ``{1}``, ... and the arguments that fill them in.

    ``str()`` is the English sentence. A message without arguments is its template as written (so a
    plain sentence from outside the core, braces and all, passes through unchanged).
    """

    template: str
    args: tuple[Arg, ...]

    def __init__(self, template: str, *args: Arg) -> None:
        object.__setattr__(self, "template", template)
        object.__setattr__(self, "args", args)

    def __str__(self) -> str:
        # a Message argument formats as its own str(): English all the way down
        return self.template.format(*self.args) if self.args else self.template

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able form (a checkpoint's training facts keep how the run ended)."""
        return {"template": self.template,
                "args": [a.to_dict() if isinstance(a, Message) else a for a in self.args]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Message:
        """The message :meth:`to_dict` wrote; ValueError if ``data`` is not one."""
        template, args = data.get("template"), data.get("args")
        if not isinstance(template, str) or not isinstance(args, list):
            raise ValueError("not a message: it needs a template and a list of arguments")
        return cls(template, *(cls.from_dict(a) if isinstance(a, Mapping) else _plain(a) for a in args))


def _plain(arg: object) -> Arg:
    if isinstance(arg, (str, int, float)):
        return arg
    raise ValueError(f"a message argument must be text or a number, got {arg!r}")


# Parts several messages share.
SEPARATOR = translate_noop("CoreMessages", "{0}; {1}")


def joined(parts: list[Arg]) -> Arg:
    """``parts`` as one argument, separated as the language separates list items (``a; b; c``)."""
    if not parts:
        return ""
    result = parts[0]
    for part in parts[1:]:
        result = Message(SEPARATOR, result, part)
    return result
