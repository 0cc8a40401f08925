"""Loading a model whatever it was saved as: a transviz checkpoint, a shipped model's name, a
folder a Hugging Face MarianMT or BART model was saved in, or a plain PyTorch model with its
sidecar. :func:`load_model` tells them apart; it is :func:`transviz.load_model`."""
from __future__ import annotations

import os
from pathlib import Path

from ..base.errors import CheckpointError
from ..model.bundle import Model


def load_model(path: str | Path, device: str = "cpu") -> Model:
    """Load a ``.safetensors`` checkpoint, a shipped model by name (see ``resources/models``), a
    plain PyTorch ``nn.Transformer`` model: its sidecar ``.json``, or its ``.safetensors`` weights
    with the sidecar of the same name beside them (the manual, "Your own PyTorch model"), or a folder
    a Hugging Face MarianMT or BART model was saved in (the manual, "Hugging Face models")."""
    from ..base.messages import Message, translate_noop
    from . import checkpoint, hf_import, torch_import
    from .resources import shipped_models

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
