"""Hugging Face decoder-only folders (GPT-2, and the Llama family: Llama, Mistral) as transviz's
decoder-only models (:mod:`.hf_import` loads them): what their config becomes, where each tensor
goes, and the decoder-only types refused, each with the reason in one line.

Their prompt has no separator: the source is the prompt less its last token, which is the first
input of the output, at the position right after the source, as in the library's own sequence
(``ModelConfig.start_from_prompt``). So transviz's stream is the model's, token for token and
position for position, and every map is one of the model's own.

GPT-2 keeps its projections as ``Conv1D`` weights, (in, out): each is transposed here, and its
fused ``c_attn`` is W_Q | W_K | W_V in transviz's packed order already. Llama is pre-norm with
RMSNorm, rotary positions (``rope_theta``), shared key/value heads and a gated feed-forward layer.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
from torch import Tensor

from ..base.errors import CheckpointError, TransvizError, reason
from ..base.messages import translate_noop
from ..model.config import MAX_SIZES, Activation, ModelConfig

Read = Callable[[str, tuple[int, ...]], Tensor]  # a tensor of the folder by name, checked to have a shape

LLAMA_TYPES = ("llama", "mistral")
DECODER_TYPES = ("gpt2", *LLAMA_TYPES)
TOKENIZER_FILES: dict[str, tuple[tuple[str, ...], ...]] = {
    "gpt2": (("tokenizer.json", "vocab.json"), ("tokenizer.json", "merges.txt")),
    "llama": (("tokenizer.json", "tokenizer.model"),),
    "mistral": (("tokenizer.json", "tokenizer.model"),),
}
ACTIVATIONS: dict[str, Activation] = {"gelu_new": "gelu-tanh", "gelu_pytorch_tanh": "gelu-tanh", "gelu": "gelu",
                                      "relu": "relu", "silu": "silu", "swish": "silu"}
# config.json's sizes, checked before transformers reads the file (as hf_import's SIZES); a Llama's
# max_position_embeddings may be far above what transviz reads: it is cut (MAX_SIZES), not refused
SIZES = {"n_embd": "d_model", "n_head": "n_heads", "n_layer": "n_decoder_layers", "n_inner": "d_ff",
         "n_positions": "max_len", "vocab_size": "src_vocab_size", "hidden_size": "d_model",
         "num_attention_heads": "n_heads", "num_key_value_heads": "n_heads", "num_hidden_layers": "n_decoder_layers",
         "intermediate_size": "d_ff", "head_dim": "d_model"}
UNSCALED_ROTARY = "default"  # rope_type of the plain RoPE angles

# The decoder-only types transviz does not read, and why, in one line each.
REFUSED_DECODERS = {
    "gpt_neo": translate_noop("CoreMessages", "{0} is a GPT-Neo model: its layers alternate attention over every "
                                              "position with attention within a window, and leave the scores "
                                              "unscaled; transviz's layers attend alike"),
    "gpt_neox": translate_noop("CoreMessages", "{0} is a GPT-NeoX model: its attention and feed-forward layers run "
                                               "side by side on one input, with rotary positions on part of each "
                                               "head; transviz's run one after the other"),
    "gptj": translate_noop("CoreMessages", "{0} is a GPT-J model: its attention and feed-forward layers run side by "
                                           "side on one input, with rotary positions on interleaved pairs; transviz's "
                                           "run one after the other"),
    "falcon": translate_noop("CoreMessages", "{0} is a Falcon model: its attention and feed-forward layers run side by "
                                             "side on one input; transviz's run one after the other"),
}
SCALED_BY_LAYER = translate_noop("CoreMessages", "{0}: scale_attn_by_inverse_layer_idx divides each layer's scores by "
                                                 "its number too; transviz scales every layer's scores alike")
UPCAST = translate_noop("CoreMessages", "{0}: reorder_and_upcast_attn computes the scores in another order in "
                                        "float32; transviz computes them as the model does without it")
ROPE_SCALED = translate_noop("CoreMessages", "{0}: its rotary positions are scaled ({1}); transviz turns queries "
                                             "and keys by the plain RoPE angles")
BIASED = translate_noop("CoreMessages", "{0}: {1} is {2}; transviz reads it as true or false")
HEAD_WIDTH = translate_noop("CoreMessages", "{0}: its {1} heads of {2} dimensions make {3}, not its width {4}; "
                                            "transviz's heads split the width")
SEVERAL_ENDS = translate_noop("CoreMessages", "{0}: eos_token_id names several end tokens ({1}); transviz stops at one")
BAD_SIZE = translate_noop("CoreMessages", "{0}: {1} must be a whole number from 1 to {2}, got {3}")


def check_sizes(path: Path, data: dict[str, Any]) -> None:
    """CheckpointError for a size of config.json that is no whole number in transviz's range."""
    for key, field in SIZES.items():
        value, most = data.get(key), MAX_SIZES[field]
        if value is None:  # absent or null: transformers' default (n_inner: 4 x n_embd)
            continue
        if type(value) is not int or not 1 <= value <= most:
            raise CheckpointError(BAD_SIZE, str(path), key, f"{most:,}", json.dumps(value))
    positions = data.get("max_position_embeddings")
    if positions is not None and (type(positions) is not int or positions < 1):
        raise CheckpointError(BAD_SIZE, str(path), "max_position_embeddings", f"{2**63 - 1:,}", json.dumps(positions))


def check_refusals(folder: Path, data: dict[str, Any]) -> None:
    """CheckpointError, with the reason, for a setting of a decoder-only config transviz cannot honour."""
    kind = data.get("model_type")
    if kind == "gpt2":
        for key, why in (("scale_attn_by_inverse_layer_idx", SCALED_BY_LAYER), ("reorder_and_upcast_attn", UPCAST)):
            if data.get(key):
                raise CheckpointError(why, str(folder))
        return
    scaling = data.get("rope_scaling") or {}
    parameters = data.get("rope_parameters") or {}
    kinds = {str(d.get("rope_type", d.get("type", UNSCALED_ROTARY))) for d in (scaling, parameters)
             if isinstance(d, dict)}
    if kinds - {UNSCALED_ROTARY} or not isinstance(scaling, dict) or not isinstance(parameters, dict):
        raise CheckpointError(ROPE_SCALED, str(folder), ", ".join(sorted(kinds - {UNSCALED_ROTARY})) or "?")
    for key in ("attention_bias", "mlp_bias"):
        if not isinstance(data.get(key, False), bool):
            raise CheckpointError(BIASED, str(folder), key, json.dumps(data.get(key)))


def end_id(folder: Path, hf: Any) -> Any:
    """The one end token of ``hf`` (a list of one is that one)."""
    eos = hf.eos_token_id
    if isinstance(eos, list):
        if len(eos) != 1:
            raise CheckpointError(SEVERAL_ENDS, str(folder), json.dumps(eos))
        eos = eos[0]
    return eos


def order(eos: int, unknown: int | None, size: int) -> list[int | None]:
    """The tokenizer's id of each transviz id: a new padding row (no token of a prompt is padding),
    the start token (each sentence's own: never looked up), the end token, the unknown token when
    the tokenizer has its own (GPT-2's is its end token), then every other id in its order."""
    own_unknown = unknown if unknown is not None and unknown != eos else None
    kept = {eos, own_unknown}
    return [None, None, eos, own_unknown] + [i for i in range(size) if i not in kept]


def _rotary_base(hf: Any) -> float:
    parameters = getattr(hf, "rope_parameters", None) or {}
    base = parameters.get("rope_theta", getattr(hf, "rope_theta", 10000.0))
    return float(base)


def decoder_config(folder: Path, hf: Any, size: int) -> ModelConfig:
    """transviz's config for the GPT-2 or Llama-family config ``hf``, with ``size`` token rows."""
    kind = hf.model_type
    act = hf.activation_function if kind == "gpt2" else hf.hidden_act
    activation = ACTIVATIONS.get(act)
    if activation is None:
        raise CheckpointError(translate_noop("CoreMessages", "{0}: activation {1} is not one transviz has ({2})"),
                              str(folder), repr(act), ", ".join(ACTIVATIONS))
    common: dict[str, Any] = {"dropout": 0.0, "norm": "pre", "activation": activation, "share_embeddings": True,
                              "final_norm": True, "scale_embeddings": False, "architecture": "decoder-only",
                              "start_from_prompt": True}
    try:
        if kind == "gpt2":
            return ModelConfig(size, size, d_model=hf.n_embd, n_heads=hf.n_head, n_encoder_layers=hf.n_layer,
                               n_decoder_layers=hf.n_layer, d_ff=hf.n_inner or 4 * hf.n_embd, max_len=hf.n_positions,
                               positional="learned", layer_norm_eps=hf.layer_norm_epsilon,
                               scale_scores=bool(hf.scale_attn_weights), **common)
        return _llama_config(folder, hf, size, common)
    except TransvizError as exc:
        raise CheckpointError(translate_noop("CoreMessages", "{0}: the model's sizes do not make a model: {1}"),
                              str(folder), reason(exc)) from None


def _llama_config(folder: Path, hf: Any, size: int, common: dict[str, Any]) -> ModelConfig:
    heads, width = hf.num_attention_heads, hf.hidden_size
    head_dim = getattr(hf, "head_dim", None) or width // heads
    if head_dim * heads != width:
        raise CheckpointError(HEAD_WIDTH, str(folder), heads, head_dim, head_dim * heads, width)
    kv = hf.num_key_value_heads or heads
    window = getattr(hf, "sliding_window", None) or 0  # Mistral's: the last w keys, the query's own included
    return ModelConfig(size, size, d_model=width, n_heads=heads, n_kv_heads=0 if kv == heads else kv,
                       n_encoder_layers=hf.num_hidden_layers, n_decoder_layers=hf.num_hidden_layers,
                       d_ff=hf.intermediate_size, max_len=min(hf.max_position_embeddings, MAX_SIZES["max_len"]),
                       positional="rotary", rotary_base=_rotary_base(hf), layer_norm="rms",
                       layer_norm_eps=hf.rms_norm_eps, gated_ffn=True,
                       attention_window=min(window, MAX_SIZES["max_len"]),
                       bias=bool(getattr(hf, "attention_bias", False) or getattr(hf, "mlp_bias", False)), **common)


def tables(hf: Any, names: set[str]) -> tuple[str, str]:
    """The tensors of the embedding table and of the output layer (the table, when tied and not saved)."""
    embedding = "transformer.wte.weight" if hf.model_type == "gpt2" else "model.embed_tokens.weight"
    return embedding, "lm_head.weight" if "lm_head.weight" in names else embedding


def layers_prefix(hf: Any) -> str:
    return "transformer.h." if hf.model_type == "gpt2" else "model.layers."


def stack_state(config: ModelConfig, hf: Any, read: Read) -> dict[str, Tensor]:
    """transviz's state of the layers, the final norm and (GPT-2) the positions, from ``read``."""
    if hf.model_type == "gpt2":
        return _gpt2_state(config, read)
    return _llama_state(config, hf, read)


def _gpt2_state(config: ModelConfig, read: Read) -> dict[str, Tensor]:
    d, ff = config.d_model, config.d_ff
    state: dict[str, Tensor] = {}
    for i in range(config.n_decoder_layers):
        ours, theirs = f"decoder_layers.{i}", f"transformer.h.{i}"

        def conv(name: str, rows: int, columns: int, theirs: str = theirs) -> Tensor:
            return read(f"{theirs}.{name}.weight", (columns, rows)).T  # Conv1D keeps (in, out)

        state |= {f"{ours}.self_attn.in_proj_weight": conv("attn.c_attn", 3 * d, d),  # W_Q | W_K | W_V
                  f"{ours}.self_attn.in_proj_bias": read(f"{theirs}.attn.c_attn.bias", (3 * d,)),
                  f"{ours}.self_attn.out_proj.weight": conv("attn.c_proj", d, d),
                  f"{ours}.self_attn.out_proj.bias": read(f"{theirs}.attn.c_proj.bias", (d,)),
                  f"{ours}.ffn.linear1.weight": conv("mlp.c_fc", ff, d),
                  f"{ours}.ffn.linear1.bias": read(f"{theirs}.mlp.c_fc.bias", (ff,)),
                  f"{ours}.ffn.linear2.weight": conv("mlp.c_proj", d, ff),
                  f"{ours}.ffn.linear2.bias": read(f"{theirs}.mlp.c_proj.bias", (d,))}
        for n in (1, 2):
            state |= {f"{ours}.norm{n}.{p}": read(f"{theirs}.ln_{n}.{p}", (d,)) for p in ("weight", "bias")}
    state |= {f"decoder_norm.{p}": read(f"transformer.ln_f.{p}", (d,)) for p in ("weight", "bias")}
    state["decoder_positions"] = read("transformer.wpe.weight", (config.max_len, d))
    return state


def _llama_state(config: ModelConfig, hf: Any, read: Read) -> dict[str, Tensor]:
    d, ff, kv = config.d_model, config.d_ff, config.kv_heads * config.d_k
    attention_bias, mlp_bias = bool(getattr(hf, "attention_bias", False)), bool(getattr(hf, "mlp_bias", False))

    def bias(name: str, width: int, saved: bool) -> Tensor:
        # one of Llama's two bias switches on makes transviz's biases all present: the other's are 0
        return read(name, (width,)) if saved else torch.zeros(width)

    state: dict[str, Tensor] = {}
    for i in range(config.n_decoder_layers):
        ours, theirs = f"decoder_layers.{i}", f"model.layers.{i}"
        attn, mlp = f"{theirs}.self_attn", f"{theirs}.mlp"
        widths = {"q": d, "k": kv, "v": kv}
        state[f"{ours}.self_attn.in_proj_weight"] = torch.cat([read(f"{attn}.{p}_proj.weight", (w, d))
                                                               for p, w in widths.items()])
        state[f"{ours}.self_attn.out_proj.weight"] = read(f"{attn}.o_proj.weight", (d, d))
        state[f"{ours}.ffn.linear1.weight"] = read(f"{mlp}.gate_proj.weight", (ff, d))  # act(x W_1) * x W_3
        state[f"{ours}.ffn.linear3.weight"] = read(f"{mlp}.up_proj.weight", (ff, d))
        state[f"{ours}.ffn.linear2.weight"] = read(f"{mlp}.down_proj.weight", (d, ff))
        state[f"{ours}.norm1.weight"] = read(f"{theirs}.input_layernorm.weight", (d,))
        state[f"{ours}.norm2.weight"] = read(f"{theirs}.post_attention_layernorm.weight", (d,))
        if config.bias:
            state[f"{ours}.self_attn.in_proj_bias"] = torch.cat([bias(f"{attn}.{p}_proj.bias", w, attention_bias)
                                                                 for p, w in widths.items()])
            state[f"{ours}.self_attn.out_proj.bias"] = bias(f"{attn}.o_proj.bias", d, attention_bias)
            for n, name, width in ((1, "gate", ff), (3, "up", ff), (2, "down", d)):
                state[f"{ours}.ffn.linear{n}.bias"] = bias(f"{mlp}.{name}_proj.bias", width, mlp_bias)
    state["decoder_norm.weight"] = read("model.norm.weight", (d,))
    return state
