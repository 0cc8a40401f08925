"""Hugging Face encoder-decoders saved with ``save_pretrained``, as transviz models: MarianMT,
BART, mBART and Pegasus (:data:`FAMILIES`), with one vocabulary or two, tied or separate embedding
tables, in one safetensors file or in shards.

A folder holding ``config.json``, the weights and the tokenizer's files is read without any
download. Its weights are mapped onto transviz's own
:class:`~transviz.core.model.transformer.Transformer` (these are all the paper's encoder-decoder,
post-norm or pre-norm; :class:`~transviz.core.model.config.ModelConfig` says how their embeddings
and positions differ), so every view, strategy and intervention works on them unchanged. Weights
are read from safetensors only: ``pytorch_model.bin`` is a pickle, and unpickling runs whatever
code it holds. A family whose attention or layers differ from that model is refused with the
reason (:data:`REFUSED`).

Special tokens move to ids 0-3 as in every transviz vocabulary: <pad>, the decoder's start token,
</s>, <unk>. The start token (Marian's <pad>, BART's </s>, mBART's target language) keeps its own
id too: id 1 is a copy of its embedding with an output row no one predicts (weight 0, bias -1e4:
its probability is 0 in float32, as transviz never outputs the start token).

GPT-2 and the Llama family (Llama, Mistral) load as decoder-only models (:mod:`.hf_decoder`): one
vocabulary with new rows for padding and the start token, the prompt's last token the first input
of the output.

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
from ..model.config import MAX_SIZES, ModelConfig
from ..model.layout import tensor_layout
from ..model.positional import FAIRSEQ_FIRST_POSITION, sine_table
from ..model.transformer import Transformer
from ..model.vocab import SPECIALS
from . import hf_decoder
from .checkpoint_file import json_object
from .hf_decoder import DECODER_TYPES, REFUSED_DECODERS
from .hf_families import ACTIVATIONS, FAMILIES, LEARNED_OFFSET, REFUSED, hf_names, table_names
from .hf_generation import not_applied, read_settings, rules
from .hf_t5 import T5_TYPES, output_scale, t5_config, t5_names, t5_tables
from .hf_vocab import TokenizerVocab, side_vocab
from .torch_import import read_safetensors
from .weights_check import check_finite_forward

CONFIG, WEIGHTS, PICKLED = "config.json", "model.safetensors", "pytorch_model.bin"
SHARD_INDEX = "model.safetensors.index.json"
UNPREDICTED_BIAS = -1e4  # the copied start row's output bias: softmax gives it 0 (float32), never NaN
INSTALL_HINT = "pip install 'transviz[hf]'"
MISSING_FILE = translate_noop("CoreMessages", "{0} has no {1}: a model saved with save_pretrained has one")
NOT_SUPPORTED = translate_noop("CoreMessages", "{0}: model type {1} is not one transviz reads (it reads {2})")


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
        """The tokenizer's id of each transviz id: the specials, then every other id in its order;
        the start token is copied to id 1 and keeps its own place too (see the module)."""
        kept = {self.pad, self.eos, self.unk}
        return [self.pad, self.start, self.eos, self.unk] + [i for i in range(size) if i not in kept]


@dataclass(frozen=True)
class Side:
    """One side of the model (the source or the target): its tokenizer, its vocabulary size and
    its pieces' ids."""

    tokenizer: Any
    size: int
    target: bool
    pieces: dict[str, int]


def _sides(hf: Any, source: Any, target: Any) -> tuple[Side, Side]:
    """The source and target sides; FSMT and Marian with two vocabularies keep a table each."""
    if hf.model_type == "fsmt":
        sizes = (hf.src_vocab_size, hf.tgt_vocab_size)
    else:
        sizes = (hf.vocab_size, getattr(hf, "decoder_vocab_size", None) or hf.vocab_size)  # Marian's may be null
    return (Side(source, sizes[0], False, side_vocab(source, False)),
            Side(target, sizes[1], True, side_vocab(target, True)))


def _read_config(folder: Path) -> dict[str, Any]:
    path = folder / CONFIG
    if not path.is_file():  # perhaps no model folder at all: say what transviz opens
        raise CheckpointError(translate_noop("CoreMessages", "{0} is a folder, not a checkpoint file: name a {1} file "
                                                             "in it, or a folder a Hugging Face model was saved in "
                                                             "(it has no {2})"), str(folder), ".safetensors", CONFIG)
    return json_object(path, Message(translate_noop("CoreMessages", "model config")))


# config.json's sizes, each checked as the ModelConfig field it becomes, before transformers reads
# the file (it takes "32", null or 1e8 as they are, and a vocabulary of 1e8 fills the memory)
SIZES = {"d_model": "d_model", "encoder_attention_heads": "n_heads", "decoder_attention_heads": "n_heads",
         "encoder_layers": "n_encoder_layers", "decoder_layers": "n_decoder_layers", "encoder_ffn_dim": "d_ff",
         "decoder_ffn_dim": "d_ff", "max_position_embeddings": "max_len", "vocab_size": "src_vocab_size",
         "decoder_vocab_size": "tgt_vocab_size", "src_vocab_size": "src_vocab_size",
         "tgt_vocab_size": "tgt_vocab_size",
         "num_layers": "n_encoder_layers", "num_decoder_layers": "n_decoder_layers", "num_heads": "n_heads",
         "d_ff": "d_ff"}  # T5's names


def _check_sizes(path: Path, data: dict[str, Any]) -> None:
    for key, field in SIZES.items():
        if data.get(key) is None and key == "decoder_vocab_size":  # Marian: null means vocab_size
            continue
        if key not in data:  # transformers' default for the model type
            continue
        value, most = data[key], MAX_SIZES[field]
        if type(value) is not int or not 1 <= value <= most:
            raise CheckpointError(translate_noop("CoreMessages", "{0}: {1} must be a whole number from 1 to {2}, got "
                                                                 "{3}"), str(path), key, f"{most:,}", json.dumps(value))


def _check_type(folder: Path, data: dict[str, Any]) -> str:
    kind = data.get("model_type")
    read = ", ".join([*FAMILIES, *DECODER_TYPES])
    if not isinstance(kind, str):  # null, a number or a list: named as the file has it
        raise CheckpointError(NOT_SUPPORTED, str(folder), json.dumps(kind), read)
    why = REFUSED.get(kind) or REFUSED_DECODERS.get(kind)  # a template naming the folder ({0}) and saying why
    if why is not None:
        raise CheckpointError(why, str(folder))
    if kind not in FAMILIES and kind not in DECODER_TYPES:
        raise CheckpointError(NOT_SUPPORTED, str(folder), json.dumps(kind), read)
    return str(kind)


def _weights(folder: Path) -> list[Path]:
    """The safetensors files: ``model.safetensors``, or the shards its index names; a folder with
    only the pickled weights is told how to re-save them."""
    path = folder / WEIGHTS
    if path.is_file():
        return [path]
    if (folder / SHARD_INDEX).is_file():
        return _shards(folder)
    if (folder / PICKLED).exists() or (folder / f"{PICKLED}.index.json").exists():
        raise CheckpointError(translate_noop("CoreMessages", "{0} holds its weights only in {1}, a pickle, which "
                                                             "transviz never loads; save the model again with "
                                                             "save_pretrained(folder, safe_serialization=True) to "
                                                             "write {2}"), str(folder), PICKLED, WEIGHTS)
    raise CheckpointError(translate_noop("CoreMessages", "{0} has neither {1} nor {2}: a model saved with "
                                                         "save_pretrained has one of them"), str(folder), WEIGHTS,
                          SHARD_INDEX)


def _shards(folder: Path) -> list[Path]:
    """The shard files of a sharded save, each a plain file name in ``folder`` (an index naming
    ``../x`` or an absolute path would read a file outside it)."""
    index = json_object(folder / SHARD_INDEX, Message(translate_noop("CoreMessages", "shard index")))
    weight_map = index.get("weight_map")
    if not isinstance(weight_map, dict) or not weight_map:
        raise CheckpointError(translate_noop("CoreMessages", "{0}: its weight_map must name each tensor's shard"),
                              SHARD_INDEX)
    names = sorted({str(name) for name in weight_map.values()})
    for name in names:
        if Path(name).name != name or not name.endswith(".safetensors"):
            raise CheckpointError(translate_noop("CoreMessages", "{0}: shard {1} must be a .safetensors file in the "
                                                                 "model's folder"), SHARD_INDEX, json.dumps(name))
    return [folder / name for name in names]


def _check_tokenizer_files(folder: Path, kind: str) -> None:
    files = hf_decoder.TOKENIZER_FILES[kind] if kind in DECODER_TYPES else FAMILIES[kind].tokenizer_files
    for choices in files:
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
def _model_config(folder: Path, hf: Any, sizes: tuple[int, int], shared: bool) -> ModelConfig:
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
    family = FAMILIES[hf.model_type]
    try:
        return ModelConfig(
            *sizes, d_model=hf.d_model, n_heads=hf.encoder_attention_heads,
            n_encoder_layers=hf.encoder_layers, n_decoder_layers=hf.decoder_layers, d_ff=hf.encoder_ffn_dim,
            dropout=0.0, max_len=hf.max_position_embeddings, norm=family.norm, activation=activation,
            share_embeddings=shared, final_norm=family.final_norm, scale_embeddings=bool(hf.scale_embedding),
            positional=family.positional, embedding_norm=family.embedding_norm)
    except TransvizError as exc:
        raise CheckpointError(translate_noop("CoreMessages", "{0}: the model's sizes do not make a model: {1}"),
                              str(folder), reason(exc)) from None


def _start_id(hf: Any) -> Any:
    """The decoder's first token as generate() takes it: decoder_start_token_id, else bos_token_id."""
    start = getattr(hf, "decoder_start_token_id", None)
    return hf.bos_token_id if start is None else start


def _specials(folder: Path, hf: Any, side: Side) -> Specials:
    unknown = side.pieces.get(str(side.tokenizer.unk_token), side.tokenizer.unk_token_id)
    found = Specials(hf.pad_token_id, _start_id(hf), hf.eos_token_id, unknown)
    for name, value in vars(found).items():
        if not isinstance(value, int) or not 0 <= value < side.size:
            raise CheckpointError(translate_noop("CoreMessages", "{0}: the {1} token id is {2}, outside the "
                                                                 "vocabulary of {3}"), str(folder), name, repr(value),
                                  side.size)
    if len({found.pad, found.eos, found.unk}) < 3:
        raise CheckpointError(translate_noop("CoreMessages", "{0}: padding, end and unknown share a token id"),
                              str(folder))
    return found


def _names(side: Side, order: list[int]) -> list[str]:
    """transviz's token names: the specials as transviz names them, then the tokenizer's pieces;
    a piece named like a special token (BART's own <s>) or unnamed gets its id appended."""
    pieces = {i: t for t, i in side.pieces.items()}
    names, used = list(SPECIALS), set(SPECIALS)
    for theirs in order[len(SPECIALS):]:
        name = pieces.get(theirs) or f"<id {theirs}>"
        if name in used:
            name = f"{name}#{theirs}"
        names.append(name)
        used.add(name)
    return names


# -- the weights ---------------------------------------------------------------------------------
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


def _check_depth(config: ModelConfig, tensors: dict[str, Tensor], weights: Path, layers: str) -> None:
    """CheckpointError if the weights hold a layer deeper than config.json gives (it would be left
    out); ``layers`` names a stack's layers ("model.{stack}.layers.", T5's "{stack}.block.")."""
    for stack, count in (("encoder", config.n_encoder_layers), ("decoder", config.n_decoder_layers)):
        prefix = layers.format(stack=stack)
        found = {name[len(prefix):].split(".", 1)[0] for name in tensors if name.startswith(prefix)}
        deeper = sorted(int(i) for i in found if i.isdigit() and int(i) >= count)
        if deeper:
            raise CheckpointError(translate_noop("CoreMessages", "{0} holds {1} layer {2}, but config.json gives the "
                                                                 "{1} {3} layers"), weights.name, stack, deeper[0],
                                  count)


def _check_sine_table(config: ModelConfig, tensors: dict[str, Tensor], weights: Path) -> None:
    """CheckpointError if a saved sine table (Pegasus and FSMT save one) is not the one transviz
    adds: its rows from the first position on (fairseq's start at 2) equal transviz's table."""
    ours = sine_table(config.positional, config.max_len, config.d_model)
    first = FAIRSEQ_FIRST_POSITION if config.positional == "sinusoidal-fairseq" else 0
    for stack in ("encoder", "decoder"):
        name = f"model.{stack}.embed_positions.weight"
        if name in tensors:
            rows = max(len(tensors[name]) if tensors[name].dim() else 0, first + config.max_len)  # more may be saved
            theirs = _tensor(tensors, name, weights, (rows, config.d_model))
            if not torch.allclose(theirs[first : first + config.max_len], ours, atol=1e-4, rtol=0):
                raise CheckpointError(translate_noop("CoreMessages", "{0}: tensor {1} is not the sine table of "
                                                                     "positions its model type adds"), weights.name,
                                      name)


@dataclass(frozen=True)
class Naming:
    """Where a family keeps its tensors: transviz's name -> theirs for the stacks, the three tables
    (source, target, output), how its layers are named, and what its decoder's output is multiplied
    by before the output layer."""

    stacks: dict[str, list[str]]
    tables: tuple[str, str, str]
    layers: str = "model.{stack}.layers."
    output_scale: float = 1.0


def _naming(config: ModelConfig, hf: Any, tensors: dict[str, Tensor]) -> Naming:
    if hf.model_type in T5_TYPES:
        return Naming(t5_names(config), t5_tables(tensors), "{stack}.block.", output_scale(hf))
    return Naming(hf_names(config), table_names(hf))


def _mapped_state(config: ModelConfig, tensors: dict[str, Tensor], orders: tuple[list[int], list[int]],
                  weights: Path, naming: Naming) -> dict[str, Tensor]:
    """transviz's state dict from the Hugging Face ``tensors``; rows of each vocabulary follow its
    ``orders`` (source, target). Every tensor is checked against the config before use."""
    _check_depth(config, tensors, weights, naming.layers)
    layout = {names[0]: shape for names, shape in tensor_layout(config)}
    state = {ours: torch.cat([_tensor(tensors, name, weights, (layout[ours][0] // len(theirs), *layout[ours][1:]))
                              for name in theirs])
             for ours, theirs in naming.stacks.items()}
    source_rows, target_rows = (torch.tensor(order) for order in orders)
    sizes, d = (len(orders[0]) - 1, len(orders[1]) - 1), config.d_model  # an order lists the start twice
    source, target, output = naming.tables
    state["src_embed.weight"] = _tensor(tensors, source, weights, (sizes[0], d))[source_rows]
    state["tgt_embed.weight"] = _tensor(tensors, target, weights, (sizes[1], d))[target_rows]
    bias = (_tensor(tensors, "final_logits_bias", weights, (1, sizes[1])) if "final_logits_bias" in tensors
            else torch.zeros(1, sizes[1])).reshape(-1)
    state["generator.weight"] = _tensor(tensors, output, weights, (sizes[1], d))[target_rows] * naming.output_scale
    state["generator.bias"] = bias[target_rows].clone()
    # id 1 is a copy of the start token's input row: it is never an output
    state["generator.weight"][1], state["generator.bias"][1] = 0.0, UNPREDICTED_BIAS
    if config.positional == "learned":  # BART's and mBART's tables start two rows in
        for stack in ("encoder", "decoder"):
            state[f"{stack}_positions"] = _tensor(tensors, f"model.{stack}.embed_positions.weight", weights,
                                                  (config.max_len + LEARNED_OFFSET, d))[LEARNED_OFFSET:]
    elif config.adds_positions:
        _check_sine_table(config, tensors, weights)
    return state


def _check_tokenizer_ids(folder: Path, sides: tuple[Side, ...]) -> None:
    """CheckpointError if a tokenizer gives ids the model has no row for."""
    for side in sides:
        ids = max(side.pieces.values(), default=-1) + 1
        if ids > side.size:
            raise CheckpointError(translate_noop("CoreMessages", "{0}: the tokenizer gives ids up to {1}, but the "
                                                                 "model's vocabulary holds {2}"), str(folder), ids - 1,
                                  side.size)


def _read_weights(files: list[Path]) -> dict[str, Tensor]:
    tensors: dict[str, Tensor] = {}
    for path in files:
        tensors |= read_safetensors(path)
    return tensors


# -- loading -------------------------------------------------------------------------------------
def _tokenizers(folder: Path, kind: str, transformers: Any) -> tuple[Any, Any, Any]:
    """transformers' config and two tokenizers of the folder: one for the source, one the target
    side switches to for good (Marian keeps a SentencePiece model per side)."""
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
    return hf, source, target


def load(path: str | Path, device: str = "cpu") -> Model:
    """The Hugging Face model saved in the folder ``path``; CheckpointError naming a missing file,
    a model type transviz does not read (with the reason when it is known), or a missing package."""
    folder = Path(path)
    data = _read_config(folder)
    kind = _check_type(folder, data)
    if kind in DECODER_TYPES:
        hf_decoder.check_sizes(folder / CONFIG, data)
        hf_decoder.check_refusals(folder, data)
    else:
        _check_sizes(folder / CONFIG, data)
    files = _weights(folder)
    _check_tokenizer_files(folder, kind)
    transformers = _transformers()
    hf, source_tokenizer, target_tokenizer = _tokenizers(folder, kind, transformers)
    if kind in DECODER_TYPES:
        return _load_decoder(folder, hf, source_tokenizer, files, transformers.__version__, device)
    t5 = kind in T5_TYPES
    source_table, target_table, _ = table_names(hf)
    shared = t5 or source_table == target_table  # T5's stacks read one table
    sides = _sides(hf, source_tokenizer, target_tokenizer)
    _check_tokenizer_ids(folder, sides)
    _check_fairseq_padding(folder, hf)
    source_order, target_order = (_specials(folder, hf, side).order(side.size) for side in sides)
    orders = source_order, target_order
    sizes = (len(source_order), len(target_order))
    config = t5_config(folder, hf, sizes, shared) if t5 else _model_config(folder, hf, sizes, shared)
    net = Transformer(config)
    tensors = _read_weights(files)
    state = _mapped_state(config, tensors, orders, files[0], _naming(config, hf, tensors))
    net.load_state_dict(state)
    check_finite_forward(net.eval(), files[0].name)
    ids = [_ids_of(order) for order in orders]
    start = {i: piece for piece, i in sides[1].pieces.items()}.get(orders[1][1])  # the decoder's first input
    vocabs = [TokenizerVocab(_names(side, order), side.tokenizer, mine, side.target, pieces=side.pieces,
                             end=hf.eos_token_id, start=start if side.target else None)
              for side, order, mine in zip(sides, orders, ids, strict=True)]
    settings = read_settings(folder)
    generation = rules(folder, settings, sides[1].tokenizer, sides[1].size, ids[1], hf.eos_token_id)
    facts = {"imported": f"Hugging Face {type(hf).__name__.removesuffix('Config')} ({folder.name})",
             "hf_model_type": kind, "transformers_version": transformers.__version__}
    if not_applied(settings):
        facts["generation_not_applied"] = not_applied(settings)
    return Model(net.to(device), vocabs[0], vocabs[1], facts, str(folder), generation)


def _facts(folder: Path, hf: Any, version: str, settings: dict[str, Any]) -> dict[str, Any]:
    facts = {"imported": f"Hugging Face {type(hf).__name__.removesuffix('Config')} ({folder.name})",
             "hf_model_type": hf.model_type, "transformers_version": version}
    if not_applied(settings):
        facts["generation_not_applied"] = not_applied(settings)
    return facts


def _load_decoder(folder: Path, hf: Any, tokenizer: Any, files: list[Path], version: str, device: str) -> Model:
    """A GPT-2 or Llama-family folder (:mod:`.hf_decoder`): one vocabulary, one stack, the prompt's
    last token the first input of the output."""
    eos = hf_decoder.end_id(folder, hf)
    side = Side(tokenizer, hf.vocab_size, False, side_vocab(tokenizer, False))
    _check_tokenizer_ids(folder, (side,))
    unknown = side.pieces.get(str(tokenizer.unk_token), tokenizer.unk_token_id)
    if not isinstance(eos, int) or not 0 <= eos < side.size:
        raise CheckpointError(translate_noop("CoreMessages", "{0}: the {1} token id is {2}, outside the vocabulary of "
                                                             "{3}"), str(folder), "eos", repr(eos), side.size)
    order = hf_decoder.order(eos, unknown if isinstance(unknown, int) else None, side.size)
    config = hf_decoder.decoder_config(folder, hf, len(order))
    net = Transformer(config)
    tensors = _read_weights(files)
    weights = files[0]
    _check_decoder_depth(config, tensors, weights, hf_decoder.layers_prefix(hf))
    state = hf_decoder.stack_state(config, hf, lambda name, shape: _tensor(tensors, name, weights, shape))
    embedding, output = hf_decoder.tables(hf, set(tensors))
    rows = [i if i is not None else 0 for i in order]
    new = torch.tensor([i is None for i in order])  # rows no token of the tokenizer has: never fed, never written
    d = config.d_model
    table = _tensor(tensors, embedding, weights, (side.size, d))[rows].masked_fill(new[:, None], 0.0)
    state["src_embed.weight"] = state["tgt_embed.weight"] = table
    state["generator.weight"] = _tensor(tensors, output, weights, (side.size, d))[rows].masked_fill(new[:, None], 0.0)
    state["generator.bias"] = torch.zeros(len(order)).masked_fill(new, UNPREDICTED_BIAS)
    net.load_state_dict(state)
    check_finite_forward(net.eval(), weights.name)
    ids = {theirs: mine for mine, theirs in enumerate(order) if theirs is not None}
    names = _names(side, [i if i is not None else -1 for i in order])
    own_unknown = order[3]
    vocabs = [TokenizerVocab(names, tokenizer, ids, target, pieces=side.pieces, end=eos,
                             unknown=own_unknown if own_unknown is not None else -1, continues=True)
              for target in (False, True)]
    settings = read_settings(folder)
    generation = rules(folder, settings, tokenizer, side.size, ids, eos)
    return Model(net.to(device), vocabs[0], vocabs[1], _facts(folder, hf, version, settings), str(folder), generation)


def _check_decoder_depth(config: ModelConfig, tensors: dict[str, Tensor], weights: Path, prefix: str) -> None:
    """CheckpointError if the weights hold a layer deeper than config.json gives (it would be left out)."""
    found = {name[len(prefix):].split(".", 1)[0] for name in tensors if name.startswith(prefix)}
    deeper = sorted(int(i) for i in found if i.isdigit() and int(i) >= config.n_decoder_layers)
    if deeper:
        raise CheckpointError(translate_noop("CoreMessages", "{0} holds layer {1}, but config.json gives {2} layers"),
                              weights.name, deeper[0], config.n_decoder_layers)


def _check_fairseq_padding(folder: Path, hf: Any) -> None:
    """fairseq's positions count from the padding id + 1: transviz's table assumes id 1."""
    fairseq = FAMILIES[hf.model_type].positional == "sinusoidal-fairseq"
    if fairseq and hf.pad_token_id != FAIRSEQ_FIRST_POSITION - 1:
        raise CheckpointError(translate_noop("CoreMessages", "{0}: its positions count from its padding id {1} + 1; "
                                                             "transviz's fairseq table counts from 2 (padding id 1)"),
                              str(folder), hf.pad_token_id)


def _ids_of(order: list[int]) -> dict[int, int]:
    """The tokenizer's id -> transviz's id (id 1, the copied start, is nobody's)."""
    return {theirs: mine for mine, theirs in enumerate(order) if mine != 1}
