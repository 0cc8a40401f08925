"""Attention snapshots of one probe sentence taken during training, kept with their step, so a
timeline can replay how the alignment formed; saved beside the weights in the checkpoint.

When the probe's gold target is known the snapshot is teacher forced on it, so every snapshot
has the same shape; otherwise the model's own greedy output is decoded, and shapes vary.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from ..base.errors import CheckpointError, InputError
from ..base.messages import translate_noop
from ..decoding.inference import decode, teacher_force
from ..io import checkpoint
from ..model.bundle import Model
from .curves import Curves

PREFIX = "snapshots."  # checkpoint extras: snapshots.steps, snapshots.<i>.<field>
MAPS = ("encoder_self_attention", "decoder_self_attention", "cross_attention")
TOKENS = ("source_tokens", "target_tokens", "predicted_tokens")


@dataclass(frozen=True)
class Snapshot:
    """The probe's attention after ``step`` updates. Arrays are float32, rows queries, columns keys."""

    step: int
    source_tokens: list[str]  # S
    target_tokens: list[str]  # T decoder inputs, start token first
    predicted_tokens: list[str]  # T most probable next tokens
    encoder_self_attention: np.ndarray  # (layers, heads, S, S)
    decoder_self_attention: np.ndarray  # (layers, heads, T, T)
    cross_attention: np.ndarray  # (layers, heads, T, S)


def take(model: Model, step: int, probe: str, gold: str | None, max_len: int = 50) -> Snapshot:
    """Snapshot of ``probe``: teacher forced on ``gold`` when given, else greedy decoded."""
    trace = teacher_force(model, probe, gold) if gold is not None else decode(model, probe, max_len=max_len)
    return Snapshot(step, trace.source_tokens, trace.target_tokens, trace.predicted_tokens,
                    trace.encoder_self_attention, trace.decoder_self_attention, trace.cross_attention)


# Token lists travel as UTF-8 bytes joined by newlines (tokens never hold control characters),
# so a snapshot reads back exactly, unknown words included, without the vocabularies.
def _text_tensor(tokens: Sequence[str]) -> torch.Tensor:
    return torch.tensor(list("\n".join(tokens).encode("utf-8")), dtype=torch.uint8)


def _tokens(tensor: torch.Tensor) -> list[str]:
    text = bytes(tensor.tolist()).decode("utf-8")
    return text.split("\n") if text else []


def to_extras(snapshots: Sequence[Snapshot]) -> dict[str, torch.Tensor]:
    """Checkpoint extras (``checkpoint.save(model, path, extras=...)``) holding ``snapshots``."""
    extras = {PREFIX + "steps": torch.tensor([s.step for s in snapshots], dtype=torch.long)}
    for i, snap in enumerate(snapshots):
        for name in TOKENS:
            extras[f"{PREFIX}{i}.{name}"] = _text_tensor(getattr(snap, name))
        for name in MAPS:
            extras[f"{PREFIX}{i}.{name}"] = torch.from_numpy(np.ascontiguousarray(getattr(snap, name)))
    return extras


def _snapshot(extras: Mapping[str, torch.Tensor], index: int, step: int) -> Snapshot:
    def tokens(name: str) -> list[str]:
        return _tokens(extras[f"{PREFIX}{index}.{name}"])

    def maps(name: str) -> np.ndarray:
        return extras[f"{PREFIX}{index}.{name}"].float().numpy()

    return Snapshot(step, tokens("source_tokens"), tokens("target_tokens"), tokens("predicted_tokens"),
                    maps("encoder_self_attention"), maps("decoder_self_attention"), maps("cross_attention"))


def from_extras(extras: Mapping[str, torch.Tensor]) -> list[Snapshot]:
    """The snapshots in checkpoint extras, in step order; [] when there are none."""
    if PREFIX + "steps" not in extras:
        return []
    try:
        return [_snapshot(extras, i, int(step)) for i, step in enumerate(extras[PREFIX + "steps"].tolist())]
    except (KeyError, UnicodeDecodeError) as exc:
        raise CheckpointError(
            translate_noop("CoreMessages", "the attention snapshots in this checkpoint are incomplete ({0})"),
            str(exc)) from None


def save_with_snapshots(model: Model, path: str | Path, snapshots: Sequence[Snapshot],
                        curves: Curves | None = None, half: bool = False) -> Path:
    """Write ``model``, its training ``snapshots`` and the run's ``curves`` to one checkpoint (atomically);
    ``half``: the weights in float16 (:func:`~transviz.core.io.checkpoint.save`)."""
    extras = {**(to_extras(snapshots) if snapshots else {}), **(curves.to_extras() if curves is not None else {})}
    return checkpoint.save(model, path, extras=extras or None, half=half)


def load_snapshots(path: str | Path) -> list[Snapshot]:
    """The snapshots saved in the checkpoint at ``path`` (a GUI timeline after a restart)."""
    return from_extras(checkpoint.load_extras(path))


def snapshot_at(snapshots: Sequence[Snapshot], step: int, name: str) -> Snapshot:
    """The snapshot taken after ``step`` updates among the snapshots of checkpoint ``name``;
    InputError naming the steps there are (or that there are none)."""
    if not snapshots:
        raise InputError(translate_noop("CoreMessages", "{0} holds no training snapshots"), name)
    found = next((snap for snap in snapshots if snap.step == step), None)
    if found is None:
        raise InputError(translate_noop("CoreMessages", "{0} has no snapshot at step {1}; its steps: {2}"), name,
                         step, ", ".join(str(snap.step) for snap in snapshots))
    return found
