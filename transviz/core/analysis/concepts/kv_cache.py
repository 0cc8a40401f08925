"""What the KV cache holds at one decoding step (issue 38's "the KV cache, seen"): per layer, the
keys and values attention reads from the source, computed once per sentence (cross-attention's, or
a decoder-only model's source pass), and the decoder's own, one more row per step; per key/value
head, with their bytes. A cached step is checked against recomputing every position from scratch:
the numbers are the model's, not a claim."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from ...model.bundle import Model, evaluating
from ..walkthrough import decoder_inputs
from .forward import Sentence


@dataclass(frozen=True)
class CachedLayer:
    """One decoder layer's cache. float32.

    Shape:
        ``source_keys``, ``source_values`` (kv_heads, S, d_k): from the source, computed once;
        ``own_keys``, ``own_values`` (kv_heads, t, d_k): one row per decoder input fed so far.
    """

    source_keys: np.ndarray
    source_values: np.ndarray
    own_keys: np.ndarray
    own_values: np.ndarray


@dataclass(frozen=True)
class CacheContents:
    """The cache after feeding ``target_tokens`` (the start token first) for ``source_tokens``, and
    the check: the last step's logits from the cache beside those of a full recomputation."""

    source_tokens: list[str]
    target_tokens: list[str]
    layers: list[CachedLayer]
    n_heads: int
    cached_logits: np.ndarray  # (V,)
    recomputed_logits: np.ndarray  # (V,)

    @property
    def kv_heads(self) -> int:
        return int(self.layers[0].own_keys.shape[0])

    @property
    def own_bytes(self) -> int:
        """The decoder's own keys and values so far, every layer (float32)."""
        return sum(layer.own_keys.nbytes + layer.own_values.nbytes for layer in self.layers)

    @property
    def source_bytes(self) -> int:
        """The keys and values read from the source, every layer, computed once per sentence."""
        return sum(layer.source_keys.nbytes + layer.source_values.nbytes for layer in self.layers)

    @property
    def bytes_per_token(self) -> float:
        """What each decoder input added: the own part over the inputs fed."""
        return self.own_bytes / len(self.target_tokens)

    @property
    def difference(self) -> float:
        """Largest difference between the cached step's logits and the recomputation's."""
        return float(np.abs(self.cached_logits - self.recomputed_logits).max())


def cache_contents(model: Model, sentence: Sentence) -> CacheContents:
    """The cache of ``model`` for ``sentence`` after its decoder inputs (the start token, then
    ``sentence.target``), each fed as one cached step, and the same last step recomputed in full."""
    net = model.net
    prefix = model.tgt_vocab.detokenize(list(sentence.target))
    encoding = model.encode_source(sentence.source)
    target_tokens, target_ids = decoder_inputs(model.tgt_vocab, prefix, model.config.max_len,
                                               model.start_token(encoding))
    src = model.source_tensor(encoding)
    tgt = torch.tensor([target_ids], device=model.device)
    with evaluating(model), torch.no_grad():
        encoded = net.encode(src)
        state = net.start(encoded)
        for t in range(tgt.shape[1]):
            out = net.step(tgt[:, t], state, return_attention=False)
            state = out.state
        recomputed = net.decode(tgt, encoded).logits[0, -1]
    assert state.self_kv is not None  # at least the start token was fed

    def rows(tensor: torch.Tensor) -> np.ndarray:
        return tensor[0].float().cpu().numpy()  # (kv_heads, L, d_k)

    layers = [CachedLayer(rows(sk), rows(sv), rows(ok), rows(ov))
              for (sk, sv), (ok, ov) in zip(state.memory_kv, state.self_kv, strict=True)]
    return CacheContents(encoding.tokens, target_tokens, layers, model.config.n_heads,
                         out.logits[0].float().cpu().numpy(), recomputed.float().cpu().numpy())
