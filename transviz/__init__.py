"""transviz: train, load and look inside a small encoder-decoder Transformer.

Public API (stable, for notebooks and scripts)::

    import transviz
    model = transviz.load_model("path/to/model.safetensors")
    trace = transviz.decode(model, "ich mochte ein bier", strategy="greedy", max_len=50)
    trace.cross_attention            # (layers, heads, T, S) float32
    trace = transviz.teacher_force(model, source, target)
    trace = transviz.decode(model, "ich mochte ein bier", interventions=[transviz.AblateHead("cross", 1, 2)])
"""
from __future__ import annotations

from pathlib import Path

from .core.analysis.head_importance import PruneCurve, head_importance, prune_curve
from .core.base.errors import CheckpointError, ConfigError, InputError, TransvizError
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


def save_model(model: Model, path: str | Path) -> Path:
    """Write ``model`` as one ``.safetensors`` file (atomically)."""
    from .core.io import checkpoint

    return checkpoint.save(model, path)
