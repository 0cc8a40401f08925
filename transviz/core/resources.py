"""Where shipped files live: the installed ``transviz.resources`` package, or ``resources/``
beside the package in a source checkout."""
from __future__ import annotations

import importlib.util
from pathlib import Path


def resource_dir() -> Path:
    spec = importlib.util.find_spec("transviz.resources")
    if spec is not None and spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    return Path(__file__).resolve().parents[2] / "resources"


def shipped_models() -> dict[str, Path]:
    """Name -> file of every model in ``resources/models`` ("default" is toy-de-en)."""
    folder = resource_dir() / "models"
    return {p.stem: p for p in sorted(folder.glob("*.safetensors"))} if folder.is_dir() else {}
