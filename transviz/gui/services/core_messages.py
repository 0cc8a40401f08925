"""The core's messages to the user, in the language of the interface.

:mod:`transviz.core` knows nothing of Qt: its errors and reasons are
:class:`~transviz.core.base.messages.Message` values, a template (marked for lupdate in the context
"CoreMessages") and its arguments. Here the template is translated, then filled in with the
arguments, each translated the same way when it is a message itself.
"""
from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QCoreApplication

from ...core.base.errors import TransvizError
from ...core.base.messages import CONTEXT, Arg, Message


def translated(message: Message | BaseException | Arg) -> str:
    """``message`` (or a transviz error's message) in the language in use. Anything else is not
    the core's message (an OS error, a user's own value) and is shown as it is."""
    if isinstance(message, TransvizError):
        message = message.message
    if not isinstance(message, Message):
        return str(message)
    text = QCoreApplication.translate(CONTEXT, message.template)
    if not message.args:
        return text
    return text.format(*(translated(arg) if isinstance(arg, Message) else arg for arg in message.args))


def translated_lines(messages: Iterable[Message | Arg]) -> str:
    """``messages`` :func:`translated`, one a line (a description, one fact a line)."""
    return "\n".join(translated(message) for message in messages)
