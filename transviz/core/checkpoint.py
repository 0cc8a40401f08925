"""Checkpoints: ONE ``.safetensors`` file, weights plus JSON metadata (config, vocabularies,
training facts), and optionally extra named tensors (e.g. attention snapshots taken during
training) under the ``extra.`` prefix. Writes are atomic; loading never unpickles, and every
way a file can be wrong becomes a :class:`CheckpointError` that says what is wrong."""
from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import torch
from safetensors import safe_open
from safetensors.torch import save as serialize

from . import files
from .bundle import Model
from .config import ModelConfig
from .endings import PARTS, recorded
from .errors import CheckpointError, ConfigError, reason
from .messages import Arg, Message, joined, translate_noop
from .model import Transformer
from .vocab import Vocab

FORMAT, VERSION = "transviz", "1"
SUFFIX = ".safetensors"  # what a checkpoint's file name ends with
EXTRA = "extra."  # prefix of tensors that are not weights
BROKEN_METADATA = translate_noop("CoreMessages", "{0} has broken metadata: {1}")
LEVELS = {"word": Message(translate_noop("CoreMessages", "word level")),
          "char": Message(translate_noop("CoreMessages", "char level"))}
MAX_BYTES = 2 * 1024**3  # larger files are refused before anything is read


def _tied_groups(net: torch.nn.Module) -> list[list[str]]:
    """State-dict names grouped by the tensor they share (a tied table appears under 2-3 names)."""
    groups: dict[tuple[int, int, tuple[int, ...]], list[str]] = {}
    for name, tensor in net.state_dict().items():
        key = (tensor.untyped_storage().data_ptr(), tensor.storage_offset(), tuple(tensor.shape))
        groups.setdefault(key, []).append(name)
    return list(groups.values())


def save(model: Model, path: str | Path, extras: Mapping[str, torch.Tensor] | None = None) -> Path:
    """Write ``model`` (and ``extras``) to ``path`` atomically: a temporary file, then a rename.
    CheckpointError when the file cannot be written (the folder is read-only, the disk full...)."""
    path = Path(path)
    state = model.net.state_dict()
    tensors = {group[0]: state[group[0]].detach().cpu().contiguous() for group in _tied_groups(model.net)}
    tensors.update({EXTRA + k: v.detach().cpu().contiguous() for k, v in (extras or {}).items()})
    metadata = {
        "format": FORMAT, "format_version": VERSION,
        "config": json.dumps(model.config.to_dict()),
        "src_vocab": json.dumps(model.src_vocab.to_dict()),
        "tgt_vocab": json.dumps(model.tgt_vocab.to_dict()),
        "facts": json.dumps(model.facts),
    }
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # bytes first, so that the one temporary file is the atomic writer's (save_file makes its own)
        files.write_atomically(path, serialize(tensors, metadata=metadata))
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
    if path.is_dir():
        raise CheckpointError(translate_noop("CoreMessages", "{0} is a folder, not a checkpoint file: name a {1} file "
                                                             "in it"), str(path), SUFFIX)
    if not path.is_file():
        raise CheckpointError(translate_noop("CoreMessages", "{0}: no such file"), str(path))
    size = path.stat().st_size
    if size > MAX_BYTES:
        raise CheckpointError(translate_noop("CoreMessages", "{0} is {1} GB; transviz checkpoints are far smaller"),
                              path.name, f"{size / 1024**3:.1f}")
    try:
        with safe_open(str(path), framework="pt") as f:
            metadata = f.metadata() or {}
    except Exception as exc:  # safetensors raises its own error types for bad headers
        truncated = _truncation(path, size)
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


def _truncation(path: Path, size: int) -> CheckpointError | None:
    """Why a file of ``size`` bytes with a sound start of a safetensors header cannot be read: it
    ends inside that header, or before the end of the data the header describes (a copy or
    download cut short); None if it is broken some other way. The layout: 8 bytes little-endian
    header length, the JSON header, then the tensors at their ``data_offsets``."""
    with path.open("rb") as f:
        prefix = f.read(8)
        header_len = int.from_bytes(prefix, "little") if len(prefix) == 8 else 0
        if not 0 < header_len <= MAX_BYTES:
            return None
        header = f.read(header_len)
    if not header.startswith(b"{"):
        return None
    header_end = 8 + header_len  # the length field counts: a user compares it with the file's size
    if len(header) < header_len:
        inside = translate_noop("CoreMessages", "{0}: the file is truncated or damaged: it ends after {1} bytes, "
                                                "inside its {2}-byte header")
        return CheckpointError(inside, path.name, f"{size:,}", f"{header_end:,}")
    try:
        entries = json.loads(header)
        complete = header_end + max((e["data_offsets"][1] for k, e in entries.items() if k != "__metadata__"),
                                    default=0)
    except (ValueError, TypeError, KeyError, IndexError, AttributeError):
        return None
    if complete <= size:
        return None
    return CheckpointError(translate_noop("CoreMessages", "{0}: the file is truncated or damaged: it ends after {1} "
                                                          "bytes; a complete file holds {2} bytes"),
                           path.name, f"{size:,}", f"{complete:,}")


def _read_tensors(path: Path, extra: bool) -> dict[str, torch.Tensor]:
    try:
        with safe_open(str(path), framework="pt") as f:
            names = [k for k in f.keys() if k.startswith(EXTRA) == extra]
            return {k: f.get_tensor(k) for k in names}
    except Exception as exc:  # truncated data behind a valid header, and the like
        raise CheckpointError(translate_noop("CoreMessages", "{0}: its tensors cannot be read ({1})"), path.name,
                              str(exc)) from None


def _load_weights(net: Transformer, path: Path) -> None:
    on_file = _read_tensors(path, extra=False)
    expected = net.state_dict()
    weights = {}
    problems: list[Arg] = []
    for group in _tied_groups(net):
        present = [n for n in group if n in on_file]
        if not present:
            problems.append(Message(translate_noop("CoreMessages", "missing tensor {0}"), group[0]))
            continue
        tensor = on_file[present[0]]
        if tensor.shape != expected[group[0]].shape:
            problems.append(Message(
                translate_noop("CoreMessages", "{0} has shape {1}, the config needs {2}"),
                present[0], str(tuple(tensor.shape)), str(tuple(expected[group[0]].shape))))
        elif not tensor.is_floating_point():
            problems.append(Message(translate_noop("CoreMessages", "{0} holds {1}, not floating-point weights"),
                                    present[0], str(tensor.dtype)))
        elif not torch.isfinite(tensor).all():
            problems.append(Message(translate_noop("CoreMessages", "{0} holds NaN or infinite values"), present[0]))
        weights.update({n: tensor for n in group})
    unexpected = sorted(set(on_file) - set(expected))
    if unexpected:
        names = ", ".join(unexpected[:3]) + (" ..." if len(unexpected) > 3 else "")
        problems.append(Message(translate_noop("CoreMessages", "unexpected tensors {0}"), names))
    if problems:
        raise CheckpointError(translate_noop("CoreMessages", "{0} does not match its own config: {1}"), path.name,
                              joined(problems[:3]))
    net.load_state_dict(weights)


def load(path: str | Path, device: str = "cpu") -> Model:
    path = Path(path)
    metadata = read_metadata(path)
    try:
        config = ModelConfig.from_dict(json.loads(metadata["config"]))
        src, tgt = (Vocab.from_dict(json.loads(metadata[k])) for k in ("src_vocab", "tgt_vocab"))
        facts = json.loads(metadata.get("facts", "{}"))
    except (KeyError, ValueError, ConfigError, TypeError, AttributeError) as exc:
        raise CheckpointError(BROKEN_METADATA, path.name, reason(exc)) from None
    if not isinstance(facts, dict):
        raise CheckpointError(BROKEN_METADATA, path.name,
                              Message(translate_noop("CoreMessages", "training facts are not a JSON object")))
    net = Transformer(config)
    _load_weights(net, path)
    try:
        model = Model(net.to(device).eval(), src, tgt, facts, str(path))
    except ValueError as exc:
        raise CheckpointError(translate_noop("CoreMessages", "{0}: {1}"), path.name, str(exc)) from None
    return model


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
    training = translate_noop("CoreMessages", "training.{0}: {1}")
    lines += [Message(training, k, recorded(model.facts) if k == "message" else str(v))
              for k, v in model.facts.items() if k != PARTS]
    return lines


def describe(model: Model) -> str:
    """:func:`description` in English, one fact a line (``transviz info``)."""
    return "\n".join(str(line) for line in description(model))
