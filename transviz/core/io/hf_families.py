"""The Hugging Face encoder-decoder families transviz reads, and what each differs in from the
paper's Transformer: where its LayerNorms are, what it adds as positions, which tokenizer files it
needs, and how its tensors are named; and the families it refuses, each with the reason in one
line (:mod:`transviz.core.io.hf_import` loads them)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..base.messages import translate_noop
from ..model.config import Activation, ModelConfig, Norm, Positional

ACTIVATIONS: dict[str, Activation] = {"swish": "silu", "silu": "silu", "gelu": "gelu", "relu": "relu"}


@dataclass(frozen=True)
class Family:
    """How one model type's encoder-decoder differs from the paper's: where its LayerNorms are,
    what it adds as positions, and which files its tokenizer needs (one of each tuple)."""

    tokenizer_files: tuple[tuple[str, ...], ...]
    norm: Norm = "post"
    positional: Positional = "learned"
    embedding_norm: bool = False  # a LayerNorm after embeddings + positions (layernorm_embedding)
    final_norm: bool = False  # each stack ends with a LayerNorm (encoder.layer_norm)


FAMILIES = {
    "marian": Family((("source.spm",), ("target.spm",), ("vocab.json",)), positional="sinusoidal-halves"),
    "bart": Family((("tokenizer.json", "vocab.json"), ("tokenizer.json", "merges.txt")), embedding_norm=True),
    "mbart": Family((("tokenizer.json", "sentencepiece.bpe.model"),), norm="pre", embedding_norm=True,
                    final_norm=True),
    "pegasus": Family((("tokenizer.json", "spiece.model"),), norm="pre", positional="sinusoidal-halves",
                      final_norm=True),
    "m2m_100": Family((("tokenizer.json", "sentencepiece.bpe.model"),), norm="pre",
                      positional="sinusoidal-fairseq", final_norm=True),
    "fsmt": Family((("vocab-src.json",), ("vocab-tgt.json",), ("merges.txt",)), positional="sinusoidal-fairseq"),
    # read by hf_t5: relative buckets, RMSNorm, no biases, unscaled scores
    "t5": Family((("tokenizer.json", "spiece.model"),), norm="pre", positional="t5", final_norm=True),
    "mt5": Family((("tokenizer.json", "spiece.model"),), norm="pre", positional="t5", final_norm=True),
}
LEARNED_OFFSET = 2  # BART's and mBART's position tables start two rows in

# What each refused model type does that transviz's model cannot show honestly, in one line.
REFUSED = {
    "umt5": translate_noop("CoreMessages", "{0} is a UMT5 model: each of its layers learns its own relative-position "
                                           "buckets; transviz's T5 layers share one table per stack, as T5's do"),
    "longt5": translate_noop("CoreMessages", "{0} is a LongT5 model: its encoder attends within local blocks plus "
                                             "transient global tokens; transviz's attention reads every position"),
    "switch_transformers": translate_noop("CoreMessages", "{0} is a mixture-of-experts model: it sends each token to "
                                                          "one of several feed-forward networks; transviz's layers "
                                                          "have one"),
    "blenderbot-small": translate_noop("CoreMessages", "{0} is a BlenderbotSmall model: its decoder normalises the "
                                                       "token embeddings before it adds the positions (its encoder "
                                                       "after); transviz's model normalises both stacks after"),
    "led": translate_noop("CoreMessages", "{0} is an LED model: its encoder attends within a sliding window plus a few "
                                          "global tokens; transviz's attention reads every position"),
    "bigbird_pegasus": translate_noop("CoreMessages", "{0} is a BigBird-Pegasus model: its encoder attends to "
                                                      "random, window and global blocks; transviz's attention reads "
                                                      "every position"),
    "pegasus_x": translate_noop("CoreMessages", "{0} is a PEGASUS-X model: its encoder attends within staggered "
                                                "blocks plus global tokens; transviz's attention reads every "
                                                "position"),
    "prophetnet": translate_noop("CoreMessages", "{0} is a ProphetNet model: its decoder predicts several future "
                                                 "tokens in parallel streams with relative positions; transviz's "
                                                 "decoder predicts the next token"),
    "xlm-prophetnet": translate_noop("CoreMessages", "{0} is a ProphetNet model: its decoder predicts several "
                                                     "future tokens in parallel streams with relative positions; "
                                                     "transviz's decoder predicts the next token"),
    "nllb-moe": translate_noop("CoreMessages", "{0} is a mixture-of-experts model: it sends each token to one of "
                                               "several feed-forward networks; transviz's layers have one"),
    "encoder-decoder": translate_noop("CoreMessages", "{0} joins two separately built models (an EncoderDecoderModel); "
                                                      "transviz reads encoder-decoders built as one"),
}




def _attention(ours: str, theirs: str) -> dict[str, list[str]]:
    """transviz's packed W_Q | W_K | W_V from Hugging Face's three projections."""
    return {f"{ours}.in_proj_weight": [f"{theirs}.{p}_proj.weight" for p in "qkv"],
            f"{ours}.in_proj_bias": [f"{theirs}.{p}_proj.bias" for p in "qkv"],
            f"{ours}.out_proj.weight": [f"{theirs}.out_proj.weight"],
            f"{ours}.out_proj.bias": [f"{theirs}.out_proj.bias"]}


def _norm(ours: str, theirs: str) -> dict[str, list[str]]:
    return {f"{ours}.{p}": [f"{theirs}.{p}"] for p in ("weight", "bias")}


def _ffn(ours: str, theirs: str) -> dict[str, list[str]]:
    return {f"{ours}.linear{n}.{p}": [f"{theirs}.fc{n}.{p}"] for n in (1, 2) for p in ("weight", "bias")}


def hf_names(config: ModelConfig) -> dict[str, list[str]]:
    """transviz's state-dict name -> the Hugging Face tensors it is made of (concatenated), for
    the stacks; the embeddings, positions and output layer are mapped by the loader."""
    names: dict[str, list[str]] = {}
    for i in range(config.n_encoder_layers):
        ours, theirs = f"encoder_layers.{i}", f"model.encoder.layers.{i}"
        names |= _attention(f"{ours}.self_attn", f"{theirs}.self_attn") | _ffn(f"{ours}.ffn", theirs)
        names |= _norm(f"{ours}.norm1", f"{theirs}.self_attn_layer_norm") | _norm(f"{ours}.norm2",
                                                                                    f"{theirs}.final_layer_norm")
    for i in range(config.n_decoder_layers):
        ours, theirs = f"decoder_layers.{i}", f"model.decoder.layers.{i}"
        names |= _attention(f"{ours}.self_attn", f"{theirs}.self_attn")
        names |= _attention(f"{ours}.cross_attn", f"{theirs}.encoder_attn") | _ffn(f"{ours}.ffn", theirs)
        names |= _norm(f"{ours}.norm1", f"{theirs}.self_attn_layer_norm")
        names |= _norm(f"{ours}.norm2", f"{theirs}.encoder_attn_layer_norm")
        names |= _norm(f"{ours}.norm3", f"{theirs}.final_layer_norm")
    for stack in ("encoder", "decoder"):
        if config.embedding_norm:
            names |= _norm(f"{stack}_embed_norm", f"model.{stack}.layernorm_embedding")
        if config.has_final_norm:
            names |= _norm(f"{stack}_norm", f"model.{stack}.layer_norm")
    return names


def table_names(hf: Any) -> tuple[str, str, str]:
    """The tensors of the source embedding, the target embedding and the output layer. Tied
    models save one table (``model.shared``); ``tie_word_embeddings=False`` keeps three, and a
    Marian model with two vocabularies keeps one table per stack, as FSMT does."""
    tied = bool(getattr(hf, "tie_word_embeddings", True))
    if hf.model_type == "fsmt":  # tied, all three are the decoder's table (one joint vocabulary)
        target = "model.decoder.embed_tokens.weight"
        if tied:
            return (target,) * 3
        return "model.encoder.embed_tokens.weight", target, "model.decoder.output_projection.weight"
    if getattr(hf, "share_encoder_decoder_embeddings", True) is False:
        target = "model.decoder.embed_tokens.weight"
        return "model.encoder.embed_tokens.weight", target, target if tied else "lm_head.weight"
    if tied:
        return ("model.shared.weight",) * 3
    return "model.encoder.embed_tokens.weight", "model.decoder.embed_tokens.weight", "lm_head.weight"
