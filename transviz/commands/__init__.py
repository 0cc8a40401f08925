"""One module per sub-command of ``transviz``. Each defines ``register(commands)``, which adds
its parser to the argparse sub-parsers and sets ``func`` (args -> exit code)."""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..core.model.bundle import Model


def model_or_default(path: str | None) -> Model:
    """The checkpoint (or shipped model) named by ``path``, else the shipped default model."""
    from .. import load_model
    from ..core.base.errors import CheckpointError
    from ..core.io.resources import DEFAULT_MODEL, shipped_models

    if path:
        return load_model(path)
    if DEFAULT_MODEL not in shipped_models():
        raise CheckpointError("no shipped default model is installed yet (resources/models/default.safetensors); "
                              "pass --model FILE")
    return load_model(DEFAULT_MODEL)


SIZE = re.compile(r"^(\d{1,9})x(\d{1,9})$")
SMALLEST, LARGEST = 100, 8192  # pixels a side: 8192 x 8192 is an image of 256 MiB already


def picture_size(text: str) -> tuple[int, int]:
    """``--size WIDTHxHEIGHT`` as two numbers from 100 to 8192 pixels; InputError otherwise."""
    from ..core.base.errors import InputError

    size = SIZE.match(text)
    if not size or not all(SMALLEST <= int(side) <= LARGEST for side in size.groups()):
        raise InputError(f"--size must be WIDTHxHEIGHT with both from {SMALLEST} to {LARGEST}, e.g. 1600x900, "
                         f"not {text!r}")
    return int(size[1]), int(size[2])
