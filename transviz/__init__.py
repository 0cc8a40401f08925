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

import os
from pathlib import Path

from .core.bundle import Model
from .core.config import ModelConfig
from .core.errors import CheckpointError, ConfigError, InputError, TransvizError
from .core.head_importance import PruneCurve, head_importance, prune_curve
from .core.inference import Trace, decode, teacher_force
from .core.interventions import AblateHead, EditAttention, NoPositions, ScaleHead, ScaleScores, TieQueryKey

__all__ = [
    "AblateHead", "CheckpointError", "ConfigError", "EditAttention", "InputError", "Model", "ModelConfig",
    "NoPositions", "PruneCurve", "ScaleHead", "ScaleScores", "TieQueryKey", "Trace", "TransvizError", "decode",
    "head_importance", "load_model", "prune_curve", "save_model", "teacher_force",
]
__version__ = "0.1.0"


def load_model(path: str | Path, device: str = "cpu") -> Model:
    """Load a ``.safetensors`` checkpoint, a shipped model by name (see ``resources/models``), a
    plain PyTorch ``nn.Transformer`` model: its sidecar ``.json``, or its ``.safetensors`` weights
    with the sidecar of the same name beside them (README, "Your own PyTorch model"), or a folder
    a Hugging Face MarianMT or BART model was saved in (README, "Hugging Face models")."""
    from .core import checkpoint, hf_import, torch_import
    from .core.messages import Message, translate_noop
    from .core.resources import shipped_models

    shipped = shipped_models()
    if isinstance(path, str) and path in shipped:
        return checkpoint.load(shipped[path], device)
    if hf_import.handles(path):
        return hf_import.load(path, device)
    if torch_import.handles(path):
        return torch_import.load(path, device)
    # lexists: a dangling or looping symbolic link is a file the loader names as such, not a model name
    if isinstance(path, str) and not path.endswith(checkpoint.SUFFIX) and not os.path.lexists(path):
        names: str | Message = ", ".join(shipped) or Message(translate_noop("CoreMessages", "none are installed yet"))
        raise CheckpointError(translate_noop("CoreMessages", "no checkpoint file or shipped model called {0} (shipped "
                                                             "models: {1})"), repr(path), names)
    return checkpoint.load(path, device)


def save_model(model: Model, path: str | Path) -> Path:
    """Write ``model`` as one ``.safetensors`` file (atomically)."""
    from .core import checkpoint

    return checkpoint.save(model, path)
