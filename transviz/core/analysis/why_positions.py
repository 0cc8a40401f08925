"""Why the model needs positions, computed live (issue 16).

Self-attention treats its inputs as a set: without the positional encoding, shuffling the source
words only shuffles the encoder's attention maps the same way (rows and columns), to float
rounding. With positions the maps change. The seed tutorial says so in words ("交换单词位置后
attention map 的对应位置数值也会进行交换"); :func:`positions_demo` measures it.

The source is shuffled as token ids, not as text: re-reading shuffled text could split or join
tokens differently, and the comparison needs the very same tokens in a new order. The encoder
input holds no start or end token (``Vocab.encode`` adds none), so every token is shuffled.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from ..base.errors import InputError
from ..base.messages import translate_noop
from ..decoding.interventions import Intervention, NoPositions, intervening
from ..decoding.session import encode_source
from ..decoding.trace import stack_layers
from ..io.weights_check import require_finite
from ..model.bundle import Model, evaluating


@dataclass(frozen=True)
class PositionsDemo:
    """A sentence and its shuffle through the encoder, with and without positions.

    ``permutation[i]`` is the original position of the shuffled sentence's token ``i``. Maps are
    (layers, heads, S, S) float32, rows are queries, columns keys. A difference is the largest
    ``|shuffled[i, j] - original[permutation[i], permutation[j]]|`` over layers, heads and cells.
    """

    tokens: list[str]
    shuffled_tokens: list[str]
    permutation: tuple[int, ...]
    original: np.ndarray  # with positions
    shuffled: np.ndarray
    original_unpositioned: np.ndarray  # NoPositions("encoder")
    shuffled_unpositioned: np.ndarray
    difference: float  # with positions: clearly above 0
    difference_unpositioned: float  # without: float rounding, about 1e-7


def permuted(maps: np.ndarray, permutation: Sequence[int]) -> np.ndarray:
    """``P A Pᵀ`` for every map of ``maps`` (..., S, S): rows and columns reordered by ``permutation``."""
    order = np.asarray(permutation)
    out: np.ndarray = maps[..., order, :][..., :, order]
    return out


def random_permutation(tokens: Sequence[str], seed: int | None) -> tuple[int, ...]:
    """A permutation other than the identity, one that changes the order of the tokens when one can."""
    rng = np.random.default_rng(seed)
    n = len(tokens)
    fallback: tuple[int, ...] | None = None
    for _ in range(100):  # a short sentence draws the identity often; repeated words can hide a swap
        order = tuple(int(i) for i in rng.permutation(n))
        if order == tuple(range(n)):
            continue
        if [tokens[i] for i in order] != list(tokens):
            return order
        fallback = fallback or order
    return fallback or tuple(reversed(range(n)))


def _check_permutation(permutation: Sequence[int], n: int) -> tuple[int, ...]:
    order = tuple(int(i) for i in permutation)
    if sorted(order) != list(range(n)):
        raise InputError(translate_noop("CoreMessages", "{0} is not a permutation of the {1} source positions"),
                         repr(order), n)
    return order


def encoder_maps(model: Model, ids: Sequence[int], interventions: Sequence[Intervention] = ()) -> np.ndarray:
    """The encoder self-attention of one sentence of token ids, (layers, heads, S, S)."""
    net = model.net
    with evaluating(model), intervening(model, interventions):
        encoded = net.encode(torch.tensor([list(ids)], dtype=torch.long, device=model.device), return_attention=True)
    require_finite(encoded.memory)
    assert encoded.attention is not None  # asked for with return_attention
    return stack_layers(encoded.attention)


def positions_demo(model: Model, sentence: str, permutation: Sequence[int] | None = None,
                   seed: int | None = None) -> PositionsDemo:
    """Shuffle the source tokens of ``sentence`` by ``permutation`` (default: a random one from
    ``seed``) and compare the encoder's maps with and without positions. InputError for a
    sentence of one token: there is nothing to shuffle."""
    encoding = encode_source(model, sentence)
    n = len(encoding.ids)
    if n < 2:
        raise InputError(translate_noop("CoreMessages", "shuffling needs a sentence of at least two tokens"))
    order = random_permutation(encoding.tokens, seed) if permutation is None else _check_permutation(permutation, n)
    shuffled_ids = [encoding.ids[i] for i in order]
    maps = {}
    for name, ids, items in (("original", encoding.ids, ()), ("shuffled", shuffled_ids, ()),
                             ("original_unpositioned", encoding.ids, (NoPositions("encoder"),)),
                             ("shuffled_unpositioned", shuffled_ids, (NoPositions("encoder"),))):
        # a model that starts from the prompt's last token reads it after the (shuffled) source
        maps[name] = encoder_maps(model, [*ids, encoding.start[1]] if encoding.start else ids, items)

    def difference(original: np.ndarray, shuffled: np.ndarray) -> float:
        return float(np.abs(shuffled - permuted(original, order)).max())

    return PositionsDemo(
        tokens=list(encoding.tokens), shuffled_tokens=[encoding.tokens[i] for i in order], permutation=order,
        difference=difference(maps["original"], maps["shuffled"]),
        difference_unpositioned=difference(maps["original_unpositioned"], maps["shuffled_unpositioned"]),
        **maps)
