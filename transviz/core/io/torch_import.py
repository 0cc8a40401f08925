"""Plain PyTorch encoder-decoders (built on ``torch.nn.Transformer``, or named otherwise: see
:mod:`.torch_layouts`) as transviz models.

The weights come from the model's ``state_dict`` saved with safetensors, never from a pickle
(unpickling runs whatever code the file holds). A JSON sidecar says what the weights alone
cannot: the sizes, the vocabularies and their special ids, where the embeddings and the output
layer are, and how positions and embeddings are added. Every tensor in the file must be one the
sidecar explains: one left over would be left out of every map without a word. The manual ("Your
own PyTorch model") documents its fields. The weights are mapped onto transviz's own
:class:`~transviz.core.model.transformer.Transformer`, so the result works everywhere a transviz model does;
:func:`convert` saves it as a transviz checkpoint.

Vocabularies are reordered so that the special tokens take ids 0-3, as every transviz vocabulary
has them: the embedding rows and the output layer's rows move with their tokens, which changes no
number the model computes.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from safetensors import safe_open
from torch import Tensor

from ..base.errors import CheckpointError, TransvizError, reason
from ..base.messages import Arg, Message, joined, translate_noop
from ..model.bundle import Model
from ..model.config import ONE_OF_TWO, ModelConfig
from ..model.layout import tensor_layout
from ..model.positional import sinusoidal_table
from ..model.transformer import Transformer
from ..model.vocab import SPECIALS, Vocab
from . import checkpoint
from .checkpoint_file import bounded_json, check_file, header_length
from .outputs import CHECKPOINT, check_output
from .torch_layouts import DEFAULT, LAYER, LAYOUTS, Layout, Names, expanded
from .weights_check import check_finite_forward

FORMAT, VERSION = "transviz-torch", 1
SIDECAR_SUFFIX = ".json"
# what torch.save, pickle and Hugging Face's older weights files are called
PICKLE_SUFFIXES = (".pt", ".pth", ".pkl", ".pickle", ".ckpt", ".bin")
ZIP_START = b"PK\x03\x04"  # torch.save writes a zip archive
PICKLE_PROTOCOLS = range(2, 6)  # a bare pickle starts with 0x80 and its protocol
MAX_SIDECAR_BYTES = 64 * 1024**2  # two vocabularies of a million tokens fit
POSITIONAL_TOLERANCE = 1e-2  # a saved table this close to transviz's is the same layout

SPECIAL_FIELDS = ("pad", "start", "end", "unknown")  # in the order of transviz's ids 0-3 (vocab.SPECIALS)

# field -> whether it is required; the defaults of optional ones are in read_sidecar, _model_config, _vocab
FIELDS = {"format": True, "version": True, "weights": False, "model": True, "modules": True,
          "source_vocab": True, "target_vocab": True, "layout": False, "names": False}
MODEL_FIELDS = {"d_model": True, "nhead": True, "num_encoder_layers": True, "num_decoder_layers": True,
                "dim_feedforward": True, "activation": True, "norm_first": True, "max_len": True,
                "scale_embeddings": True, "positional": True, "layer_norm_eps": False, "dropout": False,
                "bias": False, "layer_norm": False}
MODULE_FIELDS = {"transformer": True, "source_embedding": True, "target_embedding": True, "output": True,
                 "positional_table": False}
VOCAB_FIELDS = {"tokens": True, "pad": True, "start": True, "end": True, "unknown": True, "level": False,
                "lowercase": False}
# markers the model's own code puts around every source sentence (the decoder's are always there)
SOURCE_VOCAB_FIELDS = VOCAB_FIELDS | {"add_start": False, "add_end": False}

KINDS = {int: Message(translate_noop("CoreMessages", "a whole number")),
         bool: Message(translate_noop("CoreMessages", "true or false")),
         float: Message(translate_noop("CoreMessages", "a number")),
         str: Message(translate_noop("CoreMessages", "text")),
         list: Message(translate_noop("CoreMessages", "a list")),
         dict: Message(translate_noop("CoreMessages", "a JSON object"))}
PICKLE = translate_noop("CoreMessages", "{0} is a pickle (torch.save) file, and transviz never unpickles: loading one "
                                        "can run any code. Save the weights with safetensors.torch.save_file, "
                                        "giving it model.state_dict() and a .safetensors name, and describe them in "
                                        "a sidecar (see the manual: Your own PyTorch model)")
MISSING_FIELD = translate_noop("CoreMessages", "{0}: the sidecar lacks the field {1}")
WRONG_KIND = translate_noop("CoreMessages", "{0}: the field {1} must be {2}, got {3}")
UNKNOWN_FIELDS = translate_noop("CoreMessages", "{0}: unknown sidecar fields {1}")
NOT_MATCHING = translate_noop("CoreMessages", "{0} does not match its sidecar: {1}")


@dataclass(frozen=True)
class VocabSpec:
    """One side's vocabulary as transviz holds it, and where each of its tokens came from."""

    vocab: Vocab
    order: list[int]  # order[transviz id] = the id in the PyTorch model


@dataclass(frozen=True)
class Sidecar:
    """What a sidecar says, checked."""

    path: Path
    weights: Path
    config: ModelConfig
    modules: dict[str, str]  # MODULE_FIELDS but positional_table -> state-dict prefix ("" for the top level)
    positional_tables: Names  # the tensors modules.positional_table names (none, one, or one per stack)
    layout: Layout  # where the stacks' weights are (torch_layouts), the sidecar's names applied
    source: VocabSpec
    target: VocabSpec


# -- finding the files ------------------------------------------------------------------------------
def handles(path: str | Path) -> bool:
    """Whether :func:`load` is the loader for ``path``: a sidecar, a pickle (refused with the way
    out), or safetensors weights from another program with a sidecar of the same name beside them."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == SIDECAR_SUFFIX or suffix in PICKLE_SUFFIXES or _starts_like_pickle(path):
        return True
    return suffix == checkpoint.SUFFIX and _is_file(path.with_suffix(SIDECAR_SUFFIX)) and not _is_checkpoint(path)


def _is_file(path: Path) -> bool:
    """``path.is_file()``, and False for a name the system cannot look up (too long, a NUL byte)."""
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


def _starts_like_pickle(path: Path) -> bool:
    """A zip archive or a pickle that is no safetensors file: those start with 8 bytes of header
    length (which may begin like a pickle), then the header's "{"."""
    if not _is_file(path):  # a FIFO is never opened: it would wait forever
        return False
    try:
        with path.open("rb") as f:
            start = f.read(9)
    except OSError:
        return False
    bare = len(start) > 1 and start[0] == 0x80 and start[1] in PICKLE_PROTOCOLS
    pickled = bare or start.startswith(ZIP_START)
    return pickled and start[8:9] != b"{"


def _is_checkpoint(path: Path) -> bool:
    try:
        with safe_open(str(path), framework="pt") as f:
            return (f.metadata() or {}).get("format") == checkpoint.FORMAT
    except Exception:  # not readable as safetensors: the import names what is wrong with it
        return False


def _refuse_pickle(path: Path) -> None:
    if path.suffix.lower() in PICKLE_SUFFIXES or _starts_like_pickle(path):
        raise CheckpointError(PICKLE, path.name)


# -- the sidecar ----------------------------------------------------------------------------------
def read_sidecar(path: str | Path, weights: Path | None = None) -> Sidecar:
    """The sidecar at ``path``, every field checked (a CheckpointError naming the first one wrong);
    ``weights`` replaces the file its "weights" field names."""
    path = Path(path)
    _refuse_pickle(path)
    data = _read_json(path)
    name = path.name
    _check_fields(name, "", data, FIELDS)
    if data["format"] != FORMAT:
        raise CheckpointError(translate_noop("CoreMessages", "{0} is not a transviz-torch sidecar: its format is {1}"),
                              name, _shown(data["format"]))
    if data["version"] != VERSION or isinstance(data["version"], bool):
        raise CheckpointError(translate_noop("CoreMessages", "{0} is a sidecar of version {1}; this transviz reads "
                                                             "version {2}"), name, _shown(data["version"]), VERSION)
    if weights is None:
        weights = path.parent / _field(name, data, "weights", str, path.with_suffix(checkpoint.SUFFIX).name)
    section = _section(name, data, "modules", MODULE_FIELDS)
    tables = _names(name, section, "positional_table", "modules.") if "positional_table" in section else ()
    modules = {key: _field(name, section, key, str, where="modules.") for key in MODULE_FIELDS
               if key in section and key != "positional_table"}
    source = _vocab(name, _section(name, data, "source_vocab", SOURCE_VOCAB_FIELDS), "source_vocab")
    target = _vocab(name, _section(name, data, "target_vocab", VOCAB_FIELDS), "target_vocab")
    config = _model_config(name, _section(name, data, "model", MODEL_FIELDS), source.vocab, target.vocab)
    return Sidecar(path, weights, config, modules, tables, _layout(name, data), source, target)


def _names(name: str, data: dict[str, Any], key: str, where: str) -> Names:
    """A field that names one tensor (text) or several (a list of texts)."""
    value = data[key]
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not names or not all(isinstance(n, str) and n for n in names):
        raise CheckpointError(WRONG_KIND, name, where + key,
                              Message(translate_noop("CoreMessages", "a tensor's name or a list of them")),
                              _shown(value))
    return tuple(names)


def _layout(name: str, data: dict[str, Any]) -> Layout:
    """The layout the sidecar names (torch_layouts.LAYOUTS) with its ``names`` in place of the entries they name."""
    chosen = _field(name, data, "layout", str, DEFAULT)
    if chosen not in LAYOUTS:
        raise CheckpointError(translate_noop("CoreMessages", "{0}: layout {1} is not one transviz knows ({2})"), name,
                              _shown(chosen), ", ".join(LAYOUTS))
    layout = dict(LAYOUTS[chosen])
    names = _field(name, data, "names", dict, {})
    for ours in names:
        if ours not in layout:
            raise CheckpointError(translate_noop("CoreMessages", "{0}: names.{1} is none of transviz's weights (the "
                                                                 "manual lists them)"), name, ours)
        theirs = _names(name, names, ours, "names.")
        if LAYER in ours and not all(LAYER in n for n in theirs):
            raise CheckpointError(translate_noop("CoreMessages", "{0}: every name in names.{1} must hold {2}, where "
                                                                 "the layer's number goes"), name, ours, LAYER)
        layout[ours] = theirs
    return layout


def _read_json(path: Path) -> dict[str, Any]:
    size = check_file(path)
    if size > MAX_SIDECAR_BYTES:
        raise CheckpointError(translate_noop("CoreMessages", "{0} is {1} MB; a sidecar is far smaller"), path.name,
                              f"{size / 1024**2:.0f}")
    try:
        text = path.read_text(encoding="utf-8")
        data = bounded_json(text, Message(translate_noop("CoreMessages", "sidecar")))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise CheckpointError(translate_noop("CoreMessages", "{0} is not a readable JSON sidecar ({1})"), path.name,
                              str(exc)) from None
    if not isinstance(data, dict):
        raise CheckpointError(WRONG_KIND, path.name, Message(translate_noop("CoreMessages", "(the whole file)")),
                              KINDS[dict], _shown(data))
    return data


def _check_fields(name: str, where: str, data: dict[str, Any], fields: dict[str, bool]) -> None:
    """CheckpointError for a required field missing, or a field the format does not have (a typo)."""
    for field, required in fields.items():
        if required and field not in data:
            raise CheckpointError(MISSING_FIELD, name, where + field)
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise CheckpointError(UNKNOWN_FIELDS, name, ", ".join(where + key for key in unknown))


def _section(name: str, data: dict[str, Any], key: str, fields: dict[str, bool]) -> dict[str, Any]:
    section: dict[str, Any] = _field(name, data, key, dict)
    _check_fields(name, key + ".", section, fields)
    return section


_REQUIRED = object()


def _field(name: str, data: dict[str, Any], key: str, kind: type, default: Any = _REQUIRED, where: str = "") -> Any:
    """``data[key]``, which must be of ``kind`` (a bool is no number, an int is a float)."""
    if key not in data:
        if default is _REQUIRED:
            raise CheckpointError(MISSING_FIELD, name, where + key)
        return default
    value = data[key]
    fits = isinstance(value, kind) and not (kind in (int, float) and isinstance(value, bool))
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        fits = True
    if not fits:
        raise CheckpointError(WRONG_KIND, name, where + key, KINDS[kind], _shown(value))
    return value


def _shown(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 40 else text[:37] + "..."


def _vocab(name: str, data: dict[str, Any], where: str) -> VocabSpec:
    """The vocabulary with its special tokens moved to ids 0-3 and renamed as transviz names them."""
    prefix = where + "."
    tokens = _field(name, data, "tokens", list, where=prefix)
    ids = [_field(name, data, key, int, where=prefix) for key in SPECIAL_FIELDS]
    for key, token_id in zip(SPECIAL_FIELDS, ids, strict=True):
        if not 0 <= token_id < len(tokens):
            raise CheckpointError(translate_noop("CoreMessages", "{0}: {1} is {2}, outside the vocabulary's {3} "
                                                                 "tokens"), name, prefix + key, token_id, len(tokens))
    if len(set(ids)) < len(ids):
        raise CheckpointError(translate_noop("CoreMessages", "{0}: {1} gives the same id to two of pad, start, end and "
                                                             "unknown"), name, where)
    specials = set(ids)
    order = ids + [i for i in range(len(tokens)) if i not in specials]
    level = _field(name, data, "level", str, "word", prefix)
    lowercase = _field(name, data, "lowercase", bool, False, prefix)
    markers = {key: True for key in ("add_start", "add_end") if _field(name, data, key, bool, False, prefix)}
    try:
        vocab = Vocab.from_dict({"level": level, "lowercase": lowercase, **markers,
                                 "tokens": [*SPECIALS, *(tokens[i] for i in order[len(SPECIALS):])]})
    except TransvizError as exc:
        raise CheckpointError(translate_noop("CoreMessages", "{0}: {1} is not usable: {2}"), name, where,
                              reason(exc)) from None
    return VocabSpec(vocab, order)


def _model_config(name: str, data: dict[str, Any], source: Vocab, target: Vocab) -> ModelConfig:
    prefix = "model."
    positional = _field(name, data, "positional", str, where=prefix)
    if positional != "sinusoidal":
        raise CheckpointError(translate_noop("CoreMessages", "{0}: positional encoding {1} is not supported; transviz "
                                                             "reads \"sinusoidal\" (the paper's fixed table, sin and "
                                                             "cos columns interleaved)"), name, json.dumps(positional))
    sizes = {ours: _field(name, data, theirs, int, where=prefix)
             for ours, theirs in (("d_model", "d_model"), ("n_heads", "nhead"), ("n_encoder_layers",
                                  "num_encoder_layers"), ("n_decoder_layers", "num_decoder_layers"),
                                  ("d_ff", "dim_feedforward"), ("max_len", "max_len"))}
    activation = _field(name, data, "activation", str, where=prefix)
    if activation not in ("relu", "gelu"):  # what torch.nn.Transformer takes by name
        raise CheckpointError(translate_noop("CoreMessages", "{0}: the model's sizes do not make a model: {1}"), name,
                              Message(ONE_OF_TWO, "activation", "relu", "gelu", repr(activation)))
    try:
        return ModelConfig(
            len(source), len(target), **sizes,
            dropout=_field(name, data, "dropout", float, 0.1, prefix),
            norm="pre" if _field(name, data, "norm_first", bool, where=prefix) else "post",
            activation=activation,
            layer_norm_eps=_field(name, data, "layer_norm_eps", float, 1e-5, prefix),
            final_norm=True,  # nn.Transformer ends its encoder and its decoder with a LayerNorm
            scale_embeddings=_field(name, data, "scale_embeddings", bool, where=prefix),
            bias=_field(name, data, "bias", bool, True, prefix),
            layer_norm=_field(name, data, "layer_norm", str, "standard", prefix))
    except TransvizError as exc:
        raise CheckpointError(translate_noop("CoreMessages", "{0}: the model's sizes do not make a model: {1}"), name,
                              reason(exc)) from None


# -- the weights ----------------------------------------------------------------------------------
def _sources(side: Sidecar) -> dict[str, Names]:
    """transviz's state-dict name -> the names in the weights file (the output bias may be absent)."""
    modules = side.modules
    found = expanded(side.layout, side.config, modules["transformer"])
    found["src_embed.weight"] = (_join(modules["source_embedding"], "weight"),)
    found["tgt_embed.weight"] = (_join(modules["target_embedding"], "weight"),)
    found["generator.weight"] = (_join(modules["output"], "weight"),)
    found["generator.bias"] = (_join(modules["output"], "bias"),)
    return found


def _join(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


def read_safetensors(path: Path) -> dict[str, Tensor]:
    _refuse_pickle(path)
    size = check_file(path)
    if size > checkpoint.MAX_BYTES:
        raise CheckpointError(translate_noop("CoreMessages", "{0} is {1} GB; transviz reads models far smaller"),
                              path.name, f"{size / 1024**3:.1f}")
    header_length(path)
    try:
        with safe_open(str(path), framework="pt") as f:
            return {name: f.get_tensor(name) for name in f.keys()}
    except Exception as exc:  # safetensors raises its own error types for a bad header or cut data
        raise CheckpointError(translate_noop("CoreMessages", "{0} is not a readable safetensors file ({1})"),
                              path.name, str(exc)) from None


def _positional_problem(side: Sidecar, tensors: dict[str, Tensor]) -> Message | None:
    """What is wrong with the positional tables the model saved, if the sidecar names any."""
    problems = (_table_problem(side, name, tensors.get(name)) for name in side.positional_tables)
    return next((problem for problem in problems if problem is not None), None)


def _table_problem(side: Sidecar, name: str, table: Tensor | None) -> Message | None:
    """What is wrong with one saved positional table: transviz adds its own sinusoidal table, so a
    table of another layout would move every position. The tolerance allows for a table computed
    in float32 (4e-4 off at position 5000, d_model 512)."""
    d = side.config.d_model
    if table is None:
        return Message(translate_noop("CoreMessages", "missing tensor {0}"), name)
    if not table.is_floating_point() or table.numel() % d or table.shape[-1] != d:
        return Message(translate_noop("CoreMessages", "{0} has shape {1}, not (positions, {2})"), name,
                       str(tuple(table.shape)), d)
    rows = table.reshape(-1, d)[: side.config.max_len].double()  # the tutorial's table is (positions, 1, d)
    if not torch.allclose(rows, sinusoidal_table(len(rows), d, torch.float64), atol=POSITIONAL_TOLERANCE, rtol=0):
        return Message(translate_noop("CoreMessages", "{0} is not the sinusoidal table (sin in even columns, cos in "
                                                      "odd ones) that transviz adds"), name)
    return None


def _gathered(names: Names, tensors: dict[str, Tensor], shape: tuple[int, ...]) -> Tensor | Message:
    """The file's tensors ``names`` stacked along the first axis for a place of ``shape`` (one name:
    that tensor), or what is wrong with them."""
    found: list[Tensor] = []
    for name in names:
        tensor = tensors.get(name)
        problem = _problem(name, tensor)
        if problem is not None:
            return problem
        assert tensor is not None  # _problem names a missing one
        found.append(tensor)
    fits = len(found) == 1 or all(t.dim() and t.shape[1:] == found[0].shape[1:] for t in found)  # cat needs rows
    stacked = torch.cat(found) if len(found) > 1 and fits else found[0]  # e.g. (3d, d): W_Q | W_K | W_V
    if not fits or tuple(stacked.shape) != shape:
        return Message(translate_noop("CoreMessages", "{0} has shape {1}, the sidecar's sizes need {2}"),
                       " + ".join(names), ", ".join(str(tuple(t.shape)) for t in found) if not fits
                       else str(tuple(stacked.shape)), str(shape))
    return stacked


def _problem(name: str, tensor: Tensor | None) -> Message | None:
    """What is wrong with the file's tensor ``name`` as a weight, if anything."""
    if tensor is None:
        return Message(translate_noop("CoreMessages", "missing tensor {0}"), name)
    if not tensor.is_floating_point():
        return Message(translate_noop("CoreMessages", "{0} holds {1}, not floating-point weights"), name,
                       str(tensor.dtype).removeprefix("torch."))
    if not bool(torch.isfinite(tensor).all()):
        return Message(translate_noop("CoreMessages", "{0} holds NaN or infinite values"), name)
    return None


def _mapped_state(side: Sidecar, tensors: dict[str, Tensor]) -> dict[str, Tensor]:
    """transviz's state dict from the file's ``tensors``; CheckpointError naming up to three
    tensors that are missing, misshapen, not floating-point, not finite, or that the sidecar does
    not explain."""
    sources = _sources(side)
    problems: list[Arg] = []
    state: dict[str, Tensor] = {}
    used = set(side.positional_tables)
    for (ours,), shape in tensor_layout(side.config):
        used.update(sources[ours])
        found = _gathered(sources[ours], tensors, shape)
        if ours == "generator.bias" and sources[ours][0] not in tensors:  # nn.Linear(..., bias=False)
            found = torch.zeros(shape)
        if isinstance(found, Message):
            problems.append(found)
        else:
            state[ours] = found.float()
    positional = _positional_problem(side, tensors)
    if positional is not None:
        problems.append(positional)
    # a weight left over would be silently left out of every map (a learned position table, a bias,
    # more layers than the sidecar says): refused, never ignored
    left = sorted(set(tensors) - used)
    if left:
        problems.append(Message(translate_noop("CoreMessages", "unexpected tensor {0}: the sidecar does not say what "
                                                               "it is (check the layer counts, the layout and bias, or "
                                                               "declare it in modules)"), left[0]))
    if problems:
        raise CheckpointError(NOT_MATCHING, side.weights.name, joined(problems[:3]))
    for ours, spec in (("src_embed.weight", side.source), ("tgt_embed.weight", side.target),
                       ("generator.weight", side.target), ("generator.bias", side.target)):
        state[ours] = state[ours][spec.order]  # rows follow their tokens to transviz's ids
    return state


# -- loading and converting ------------------------------------------------------------------------
def _sidecar_of(path: Path) -> Sidecar:
    if path.suffix.lower() == checkpoint.SUFFIX:
        beside = path.with_suffix(SIDECAR_SUFFIX)
        if not beside.is_file():
            raise CheckpointError(translate_noop("CoreMessages", "{0} has no sidecar {1} beside it"), path.name,
                                  beside.name)
        return read_sidecar(beside, weights=path)
    return read_sidecar(path)


def load(path: str | Path, device: str = "cpu") -> Model:
    """The model a sidecar (``.json``) describes, or the ``.safetensors`` weights with a sidecar of
    the same name beside them; CheckpointError naming what is wrong with either."""
    path = Path(path)
    _refuse_pickle(path)
    side = _sidecar_of(path)
    state = _mapped_state(side, read_safetensors(side.weights))
    net = Transformer(side.config)
    net.load_state_dict(state)
    check_finite_forward(net.eval(), side.weights.name)
    facts = {"imported": f"torch.nn.Transformer ({side.path.name}, {side.weights.name})"}
    return Model(net.to(device), side.source.vocab, side.target.vocab, facts, str(path))


def convert(source: str | Path, out: str | Path, force: bool = False) -> Path:
    """Save the model ``source`` describes (see :func:`load`) as the transviz checkpoint ``out``,
    which may replace a transviz checkpoint but another file only with ``force``
    (:func:`~transviz.core.io.outputs.check_output`)."""
    out = Path(out)
    if out.suffix.lower() != checkpoint.SUFFIX:
        raise CheckpointError(translate_noop("CoreMessages", "{0}: a transviz checkpoint's name ends with {1}"),
                              str(out), checkpoint.SUFFIX)
    _refuse_pickle(Path(source))
    side = _sidecar_of(Path(source))
    if out.exists() and os.path.samefile(out, side.weights):
        raise CheckpointError(translate_noop("CoreMessages", "{0} holds the PyTorch weights; write the transviz "
                                                             "checkpoint to another file"), str(out))
    check_output(out, CHECKPOINT, inputs=[source, side.path], force=force)
    return checkpoint.save(load(source), out)
