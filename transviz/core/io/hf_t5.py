"""T5 and mT5 folders (Hugging Face's ``T5ForConditionalGeneration``, :mod:`.hf_import` loads
them): what their config becomes in transviz's model, and where each tensor goes.

T5 is the paper's encoder-decoder with today's changes: pre-norm with RMSNorm and a final norm per
stack, no biases, no positions added to the embeddings (nor are they scaled) but a learned bias per
head for each bucket of query-key offsets (one table per stack, in its first layer), scores left
unscaled, and, from T5 v1.1 and in mT5, a gated feed-forward layer. With tied tables the decoder's
output is multiplied by d_model^-0.5 before the output layer: here that factor is part of the
output layer's weights.
"""
from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import Any

from ..base.errors import CheckpointError, TransvizError, reason
from ..base.messages import translate_noop
from ..model.config import Activation, ModelConfig

T5_TYPES = ("t5", "mt5")
# T5 has no length limit of its own (its buckets cover any offset): transviz's table of positions is this long
MAX_LEN = 512
ACTIVATIONS: dict[str, Activation] = {"relu": "relu", "gelu_new": "gelu-tanh", "gelu": "gelu", "silu": "silu"}


def t5_config(folder: Path, hf: Any, sizes: tuple[int, int], shared: bool) -> ModelConfig:
    """transviz's config for the T5 config ``hf``; CheckpointError for what transviz's model lacks."""
    if hf.num_heads * hf.d_kv != hf.d_model:
        raise CheckpointError(translate_noop("CoreMessages", "{0}: its {1} heads of {2} dimensions make {3}, not its "
                                                             "width {4}; transviz's heads split the width"),
                              str(folder), hf.num_heads, hf.d_kv, hf.num_heads * hf.d_kv, hf.d_model)
    activation = ACTIVATIONS.get(hf.dense_act_fn)
    if activation is None:
        raise CheckpointError(translate_noop("CoreMessages", "{0}: activation {1} is not one transviz has ({2})"),
                              str(folder), repr(hf.dense_act_fn), ", ".join(ACTIVATIONS))
    try:
        return ModelConfig(
            *sizes, d_model=hf.d_model, n_heads=hf.num_heads, n_encoder_layers=hf.num_layers,
            n_decoder_layers=hf.num_decoder_layers, d_ff=hf.d_ff, dropout=0.0, max_len=MAX_LEN, norm="pre",
            activation=activation, share_embeddings=shared, final_norm=True, scale_embeddings=False,
            positional="t5", bias=False, layer_norm="rms", layer_norm_eps=hf.layer_norm_epsilon,
            relative_buckets=hf.relative_attention_num_buckets,
            relative_max_distance=hf.relative_attention_max_distance, scale_scores=False,
            gated_ffn=bool(hf.is_gated_act))
    except TransvizError as exc:
        raise CheckpointError(translate_noop("CoreMessages", "{0}: the model's sizes do not make a model: {1}"),
                              str(folder), reason(exc)) from None


def _attention(ours: str, theirs: str) -> dict[str, list[str]]:
    return {f"{ours}.in_proj_weight": [f"{theirs}.{p}.weight" for p in "qkv"], f"{ours}.out_proj.weight": [
        f"{theirs}.o.weight"]}


def _ffn(ours: str, theirs: str, gated: bool) -> dict[str, list[str]]:
    if not gated:
        return {f"{ours}.linear1.weight": [f"{theirs}.wi.weight"], f"{ours}.linear2.weight": [f"{theirs}.wo.weight"]}
    return {f"{ours}.linear1.weight": [f"{theirs}.wi_0.weight"], f"{ours}.linear3.weight": [f"{theirs}.wi_1.weight"],
            f"{ours}.linear2.weight": [f"{theirs}.wo.weight"]}


def t5_names(config: ModelConfig) -> dict[str, list[str]]:
    """transviz's state-dict name -> the T5 tensors it is made of (concatenated), for the stacks."""
    gated = config.gated_ffn
    names: dict[str, list[str]] = {}
    for i in range(config.n_encoder_layers):
        ours, theirs = f"encoder_layers.{i}", f"encoder.block.{i}.layer"
        names |= _attention(f"{ours}.self_attn", f"{theirs}.0.SelfAttention")
        names |= _ffn(f"{ours}.ffn", f"{theirs}.1.DenseReluDense", gated)
        names |= {f"{ours}.norm1.weight": [f"{theirs}.0.layer_norm.weight"],
                  f"{ours}.norm2.weight": [f"{theirs}.1.layer_norm.weight"]}
    for i in range(config.n_decoder_layers):
        ours, theirs = f"decoder_layers.{i}", f"decoder.block.{i}.layer"
        names |= _attention(f"{ours}.self_attn", f"{theirs}.0.SelfAttention")
        names |= _attention(f"{ours}.cross_attn", f"{theirs}.1.EncDecAttention")
        names |= _ffn(f"{ours}.ffn", f"{theirs}.2.DenseReluDense", gated)
        names |= {f"{ours}.norm{n + 1}.weight": [f"{theirs}.{n}.layer_norm.weight"] for n in range(3)}
    for stack in ("encoder", "decoder"):
        names[f"{stack}_norm.weight"] = [f"{stack}.final_layer_norm.weight"]
        names[f"{stack}_relative_bias.table.weight"] = [f"{stack}.block.0.layer.0.SelfAttention."
                                                        "relative_attention_bias.weight"]
    return names


def t5_tables(names: Collection[str]) -> tuple[str, str, str]:
    """The tensors of the source embedding, the target embedding and the output layer, of the
    tensor ``names`` a folder holds: T5 v1.1 saved its own output layer, the others reuse the table."""
    return "shared.weight", "shared.weight", "lm_head.weight" if "lm_head.weight" in names else "shared.weight"


def output_scale(hf: Any) -> float:
    """What the decoder's output is multiplied by before the output layer: d_model^-0.5 for T5 and
    mT5 but not T5 v1.1 (transformers says so in ``scale_decoder_outputs``; before that, with
    ``tie_word_embeddings``)."""
    scaled = getattr(hf, "scale_decoder_outputs", None)
    if scaled is None:
        scaled = getattr(hf, "tie_word_embeddings", True)
    return float(hf.d_model) ** -0.5 if scaled else 1.0
