"""Learning-rate schedules as pure functions of the step number.

Steps count optimiser updates from 1: update ``s`` uses ``learning_rate(s, ...)``. With
``warmup`` steps of linear warm-up the first update uses ``lr / warmup``, and the rate reaches
``lr`` at update ``warmup``.

* ``constant``: ``lr``.
* ``warmup``: ``lr * min(1, s / warmup)`` (linear warm-up, then constant; the seed's "1% warm-up").
* ``warmup-decay``: the warm-up, then a straight line from ``lr`` down to 0 at the last step:
  ``lr * (total - s) / (total - warmup)``.
* ``noam``: "Attention Is All You Need", eq. 3, times ``lr`` as a scale factor:
  ``lr * d_model**-0.5 * min(s**-0.5, s * warmup**-1.5)``; it peaks at ``s = warmup``.
"""
from __future__ import annotations

from ..base.errors import ConfigError
from ..base.messages import translate_noop
from ..model.config import TrainConfig


def learning_rate(step: int, lr: float, schedule: str, warmup: int, total: int, d_model: int) -> float:
    """The learning rate of update ``step`` (1-based) of ``total``."""
    if step < 1:
        raise ConfigError(translate_noop("CoreMessages", "steps count from 1, got {0}"), step)
    ramp = min(1.0, step / warmup) if warmup > 0 else 1.0
    if schedule == "constant":
        return lr
    if schedule == "warmup":
        return lr * ramp
    if schedule == "warmup-decay":
        if step <= warmup:
            return lr * ramp
        return lr * max(0.0, (total - step) / (total - warmup))
    if schedule == "noam":
        return float(lr * d_model**-0.5 * min(step**-0.5, step * warmup**-1.5))
    raise ConfigError(translate_noop("CoreMessages", "unknown schedule {0}"), repr(schedule))


def trainer_rate(config: TrainConfig, step: int, d_model: int) -> float:
    """:func:`learning_rate` with the settings of a :class:`TrainConfig`."""
    return learning_rate(step, config.lr, config.schedule, config.warmup_steps, config.steps, d_model)
