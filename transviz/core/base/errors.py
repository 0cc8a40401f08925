"""Exceptions a user can cause. Each carries a plain-language :class:`~transviz.core.base.messages.Message`
(a template and its arguments): ``str(error)`` is the English sentence the CLI prints as one line,
and the GUI shows ``error.message`` translated."""
from __future__ import annotations

from .messages import Arg, Message


class TransvizError(Exception):
    """Base class of every error caused by user input, files or settings.

    ``TransvizError(template, *args)`` with a template marked by
    :func:`~transviz.core.base.messages.translate_noop`, or ``TransvizError(message)`` with a ready
    :class:`~transviz.core.base.messages.Message`.
    """

    def __init__(self, template: str | Message, *args: Arg) -> None:
        if isinstance(template, Message):
            if args:
                raise TypeError("a Message already holds its arguments")
            self.message = template
        else:
            self.message = Message(template, *args)
        super().__init__(str(self.message))


class ConfigError(TransvizError, ValueError):
    """A model or training configuration that cannot work."""


class InputError(TransvizError, ValueError):
    """A sentence, token or tensor the model cannot take."""


class CheckpointError(TransvizError):
    """A file that is not a readable transviz checkpoint."""


def reason(exc: BaseException) -> Arg:
    """What ``exc`` says, as a message argument: a transviz error's own message (translated with
    the sentence that quotes it), any other error's English text."""
    return exc.message if isinstance(exc, TransvizError) else str(exc)
