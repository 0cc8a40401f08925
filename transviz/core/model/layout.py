"""The tensors of the network a :class:`~transviz.core.model.config.ModelConfig` describes, computed
from the config alone, so that a checkpoint's tensors can be checked against its config before
any memory is spent on the network (building it on torch's "meta" device would do the same, but
its first use imports torch's compiler, which takes seconds). The tests compare this layout with
``Transformer(config).state_dict()``."""
from __future__ import annotations

from typing import Protocol


class Sizes(Protocol):
    """What the layout reads of a :class:`~transviz.core.model.config.ModelConfig`. A protocol, not
    the class: config.py counts parameters with this layout, so importing it here would be a cycle."""

    @property
    def d_model(self) -> int: ...
    @property
    def d_ff(self) -> int: ...
    @property
    def n_encoder_layers(self) -> int: ...
    @property
    def n_decoder_layers(self) -> int: ...
    @property
    def max_len(self) -> int: ...
    @property
    def src_vocab_size(self) -> int: ...
    @property
    def tgt_vocab_size(self) -> int: ...
    @property
    def positional(self) -> str: ...
    @property
    def share_embeddings(self) -> bool: ...
    @property
    def tie_output(self) -> bool: ...
    @property
    def embedding_norm(self) -> bool: ...
    @property
    def has_final_norm(self) -> bool: ...
    @property
    def bias(self) -> bool: ...
    @property
    def n_heads(self) -> int: ...
    @property
    def kv_heads(self) -> int: ...
    @property
    def layer_norm(self) -> str: ...
    @property
    def decoder_only(self) -> bool: ...
    @property
    def gated_ffn(self) -> bool: ...
    @property
    def relative_buckets(self) -> int: ...

Shape = tuple[int, ...]
Entry = tuple[tuple[str, ...], Shape]  # one tensor: the state-dict names it goes by (2 or 3 when tied), its shape


def _norm(prefix: str, d: int, rms: bool = False) -> dict[str, Shape]:
    """A LayerNorm's weight and bias; an RMSNorm's weight alone."""
    return {f"{prefix}.weight": (d,)} if rms else {f"{prefix}.weight": (d,), f"{prefix}.bias": (d,)}


def _attention(prefix: str, d: int, kv: int) -> dict[str, Shape]:
    """``kv``: the width of keys and of values (d, or less when heads share them)."""
    rows = d + 2 * kv  # W_Q | W_K | W_V
    return {f"{prefix}.in_proj_weight": (rows, d), f"{prefix}.in_proj_bias": (rows,),
            f"{prefix}.out_proj.weight": (d, d), f"{prefix}.out_proj.bias": (d,)}


def _feed_forward(prefix: str, d: int, d_ff: int, gated: bool = False) -> dict[str, Shape]:
    shapes = {f"{prefix}.linear1.weight": (d_ff, d), f"{prefix}.linear1.bias": (d_ff,),
              f"{prefix}.linear2.weight": (d, d_ff), f"{prefix}.linear2.bias": (d,)}
    if gated:  # the linear half of a GLU
        shapes |= {f"{prefix}.linear3.weight": (d_ff, d), f"{prefix}.linear3.bias": (d_ff,)}
    return shapes


def _layers(config: Sizes) -> dict[str, Shape]:
    d, d_ff, rms = config.d_model, config.d_ff, config.layer_norm == "rms"
    kv = d // config.n_heads * config.kv_heads
    shapes: dict[str, Shape] = {}
    if config.decoder_only:
        return _biases_kept(_stream_layers(config), config.bias)
    for i in range(config.n_encoder_layers):
        shapes |= _attention(f"encoder_layers.{i}.self_attn", d, kv)
        shapes |= _feed_forward(f"encoder_layers.{i}.ffn", d, d_ff, config.gated_ffn)
        shapes |= _norm(f"encoder_layers.{i}.norm1", d, rms) | _norm(f"encoder_layers.{i}.norm2", d, rms)
    for i in range(config.n_decoder_layers):
        shapes |= _attention(f"decoder_layers.{i}.self_attn", d, kv)
        shapes |= _attention(f"decoder_layers.{i}.cross_attn", d, kv)
        shapes |= _feed_forward(f"decoder_layers.{i}.ffn", d, d_ff, config.gated_ffn)
        shapes |= _norm(f"decoder_layers.{i}.norm1", d, rms) | _norm(f"decoder_layers.{i}.norm2", d, rms)
        shapes |= _norm(f"decoder_layers.{i}.norm3", d, rms)
    if config.has_final_norm:  # Pre-LN (and torch.nn.Transformer) ends each stack with a LayerNorm
        shapes |= _norm("encoder_norm", d, rms) | _norm("decoder_norm", d, rms)
    return _biases_kept(shapes, config.bias)


def _stream_layers(config: Sizes) -> dict[str, Shape]:
    """A decoder-only model's layers: self-attention and feed-forward, one final norm."""
    d, d_ff, rms = config.d_model, config.d_ff, config.layer_norm == "rms"
    kv = d // config.n_heads * config.kv_heads
    shapes: dict[str, Shape] = {}
    for i in range(config.n_decoder_layers):
        shapes |= _attention(f"decoder_layers.{i}.self_attn", d, kv)
        shapes |= _feed_forward(f"decoder_layers.{i}.ffn", d, d_ff, config.gated_ffn)
        shapes |= _norm(f"decoder_layers.{i}.norm1", d, rms) | _norm(f"decoder_layers.{i}.norm2", d, rms)
    if config.has_final_norm:
        shapes |= _norm("decoder_norm", d, rms)
    return shapes


def _biases_kept(shapes: dict[str, Shape], bias: bool) -> dict[str, Shape]:
    """``shapes`` less every bias when the model has none (nn.Transformer(bias=False) drops them in
    attention, feed-forward and LayerNorm alike)."""
    return shapes if bias else {name: shape for name, shape in shapes.items() if not name.endswith("bias")}


def tensor_layout(config: Sizes) -> list[Entry]:
    """Every distinct tensor of ``Transformer(config)``, in state-dict order, under all its names."""
    d = config.d_model
    src = ["src_embed.weight"] + (["tgt_embed.weight"] if config.share_embeddings else [])
    tgt = src if config.share_embeddings else ["tgt_embed.weight"]
    if config.tie_output:
        tgt.append("generator.weight")
    entries: list[Entry] = []
    if config.positional == "learned":  # the network's own parameters come before its modules'
        if not config.decoder_only:  # one stream, one table
            entries.append((("encoder_positions",), (config.max_len, d)))
        entries.append((("decoder_positions",), (config.max_len, d)))
    if config.positional == "t5":  # a learned bias per bucket and head, one table per stack
        entries += [(("encoder_relative_bias.table.weight",), (config.relative_buckets, config.n_heads)),
                    (("decoder_relative_bias.table.weight",), (config.relative_buckets, config.n_heads))]
    entries.append((tuple(src), (config.src_vocab_size, d)))
    if not config.share_embeddings:
        entries.append((tuple(tgt), (config.tgt_vocab_size, d)))
    if config.embedding_norm:
        entries += [((name,), shape) for name, shape in
                    _biases_kept(_norm("encoder_embed_norm", d, config.layer_norm == "rms")
                                 | _norm("decoder_embed_norm", d, config.layer_norm == "rms"), config.bias).items()]
    entries += [((name,), shape) for name, shape in _layers(config).items()]
    if not config.tie_output:
        entries.append((("generator.weight",), (config.tgt_vocab_size, d)))
    entries.append((("generator.bias",), (config.tgt_vocab_size,)))
    return entries
