"""The core's messages to the user, in the language of the interface.

:mod:`transviz.core` knows nothing of Qt, so its errors and reasons are English sentences. The
ones a student meets are recognised here by their wording and translated: while exploring (why
Step or Back cannot act, a sentence the model cannot read, a word that cannot be forced), while
training (impossible settings in the training form and the lab's sweeps, a corpus file that
cannot be read, how a run ended and why it diverged), the devices on offer and the lines of
Model > Info. Any other message is shown as the core wrote it. tests/gui/test_i18n.py makes
the core produce each of these messages, so a change of wording there cannot go unnoticed.
"""
from __future__ import annotations

import functools
import re
from collections.abc import Callable

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

Rule = tuple["re.Pattern[str]", Callable[["re.Match[str]"], str]]
translate = QCoreApplication.translate
# Each message's wording is written once, in QT_TRANSLATE_NOOP (so that lupdate finds it): its
# placeholders {0}, {1}, ... say where the parts that vary stand, and the rule's patterns what
# each part may be; the rest of the wording is matched as written.


def translated(message: str) -> str:
    """``message`` in the language in use, if it is one of the core's known messages."""
    for pattern, translation in _rules():
        match = pattern.fullmatch(message)
        if match:
            return translation(match)
    return message


def translated_lines(text: str) -> str:
    """``text`` with each of its lines :func:`translated` (a description, one fact a line)."""
    return "\n".join(translated(line) for line in text.split("\n"))


def _rule(wording: str, *parts: str, shown: dict[int, Callable[[str], str]] | None = None) -> Rule:
    """The core's message ``wording`` with part ``i`` matching the regular expression ``parts[i]``;
    it comes back translated with the same parts, each passed through ``shown[i]`` if given (a
    part that is itself a phrase to translate)."""
    pieces = re.split(r"\{(\d+)\}", wording)  # text, part number, text, ...
    pattern = "".join(re.escape(piece) if i % 2 == 0 else f"({parts[int(piece)]})" for i, piece in enumerate(pieces))
    convert = shown or {}

    def translation(match: "re.Match[str]") -> str:
        values = [convert.get(i, str)(value) for i, value in enumerate(match.groups())]
        return translate("CoreMessages", wording).format(*values)

    return re.compile(pattern), translation


@functools.cache
def _rules() -> list[Rule]:
    """(the core's wording, its translation); the translation is looked up when a message comes."""
    return [*_decoding_rules(), *_settings_rules(), *_training_rules(), *_corpus_rules(), *_checkpoint_rules(),
            *_device_rules(), *_description_rules()]


def _decoding_rules() -> list[Rule]:
    """Why Step, Back or a forced word cannot act; a sentence or reference the model cannot read."""
    return [
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "the reference has ended: go back or reset to look at it again")),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "the translation has ended with the end token {0}: go back or reset "
                                                "to try another way"), r"\S+"),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "the translation reached the length limit of {0} tokens"), r"\d+"),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "nothing to undo: this is the start of the translation")),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "the sentence is empty: type at least one word")),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "the sentence has {0} tokens; this model reads at most {1}"),
              r"\d+", r"\d+"),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "the sentence holds control characters ({0}); remove them and try "
                                                "again"), r".*"),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "none of the words ({0}) is in this model's vocabulary: it would read "
                                                "only <unk>"), r".*"),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "the reference has {0} tokens with the end token; this model writes "
                                                "at most {1}"), r"\d+", r"\d+"),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "{0} is a special token the model never writes"), r".+"),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "the reference is empty: type the target sentence to feed, or leave "
                                                "teacher forcing off")),
    ]


def _settings_rules() -> list[Rule]:
    """Impossible settings: ModelConfig, TrainConfig, the initialisation schemes, the lab's sweeps."""
    return [
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "{0} must be a positive integer, got {1}"), r"\w+", r".+"),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "{0} must be at least 1, got {1}"), r"\w+", r".+"),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "{0} must be a whole number >= 0, got {1}"), r"\w+", r".+"),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "{0} must be positive, got {1}"), r"\w+", r".+"),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "{0} must be in [0, 1), got {1}"), r"\w+", r".+"),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "{0} must be '{1}' or '{2}', got {3}"), r"\w+", r"\w+", r"\w+", r".+"),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "d_model ({0}) must be divisible by n_heads ({1}): each head gets "
                                                "d_model / n_heads dimensions"), r"\d+", r"\d+"),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "share_embeddings needs one joint vocabulary: source has {0} "
                                                "tokens, target {1}"), r"\d+", r"\d+"),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "pad_id {0} is outside the vocabularies"), r"\d+"),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "schedule must be one of {0}; got {1}"), r".+", r".+"),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "the {0} schedule needs warmup_steps >= 1"), r"\S+"),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "warmup_steps ({0}) must be below steps ({1}) to leave room to decay"),
              r"\d+", r"\d+"),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "clip_norm must be >= 0 (0 = off), got {0}"), r".+"),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "the probe sentence is empty")),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "unknown initialisation {0}; choose from {1}"), r".+", r".+"),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "the {0} initialisation takes no value (got {1})"), r"\w+", r".+"),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "{0}: the value after ':' must be a number"), r".+"),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "{0}: the scale must be positive"), r".+"),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "warmup is the share of lr added per step, between 0 and 1; got {0}"),
              r".+"),
    ]


def _training_rules() -> list[Rule]:
    """How a run ended (TrainResult.message, also a checkpoint's training.message)."""
    return [
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "finished {0} steps"), r"\d+"),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "stopped after {0} of {1} steps"), r"\d+", r"\d+"),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "training diverged at step {0}: {1} became {2}. The weights are back "
                                                "to those after step {3}, the last whose loss was finite, and nothing "
                                                "worse was saved. Try warm-up or a lower lr (step {4} used lr {5})."),
              r"\d+", r"the loss|the gradient norm", r"\S+", r"\d+", r"\d+", r"\S+", shown={1: _diverging}),
    ]


def _diverging(what: str) -> str:
    """The quantity that stopped being finite."""
    if what == "the loss":
        return translate("CoreMessages", "the loss")
    return translate("CoreMessages", "the gradient norm")


def _corpus_rules() -> list[Rule]:
    """A TSV corpus that cannot be used (transviz.core.corpus.load_tsv), most naming the line."""
    return [
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "cannot read {0}: {1}"), r".+", r".+"),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "{0} is not a file"), r".+"),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "{0} is {1} MB; transviz reads corpora up to {2} MB (split it or keep "
                                                "a sample)"), r".+", r"\d+", r"\d+"),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "{0} has more than {1} lines; transviz reads corpora up to that many "
                                                "(split it or keep a sample)"), r".+", r"[\d,]+"),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "{0} holds no sentence pairs: it is empty or only blank lines"), r".+"),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "{0} holds only {1} distinct pairs; a corpus needs at least {2} to "
                                                "split into train, valid and test"), r".+", r"\d+", r"\d+"),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "line {0}: byte {1} is not UTF-8 text ({2}); save the file as UTF-8"),
              r"\d+", r"\d+", r"0x[0-9a-f]{2}"),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "line {0}: no tab; expected one tab between source and target"),
              r"\d+"),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "line {0}: {1} tabs; expected one tab between source and target"),
              r"\d+", r"\d+"),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "line {0}: the source is empty"), r"\d+"),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "line {0}: the target is empty"), r"\d+"),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "lines {0} and {1} give the same source {2} two different targets "
                                                "({3} and {4}); each source needs exactly one"),
              r"\d+", r"\d+", r".+", r".+", r".+"),
    ]


def _checkpoint_rules() -> list[Rule]:
    """A file that cannot be opened as a model (transviz.core.checkpoint), as Model > Open shows it."""
    return [
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "{0}: the file is truncated or damaged: it has {1} bytes, its header "
                                                "describes {2}"), r".+", r"[\d,]+", r"[\d,]+"),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "{0} is not a readable safetensors file ({1})"), r".+", r".*"),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "{0} is a safetensors file from another program, not a transviz "
                                                "checkpoint"), r".+"),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "{0} is a folder, not a checkpoint file: name a .safetensors file in "
                                                "it"), r".+"),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "{0}: no such file"), r".+"),
    ]


def _device_rules() -> list[Rule]:
    """The descriptions of transviz.core.devices.available_devices (a GPU's own name stays)."""
    return [
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "CPU, {0} threads"), r"\d+"),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "Apple GPU (Metal)")),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "{0}, {1} GB"), r".+", r"\d+\.\d"),
    ]


def _description_rules() -> list[Rule]:
    """The lines of transviz.core.checkpoint.describe (Model > Info); setting names stay as written."""
    return [
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "file: {0} ({1} MB)"), r".+", r"\d+\.\d+"),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "parameters: {0}"), r"[\d,]+"),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "config.{0}: {1}"), r"\w+", r".*"),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "source vocabulary: {0} tokens ({1})"),
              r"\d+", r"word level|char level", shown={1: _level}),
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "target vocabulary: {0} tokens ({1})"),
              r"\d+", r"word level|char level", shown={1: _level}),
        # the value may be one of the messages above (how a run ended)
        _rule(QT_TRANSLATE_NOOP("CoreMessages", "training.{0}: {1}"), r"\w+", r".*", shown={1: translated}),
    ]


def _level(level: str) -> str:
    """A vocabulary's token level (transviz.core.vocab.Level)."""
    if level == "char level":
        return translate("CoreMessages", "char level")
    return translate("CoreMessages", "word level")
