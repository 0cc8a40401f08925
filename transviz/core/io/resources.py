"""Where shipped files live: the installed ``transviz.resources`` package, ``resources/`` beside
the package in a source checkout, or ``transviz/resources`` inside the frozen classroom bundle."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

FROZEN_RESOURCES = ("transviz", "resources")  # where build.spec puts resources/ in the bundle


def resource_dir() -> Path:
    bundle = getattr(sys, "_MEIPASS", None)  # set by PyInstaller's bootloader in the frozen app
    if getattr(sys, "frozen", False) and bundle:
        return Path(bundle).joinpath(*FROZEN_RESOURCES)
    spec = importlib.util.find_spec("transviz.resources")
    if spec is not None and spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    return Path(__file__).resolve().parents[3] / "resources"


DEFAULT_MODEL = "default"  # the shipped model the window opens with (toy-de-en)
# The interface's language code -> the shipped model a window in it opens with, when not DEFAULT_MODEL
LANGUAGE_DEFAULT_MODELS = {"zh_CN": "zh-en"}  # a Chinese class starts on the seed's 我爱中国


def default_model(language: str, shipped: dict[str, Path] | None = None) -> str:
    """The shipped model a window in ``language`` opens with: its own if installed, else :data:`DEFAULT_MODEL`."""
    own = LANGUAGE_DEFAULT_MODELS.get(language)
    return own if own is not None and own in (shipped_models() if shipped is None else shipped) else DEFAULT_MODEL


def shipped_models() -> dict[str, Path]:
    """Name -> file of every model in ``resources/models`` (:data:`DEFAULT_MODEL` among them)."""
    from .checkpoint import SUFFIX  # here, not at the top: this module is read before torch is needed

    folder = resource_dir() / "models"
    return {p.stem: p for p in sorted(folder.glob(f"*{SUFFIX}"))} if folder.is_dir() else {}


def shipped_lessons() -> dict[str, Path]:
    """Name -> file of every lesson in ``resources/lessons``, in the order of their names."""
    folder = resource_dir() / "lessons"
    return {p.stem: p for p in sorted(folder.glob("*.toml"))} if folder.is_dir() else {}
