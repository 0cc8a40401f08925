"""Checkpoints: ONE ``.safetensors`` file, weights plus JSON metadata (config, vocabularies,
training facts). Writes are atomic; loading never unpickles."""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import torch
from safetensors import safe_open
from safetensors.torch import load_model as _load_weights
from safetensors.torch import save_model as _save_weights

from .bundle import Model
from .config import ModelConfig
from .errors import CheckpointError, ConfigError
from .model import Transformer
from .vocab import Vocab

FORMAT, VERSION = "transviz", "1"


def save(model: Model, path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    metadata = {
        "format": FORMAT, "format_version": VERSION,
        "config": json.dumps(model.config.to_dict()),
        "src_vocab": json.dumps(model.src_vocab.to_dict()),
        "tgt_vocab": json.dumps(model.tgt_vocab.to_dict()),
        "facts": json.dumps(model.facts),
    }
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    os.close(fd)
    try:
        _save_weights(model.net, tmp, metadata=metadata)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return path


def read_metadata(path: str | Path) -> dict[str, str]:
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"{path}: no such file")
    try:
        with safe_open(str(path), framework="pt") as f:
            metadata = f.metadata() or {}
    except Exception as exc:  # safetensors raises its own error types for bad headers
        raise CheckpointError(f"{path.name} is not a readable safetensors file ({exc})") from None
    if metadata.get("format") != FORMAT:
        raise CheckpointError(f"{path.name} is a safetensors file from another program, not a transviz checkpoint")
    if metadata.get("format_version") != VERSION:
        raise CheckpointError(f"{path.name} has checkpoint format {metadata.get('format_version')!r}; this transviz reads {VERSION}")
    return metadata


def load(path: str | Path, device: str = "cpu") -> Model:
    metadata = read_metadata(path)
    name = Path(path).name
    try:
        config = ModelConfig.from_dict(json.loads(metadata["config"]))
        src, tgt = (Vocab.from_dict(json.loads(metadata[k])) for k in ("src_vocab", "tgt_vocab"))
        facts = json.loads(metadata.get("facts", "{}"))
    except (KeyError, ValueError, ConfigError, TypeError) as exc:
        raise CheckpointError(f"{name} has broken metadata: {exc}") from None
    net = Transformer(config)
    try:
        _load_weights(net, str(path), strict=True)
    except Exception as exc:
        raise CheckpointError(f"{name} does not match its own config: {exc}") from None
    if not all(torch.isfinite(p).all() for p in net.parameters()):
        raise CheckpointError(f"{name} holds NaN or infinite weights")
    try:
        model = Model(net.to(device).eval(), src, tgt, facts, str(path))
    except ValueError as exc:
        raise CheckpointError(f"{name}: {exc}") from None
    return model


def describe(path: str | Path) -> str:
    model = load(path)
    lines = [f"file: {path} ({Path(path).stat().st_size / 1e6:.2f} MB)", f"parameters: {model.net.parameter_count():,}"]
    lines += [f"config.{k}: {v}" for k, v in model.config.to_dict().items()]
    lines += [f"source vocabulary: {len(model.src_vocab)} tokens ({model.src_vocab.level} level)",
              f"target vocabulary: {len(model.tgt_vocab)} tokens ({model.tgt_vocab.level} level)"]
    lines += [f"training.{k}: {v}" for k, v in model.facts.items()]
    return "\n".join(lines)
