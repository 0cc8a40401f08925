"""The curves a training run records (loss, learning rate, accuracy per step; validation loss and
exact match per validation), saved beside the weights so that a checkpoint's timeline can be
shown with the curves of the run that made it.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import torch

from ..io import checkpoint

PREFIX = "curves."  # checkpoint extras: curves.<name>
STEP_FIELDS = ("steps", "loss", "lr", "token_accuracy")
VALID_FIELDS = ("valid_steps", "valid_loss", "exact_match")


@dataclass
class Curves:
    """One value per update (``steps`` ...) and one per validation (``valid_steps`` ...)."""

    steps: list[int] = field(default_factory=list)
    loss: list[float] = field(default_factory=list)
    lr: list[float] = field(default_factory=list)
    token_accuracy: list[float] = field(default_factory=list)
    valid_steps: list[int] = field(default_factory=list)
    valid_loss: list[float] = field(default_factory=list)
    exact_match: list[float] = field(default_factory=list)

    def add_step(self, step: int, loss: float, lr: float, token_accuracy: float) -> None:
        for name, value in zip(STEP_FIELDS, (step, loss, lr, token_accuracy), strict=True):
            getattr(self, name).append(value)

    def add_validation(self, step: int, loss: float, exact_match: float) -> None:
        for name, value in zip(VALID_FIELDS, (step, loss, exact_match), strict=True):
            getattr(self, name).append(value)

    def until(self, step: int) -> Curves:
        """The curves up to ``step`` (after divergence: the steps of the weights kept)."""
        kept, valid = sum(s <= step for s in self.steps), sum(s <= step for s in self.valid_steps)
        return Curves(*(list(getattr(self, n)[:kept]) for n in STEP_FIELDS),
                      *(list(getattr(self, n)[:valid]) for n in VALID_FIELDS))

    def to_extras(self) -> dict[str, torch.Tensor]:
        """Checkpoint extras holding the curves (float64, so the values read back exactly)."""
        return {PREFIX + name: torch.tensor(getattr(self, name), dtype=torch.float64)
                for name in STEP_FIELDS + VALID_FIELDS}

    @classmethod
    def from_extras(cls, extras: Mapping[str, torch.Tensor]) -> Curves | None:
        """The curves in checkpoint extras; None when the checkpoint recorded none (or only part)."""
        if not all(PREFIX + name in extras for name in STEP_FIELDS + VALID_FIELDS):
            return None
        values = {name: extras[PREFIX + name].tolist() for name in STEP_FIELDS + VALID_FIELDS}
        for name in ("steps", "valid_steps"):
            values[name] = [int(v) for v in values[name]]
        return cls(**values)


def load_curves(path: str | Path) -> Curves | None:
    """The curves saved in the checkpoint at ``path``, or None if it has none."""
    return Curves.from_extras(checkpoint.load_extras(path))
