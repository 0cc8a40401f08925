"""The batch the masks tab explains: a few source sentences of different lengths, the decoder
inputs of each, and the masks attention uses on them, with their true tensor shapes.

Row 0 is the sentence being explained: its decoder inputs are the start token and the target
written so far. Every other row's decoder inputs are the start token and the model's greedy
translation of its sentence. Translating runs the model, so it is done apart (:func:`translate`,
on a worker thread in the GUI) and handed to :func:`mask_batch`, which only tokenizes and pads.

Masks follow :mod:`transviz.core.model.masks`: ``True`` = may attend, shaped to broadcast against
scores ``(batch, heads, queries, keys)``.

Example::

    >>> sentences = ["ich mochte ein bier", "ein bier"]
    >>> batch = mask_batch(sentences, "i want", model, translate(model, sentences[1:]))
    >>> batch.source.padding.shape, batch.decoder.combined.shape
    (torch.Size([2, 1, 1, 4]), torch.Size([2, 1, 3, 3]))
"""
from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import torch

from ..data.batches import pad
from ..decoding.inference import decode
from ..model.bundle import Model
from ..model.masks import causal_mask, decoder_self_mask, padding_mask, stream_mask, windowed
from ..model.vocab import EOS, PAD, Encoding, Vocab
from .walkthrough import decoder_inputs

TRANSLATION_MAX_LEN = 12  # the other sentences' greedy translations: enough to show target padding

TokensAndIds = tuple[list[str], list[int]]  # one sequence's tokens (as typed) and ids


@dataclass(frozen=True)
class SourceBatch:
    """The source sentences padded to the longest, and their padding mask.

    Shape:
        ``tokens``: (B, S) strings, :data:`~transviz.core.model.vocab.PAD` after each shorter sentence;
        ``ids``: (B, S) long; ``padding``: (B, 1, 1, S) bool over the keys, what encoder
        self-attention and cross-attention use.
    """

    sentences: list[str]
    tokens: list[list[str]]
    ids: torch.Tensor
    padding: torch.Tensor
    unknown: list[list[tuple[int, str]]] = field(default_factory=list)  # per sentence: (position, word) read as <unk>


@dataclass(frozen=True)
class DecoderBatch:
    """The decoder inputs of the batch (row 0: the sentence being explained) and their masks.

    Shape:
        ``tokens``: (B, T_max) strings, PAD after each shorter row; ``ids``: (B, T_max) long;
        ``causal``: (1, 1, T, T) bool over row 0's T inputs, unpadded (the sequence mask);
        ``combined``: (B, 1, T_max, T_max) bool, padding AND causal (AND the model's sliding
        window, when it has one): what decoder self-attention uses.
    """

    tokens: list[list[str]]
    ids: torch.Tensor
    causal: torch.Tensor
    combined: torch.Tensor


@dataclass(frozen=True)
class MaskBatch:
    """Both halves of the batch. ``untranslated``: the other sentences whose decoder inputs are
    not known (no model, or not translated yet); while there are any, ``decoder`` holds row 0 only."""

    source: SourceBatch
    decoder: DecoderBatch
    untranslated: list[str]
    # a decoder-only model's one mask over each row's stream, source then decoder inputs:
    # (B_decoder, 1, S + T, S + T) (:func:`transviz.core.model.masks.stream_mask`); None for an encoder-decoder
    stream: torch.Tensor | None = None

    @property
    def complete(self) -> bool:
        """Whether every sentence of the source batch has its row of decoder inputs."""
        return not self.untranslated


def split_sentences(text: str) -> list[str]:
    """The sentences of a text separated by ``;`` or new lines, stripped; empty ones dropped."""
    return [s.strip() for s in re.split(r"[;\n]", text) if s.strip()]


def padded(sequences: Sequence[TokensAndIds], pad_id: int) -> tuple[torch.Tensor, list[list[str]]]:
    """Pad token sequences on the right to the longest.

    Args:
        sequences: each sequence's tokens and ids (the same length), at least one sequence.
        pad_id: the id written after each shorter sequence.

    Shape:
        ids: (B, L) long, L the longest sequence's length; tokens: B lists of L strings.
    """
    ids = pad([row_ids for _, row_ids in sequences], pad_id)  # (B, L)
    return ids, [tokens + [PAD] * (ids.shape[1] - len(tokens)) for tokens, _ in sequences]


def source_batch(sentences: Sequence[str], vocab: Vocab, pad_id: int,
                 encode: Callable[[str], Encoding] | None = None) -> SourceBatch:
    """Tokenize ``sentences`` with ``vocab`` (or ``encode``: a model's, whose source may be a prompt
    less its last token), pad them and build their padding mask.

    Raises InputError for an empty sentence (the vocabulary's message). Unknown words stay one
    token each, shown as typed, and are listed in ``unknown``.
    """
    encodings = [(encode or vocab.encode)(sentence) for sentence in sentences]
    ids, tokens = padded([(e.tokens, e.ids) for e in encodings], pad_id)
    return SourceBatch(list(sentences), tokens, ids, padding_mask(ids, pad_id), [e.unknown for e in encodings])


def decoder_batch(inputs: Sequence[TokensAndIds], pad_id: int, window: int = 0) -> DecoderBatch:
    """Pad the decoder inputs (row 0 first) and build the masks decoder self-attention uses.

    Args:
        inputs: each row's decoder inputs, start token first; row 0 is the one the causal mask
            is drawn for.
        pad_id: the target vocabulary's padding id.
        window: the model's sliding window (``ModelConfig.attention_window``; 0: none), part of
            the combined mask as the model builds it.
    """
    ids, tokens = padded(inputs, pad_id)
    combined = windowed(decoder_self_mask(ids, pad_id), ids.shape[1], window)
    return DecoderBatch(tokens, ids, causal_mask(len(inputs[0][1])), combined)


@dataclass(frozen=True)
class SentenceMask:
    """The one mask decoder self-attention uses for one sentence alone (a batch of one: no padding),
    built as :func:`mask_batch` builds it: over the decoder inputs, or, for a decoder-only model, over
    its one stream of source tokens, then decoder inputs.

    Shape:
        ``mask``: (N, N) bool, rows queries, columns keys, ``True`` = may attend; ``tokens``: the
        N positions' names; ``source_length``: how many of them are the source's (0 for an
        encoder-decoder); ``window``: the model's sliding window (0: none).
    """

    tokens: list[str]
    mask: torch.Tensor
    source_length: int
    window: int


def sentence_mask(model: Model, sentence: str, inputs: TokensAndIds) -> SentenceMask:
    """The mask ``model`` uses on ``sentence`` with the decoder ``inputs`` (start token first)."""
    config = model.config
    decoder = decoder_batch([inputs], config.pad_id, config.attention_window)
    if not config.decoder_only:
        return SentenceMask(list(inputs[0]), decoder.combined[0, 0], 0, config.attention_window)
    source = source_batch([sentence], model.src_vocab, config.pad_id, model.encode_source)
    stream = stream_mask(source.ids, decoder.ids, config.pad_id, config.architecture == "decoder-only",
                         config.attention_window)  # (1, 1, S + T, S + T)
    return SentenceMask(source.tokens[0] + list(inputs[0]), stream[0, 0], source.ids.shape[1],
                        config.attention_window)


def translated_inputs(model: Model, sentence: str, max_len: int = TRANSLATION_MAX_LEN) -> TokensAndIds:
    """The start token and ``model``'s greedy translation of ``sentence`` (its end token left
    out): what the decoder reads for this sentence in a batch. Runs the model; InputError for a
    sentence it cannot read."""
    outputs = [token for token in decode(model, sentence, "greedy", max_len=max_len).output_tokens if token != EOS]
    vocab = model.tgt_vocab  # the start token named as the model names it (an imported model's: its own)
    start = model.start_token(model.encode_source(sentence))
    return [start, *outputs], [vocab.bos_id, *(vocab.id_of(token) for token in outputs)]


def translate(model: Model, sentences: Sequence[str],
              cancelled: Callable[[], bool] = lambda: False) -> dict[str, TokensAndIds]:
    """:func:`translated_inputs` of each sentence, by sentence: the long part of a mask batch.

    Args:
        cancelled: asked before each sentence; once it returns True the sentences translated
            so far are returned (the caller drops them).
    """
    found: dict[str, TokensAndIds] = {}
    for sentence in dict.fromkeys(sentences):
        if cancelled():
            break
        found[sentence] = translated_inputs(model, sentence)
    return found


def mask_batch(sentences: Sequence[str], target: str, model: Model | None = None,
               translations: Mapping[str, TokensAndIds] | None = None) -> MaskBatch:
    """The batch of ``sentences`` and its masks; row 0 reads ``target`` so far.

    Args:
        sentences: the source batch, at least one; ``sentences[0]`` is the one explained.
        target: row 0's target so far, after the start token (may be empty).
        model: tokenizes with its vocabularies and pads with its pad id; None: vocabularies
            are built from the sentences and the target, and the other rows cannot be
            translated.
        translations: the other sentences' decoder inputs by sentence (from :func:`translate`).
            Unless every other sentence has one, the decoder batch is row 0 alone and the
            missing sentences are listed in ``untranslated``.

    Raises InputError for an empty sentence, or a target longer than the model reads.
    """
    if not sentences:
        raise ValueError("a mask batch needs at least one sentence")
    others = list(sentences[1:])
    if model is None:
        pad_id = Vocab.pad_id
        source = source_batch(sentences, Vocab.build(sentences), pad_id)
        return MaskBatch(source, decoder_batch([decoder_inputs(Vocab.build([target]), target)], pad_id), others)
    pad_id = model.config.pad_id
    source = source_batch(sentences, model.src_vocab, pad_id, model.encode_source)
    chosen = decoder_inputs(model.tgt_vocab, target, model.config.max_len,
                            model.start_token(model.encode_source(sentences[0])))
    known = translations or {}
    missing = [s for s in dict.fromkeys(others) if s not in known]
    rows = [chosen] if missing else [chosen, *(known[s] for s in others)]
    config = model.config
    decoder = decoder_batch(rows, pad_id, config.attention_window)
    stream = None
    if config.decoder_only:
        stream = stream_mask(source.ids[: len(rows)], decoder.ids, pad_id, config.architecture == "decoder-only",
                             config.attention_window)
    return MaskBatch(source, decoder, missing, stream)
