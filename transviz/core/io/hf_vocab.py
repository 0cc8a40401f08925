"""A vocabulary backed by a Hugging Face tokenizer: text is split the way the model was trained
(subword pieces with their markers, "▁ich" or "Ġhaus"), ids are transviz's (special tokens 0-3,
see :mod:`transviz.core.io.hf_import`), and pieces the tokenizer maps to its unknown token are
reported like transviz's unknown words.

The tokenizer is transformers' own (``AutoTokenizer``), so the ``hf`` extra is needed; this
module only receives it, it never imports transformers.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..base.errors import InputError
from ..base.messages import translate_noop
from ..model.vocab import SPECIALS, Encoding, Vocab, check_text


def side_vocab(tokenizer: Any, target: bool) -> dict[str, int]:
    """The tokenizer's pieces -> ids of one side. ``get_vocab`` gives the source's; a Marian
    tokenizer with separate vocabularies keeps the target's in ``target_encoder`` (its
    ``get_tgt_vocab`` fails on the added tokens, which that table holds anyway), and FSMT's in
    ``decoder``, by id (its ``get_tgt_vocab`` returns that table unturned)."""
    if target and getattr(tokenizer, "separate_vocabs", False):
        return dict(tokenizer.target_encoder)
    if target and encodes_only_sources(tokenizer):
        return {str(piece): i for i, piece in tokenizer.decoder.items()}
    return dict(tokenizer.get_vocab()) | language_tokens(tokenizer)


def language_tokens(tokenizer: Any) -> dict[str, int]:
    """The language codes a many-to-many tokenizer puts before a text (``__en__``, ``en_XX``) and
    their ids: M2M100's are in no vocabulary ``get_vocab`` gives."""
    table = getattr(tokenizer, "lang_token_to_id", None) or getattr(tokenizer, "lang_code_to_id", None) or {}
    return {str(token): int(i) for token, i in table.items()}


def encodes_only_sources(tokenizer: Any) -> bool:
    """Whether the tokenizer encodes every text with its source vocabulary, target text too
    (FSMT's: its target vocabulary is only read back when decoding)."""
    return hasattr(tokenizer, "tgt_vocab_size") and hasattr(tokenizer, "moses_pipeline")


class TokenizerVocab(Vocab):
    """``Vocab`` whose tokens are a tokenizer's pieces.

    Args:
        tokens: transviz's tokens by id, the four special tokens first (see :class:`Vocab`).
        tokenizer: a ``transformers`` tokenizer (PreTrainedTokenizerBase).
        ours: the tokenizer's id -> transviz's id.
        target: encode with the tokenizer's target side (Marian has one SentencePiece model per
            language, mBART adds the target language) and end before the end token it appends
            (the decoder predicts it).
        pieces: this side's pieces -> the tokenizer's ids (default: :func:`side_vocab`).
        end: the tokenizer's id of the end token (default: its ``eos_token_id``; FSMT's has none).
        start: the tokenizer's name of the decoder's first input (Marian's <pad>, BART's </s>).
        unknown: the tokenizer's id of the unknown token (default: its unk token's; -1: none, as
            GPT-2's, whose unk token is its end token and never stands for an unknown piece).
        continues: a decoder-only model's: the target continues the prompt, so it is split as
            plain text without special tokens (Llama's tokenizer would put <s> first).
    """

    def __init__(self, tokens: list[str], tokenizer: Any, ours: dict[int, int], target: bool,
                 pieces: dict[str, int] | None = None, end: int | None = None, start: str | None = None,
                 unknown: int | None = None, continues: bool = False) -> None:
        super().__init__(tokens[len(SPECIALS):], "word", lowercase=False)
        self.tokenizer, self.ours, self.target = tokenizer, ours, target
        self.theirs = {mine: theirs for theirs, mine in ours.items()}  # transviz id -> tokenizer id
        self.pieces = side_vocab(tokenizer, target) if pieces is None else pieces
        self.piece_names = {i: piece for piece, i in self.pieces.items()}
        # FSMT's tokenizer cannot encode with the target vocabulary: its pieces are looked up here
        self.looks_up = target and encodes_only_sources(tokenizer)
        self.unknown_id = self.pieces.get(str(tokenizer.unk_token), tokenizer.unk_token_id) if unknown is None \
            else unknown
        self.continues = target and continues
        self.end = tokenizer.eos_token_id if end is None else end
        self._start = start

    @property
    def start_token(self) -> str:
        return self._start or super().start_token

    def _ids(self, text: str, special: bool = True) -> list[int]:
        """The tokenizer's ids of ``text``, as it encodes this side: a target goes in as
        ``text_target`` (Marian then splits it with target.spm, mBART adds the target language)."""
        if self.looks_up:
            found = [self.pieces.get(piece, self.unknown_id) for piece in self._split(text)]
            return [*found, self.end] if special else found
        if self.continues:
            return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])
        side = "text_target" if self.target else "text"
        ids: list[int] = self.tokenizer(**{side: text}, add_special_tokens=special)["input_ids"]
        return ids

    def _split(self, text: str) -> list[str]:
        """The pieces of ``text`` as written, before unknown ones become <unk>."""
        tok = self.tokenizer
        if self.continues or not (self.target and hasattr(tok, "_switch_to_target_mode")):
            return list(tok.tokenize(text))
        # tokenize() has no target argument: Marian splits with the side its mode names, and every
        # call of the tokenizer itself switches back to the source side
        tok._switch_to_target_mode()
        try:
            return list(tok.tokenize(text))
        finally:
            tok._switch_to_input_mode()

    def _pieces(self, text: str) -> tuple[list[str], list[int]]:
        """The tokenizer's pieces of ``text`` and the ids the model reads, special tokens included;
        a target ends before its last end token (the decoder predicts it; mBART's target language
        code after it is the decoder's start token)."""
        ids, plain = self._ids(text), self._ids(text, special=False)
        if self.target and self.end in ids:
            ids = ids[: len(ids) - 1 - ids[::-1].index(self.end)]
        shown = [self.piece_names.get(i, f"<id {i}>") for i in ids]
        # an unknown piece is shown as written ("xq"), not as <unk>: find it among the special tokens
        pieces = self._split(text)
        start = next((k for k in range(len(ids) - len(plain) + 1) if ids[k : k + len(plain)] == plain), None)
        if start is not None and len(pieces) == len(plain):
            shown[start : start + len(plain)] = pieces
        return shown, ids

    def tokenize(self, text: str) -> list[str]:
        return self._pieces(text)[0]

    def alignment_units(self, text: str) -> list[str]:
        """The words alignment files count: the sentence's whitespace-separated words."""
        return text.split()

    def unit_of_tokens(self, text: str) -> list[int]:
        """Each piece's word: how many words the pieces up to it decode to, less one (-1 for a
        special token). A piece that adds nothing to the text (a lone word-start marker) belongs to
        the word the next piece begins. InputError when the pieces decode to another number of
        words than the sentence has (a tokenizer that splits or joins words on its own)."""
        pieces, ids = self._pieces(text)
        special = set(self.tokenizer.all_special_ids)
        units: list[int] = []
        kept: list[str] = []  # strings, not ids: a source's ids may be looked up in another table (FSMT)
        waiting: list[int] = []  # pieces that added nothing yet: they take the next piece's word
        before = ""
        for index, (piece, id_) in enumerate(zip(pieces, ids, strict=True)):
            units.append(-1)
            if id_ in special:
                continue
            kept.append(piece)
            decoded = self.tokenizer.convert_tokens_to_string(kept).strip()
            if decoded == before:
                waiting.append(index)
                continue
            before = decoded
            for piece_index in [*waiting, index]:
                units[piece_index] = len(decoded.split()) - 1
            waiting.clear()
        for piece_index in waiting:  # nothing came after them: the last word's
            units[piece_index] = max(len(before.split()) - 1, 0)
        words = len(self.alignment_units(text))
        if max(units, default=-1) + 1 != words:
            raise InputError(translate_noop("CoreMessages", "the tokenizer reads {0} words in '{1}', which has {2}: "
                                                            "its pieces cannot be matched to the words alignments "
                                                            "count"), max(units, default=-1) + 1, text, words)
        return units

    def count_tokens(self, text: str) -> int:
        return len(self._pieces(text)[0])

    def encode(self, text: str) -> Encoding:
        """Text -> pieces and transviz ids, with the tokenizer's special tokens (Marian appends
        ``</s>`` to a source, BART wraps it in ``<s> ... </s>``); InputError as :meth:`Vocab.encode`."""
        check_text(text)
        if not text.strip():
            raise InputError(translate_noop("CoreMessages", "the sentence is empty: type at least one word"))
        shown, ids = self._pieces(text)
        mine = [self.ours.get(i, self.unk_id) for i in ids]
        unknown = [(i, t) for i, (t, theirs) in enumerate(zip(shown, ids, strict=True)) if theirs == self.unknown_id]
        return Encoding(shown, mine, unknown)

    def detokenize(self, tokens: Iterable[str]) -> str:
        """Tokens -> text as the tokenizer joins them (pieces merged, markers gone), specials removed."""
        ids = [self.theirs[self.stoi[t]] for t in tokens if t not in SPECIALS and t in self.stoi]
        text: str = self.tokenizer.decode(ids, skip_special_tokens=True)
        return text.strip()
