"""The core's messages to the user, in the language of the interface.

:mod:`transviz.core` knows nothing of Qt, so its errors and reasons are English sentences. The
ones a student meets while exploring (why Step or Back cannot act, a sentence the model cannot
read, a word that cannot be forced) are recognised here by their wording and translated; any
other message is shown as the core wrote it. tests/gui/test_i18n.py makes the core produce each
of these messages, so a change of wording there cannot go unnoticed.
"""
from __future__ import annotations

import functools
import re
from collections.abc import Callable

from PySide6.QtCore import QCoreApplication

Rule = tuple["re.Pattern[str]", Callable[["re.Match[str]"], str]]


def translated(message: str) -> str:
    """``message`` in the language in use, if it is one of the core's known messages."""
    for pattern, translation in _rules():
        match = pattern.fullmatch(message)
        if match:
            return translation(match)
    return message


@functools.cache
def _rules() -> list[Rule]:
    """(the core's wording, its translation); the translation is looked up when a message comes."""
    translate = QCoreApplication.translate  # literal arguments below, so that lupdate finds every text
    return [
        (re.compile(r"the reference has ended: go back or reset to look at it again"),
         lambda m: translate("CoreMessages", "the reference has ended: go back or reset to look at it again")),
        (re.compile(r"the translation has ended with the end token (\S+): go back or reset to try another way"),
         lambda m: translate("CoreMessages", "the translation has ended with the end token {0}: go back or reset "
                                             "to try another way").format(m[1])),
        (re.compile(r"the translation reached the length limit of (\d+) tokens"),
         lambda m: translate("CoreMessages", "the translation reached the length limit of {0} tokens").format(m[1])),
        (re.compile(r"nothing to undo: this is the start of the translation"),
         lambda m: translate("CoreMessages", "nothing to undo: this is the start of the translation")),
        (re.compile(r"the sentence is empty: type at least one word"),
         lambda m: translate("CoreMessages", "the sentence is empty: type at least one word")),
        (re.compile(r"the sentence has (\d+) tokens; this model reads at most (\d+)"),
         lambda m: translate("CoreMessages", "the sentence has {0} tokens; this model reads at most {1}")
         .format(m[1], m[2])),
        (re.compile(r"the sentence holds control characters \((.*)\); remove them and try again"),
         lambda m: translate("CoreMessages", "the sentence holds control characters ({0}); remove them and try again")
         .format(m[1])),
        (re.compile(r"none of the words \((.*)\) is in this model's vocabulary: it would read only <unk>"),
         lambda m: translate("CoreMessages", "none of the words ({0}) is in this model's vocabulary: it would read "
                                             "only <unk>").format(m[1])),
        (re.compile(r"the reference has (\d+) tokens with the end token; this model writes at most (\d+)"),
         lambda m: translate("CoreMessages", "the reference has {0} tokens with the end token; this model writes "
                                             "at most {1}").format(m[1], m[2])),
        (re.compile(r"(.+) is a special token the model never writes"),
         lambda m: translate("CoreMessages", "{0} is a special token the model never writes").format(m[1])),
    ]
