"""How a training run ended, in words: the message of a :class:`~transviz.core.training.train.TrainResult`,
which a checkpoint's training facts keep twice, as English (``message``, for any reader) and as
the message itself (``message_parts``, so that the GUI can show it in its own language)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..base.messages import Arg, Message, translate_noop

FINISHED = translate_noop("CoreMessages", "finished {0} steps")
STOPPED = translate_noop("CoreMessages", "stopped after {0} of {1} steps")
RUNNING = translate_noop("CoreMessages", "checkpoint at step {0} of {1}")
DIVERGED = translate_noop("CoreMessages", "training diverged at step {0}: {1} became {2}. The weights are back to "
                                          "those after step {3}, the last whose loss was finite, and nothing worse "
                                          "was saved. Try warm-up or a lower lr (step {4} used lr {5}).")
# what stopped being finite ({1} above)
LOSS = translate_noop("CoreMessages", "the loss")
GRADIENT_NORM = translate_noop("CoreMessages", "the gradient norm")
PROBE_SCORES = translate_noop("CoreMessages", "the probe sentence's scores")

PARTS = "message_parts"  # the facts' key of the message itself


def diverged(failed: int, what: str, value: float, good: int, lr: float) -> Message:
    """Step ``failed`` made ``what`` (:data:`LOSS` or :data:`GRADIENT_NORM`) ``value``; the
    weights are those after step ``good``."""
    return Message(DIVERGED, failed, Message(what), str(value), good, failed, f"{lr:.3g}")


def recorded(facts: Mapping[str, Any]) -> Arg:
    """The message of the run that ``facts`` describe: the one kept with them; for a checkpoint
    written before messages were kept (the shipped models), the message its status and step
    counts stand for, if it gives the English kept; else the English as kept."""
    kept = str(facts.get("message", ""))
    parts = facts.get(PARTS)
    if isinstance(parts, Mapping):
        try:
            return Message.from_dict(parts)
        except ValueError:
            return kept
    steps, status, config = facts.get("steps"), facts.get("status"), facts.get("train_config")
    planned = config.get("steps") if isinstance(config, Mapping) else None
    if not isinstance(steps, int):
        return kept
    if status == "finished":
        candidate = Message(FINISHED, steps)
    elif status == "stopped" and isinstance(planned, int):
        candidate = Message(STOPPED, steps, planned)
    elif status == "running" and isinstance(planned, int):
        candidate = Message(RUNNING, steps, planned)
    else:
        return kept
    return candidate if str(candidate) == kept else kept
