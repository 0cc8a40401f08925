"""What a model's positions inside attention do, as pictures for the Positional encoding tab: the
bias ALiBi or T5 adds to each head's scores (T5's with the bucket of every offset), and for RoPE a
real query and key of one head turned by their positions, whose score depends on the offset alone."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from ..base.errors import InputError
from ..base.messages import translate_noop
from ..model.bundle import Model, evaluating
from ..model.positional import relative_bucket
from ..model.sites import Address, Site, recording
from ..model.transformer import ALiBi, RelativeBuckets, Rotary
from .walkthrough import Kind

NO_SUCH_POSITIONS = translate_noop("CoreMessages", "this model's positions are {0}, not {1}")


def _check_length(model: Model, length: int) -> None:
    if not 1 <= length <= model.config.max_len:
        raise InputError(translate_noop("CoreMessages", "positions must be 1 to {0}, this model's limit; got {1}"),
                         model.config.max_len, length)


@dataclass(frozen=True)
class PositionBias:
    """What each head adds to its scaled scores over ``length`` positions.

    Shape:
        ``bias`` (H, L, L): head h's addition to the score of query i over key j; ``buckets``
        (L, L): T5's bucket of the offset j - i (None for ALiBi); ``slopes`` (H,): ALiBi's (None for T5).
    """

    positional: str
    bias: np.ndarray
    buckets: np.ndarray | None
    slopes: np.ndarray | None


def position_bias(model: Model, length: int, kind: Kind = "encoder_self") -> PositionBias:
    """The bias of the ``kind`` self-attention of ``model`` (ALiBi or T5), over ``length`` positions."""
    _check_length(model, length)
    module = model.net.attention_modules()[kind, 0].position_bias
    if not isinstance(module, (ALiBi, RelativeBuckets)):
        raise InputError(NO_SUCH_POSITIONS, model.config.positional, "alibi, t5")
    with torch.no_grad():
        bias = module(0, length, length).double().cpu().numpy()
    if isinstance(module, ALiBi):
        return PositionBias("alibi", bias, None, module.slopes.double().cpu().numpy())
    offsets = torch.arange(length)[None, :] - torch.arange(length)[:, None]  # key - query
    buckets = relative_bucket(offsets, module.bidirectional, module.buckets, module.max_distance).numpy()
    return PositionBias("t5", bias, buckets, None)


@dataclass(frozen=True)
class RotaryScores:
    """One head's query (the sentence's last token) and key (its first), as projected, then turned
    to every position.

    Shape:
        ``query``, ``key`` (d_k,) unturned; ``scores`` (L, L): the scaled score of the query turned
        to position m over the key turned to position n; ``pair`` (L, 2): the query's dimensions
        0 and d_k/2 (the pair that turns fastest) at each position.
    """

    query_token: str
    key_token: str
    query: np.ndarray
    key: np.ndarray
    scores: np.ndarray
    pair: np.ndarray


def rotary_scores(model: Model, source: str, layer: int, head: int, length: int) -> RotaryScores:
    """The encoder self-attention's ``head`` in ``layer``: the last source token's query and the
    first one's key, turned to ``length`` positions each."""
    net = model.net
    module = net.attention_modules()["encoder_self", layer]
    _check_length(model, length)
    if not isinstance(module.rotary, Rotary):
        raise InputError(NO_SUCH_POSITIONS, model.config.positional, "rotary")
    encoding = model.encode_source(source)
    inputs = Address("encoder_self", layer, Site.QUERY_INPUT)
    with evaluating(model), torch.no_grad(), recording(net, [inputs]) as seen:
        net.encode(model.source_tensor(encoding))
        x = seen[inputs][0]  # (S, d): what W_Q and W_K project
        q = module.in_projection(x[-1:], module.rows("q", head))[0].double()  # (d_k,)
        k = module.in_projection(x[:1], module.rows("k", head))[0].double()
        turned_q = module.rotary(q.float().expand(1, 1, length, -1), 0)[0, 0].double()  # (L, d_k)
        turned_k = module.rotary(k.float().expand(1, 1, length, -1), 0)[0, 0].double()
    scores = (turned_q @ turned_k.T * module.scale).numpy()  # (L, L)
    half = module.d_k // 2
    pair = turned_q[:, [0, half]].numpy()
    return RotaryScores(encoding.tokens[-1], encoding.tokens[0], q.numpy(), k.numpy(), scores, pair)
