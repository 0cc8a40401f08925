"""Hugging Face encoder-decoders (MarianMT, BART) saved with ``save_pretrained``, as transviz models.

A folder holding ``config.json``, ``model.safetensors`` and the tokenizer's files is read without
any download. Its weights are mapped onto transviz's own
:class:`~transviz.core.model.transformer.Transformer` (Marian and BART are post-norm encoder-decoders like the
paper's; :class:`~transviz.core.model.config.ModelConfig` says how their embeddings and positions
differ), so every view, strategy and intervention works on them unchanged. Weights are read from
safetensors only: ``pytorch_model.bin`` is a pickle, and unpickling runs whatever code it holds.

Special tokens move to ids 0-3 as in every transviz vocabulary: <pad>, the decoder's start token,
</s>, <unk>. Marian starts decoding with <pad> and BART with </s>; that token then keeps its own id
too, and id 1 (the start) gets a copy of its embedding and an output row no one predicts (weight 0,
bias -1e4: its probability is 0 in float32, as transviz never outputs the start token).

The tokenizer (``transformers.AutoTokenizer``) needs the ``hf`` extra: ``pip install 'transviz[hf]'``.
"""
from __future__ import annotations

import json
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch import Tensor

from ..base.errors import CheckpointError, TransvizError, reason
from ..base.messages import Message, translate_noop
from ..model.bundle import Model
from ..model.config import MAX_SIZES, Activation, ModelConfig
from ..model.layout import tensor_layout
from ..model.transformer import Transformer
from ..model.vocab import SPECIALS
from .checkpoint_file import bounded_json, check_file
from .hf_vocab import TokenizerVocab
from .torch_import import read_safetensors
from .weights_check import check_finite_forward

CONFIG, WEIGHTS, PICKLED = "config.json", "model.safetensors", "pytorch_model.bin"
TOKENIZER_FILES = {"marian": (("source.spm",), ("target.spm",), ("vocab.json",)),
                   "bart": (("tokenizer.json", "vocab.json"), ("tokenizer.json", "merges.txt"))}  # one of each
ACTIVATIONS: dict[str, Activation] = {"swish": "silu", "silu": "silu", "gelu": "gelu", "relu": "relu"}
UNPREDICTED_BIAS = -1e4  # the copied start row's output bias: softmax gives it 0 (float32), never NaN
INSTALL_HINT = "pip install 'transviz[hf]'"

MISSING_FILE = translate_noop("CoreMessages", "{0} has no {1}: a model saved with save_pretrained has one")
NOT_SUPPORTED = translate_noop("CoreMessages", "{0}: model type {1} is not one transviz reads (it reads {2})")
# What each refused model type needs that transviz's model cannot show honestly.
T5_FAMILY = ("t5", "mt5", "umt5", "longt5")
T5_REFUSED = translate_noop("CoreMessages", "{0} is a T5 model: T5 adds learned relative-position buckets to every "
                                            "attention score and normalises with RMSNorm (no mean, no bias); "
                                            "transviz's model has absolute positions and LayerNorm, so it cannot show "
                                            "T5's attention without drawing it wrong")


def handles(path: object) -> bool:
    """Whether :func:`load` is the loader for ``path``: a folder."""
    return isinstance(path, str | Path) and Path(path).is_dir()


@dataclass(frozen=True)
class Specials:
    """The tokenizer's ids of the special tokens, in transviz's order (pad, start, end, unknown)."""

    pad: int
    start: int
    eos: int
    unk: int

    def order(self, size: int) -> list[int]:
        """The tokenizer's id of each transviz id: the specials, then every other id in its order."""
        first = [self.pad, self.start, self.eos, self.unk]
        return first + [i for i in range(size) if i not in first]


def _read_config(folder: Path) -> dict[str, Any]:
    path = folder / CONFIG
    if not path.is_file():  # perhaps no model folder at all: say what transviz opens
        raise CheckpointError(translate_noop("CoreMessages", "{0} is a folder, not a checkpoint file: name a {1} file "
                                                             "in it, or a folder a Hugging Face model was saved in "
                                                             "(it has no {2})"), str(folder), ".safetensors", CONFIG)
    check_file(path)
    try:
        data = bounded_json(path.read_text(encoding="utf-8"), Message(translate_noop("CoreMessages", "model config")))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise CheckpointError(translate_noop("CoreMessages", "{0} is not readable JSON ({1})"), str(path),
                              str(exc)) from None
    if not isinstance(data, dict):
        raise CheckpointError(translate_noop("CoreMessages", "{0} is not readable JSON ({1})"), str(path),
                              "not an object")
    return data


# config.json's sizes, each checked as the ModelConfig field it becomes, before transformers reads
# the file (it takes "32", null or 1e8 as they are, and a vocabulary of 1e8 fills the memory)
SIZES = {"d_model": "d_model", "encoder_attention_heads": "n_heads", "decoder_attention_heads": "n_heads",
         "encoder_layers": "n_encoder_layers", "decoder_layers": "n_decoder_layers", "encoder_ffn_dim": "d_ff",
         "decoder_ffn_dim": "d_ff", "max_position_embeddings": "max_len", "vocab_size": "src_vocab_size"}


def _check_sizes(path: Path, data: dict[str, Any]) -> None:
    for key, field in SIZES.items():
        if key not in data:  # transformers' default for the model type
            continue
        value, most = data[key], MAX_SIZES[field]
        if type(value) is not int or not 1 <= value <= most:
            raise CheckpointError(translate_noop("CoreMessages", "{0}: {1} must be a whole number from 1 to {2}, got "
                                                                 "{3}"), str(path), key, f"{most:,}", json.dumps(value))


def _check_type(folder: Path, data: dict[str, Any]) -> str:
    kind = data.get("model_type")
    if not isinstance(kind, str):  # null, a number or a list: named as the file has it
        raise CheckpointError(NOT_SUPPORTED, str(folder), json.dumps(kind), ", ".join(TOKENIZER_FILES))
    if kind in T5_FAMILY:
        raise CheckpointError(T5_REFUSED, str(folder))
    if kind not in TOKENIZER_FILES:
        raise CheckpointError(NOT_SUPPORTED, str(folder), json.dumps(kind), ", ".join(TOKENIZER_FILES))
    return str(kind)


def _weights(folder: Path) -> Path:
    """``model.safetensors``; a folder with only the pickled weights is told how to re-save them."""
    path = folder / WEIGHTS
    if path.is_file():
        return path
    if (folder / PICKLED).exists():
        raise CheckpointError(translate_noop("CoreMessages", "{0} holds its weights only in {1}, a pickle, which "
                                                             "transviz never loads; save the model again with "
                                                             "save_pretrained(folder, safe_serialization=True) to "
                                                             "write {2}"), str(folder), PICKLED, WEIGHTS)
    raise CheckpointError(MISSING_FILE, str(folder), WEIGHTS)


def _check_tokenizer_files(folder: Path, kind: str) -> None:
    for choices in TOKENIZER_FILES[kind]:
        if not any((folder / name).is_file() for name in choices):
            raise CheckpointError(MISSING_FILE, str(folder), choices[-1])


def _transformers() -> Any:
    try:
        import transformers
    except ImportError:
        raise CheckpointError(translate_noop("CoreMessages", "opening a Hugging Face model needs the transformers "
                                                             "package: {0}"), INSTALL_HINT) from None
    return transformers


# -- the config ----------------------------------------------------------------------------------
def _model_config(folder: Path, hf: Any, vocab_size: int) -> ModelConfig:
    """transviz's config for the Hugging Face ``hf`` config; CheckpointError for what differs."""
    same = (("encoder_attention_heads", "decoder_attention_heads"), ("encoder_ffn_dim", "decoder_ffn_dim"))
    for ours, theirs in same:
        if getattr(hf, ours) != getattr(hf, theirs):
            raise CheckpointError(translate_noop("CoreMessages", "{0}: {1} and {2} differ; transviz's encoder and "
                                                                 "decoder have the same sizes"), str(folder), ours,
                                  theirs)
    activation = ACTIVATIONS.get(hf.activation_function)
    if activation is None:
        raise CheckpointError(translate_noop("CoreMessages", "{0}: activation {1} is not one transviz has ({2})"),
                              str(folder), repr(hf.activation_function), ", ".join(ACTIVATIONS))
    if hf.model_type == "marian" and not getattr(hf, "share_encoder_decoder_embeddings", True):
        raise CheckpointError(translate_noop("CoreMessages", "{0}: a Marian model with separate source and target "
                                                             "vocabularies is not supported yet"), str(folder))
    bart = hf.model_type == "bart"
    try:
        return ModelConfig(
            vocab_size, vocab_size, d_model=hf.d_model, n_heads=hf.encoder_attention_heads,
            n_encoder_layers=hf.encoder_layers, n_decoder_layers=hf.decoder_layers, d_ff=hf.encoder_ffn_dim,
            dropout=0.0, max_len=hf.max_position_embeddings, norm="post", activation=activation,
            share_embeddings=True, final_norm=False, scale_embeddings=bool(hf.scale_embedding),
            positional="learned" if bart else "sinusoidal-halves", embedding_norm=bart)
    except TransvizError as exc:
        raise CheckpointError(translate_noop("CoreMessages", "{0}: the model's sizes do not make a model: {1}"),
                              str(folder), reason(exc)) from None


def _specials(folder: Path, hf: Any, tokenizer: Any, size: int) -> Specials:
    found = Specials(hf.pad_token_id, hf.decoder_start_token_id, hf.eos_token_id, tokenizer.unk_token_id)
    for name, value in vars(found).items():
        if not isinstance(value, int) or not 0 <= value < size:
            raise CheckpointError(translate_noop("CoreMessages", "{0}: the {1} token id is {2}, outside the "
                                                                 "vocabulary of {3}"), str(folder), name, repr(value),
                                  size)
    if len({found.pad, found.eos, found.unk}) < 3:
        raise CheckpointError(translate_noop("CoreMessages", "{0}: padding, end and unknown share a token id"),
                              str(folder))
    return found


def _names(tokenizer: Any, order: list[int]) -> list[str]:
    """transviz's token names: the specials as transviz names them, then the tokenizer's pieces;
    a piece named like a special token (BART's own <s>) or unnamed gets its id appended."""
    pieces = {i: t for t, i in tokenizer.get_vocab().items()}
    names, used = list(SPECIALS), set(SPECIALS)
    for theirs in order[len(SPECIALS):]:
        name = pieces.get(theirs) or f"<id {theirs}>"
        if name in used:
            name = f"{name}#{theirs}"
        names.append(name)
        used.add(name)
    return names


# -- the weights ---------------------------------------------------------------------------------
def _shared_table(tensors: dict[str, Tensor]) -> str:
    for name in ("model.shared.weight", "model.encoder.embed_tokens.weight", "model.decoder.embed_tokens.weight"):
        if name in tensors:
            return name
    return "model.shared.weight"  # named as missing


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
    the stacks; the embeddings, positions and output layer are mapped by :func:`_mapped_state`."""
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
    if config.embedding_norm:
        names |= _norm("encoder_embed_norm", "model.encoder.layernorm_embedding")
        names |= _norm("decoder_embed_norm", "model.decoder.layernorm_embedding")
    return names


def _tensor(tensors: dict[str, Tensor], name: str, weights: Path, shape: tuple[int, ...]) -> Tensor:
    """The tensor ``name`` as float32, once it is there, holds floating-point numbers and has ``shape``."""
    if name not in tensors:
        raise CheckpointError(translate_noop("CoreMessages", "{0} has no tensor {1}"), weights.name, name)
    tensor = tensors[name]
    if not tensor.is_floating_point():
        raise CheckpointError(translate_noop("CoreMessages", "{0}: tensor {1} holds {2}, not floating-point "
                                                             "weights"), weights.name, name,
                              str(tensor.dtype).removeprefix("torch."))
    if tuple(tensor.shape) != shape:
        raise CheckpointError(translate_noop("CoreMessages", "{0}: tensor {1} has shape {2}, the config needs {3}"),
                              weights.name, name, str(tuple(tensor.shape)), str(shape))
    return tensor.float()


def _check_depth(config: ModelConfig, tensors: dict[str, Tensor], weights: Path) -> None:
    """CheckpointError if the weights hold a layer deeper than config.json gives (it would be left out)."""
    for stack, count in (("encoder", config.n_encoder_layers), ("decoder", config.n_decoder_layers)):
        prefix = f"model.{stack}.layers."
        found = {name[len(prefix):].split(".", 1)[0] for name in tensors if name.startswith(prefix)}
        deeper = sorted(int(i) for i in found if i.isdigit() and int(i) >= count)
        if deeper:
            raise CheckpointError(translate_noop("CoreMessages", "{0} holds {1} layer {2}, but config.json gives the "
                                                                 "{1} {3} layers"), weights.name, stack, deeper[0],
                                  count)


def _mapped_state(config: ModelConfig, tensors: dict[str, Tensor], order: list[int], weights: Path,
                  start_copied: bool, vocab_size: int) -> dict[str, Tensor]:
    """transviz's state dict from the Hugging Face ``tensors`` of a ``vocab_size`` vocabulary; rows
    of the vocabulary follow ``order``. Every tensor is checked against the config before use."""
    _check_depth(config, tensors, weights)
    layout = {names[0]: shape for names, shape in tensor_layout(config)}
    state = {ours: torch.cat([_tensor(tensors, name, weights, (layout[ours][0] // len(theirs), *layout[ours][1:]))
                              for name in theirs])
             for ours, theirs in hf_names(config).items()}
    rows_of_d = (vocab_size, config.d_model)
    table = _tensor(tensors, _shared_table(tensors), weights, rows_of_d)
    output = _tensor(tensors, "lm_head.weight", weights, rows_of_d) if "lm_head.weight" in tensors else table
    bias = (_tensor(tensors, "final_logits_bias", weights, (1, vocab_size)) if "final_logits_bias" in tensors
            else torch.zeros(1, vocab_size)).reshape(-1)
    rows = torch.tensor(order)
    state["src_embed.weight"] = state["tgt_embed.weight"] = table[rows]
    state["generator.weight"], state["generator.bias"] = output[rows].clone(), bias[rows].clone()
    if start_copied:  # id 1 is a copy of the start token's input row: it is never an output
        state["generator.weight"][1], state["generator.bias"][1] = 0.0, UNPREDICTED_BIAS
    if config.positional == "learned":  # BART's tables start 2 rows in (its position offset)
        for stack in ("encoder", "decoder"):
            state[f"{stack}_positions"] = _tensor(tensors, f"model.{stack}.embed_positions.weight", weights,
                                                  (config.max_len + 2, config.d_model))[2:]
    return state


def _check_tokenizer_ids(folder: Path, tokenizers: tuple[Any, ...], vocab_size: int) -> None:
    """CheckpointError if a tokenizer gives ids the model has no row for."""
    for tokenizer in tokenizers:
        ids = max(tokenizer.get_vocab().values(), default=-1) + 1
        if ids > vocab_size:
            raise CheckpointError(translate_noop("CoreMessages", "{0}: the tokenizer gives ids up to {1}, but the "
                                                                 "model's vocabulary holds {2}"), str(folder), ids - 1,
                                  vocab_size)


# -- loading -------------------------------------------------------------------------------------
def load(path: str | Path, device: str = "cpu") -> Model:
    """The Hugging Face model saved in the folder ``path``; CheckpointError naming a missing file,
    a model type transviz does not read (T5 is refused with the reason), or a missing package."""
    folder = Path(path)
    data = _read_config(folder)
    kind = _check_type(folder, data)
    _check_sizes(folder / CONFIG, data)
    weights = _weights(folder)
    _check_tokenizer_files(folder, kind)
    transformers = _transformers()
    # tokenizer_config.json's sp_model_kwargs would hand SentencePiece any file on the machine
    # (model_file = "/etc/passwd"): Marian's come from here, the folder's source.spm and target.spm
    overrides: dict[str, dict[str, str]] = {"sp_model_kwargs": {}} if kind == "marian" else {}
    try:
        hf = transformers.AutoConfig.from_pretrained(folder, local_files_only=True)
        with warnings.catch_warnings():  # Marian's tokenizer recommends sacremoses, which it does not need
            warnings.simplefilter("ignore")
            source, target = (transformers.AutoTokenizer.from_pretrained(folder, local_files_only=True, **overrides)
                              for _ in "st")
    except Exception as exc:  # any failure of another library parsing the files a user gave
        raise CheckpointError(translate_noop("CoreMessages", "{0}: transformers could not read it ({1})"),
                              str(folder), str(exc)) from None
    _check_tokenizer_ids(folder, (source, target), hf.vocab_size)
    specials = _specials(folder, hf, source, hf.vocab_size)
    order = specials.order(hf.vocab_size)
    names = _names(source, order)
    config = _model_config(folder, hf, len(order))
    start_copied = specials.start in (specials.pad, specials.eos, specials.unk)
    net = Transformer(config)
    net.load_state_dict(_mapped_state(config, read_safetensors(weights), order, weights, start_copied, hf.vocab_size))
    check_finite_forward(net.eval(), weights.name)
    ours = {theirs: mine for mine, theirs in enumerate(order) if mine != 1 or not start_copied}
    facts = {"imported": f"Hugging Face {type(hf).__name__.removesuffix('Config')} ({folder.name})",
             "hf_model_type": kind, "transformers_version": transformers.__version__}
    return Model(net.to(device), TokenizerVocab(names, source, ours, target=False),
                 TokenizerVocab(names, target, ours, target=True), facts, str(folder))
