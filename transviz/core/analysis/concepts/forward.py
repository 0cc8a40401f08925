"""One teacher-forced forward pass of a sentence and the decoder inputs so far: the pass every
concept view reads its model's values from."""
from __future__ import annotations

from dataclasses import dataclass

import torch

from ...model.bundle import Model
from ...model.vocab import BOS


@dataclass(frozen=True)
class Sentence:
    """A source sentence and the decoder's inputs after the start token (the tokens written so
    far, as the explorer shows them at its step)."""

    source: str
    target: tuple[str, ...] = ()


@dataclass(frozen=True)
class Inputs:
    """``Sentence`` as the model reads it: token ids (1, S) and (1, T) with the start token first."""

    source_tokens: list[str]
    target_tokens: list[str]  # the decoder inputs, starting with <s>
    source_ids: torch.Tensor
    target_ids: torch.Tensor


def model_inputs(model: Model, sentence: Sentence) -> Inputs:
    """The ids of ``sentence``; InputError for an empty or too long source or target. Target
    tokens the vocabulary lacks are read as <unk>, as the decoder would."""
    encoding = model.encode_source(sentence.source)
    vocab = model.tgt_vocab
    tokens = [BOS, *sentence.target][: model.config.max_len]
    ids = [vocab.stoi.get(token, vocab.unk_id) for token in tokens]
    tokens[0] = model.start_token(encoding)  # named as the model names it; its id stays the start token's
    return Inputs(list(encoding.tokens), tokens, model.source_tensor(encoding),
                  torch.tensor([ids], dtype=torch.long, device=model.device))
