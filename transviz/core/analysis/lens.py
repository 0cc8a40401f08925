"""Inside one decoding step: what each decoder layer would write if it were the last (the logit
lens), and how much each cross-attention head adds directly to the logit of the token written.

The lens reads the residual stream after each decoder layer (:attr:`Site.RESIDUAL`) and sends it
through what follows the last layer: the final norm, where the model has one, and the output
layer. The last layer's lens is the model's own distribution.

The direct contributions split the written token's logit exactly into terms, with every LayerNorm
taken as the linear map it is at this input (its scale, computed from the values it normalised,
held fixed): the embedding, and per decoder layer its self-attention, each cross-attention head,
cross-attention's output bias, its feed-forward network, and the norms' and output layer's biases.
A term is what its vector adds along the residual path alone (through the norms after it), not
what it changes in the layers it feeds. Their sum is the logit.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, cast

import numpy as np
import torch
from torch import Tensor, nn

from ..base.errors import InputError
from ..base.messages import translate_noop
from ..decoding.interventions import Intervention, intervening
from ..model.bundle import Model, evaluating
from ..model.sites import Address, Site, recording
from ..model.transformer import DecoderLayer, MultiHeadAttention, StdLayerNorm, Transformer
from .concepts.forward import Sentence, model_inputs

Term = Literal["embedding", "self_attention", "cross_bias", "feed_forward", "biases"]
NOTHING_WRITTEN = translate_noop("CoreMessages", "nothing is written yet: step once to see what each layer would "
                                                 "write")


@dataclass(frozen=True)
class LayerGuess:
    """What one decoder layer's residual stream would write: the ``tokens`` it finds most probable,
    their ``probabilities``, the probability of the token the model wrote, and every token's."""

    tokens: list[str]
    probabilities: np.ndarray  # (k,) float64
    written: float
    distribution: np.ndarray  # (V,) float64


@dataclass(frozen=True)
class DirectLogits:
    """The written token's logit split into direct terms: ``heads`` (layers, heads), each
    cross-attention head's; ``terms``, the others as (term, decoder layer or None, value)."""

    logit: float
    heads: np.ndarray  # (layers, heads) float64
    terms: list[tuple[Term, int | None, float]]

    @property
    def total(self) -> float:
        return float(self.heads.sum()) + sum(value for _, _, value in self.terms)


@dataclass(frozen=True)
class LogitLens:
    """At the query row that wrote ``written``: each decoder layer's guess (the last is the model's
    own), the model's distribution, and the written token's direct logits (None: a decoder-only
    model, whose cross-attention is part of its one self-attention)."""

    written: str
    layers: list[LayerGuess]
    probabilities: np.ndarray  # (V,) float64, the model's own
    direct: DirectLogits | None

    @property
    def first_layer(self) -> int | None:
        """The first layer from which on every layer's most probable token is the one written."""
        first = None
        for layer, guess in reversed(list(enumerate(self.layers))):
            if guess.tokens[0] != self.written:
                break
            first = layer
        return first


def logit_lens(model: Model, sentence: Sentence, written: str | None, k: int = 5,
               interventions: Iterable[Intervention] = ()) -> LogitLens:
    """The lens at the decoder's last input of ``sentence`` (whose output was ``written``).
    InputError when nothing is written yet."""
    if written is None:
        raise InputError(NOTHING_WRITTEN)
    net, vocab = model.net, model.tgt_vocab
    inputs = model_inputs(model, sentence)
    layers = len(net.decoder_layers)
    addresses = [Address("decoder", layer, Site.RESIDUAL) for layer in range(layers)]
    if not model.config.decoder_only:
        addresses += [Address(kind, layer, site) for layer in range(layers) for kind in ("decoder_self", "cross")
                      for site in (Site.MIXED, Site.QUERY_INPUT)]
    with evaluating(model), intervening(model, interventions), torch.no_grad(), \
            recording(net, addresses) as seen:
        logits = net(inputs.source_ids, inputs.target_ids).logits[0, -1].double()
    row = {address: value[0, -1].double() for address, value in seen.items()}  # the last query row, (d,)
    token = vocab.id_of(written)
    guesses = [_guess(net, vocab.tokens_of, row[Address("decoder", layer, Site.RESIDUAL)], token, k)
               for layer in range(layers)]
    direct = None if model.config.decoder_only else _direct(net, row, inputs.target_ids, token, float(logits[token]))
    return LogitLens(written, guesses, torch.softmax(logits, -1).numpy(), direct)


def _guess(net: Transformer, names: Callable[[Sequence[int]], list[str]], stream: Tensor, token: int,
           k: int) -> LayerGuess:
    with torch.no_grad():
        logits = net.generator(net.decoder_norm(stream.to(net.generator.weight.dtype))).double()
    probabilities = torch.softmax(logits, -1)
    top = torch.topk(probabilities, min(k, probabilities.numel()))
    return LayerGuess(names(top.indices.tolist()), top.values.numpy(), float(probabilities[token]),
                      probabilities.numpy())


# -- direct contributions ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Frozen:
    """A norm at one input as the linear map it is there, its scale fixed: ``v -> weight * C(v) /
    scale`` (C centres a vector, or leaves it for RMSNorm), then plus ``bias``."""

    weight: Tensor  # (d,)
    scale: Tensor  # ()
    centred: bool
    bias: Tensor | None  # (d,)

    def apply(self, v: Tensor) -> Tensor:
        return self.weight * ((v - v.mean()) if self.centred else v) / self.scale

    def pull(self, g: Tensor) -> Tensor:
        """The transpose: ``g . apply(v) == pull(g) . v`` for every ``v`` (C is symmetric)."""
        w = self.weight * g / self.scale
        return (w - w.mean()) if self.centred else w

    def bias_term(self, g: Tensor) -> float:
        return 0.0 if self.bias is None else float(g @ self.bias)


def frozen(norm: nn.Module, x: Tensor) -> Frozen:
    """``norm`` (any norm transviz has, or none) at input ``x`` (d,), float64: ``norm(x) ==
    frozen(norm, x).apply(x) + bias``."""
    x = x.double()
    if isinstance(norm, nn.Identity):
        return Frozen(torch.ones_like(x), torch.tensor(1.0, dtype=x.dtype), False, None)
    if isinstance(norm, nn.RMSNorm):
        eps = norm.eps if norm.eps is not None else torch.finfo(torch.float32).eps
        scale = torch.sqrt(x.pow(2).mean() + eps)
    elif isinstance(norm, StdLayerNorm):
        scale = x.std() + norm.eps  # the unbiased std, as this norm divides by it
    else:
        scale = torch.sqrt(x.var(unbiased=False) + cast(nn.LayerNorm, norm).eps)
    weight = cast(Tensor, norm.weight).detach().double()
    bias = getattr(norm, "bias", None)
    return Frozen(weight, scale, not isinstance(norm, nn.RMSNorm), None if bias is None else bias.detach().double())


@dataclass
class _Split:
    """The terms found so far, walking the decoder from its last layer down."""

    heads: np.ndarray
    terms: list[tuple[Term, int | None, float]]
    constant: float = 0.0


def _direct(net: Transformer, row: dict[Address, Tensor], target_ids: Tensor, token: int, logit: float) -> DirectLogits:
    """The written token's logit in direct terms (see the module's docstring)."""
    generator = net.generator
    u = generator.weight[token].detach().double()
    layers = list(net.decoder_layers)
    last = frozen(net.decoder_norm, row[Address("decoder", len(layers) - 1, Site.RESIDUAL)])
    split = _Split(np.zeros((len(layers), net.config.n_heads)), [])
    split.constant = last.bias_term(u) + (0.0 if generator.bias is None else float(generator.bias[token].detach()))
    g = last.pull(u)
    with torch.no_grad():
        embedded = net.embed(target_ids, "decoder")[0, -1].double()
        for index in reversed(range(len(layers))):
            before = row[Address("decoder", index - 1, Site.RESIDUAL)] if index else embedded
            g = _layer_terms(cast(DecoderLayer, layers[index]), index, row, before, g, split)
    split.terms.append(("embedding", None, float(g @ embedded)))
    split.terms.append(("biases", None, split.constant))
    split.terms.reverse()
    return DirectLogits(logit, split.heads, split.terms)


def _layer_terms(layer: DecoderLayer, index: int, row: dict[Address, Tensor], before: Tensor, g: Tensor,
                 split: _Split) -> Tensor:
    """Layer ``index``'s terms for the functional ``g`` read at its output; ``g`` read at its input.
    The layer is replayed from its recorded attention outputs, and must give its recorded output."""
    def output(attention: MultiHeadAttention, mixed: Tensor) -> Tensor:
        return cast(Tensor, attention.out_proj(mixed.float())).double()

    def run(module: nn.Module, v: Tensor) -> Tensor:
        return cast(Tensor, module(v.float())).double()

    self_out = output(layer.self_attn, row[Address("decoder_self", index, Site.MIXED)])
    mixed = row[Address("cross", index, Site.MIXED)]
    cross = layer.cross_attn
    weight = cross.out_proj.weight.detach().double()  # (d, d): each head's d_k columns
    d_k = mixed.numel() // split.heads.shape[1]
    heads = [weight[:, h * d_k:(h + 1) * d_k] @ mixed[h * d_k:(h + 1) * d_k] for h in range(split.heads.shape[1])]
    cross_bias = torch.zeros_like(g) if cross.out_proj.bias is None else cross.out_proj.bias.detach().double()
    cross_out = torch.stack(heads).sum(0) + cross_bias
    norms = [cast(nn.Module, getattr(layer, f"norm{i}")) for i in (1, 2, 3)]
    if layer.pre_norm:
        middle = before + self_out + cross_out
        ffn = run(layer.ffn, run(norms[2], middle))
        _check(middle + ffn, row[Address("decoder", index, Site.RESIDUAL)], index)
        at_ffn = at_cross = at_self = g
    else:
        first = run(norms[0], before + self_out)
        second = run(norms[1], first + cross_out)
        ffn = run(layer.ffn, second)
        _check(run(norms[2], second + ffn), row[Address("decoder", index, Site.RESIDUAL)], index)
        third = frozen(norms[2], second + ffn)
        at_ffn = third.pull(g)
        middle_norm = frozen(norms[1], first + cross_out)
        at_cross = middle_norm.pull(at_ffn)
        first_norm = frozen(norms[0], before + self_out)
        at_self = first_norm.pull(at_cross)
        split.constant += third.bias_term(g) + middle_norm.bias_term(at_ffn) + first_norm.bias_term(at_cross)
    split.terms += [("feed_forward", index, float(at_ffn @ ffn)), ("cross_bias", index, float(at_cross @ cross_bias)),
                    ("self_attention", index, float(at_self @ self_out))]
    split.heads[index] = [float(at_cross @ head) for head in heads]
    return at_self


def _check(replayed: Tensor, recorded: Tensor, index: int) -> None:
    """A replayed layer must give what the model computed; otherwise the terms would not add up."""
    if not torch.allclose(replayed, recorded.double(), atol=1e-4, rtol=1e-3):
        raise RuntimeError(f"decoder layer {index} replayed differs from its run by "
                           f"{float((replayed - recorded).abs().max()):.2e}")
