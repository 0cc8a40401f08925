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


class TokenizerVocab(Vocab):
    """``Vocab`` whose tokens are a tokenizer's pieces.

    Args:
        tokens: transviz's tokens by id, the four special tokens first (see :class:`Vocab`).
        tokenizer: a ``transformers`` tokenizer (PreTrainedTokenizerBase).
        ours: the tokenizer's id -> transviz's id.
        target: encode with the tokenizer's target side (Marian has one SentencePiece model per
            language) and leave off the end token that it appends (the decoder predicts it).
    """

    def __init__(self, tokens: list[str], tokenizer: Any, ours: dict[int, int], target: bool) -> None:
        super().__init__(tokens[len(SPECIALS):], "word", lowercase=False)
        self.tokenizer, self.ours, self.target = tokenizer, ours, target
        if target and hasattr(tokenizer, "_switch_to_target_mode"):  # its own instance: it stays so
            tokenizer._switch_to_target_mode()
        self.theirs = {mine: theirs for theirs, mine in ours.items()}  # transviz id -> tokenizer id

    def _pieces(self, text: str) -> tuple[list[str], list[int]]:
        """The tokenizer's pieces of ``text`` and the ids the model reads, special tokens included."""
        tok = self.tokenizer
        ids: list[int] = tok(text)["input_ids"]
        shown: list[str] = tok.convert_ids_to_tokens(ids)
        pieces, plain = tok.tokenize(text), tok(text, add_special_tokens=False)["input_ids"]
        # an unknown piece is shown as written ("xq"), not as <unk>: find it among the special tokens
        start = next((k for k in range(len(ids) - len(plain) + 1) if ids[k : k + len(plain)] == plain), None)
        if start is not None and len(pieces) == len(plain):
            shown[start : start + len(plain)] = pieces
        if self.target and ids and ids[-1] == tok.eos_token_id:
            shown, ids = shown[:-1], ids[:-1]
        return shown, ids

    def tokenize(self, text: str) -> list[str]:
        return self._pieces(text)[0]

    def count_tokens(self, text: str) -> int:
        return len(self._pieces(text)[0])

    def encode(self, text: str) -> Encoding:
        """Text -> pieces and transviz ids, with the tokenizer's special tokens (Marian appends
        ``</s>`` to a source, BART wraps it in ``<s> ... </s>``); InputError as :meth:`Vocab.encode`."""
        check_text(text)
        if not text.strip():
            raise InputError(translate_noop("CoreMessages", "the sentence is empty: type at least one word"))
        shown, ids = self._pieces(text)
        unknown_id = self.tokenizer.unk_token_id
        mine = [self.ours.get(i, self.unk_id) for i in ids]
        unknown = [(i, t) for i, (t, theirs) in enumerate(zip(shown, ids, strict=True)) if theirs == unknown_id]
        return Encoding(shown, mine, unknown)

    def detokenize(self, tokens: Iterable[str]) -> str:
        """Tokens -> text as the tokenizer joins them (pieces merged, markers gone), specials removed."""
        ids = [self.theirs[self.stoi[t]] for t in tokens if t not in SPECIALS and t in self.stoi]
        text: str = self.tokenizer.decode(ids, skip_special_tokens=True)
        return text.strip()
