"""Checkpoints: ONE ``.safetensors`` file, weights plus JSON metadata (config, vocabularies,
training facts), and optionally extra named tensors (e.g. attention snapshots taken during
training) under the ``extra.`` prefix. Writes are atomic; loading never unpickles, and every
way a file can be wrong becomes a :class:`CheckpointError` that says what is wrong."""
from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import torch
from safetensors import safe_open
from safetensors.torch import save as serialize

from ..base import files
from ..base.errors import CheckpointError, TransvizError, reason
from ..base.messages import Arg, Message, joined, translate_noop
from ..model.bundle import Model, check_parts
from ..model.config import ModelConfig
from ..model.layout import tensor_layout
from ..model.transformer import Transformer
from ..model.vocab import Vocab
from .checkpoint_file import MAX_HEADER_BYTES, bounded_json, check_file, header_length, truncation
from .checkpoint_file import SUFFIX as SUFFIX  # where callers have always found it
from .endings import PARTS, recorded
from .weights_check import check_finite_forward

FORMAT, VERSION = "transviz", "1"
EXTRA = "extra."  # prefix of tensors that are not weights
BROKEN_METADATA = translate_noop("CoreMessages", "{0} has broken metadata: {1}")
MISMATCH = translate_noop("CoreMessages", "{0} does not match its own config: {1}")
LEVELS = {"word": Message(translate_noop("CoreMessages", "word level")),
          "char": Message(translate_noop("CoreMessages", "char level"))}
MAX_BYTES = 2 * 1024**3  # larger files are refused before anything is read
MAX_FACTS_BYTES = 1024**2  # a run's facts are a few KB: task, steps, settings, metrics
METADATA_PARTS = {"config": Message(translate_noop("CoreMessages", "model configuration")),
                  "src_vocab": Message(translate_noop("CoreMessages", "source vocabulary")),
                  "tgt_vocab": Message(translate_noop("CoreMessages", "target vocabulary")),
                  "facts": Message(translate_noop("CoreMessages", "training facts"))}


def _tied_groups(net: torch.nn.Module) -> list[list[str]]:
    """State-dict names grouped by the tensor they share (a tied table appears under 2-3 names)."""
    groups: dict[tuple[int, int, tuple[int, ...]], list[str]] = {}
    for name, tensor in net.state_dict().items():
        key = (tensor.untyped_storage().data_ptr(), tensor.storage_offset(), tuple(tensor.shape))
        groups.setdefault(key, []).append(name)
    return list(groups.values())


def round_to_half(net: torch.nn.Module) -> None:
    """Round every parameter to the nearest float16 value, in place: the model as a half checkpoint
    stores it (:func:`save` with ``half``), so that it can be tested as it will be loaded."""
    with torch.no_grad():
        for parameter in net.parameters():
            parameter.copy_(parameter.half())


def save(model: Model, path: str | Path, extras: Mapping[str, torch.Tensor] | None = None, half: bool = False) -> Path:
    """Write ``model`` (and ``extras``) to ``path`` atomically: a temporary file, then a rename.
    ``half`` stores the weights in float16, half the bytes (loading turns them back into float32).
    CheckpointError when the file cannot be written (the folder is read-only, the disk full...)."""
    path = Path(path)
    if getattr(model.src_vocab, "tokenizer", None) is not None:  # a Hugging Face model (core.io.hf_vocab)
        raise CheckpointError(translate_noop("CoreMessages", "a Hugging Face model stays in its folder: a transviz "
                                                             "checkpoint cannot hold its tokenizer"))
    state = model.net.state_dict()
    tensors = {group[0]: state[group[0]].detach().cpu().contiguous() for group in _tied_groups(model.net)}
    if half:
        tensors = {name: t.half() if t.is_floating_point() else t for name, t in tensors.items()}
    tensors.update({EXTRA + k: v.detach().cpu().contiguous() for k, v in (extras or {}).items()})
    metadata = {
        "format": FORMAT, "format_version": VERSION,
        "config": json.dumps(model.config.to_dict()),
        "src_vocab": json.dumps(model.src_vocab.to_dict()),
        "tgt_vocab": json.dumps(model.tgt_vocab.to_dict()),
        "facts": json.dumps(model.facts),
    }
    data = serialize(tensors, metadata=metadata)
    if int.from_bytes(data[:8], "little") > MAX_HEADER_BYTES:  # load would refuse it
        raise CheckpointError(translate_noop("CoreMessages", "cannot save the model to {0}: its vocabularies and "
                                                             "facts take more than the {1} bytes a checkpoint's header "
                                                             "holds"), str(path), f"{MAX_HEADER_BYTES:,}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # bytes first, so that the one temporary file is the atomic writer's (save_file makes its own)
        files.write_atomically(path, data)
    except OSError as exc:
        raise _cannot_save(path, exc) from None
    return path


def check_writable(path: str | Path) -> None:
    """CheckpointError now if :func:`save` could not write ``path`` (a long run checks before it starts)."""
    path = Path(path)
    if path.is_dir():
        example = path / f"model{SUFFIX}"
        raise CheckpointError(
            translate_noop("CoreMessages", "cannot save the model to {0}: it is a folder; give a file name such as "
                                           "{1}"), str(path), str(example))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        files.check_writable(path)
    except OSError as exc:
        raise _cannot_save(path, exc) from None


def _cannot_save(path: Path, exc: OSError) -> CheckpointError:
    why = exc.strerror or str(exc)
    if exc.filename and str(exc.filename) != str(path):
        return CheckpointError(
            translate_noop("CoreMessages", "cannot save the model to {0}: {1} ({2})"),
            str(path), why, str(exc.filename))
    return CheckpointError(translate_noop("CoreMessages", "cannot save the model to {0}: {1}"), str(path), why)


def read_metadata(path: str | Path) -> dict[str, str]:
    path = Path(path)
    size = check_file(path)
    if size > MAX_BYTES:
        raise CheckpointError(translate_noop("CoreMessages", "{0} is {1} GB; transviz checkpoints are far smaller"),
                              path.name, f"{size / 1024**3:.1f}")
    header_length(path)
    try:
        with safe_open(str(path), framework="pt") as f:
            metadata = f.metadata() or {}
    except Exception as exc:  # safetensors raises its own error types for bad headers
        truncated = truncation(path, size)
        if truncated is not None:
            raise truncated from None
        raise CheckpointError(translate_noop("CoreMessages", "{0} is not a readable safetensors file ({1})"), path.name,
                              str(exc)) from None
    if metadata.get("format") != FORMAT:
        raise CheckpointError(translate_noop("CoreMessages", "{0} is a safetensors file from another program, not a "
                                                             "transviz checkpoint"), path.name)
    if metadata.get("format_version") != VERSION:
        raise CheckpointError(translate_noop("CoreMessages", "{0} has checkpoint format {1}; this transviz reads {2}"),
                              path.name, repr(metadata.get("format_version")), VERSION)
    return metadata


def recorded_task(path: str | Path) -> str | None:
    """The task the checkpoint at ``path`` was trained on, read from its header alone (None when
    it records none or cannot be read): a menu of models names them without loading them."""
    try:
        facts = json.loads(read_metadata(path).get("facts", "{}"))
    except (CheckpointError, ValueError):
        return None
    task = facts.get("task") if isinstance(facts, dict) else None
    return task if isinstance(task, str) else None


def _read_parts(path: Path, metadata: dict[str, str]) -> tuple[ModelConfig, Vocab, Vocab, dict[str, Any]]:
    """The config, vocabularies and training facts the metadata holds, each checked (a
    CheckpointError saying which is broken and how)."""
    try:
        if len(metadata.get("facts", "")) > MAX_FACTS_BYTES:
            raise CheckpointError(translate_noop("CoreMessages", "the training facts take more than {0} bytes"),
                                  f"{MAX_FACTS_BYTES:,}")
        parsed = {key: bounded_json(metadata[key], what) for key, what in METADATA_PARTS.items() if key in metadata}
        config = ModelConfig.from_dict(parsed["config"])
        src, tgt = (Vocab.from_dict(parsed[k]) for k in ("src_vocab", "tgt_vocab"))
        facts = parsed.get("facts", {})
        if not isinstance(facts, dict):
            raise CheckpointError(translate_noop("CoreMessages", "training facts are not a JSON object"))
        check_parts(config, src, tgt)
    except (KeyError, ValueError, TransvizError, TypeError, AttributeError) as exc:
        raise CheckpointError(BROKEN_METADATA, path.name, reason(exc)) from None
    return config, src, tgt, facts


def _header_tensors(path: Path) -> dict[str, tuple[str, list[int]]]:
    """Name -> (safetensors dtype such as "F32", shape) of the weights, read from the header alone."""
    with safe_open(str(path), framework="pt") as f:
        slices = {k: f.get_slice(k) for k in f.keys() if not k.startswith(EXTRA)}
        return {k: (s.get_dtype(), s.get_shape()) for k, s in slices.items()}


def _check_layout(path: Path, config: ModelConfig) -> None:
    """CheckpointError unless the file holds exactly the tensors ``config`` implies, by name, shape
    and a floating-point dtype: checked on the header, before any memory is spent on the network."""
    on_file = _header_tensors(path)
    expected: set[str] = set()
    problems: list[Arg] = []
    for names, shape in tensor_layout(config):
        expected.update(names)
        present = [n for n in names if n in on_file]
        if not present:
            problems.append(Message(translate_noop("CoreMessages", "missing tensor {0}"), names[0]))
            continue
        if len(present) > 1:  # the second copy would be silently ignored
            problems.append(Message(translate_noop("CoreMessages", "the file holds both {0} and {1}, which the config "
                                                                   "ties into one tensor"), present[0], present[1]))
        dtype, found = on_file[present[0]]
        if tuple(found) != shape:
            problems.append(Message(translate_noop("CoreMessages", "{0} has shape {1}, the config needs {2}"),
                                    present[0], str(tuple(found)), str(shape)))
        elif not dtype.startswith(("F", "BF")):
            problems.append(Message(translate_noop("CoreMessages", "{0} holds {1}, not floating-point weights"),
                                    present[0], dtype))
    unexpected = sorted(set(on_file) - expected)
    if unexpected:
        listed = ", ".join(unexpected[:3]) + (" ..." if len(unexpected) > 3 else "")
        problems.append(Message(translate_noop("CoreMessages", "unexpected tensors {0}"), listed))
    if problems:
        raise CheckpointError(MISMATCH, path.name, joined(problems[:3]))


def _read_tensors(path: Path, extra: bool) -> dict[str, torch.Tensor]:
    try:
        with safe_open(str(path), framework="pt") as f:
            names = [k for k in f.keys() if k.startswith(EXTRA) == extra]
            return {k: f.get_tensor(k) for k in names}
    except Exception as exc:  # truncated data behind a valid header, and the like
        raise CheckpointError(translate_noop("CoreMessages", "{0}: its tensors cannot be read ({1})"), path.name,
                              str(exc)) from None


def _load_weights(net: Transformer, path: Path) -> None:
    """Copy the file's weights (names, shapes and dtypes checked by :func:`_check_layout`) into ``net``."""
    on_file = _read_tensors(path, extra=False)
    weights = {}
    for group in _tied_groups(net):
        name = next(n for n in group if n in on_file)
        if not torch.isfinite(on_file[name]).all():
            raise CheckpointError(MISMATCH, path.name,
                                  Message(translate_noop("CoreMessages", "{0} holds NaN or infinite values"), name))
        weights.update({n: on_file[name] for n in group})
    net.load_state_dict(weights)


def load(path: str | Path, device: str = "cpu") -> Model:
    path = Path(path)
    metadata = read_metadata(path)
    config, src, tgt, facts = _read_parts(path, metadata)
    _check_layout(path, config)
    net = Transformer(config)
    _load_weights(net, path)
    check_finite_forward(net.eval(), path.name)
    return Model(net.to(device), src, tgt, facts, str(path))


def load_extras(path: str | Path) -> dict[str, torch.Tensor]:
    """The extra tensors saved beside the weights, by the names given to :func:`save`."""
    path = Path(path)
    read_metadata(path)
    return {k[len(EXTRA):]: v for k, v in _read_tensors(path, extra=True).items()}


def description(model: Model) -> list[Message]:
    """What a loaded checkpoint holds, one fact a message (Model > Info); setting names stay as written."""
    lines = []
    if model.path:
        lines.append(Message(translate_noop("CoreMessages", "file: {0} ({1} MB)"), model.path,
                             f"{Path(model.path).stat().st_size / 1e6:.2f}"))
    lines.append(Message(translate_noop("CoreMessages", "parameters: {0}"), f"{model.net.parameter_count():,}"))
    lines += [Message(translate_noop("CoreMessages", "config.{0}: {1}"), k, str(v))
              for k, v in model.config.to_dict().items()]
    lines += [Message(translate_noop("CoreMessages", "source vocabulary: {0} tokens ({1})"), len(model.src_vocab),
                      LEVELS[model.src_vocab.level]),
              Message(translate_noop("CoreMessages", "target vocabulary: {0} tokens ({1})"), len(model.tgt_vocab),
                      LEVELS[model.tgt_vocab.level])]
    lines += _generation_lines(model)
    training = translate_noop("CoreMessages", "training.{0}: {1}")
    lines += [Message(training, k, recorded(model.facts) if k == "message" else str(v))
              for k, v in model.facts.items() if k != PARTS]
    return lines


def _generation_lines(model: Model) -> list[Message]:
    """The generation rules decoding follows (a Hugging Face folder's generation config)."""
    rules, itos = model.generation, model.tgt_vocab.itos
    lines = []
    if rules.forced_prefix:
        first = " ".join(itos[i] for i in rules.forced_prefix)
        lines.append(Message(translate_noop("CoreMessages", "generation: writes {0} first, whatever the model "
                                                            "predicts"), first))
    if rules.banned:
        lines.append(Message(translate_noop("CoreMessages", "generation: never writes {0}"),
                             " ".join(itos[i] for i in rules.banned)))
    if rules.end_at_limit:
        lines.append(Message(translate_noop("CoreMessages", "generation: writes {0} at the length limit"),
                             itos[model.tgt_vocab.eos_id]))
    return lines


def describe(model: Model) -> str:
    """:func:`description` in English, one fact a line (``transviz info``)."""
    return "\n".join(str(line) for line in description(model))
