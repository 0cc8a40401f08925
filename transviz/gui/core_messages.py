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

from PySide6.QtCore import QCoreApplication

Rule = tuple["re.Pattern[str]", Callable[["re.Match[str]"], str]]
translate = QCoreApplication.translate  # called with literal arguments below, so that lupdate finds every text


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


@functools.cache
def _rules() -> list[Rule]:
    """(the core's wording, its translation); the translation is looked up when a message comes."""
    return [*_decoding_rules(), *_settings_rules(), *_training_rules(), *_corpus_rules(), *_checkpoint_rules(),
            *_device_rules(), *_description_rules()]


def _decoding_rules() -> list[Rule]:
    """Why Step, Back or a forced word cannot act; a sentence or reference the model cannot read."""
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
        (re.compile(r"the reference is empty: type the target sentence to feed, or leave teacher forcing off"),
         lambda m: translate("CoreMessages", "the reference is empty: type the target sentence to feed, or leave "
                                             "teacher forcing off")),
    ]


def _settings_rules() -> list[Rule]:
    """Impossible settings: ModelConfig, TrainConfig, the initialisation schemes, the lab's sweeps."""
    return [
        (re.compile(r"(\w+) must be a positive integer, got (.+)"),
         lambda m: translate("CoreMessages", "{0} must be a positive integer, got {1}").format(m[1], m[2])),
        (re.compile(r"(\w+) must be at least 1, got (.+)"),
         lambda m: translate("CoreMessages", "{0} must be at least 1, got {1}").format(m[1], m[2])),
        (re.compile(r"(\w+) must be a whole number >= 0, got (.+)"),
         lambda m: translate("CoreMessages", "{0} must be a whole number >= 0, got {1}").format(m[1], m[2])),
        (re.compile(r"(\w+) must be positive, got (.+)"),
         lambda m: translate("CoreMessages", "{0} must be positive, got {1}").format(m[1], m[2])),
        (re.compile(r"(\w+) must be in \[0, 1\), got (.+)"),
         lambda m: translate("CoreMessages", "{0} must be in [0, 1), got {1}").format(m[1], m[2])),
        (re.compile(r"(\w+) must be '(\w+)' or '(\w+)', got (.+)"),
         lambda m: translate("CoreMessages", "{0} must be '{1}' or '{2}', got {3}").format(m[1], m[2], m[3], m[4])),
        (re.compile(r"d_model \((\d+)\) must be divisible by n_heads \((\d+)\): "
                    r"each head gets d_model / n_heads dimensions"),
         lambda m: translate("CoreMessages", "d_model ({0}) must be divisible by n_heads ({1}): each head gets "
                                             "d_model / n_heads dimensions").format(m[1], m[2])),
        (re.compile(r"share_embeddings needs one joint vocabulary: source has (\d+) tokens, target (\d+)"),
         lambda m: translate("CoreMessages", "share_embeddings needs one joint vocabulary: source has {0} "
                                             "tokens, target {1}").format(m[1], m[2])),
        (re.compile(r"pad_id (\d+) is outside the vocabularies"),
         lambda m: translate("CoreMessages", "pad_id {0} is outside the vocabularies").format(m[1])),
        (re.compile(r"schedule must be one of (.+); got (.+)"),
         lambda m: translate("CoreMessages", "schedule must be one of {0}; got {1}").format(m[1], m[2])),
        (re.compile(r"the (\S+) schedule needs warmup_steps >= 1"),
         lambda m: translate("CoreMessages", "the {0} schedule needs warmup_steps >= 1").format(m[1])),
        (re.compile(r"warmup_steps \((\d+)\) must be below steps \((\d+)\) to leave room to decay"),
         lambda m: translate("CoreMessages", "warmup_steps ({0}) must be below steps ({1}) to leave room to decay")
         .format(m[1], m[2])),
        (re.compile(r"clip_norm must be >= 0 \(0 = off\), got (.+)"),
         lambda m: translate("CoreMessages", "clip_norm must be >= 0 (0 = off), got {0}").format(m[1])),
        (re.compile(r"the probe sentence is empty"),
         lambda m: translate("CoreMessages", "the probe sentence is empty")),
        (re.compile(r"unknown initialisation (.+); choose from (.+)"),
         lambda m: translate("CoreMessages", "unknown initialisation {0}; choose from {1}").format(m[1], m[2])),
        (re.compile(r"the (\w+) initialisation takes no value \(got (.+)\)"),
         lambda m: translate("CoreMessages", "the {0} initialisation takes no value (got {1})").format(m[1], m[2])),
        (re.compile(r"(.+): the value after ':' must be a number"),
         lambda m: translate("CoreMessages", "{0}: the value after ':' must be a number").format(m[1])),
        (re.compile(r"(.+): the scale must be positive"),
         lambda m: translate("CoreMessages", "{0}: the scale must be positive").format(m[1])),
        (re.compile(r"warmup is the share of lr added per step, between 0 and 1; got (.+)"),
         lambda m: translate("CoreMessages", "warmup is the share of lr added per step, between 0 and 1; got {0}")
         .format(m[1])),
    ]


def _training_rules() -> list[Rule]:
    """How a run ended (TrainResult.message, also a checkpoint's training.message)."""
    return [
        (re.compile(r"finished (\d+) steps"),
         lambda m: translate("CoreMessages", "finished {0} steps").format(m[1])),
        (re.compile(r"stopped after (\d+) of (\d+) steps"),
         lambda m: translate("CoreMessages", "stopped after {0} of {1} steps").format(m[1], m[2])),
        (re.compile(r"training diverged at step (\d+): (the loss|the gradient norm) became (\S+)\. The weights are "
                    r"back to those after step (\d+), the last whose loss was finite, and nothing worse was saved\. "
                    r"Try warm-up or a lower lr \(step (\d+) used lr (\S+)\)\."),
         lambda m: translate("CoreMessages", "training diverged at step {0}: {1} became {2}. The weights are back to "
                                             "those after step {3}, the last whose loss was finite, and nothing "
                                             "worse was saved. Try warm-up or a lower lr (step {4} used lr {5}).")
         .format(m[1], _diverging(m[2]), m[3], m[4], m[5], m[6])),
    ]


def _diverging(what: str) -> str:
    """The quantity that stopped being finite."""
    if what == "the loss":
        return translate("CoreMessages", "the loss")
    return translate("CoreMessages", "the gradient norm")


def _corpus_rules() -> list[Rule]:
    """A TSV corpus that cannot be used (transviz.core.corpus.load_tsv), most naming the line."""
    return [
        (re.compile(r"cannot read (.+): (.+)"),
         lambda m: translate("CoreMessages", "cannot read {0}: {1}").format(m[1], m[2])),
        (re.compile(r"(.+) is not a file"),
         lambda m: translate("CoreMessages", "{0} is not a file").format(m[1])),
        (re.compile(r"(.+) is (\d+) MB; transviz reads corpora up to (\d+) MB \(split it or keep a sample\)"),
         lambda m: translate("CoreMessages", "{0} is {1} MB; transviz reads corpora up to {2} MB (split it or keep "
                                             "a sample)").format(m[1], m[2], m[3])),
        (re.compile(r"(.+) has more than ([\d,]+) lines; transviz reads corpora up to that many "
                    r"\(split it or keep a sample\)"),
         lambda m: translate("CoreMessages", "{0} has more than {1} lines; transviz reads corpora up to that many "
                                             "(split it or keep a sample)").format(m[1], m[2])),
        (re.compile(r"(.+) holds no sentence pairs: it is empty or only blank lines"),
         lambda m: translate("CoreMessages", "{0} holds no sentence pairs: it is empty or only blank lines")
         .format(m[1])),
        (re.compile(r"(.+) holds only (\d+) distinct pairs; a corpus needs at least (\d+) to split into train, "
                    r"valid and test"),
         lambda m: translate("CoreMessages", "{0} holds only {1} distinct pairs; a corpus needs at least {2} to "
                                             "split into train, valid and test").format(m[1], m[2], m[3])),
        (re.compile(r"line (\d+): byte (\d+) is not UTF-8 text \((0x[0-9a-f]{2})\); save the file as UTF-8"),
         lambda m: translate("CoreMessages", "line {0}: byte {1} is not UTF-8 text ({2}); save the file as UTF-8")
         .format(m[1], m[2], m[3])),
        (re.compile(r"line (\d+): no tab; expected one tab between source and target"),
         lambda m: translate("CoreMessages", "line {0}: no tab; expected one tab between source and target")
         .format(m[1])),
        (re.compile(r"line (\d+): (\d+) tabs; expected one tab between source and target"),
         lambda m: translate("CoreMessages", "line {0}: {1} tabs; expected one tab between source and target")
         .format(m[1], m[2])),
        (re.compile(r"line (\d+): the source is empty"),
         lambda m: translate("CoreMessages", "line {0}: the source is empty").format(m[1])),
        (re.compile(r"line (\d+): the target is empty"),
         lambda m: translate("CoreMessages", "line {0}: the target is empty").format(m[1])),
        (re.compile(r"lines (\d+) and (\d+) give the same source (.+) two different targets \((.+) and (.+)\); "
                    r"each source needs exactly one"),
         lambda m: translate("CoreMessages", "lines {0} and {1} give the same source {2} two different targets "
                                             "({3} and {4}); each source needs exactly one")
         .format(m[1], m[2], m[3], m[4], m[5])),
    ]


def _checkpoint_rules() -> list[Rule]:
    """A file that cannot be opened as a model (transviz.core.checkpoint), as Model > Open shows it."""
    return [
        (re.compile(r"(.+): the file is truncated or damaged: it has ([\d,]+) bytes, its header describes ([\d,]+)"),
         lambda m: translate("CoreMessages", "{0}: the file is truncated or damaged: it has {1} bytes, its header "
                                             "describes {2}").format(m[1], m[2], m[3])),
        (re.compile(r"(.+) is not a readable safetensors file \((.*)\)"),
         lambda m: translate("CoreMessages", "{0} is not a readable safetensors file ({1})").format(m[1], m[2])),
        (re.compile(r"(.+) is a safetensors file from another program, not a transviz checkpoint"),
         lambda m: translate("CoreMessages", "{0} is a safetensors file from another program, not a transviz "
                                             "checkpoint").format(m[1])),
        (re.compile(r"(.+) is a folder, not a checkpoint file: name a \.safetensors file in it"),
         lambda m: translate("CoreMessages", "{0} is a folder, not a checkpoint file: name a .safetensors file in "
                                             "it").format(m[1])),
        (re.compile(r"(.+): no such file"),
         lambda m: translate("CoreMessages", "{0}: no such file").format(m[1])),
    ]


def _device_rules() -> list[Rule]:
    """The descriptions of transviz.core.devices.available_devices (a GPU's own name stays)."""
    return [
        (re.compile(r"CPU, (\d+) threads"),
         lambda m: translate("CoreMessages", "CPU, {0} threads").format(m[1])),
        (re.compile(r"Apple GPU \(Metal\)"),
         lambda m: translate("CoreMessages", "Apple GPU (Metal)")),
        (re.compile(r"(.+), (\d+\.\d) GB"),
         lambda m: translate("CoreMessages", "{0}, {1} GB").format(m[1], m[2])),
    ]


def _description_rules() -> list[Rule]:
    """The lines of transviz.core.checkpoint.describe (Model > Info); setting names stay as written."""
    return [
        (re.compile(r"file: (.+) \((\d+\.\d+) MB\)"),
         lambda m: translate("CoreMessages", "file: {0} ({1} MB)").format(m[1], m[2])),
        (re.compile(r"parameters: ([\d,]+)"),
         lambda m: translate("CoreMessages", "parameters: {0}").format(m[1])),
        (re.compile(r"config\.(\w+): (.*)"),
         lambda m: translate("CoreMessages", "config.{0}: {1}").format(m[1], m[2])),
        (re.compile(r"source vocabulary: (\d+) tokens \((word|char) level\)"),
         lambda m: translate("CoreMessages", "source vocabulary: {0} tokens ({1})").format(m[1], _level(m[2]))),
        (re.compile(r"target vocabulary: (\d+) tokens \((word|char) level\)"),
         lambda m: translate("CoreMessages", "target vocabulary: {0} tokens ({1})").format(m[1], _level(m[2]))),
        (re.compile(r"training\.(\w+): (.*)"),  # the value may be one of the messages above (how a run ended)
         lambda m: translate("CoreMessages", "training.{0}: {1}").format(m[1], translated(m[2]))),
    ]


def _level(level: str) -> str:
    """A vocabulary's token level (transviz.core.vocab.Level)."""
    if level == "char":
        return translate("CoreMessages", "char level")
    return translate("CoreMessages", "word level")
