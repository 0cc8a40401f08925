"""transviz: train, load and look inside a small encoder-decoder Transformer.

Public API (stable, for notebooks and scripts)::

    import transviz
    model = transviz.load_model("path/to/model.safetensors")
    trace = transviz.decode(model, "ich mochte ein bier", strategy="greedy", max_len=50)
    trace.cross_attention            # (layers, heads, T, S) float32
    trace = transviz.teacher_force(model, source, target)
    trace = transviz.decode(model, "ich mochte ein bier", interventions=[transviz.AblateHead("cross", 1, 2)])

The names below are imported when first used: ``import transviz`` alone loads neither torch nor
numpy, so the program's entry (:func:`transviz.cli.launch`) decides how the start-up runs.
"""
from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .core.base.errors import CheckpointError, ConfigError, InputError, TransvizError

if TYPE_CHECKING:
    from .core.analysis.head_importance import PruneCurve, head_importance, prune_curve
    from .core.decoding.inference import Trace, decode, teacher_force
    from .core.decoding.interventions import AblateHead, EditAttention, NoPositions, ScaleHead, ScaleScores, TieQueryKey
    from .core.io.loading import load_model
    from .core.model.bundle import Model
    from .core.model.config import ModelConfig

__all__ = [
    "AblateHead", "CheckpointError", "ConfigError", "EditAttention", "InputError", "Model", "ModelConfig",
    "NoPositions", "PruneCurve", "ScaleHead", "ScaleScores", "TieQueryKey", "Trace", "TransvizError", "decode",
    "head_importance", "load_model", "prune_curve", "save_model", "teacher_force",
]
__version__ = "0.1.0"

_LAZY = {  # name -> the module that defines it
    **dict.fromkeys(("PruneCurve", "head_importance", "prune_curve"), ".core.analysis.head_importance"),
    **dict.fromkeys(("Trace", "decode", "teacher_force"), ".core.decoding.inference"),
    **dict.fromkeys(("AblateHead", "EditAttention", "NoPositions", "ScaleHead", "ScaleScores", "TieQueryKey"),
                    ".core.decoding.interventions"),
    "load_model": ".core.io.loading",
    "Model": ".core.model.bundle",
    "ModelConfig": ".core.model.config",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value  # the next use finds it without asking again
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


def save_model(model: Model, path: str | Path) -> Path:
    """Write ``model`` as one ``.safetensors`` file (atomically)."""
    from .core.io import checkpoint

    return checkpoint.save(model, path)
