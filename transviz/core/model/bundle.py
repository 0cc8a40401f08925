"""A model ready to use: the network together with its vocabularies and training facts."""
from __future__ import annotations

import copy
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import torch

from ..base.errors import ConfigError, InputError
from ..base.messages import translate_noop
from .config import ModelConfig
from .transformer import Transformer
from .vocab import PAD, Encoding, Vocab

PROMPT_TOO_SHORT = translate_noop("CoreMessages", "the prompt {0} is {1} token: this model continues a prompt from "
                                                   "its last token and needs at least one more before it")


@dataclass(frozen=True)
class Generation:
    """What decoding does beyond the strategy, as a Hugging Face folder's generation config tells
    ``generate()``: target ids written first whatever the model predicts (the target language of
    mBART-50 and M2M100, BART's <s>: ``forced_bos_token_id``), ids never written (``bad_words_ids``
    of one token: opus-mt's <pad>), and the end token written at the length limit
    (``forced_eos_token_id``). A token written by a rule adds nothing to a hypothesis's score and
    a banned one can only be forced, as ``generate()`` scores them. transviz's own models have none."""

    forced_prefix: tuple[int, ...] = ()
    banned: tuple[int, ...] = ()
    end_at_limit: bool = False

    def __bool__(self) -> bool:
        return bool(self.forced_prefix or self.banned or self.end_at_limit)

    def prescribed(self, position: int, limit: int, eos: int) -> int | None:
        """The id a rule writes at output ``position`` (0 first) of at most ``limit``, if any."""
        if position < len(self.forced_prefix):
            return self.forced_prefix[position]
        if self.end_at_limit and position == limit - 1:
            return eos
        return None

    def processed(self, scores: torch.Tensor, position: int, limit: int, eos: int) -> torch.Tensor:
        """``scores`` (B, V: logits or log-probabilities) as generate()'s processors leave them: a
        prescribed id 0 and every other -inf, else the banned ids -inf."""
        prescribed = self.prescribed(position, limit, eos)
        if prescribed is not None:
            out = torch.full_like(scores, -torch.inf)
            out[:, prescribed] = 0.0
            return out
        if not self.banned:
            return scores
        out = scores.clone()
        out[:, list(self.banned)] = -torch.inf
        return out


@dataclass
class Model:
    """What :func:`transviz.load_model` returns and checkpoints hold."""

    net: Transformer
    src_vocab: Vocab
    tgt_vocab: Vocab
    facts: dict[str, Any] = field(default_factory=dict)  # task, steps, metrics, ... (JSON-able)
    path: str | None = None  # where it was loaded from, if anywhere
    generation: Generation = field(default_factory=Generation)

    def __post_init__(self) -> None:
        check_parts(self.net.config, self.src_vocab, self.tgt_vocab)

    @property
    def config(self) -> ModelConfig:
        return self.net.config

    @property
    def device(self) -> torch.device:
        return next(self.net.parameters()).device

    def weights_version(self) -> tuple[int, ...]:
        """Changes whenever a weight changes in place (a training step, a loaded state): what is
        computed from the weights may be kept while it stays the same."""
        return tuple(p._version for p in self.net.parameters())

    def encode_source(self, text: str) -> Encoding:
        """Tokenize a source sentence; InputError if it is empty or longer than the model reads. A
        model that starts from its prompt's last token (``start_from_prompt``: GPT-2, Llama) gets the
        prompt less that token, which becomes ``start``; InputError for a prompt of one token."""
        encoding = self.src_vocab.encode(text)
        if len(encoding.ids) > self.config.max_len:
            raise InputError(
                translate_noop("CoreMessages", "the sentence has {0} tokens; this model reads at most {1}"),
                len(encoding.ids), self.config.max_len)
        if not self.config.start_from_prompt:
            return encoding
        if len(encoding.ids) < 2:
            raise InputError(PROMPT_TOO_SHORT, repr(text), len(encoding.ids))
        source = len(encoding.ids) - 1
        return Encoding(encoding.tokens[:source], encoding.ids[:source],
                        [(i, token) for i, token in encoding.unknown if i < source],
                        (encoding.tokens[source], encoding.ids[source]))

    def source_tensor(self, encoding: Encoding) -> torch.Tensor:
        """``(1, S)``: what :meth:`Transformer.encode` reads, a prompt's last token included."""
        ids = encoding.ids if encoding.start is None else [*encoding.ids, encoding.start[1]]
        return torch.tensor([ids], dtype=torch.long, device=self.device)

    def output_room(self, encoding: Encoding) -> int:
        """How many output tokens the model has positions for after the source ``encoding``: its
        ``max_len``, less the source for a decoder-only model, whose prompt and output share one
        stream of positions (at least 1: a prompt that leaves none is refused at the first step)."""
        return max(1, self.config.max_len - (len(encoding.ids) if self.config.decoder_only else 0))

    def start_token(self, encoding: Encoding | None = None) -> str:
        """The decoder's first input for the sentence ``encoding`` as the model names it: its
        prompt's last token, or the start token of the target vocabulary."""
        return self.tgt_vocab.start_token if encoding is None or encoding.start is None else encoding.start[0]


def check_parts(config: ModelConfig, src_vocab: Vocab, tgt_vocab: Vocab) -> None:
    """ConfigError unless ``config`` fits the vocabularies: their sizes, and their padding id
    (every vocabulary pads with id 0; a config masking another token would hide real ones)."""
    if (len(src_vocab), len(tgt_vocab)) != (config.src_vocab_size, config.tgt_vocab_size):
        raise ConfigError(translate_noop("CoreMessages", "the vocabularies hold {0} and {1} tokens; the model's config "
                                                         "says {2} and {3}"),
                          len(src_vocab), len(tgt_vocab), config.src_vocab_size, config.tgt_vocab_size)
    if config.pad_id != Vocab.pad_id:
        raise ConfigError(translate_noop("CoreMessages", "pad_id is {0}, but the vocabularies pad with id {1} ({2})"),
                          config.pad_id, Vocab.pad_id, PAD)


def decoding_copy(model: Model, device: torch.device | str | None = None) -> Model:
    """A copy of ``model`` to decode with while the original goes on (trained, saved, replaced):
    its own tensors, in eval mode, without gradients, on ``device`` (default: the model's)."""
    net = copy.deepcopy(model.net)  # keeps tied weights tied, draws no random numbers
    if device is not None:
        net = net.to(device)
    net.eval().requires_grad_(False)
    return Model(net, model.src_vocab, model.tgt_vocab, copy.deepcopy(model.facts), model.path, model.generation)


@contextmanager
def evaluating(model: Model) -> Iterator[None]:
    """Eval mode and no autograd for the duration, restoring the caller's mode afterwards.

    A model already in eval mode is left alone: switching walks every module, which would cost a
    decoding step a good part of its time.
    """
    was_training = model.net.training
    if was_training:
        model.net.eval()
    try:
        with torch.no_grad():
            yield
    finally:
        if was_training:
            model.net.train()
