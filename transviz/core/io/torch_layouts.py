"""Where a plain PyTorch model keeps each weight of transviz's encoder and decoder stacks.

A layout maps transviz's state-dict names (``{i}`` standing for the layer) to the names the
model's own code gives the same tensors, relative to the sidecar's ``modules.transformer`` prefix.
One of transviz's tensors may come from several of the file's, stacked along the first axis:
separate W_Q, W_K and W_V projections make transviz's packed ``in_proj_weight`` (rows W_Q | W_K |
W_V), which changes no number the model computes. Two layouts are built in, ``nn.Transformer``'s
and the Annotated Transformer's (``self_attn.linears.0-3``, ``src_attn``, ``feed_forward.w_1``,
``sublayer.k.norm.a_2``); a sidecar's ``names`` replaces single entries, so that a model whose
modules are named otherwise converts without code that repacks its weights. The manual ("Your
own PyTorch model") lists the names.
"""
from __future__ import annotations

from ..model.config import ModelConfig

LAYER = "{i}"  # the layer's number in a name
Names = tuple[str, ...]  # the file's tensors that make one of transviz's, stacked in this order
Layout = dict[str, Names]  # transviz's name -> the file's names, both with LAYER in a layer's weights

ENCODER, DECODER = "encoder_layers.{i}.", "decoder_layers.{i}."  # transviz's layers
WEIGHT_BIAS = ("weight", "bias")
ANNOTATED_NORM = ("a_2", "b_2")  # the Annotated Transformer's LayerNorm gain and shift


def _linear(ours: str, theirs: str, params: tuple[str, str] = WEIGHT_BIAS) -> Layout:
    """An ``nn.Linear`` (or a LayerNorm with ``params``) that both models name as a module."""
    return {f"{ours}.weight": (f"{theirs}.{params[0]}",), f"{ours}.bias": (f"{theirs}.{params[1]}",)}


def _packed_attention(ours: str, theirs: str) -> Layout:
    """``nn.MultiheadAttention``: transviz's parameters are laid out as its are."""
    return {f"{ours}.in_proj_weight": (f"{theirs}.in_proj_weight",),
            f"{ours}.in_proj_bias": (f"{theirs}.in_proj_bias",)} | _linear(f"{ours}.out_proj", f"{theirs}.out_proj")


def _separate_attention(ours: str, theirs: str) -> Layout:
    """Four ``nn.Linear``s, the Annotated Transformer's ``linears``: W_Q, W_K, W_V, then the output."""
    q, k, v, out = (f"{theirs}.linears.{n}" for n in range(4))
    return {f"{ours}.in_proj_weight": (f"{q}.weight", f"{k}.weight", f"{v}.weight"),
            f"{ours}.in_proj_bias": (f"{q}.bias", f"{k}.bias", f"{v}.bias")} | _linear(f"{ours}.out_proj", out)


def _nn_transformer() -> Layout:
    encoder, decoder = "encoder.layers.{i}.", "decoder.layers.{i}."
    layout = _packed_attention(ENCODER + "self_attn", encoder + "self_attn")
    layout |= _packed_attention(DECODER + "self_attn", decoder + "self_attn")
    layout |= _packed_attention(DECODER + "cross_attn", decoder + "multihead_attn")
    for ours, theirs, norms in ((ENCODER, encoder, 2), (DECODER, decoder, 3)):
        layout |= _linear(ours + "ffn.linear1", theirs + "linear1") | _linear(ours + "ffn.linear2", theirs + "linear2")
        for n in range(1, norms + 1):
            layout |= _linear(f"{ours}norm{n}", f"{theirs}norm{n}")
    return layout | _linear("encoder_norm", "encoder.norm") | _linear("decoder_norm", "decoder.norm")


def _annotated_transformer() -> Layout:
    """harvardnlp's "The Annotated Transformer": each sub-layer's LayerNorm sits in ``sublayer.k``."""
    encoder, decoder = "encoder.layers.{i}.", "decoder.layers.{i}."
    layout = _separate_attention(ENCODER + "self_attn", encoder + "self_attn")
    layout |= _separate_attention(DECODER + "self_attn", decoder + "self_attn")
    layout |= _separate_attention(DECODER + "cross_attn", decoder + "src_attn")
    for ours, theirs, norms in ((ENCODER, encoder, 2), (DECODER, decoder, 3)):
        layout |= _linear(ours + "ffn.linear1", theirs + "feed_forward.w_1")
        layout |= _linear(ours + "ffn.linear2", theirs + "feed_forward.w_2")
        for n in range(norms):
            layout |= _linear(f"{ours}norm{n + 1}", f"{theirs}sublayer.{n}.norm", ANNOTATED_NORM)
    return (layout | _linear("encoder_norm", "encoder.norm", ANNOTATED_NORM)
            | _linear("decoder_norm", "decoder.norm", ANNOTATED_NORM))


LAYOUTS: dict[str, Layout] = {"nn.Transformer": _nn_transformer(), "annotated-transformer": _annotated_transformer()}
DEFAULT = "nn.Transformer"


def expanded(layout: Layout, config: ModelConfig, prefix: str) -> dict[str, Names]:
    """transviz's name -> the file's names for every layer ``config`` has, each of the file's
    names under ``prefix`` (the module that holds the stacks; "" for the top level)."""
    found: dict[str, Names] = {}
    for ours, theirs in layout.items():
        count = config.n_encoder_layers if ours.startswith(ENCODER) else config.n_decoder_layers
        layers = range(count) if LAYER in ours else [None]
        for i in layers:
            found[_layer(ours, i)] = tuple(_join(prefix, _layer(name, i)) for name in theirs)
    return found


def _layer(name: str, i: int | None) -> str:
    return name if i is None else name.replace(LAYER, str(i))


def _join(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name
