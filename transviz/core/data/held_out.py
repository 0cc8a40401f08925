"""The sentence pairs a model is measured on: a split of its built-in task, or a TSV file."""
from __future__ import annotations

from ..base.errors import InputError
from ..base.messages import translate_noop
from ..model.bundle import Model
from .corpus import load_tsv
from .dataset import Pair
from .tasks import TASKS, load_task

SPLITS = ("valid", "test")


def held_out_pairs(model: Model, data: str = "test") -> tuple[Pair, ...]:
    """``data`` is ``valid`` or ``test`` (that split of the task ``model`` learned) or the path of
    a ``source<TAB>target`` file (all its pairs, tokenized as the model's vocabulary does)."""
    if data not in SPLITS:
        vocab = model.src_vocab
        corpus = load_tsv(data, level=vocab.level, lowercase=vocab.lowercase)
        return corpus.train + corpus.valid + corpus.test
    task = model.facts.get("task")
    if task is None:  # a Hugging Face or plain PyTorch model, or a checkpoint saved without its facts
        raise InputError(translate_noop("CoreMessages", "this model does not say which task it learned: give its "
                                                        "sentence pairs as a TSV file"))
    if task not in TASKS:
        raise InputError(translate_noop("CoreMessages", "this model learned {0}, not a built-in task: give its "
                                                        "sentence pairs as a TSV file"), repr(task))
    dataset = load_task(task)
    return dataset.valid if data == "valid" else dataset.test
