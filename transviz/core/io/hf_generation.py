"""A Hugging Face folder's generation settings as transviz's generation rules
(:class:`~transviz.core.model.bundle.Generation`): what ``generate()`` does beyond greedy or beam
search that transviz does too, so that decoding a folder gives what ``generate()`` gives.

Read from ``generation_config.json`` (the file, not transformers' class, so that nothing in it is
run or fetched): ``forced_bos_token_id``, ``forced_eos_token_id`` and the one-token entries of
``bad_words_ids``. The many-to-many tokenizers (mBART-50, M2M100, NLLB) put the target language
before every target, and ``generate()`` is told it as ``forced_bos_token_id``: it is forced when
the file forces nothing. The settings that choose a search (``num_beams``, ``length_penalty``,
``no_repeat_ngram_size`` ...) are reported, not applied: the window's strategy box chooses.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..base.errors import CheckpointError
from ..base.messages import Message, translate_noop
from ..model.bundle import Generation
from .checkpoint_file import json_object
from .hf_vocab import language_tokens

GENERATION_CONFIG = "generation_config.json"
# generate()'s settings that transviz leaves to the strategy chosen (reported in the model's facts)
SEARCH_SETTINGS = ("num_beams", "length_penalty", "early_stopping", "max_length", "max_new_tokens",
                   "no_repeat_ngram_size", "repetition_penalty", "do_sample", "temperature", "top_k", "top_p")
OUTSIDE = translate_noop("CoreMessages", "{0}: {1} is {2}, outside the vocabulary of {3}")


def read_settings(folder: Path) -> dict[str, Any]:
    """generation_config.json as a dict ({} when the folder has none)."""
    path = folder / GENERATION_CONFIG
    if not path.is_file():
        return {}
    return json_object(path, Message(translate_noop("CoreMessages", "generation config")))


def rules(folder: Path, settings: dict[str, Any], tokenizer: Any, size: int, ours: dict[int, int],
          eos: int) -> Generation:
    """The rules of ``settings`` in transviz's ids (``ours``: the tokenizer's id -> transviz's) for
    a target vocabulary of ``size`` ids whose end token is ``eos`` (the tokenizer's id)."""
    where = folder / GENERATION_CONFIG
    first = _token(where, settings, "forced_bos_token_id", size)
    if first is None:
        first = _target_language(tokenizer)
    end = _token(where, settings, "forced_eos_token_id", size)
    if end is not None and end != eos:
        raise CheckpointError(translate_noop("CoreMessages", "{0}: forced_eos_token_id is {1}, not the end token "
                                                             "{2}"), str(where), end, eos)
    return Generation(forced_prefix=(ours[first],) if first in ours else (),
                      banned=tuple(sorted(ours[i] for i in _banned(where, settings, size) if i in ours)),
                      end_at_limit=end is not None)


def not_applied(settings: dict[str, Any]) -> dict[str, Any]:
    """The search settings of ``settings`` transviz leaves to the strategy box, and bad word
    sequences of several tokens (transviz bans single tokens only)."""
    left = {key: settings[key] for key in SEARCH_SETTINGS if settings.get(key) is not None}
    longer = [ids for ids in settings.get("bad_words_ids") or [] if isinstance(ids, list) and len(ids) > 1]
    return left | ({"bad_words_ids": longer} if longer else {})


def _token(where: Path, settings: dict[str, Any], key: str, size: int) -> int | None:
    value = settings.get(key)
    if isinstance(value, list) and len(value) == 1:  # generate() takes one id or a list of them
        value = value[0]
    if value is None:
        return None
    if type(value) is not int or not 0 <= value < size:
        raise CheckpointError(OUTSIDE, str(where), key, json.dumps(value), size)
    return value


def _banned(where: Path, settings: dict[str, Any], size: int) -> list[int]:
    """The ids of bad_words_ids' one-token entries."""
    entries = settings.get("bad_words_ids") or []
    if not isinstance(entries, list) or not all(isinstance(ids, list) for ids in entries):
        raise CheckpointError(translate_noop("CoreMessages", "{0}: bad_words_ids must be a list of lists of token "
                                                             "ids"), str(where))
    single = [ids[0] for ids in entries if len(ids) == 1]
    for value in single:
        if type(value) is not int or not 0 <= value < size:
            raise CheckpointError(OUTSIDE, str(where), "bad_words_ids", json.dumps(value), size)
    return single


def _target_language(tokenizer: Any) -> int | None:
    """The language code a many-to-many tokenizer puts before every target, if it does."""
    first = tokenizer(text_target="a", add_special_tokens=True)["input_ids"][:1]
    plain = {tokenizer.bos_token_id, tokenizer.eos_token_id, tokenizer.pad_token_id, tokenizer.unk_token_id}
    languages = (set(tokenizer.all_special_ids) - plain) | set(language_tokens(tokenizer).values())
    return int(first[0]) if first and first[0] in languages else None
