"""Render a tab offscreen to a picture, for slides and for tests that look at real pixels
(``transviz render``). The widgets are the window's own; nothing appears on screen."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtWidgets import QApplication

from ..core.bundle import Model
from ..core.errors import InputError
from ..core.walkthrough import KINDS, Kind
from . import VIEWS
from .app import dispose
from .export import save_picture
from .panels.base import PlotPanel
from .panels.masks import MasksPanel
from .panels.positional import MODEL, PositionalPanel

@dataclass(frozen=True)
class Slide:
    """What to render: a view of a sentence (and model), at a size in pixels."""

    view: str
    sentence: str
    model: Model | None = None
    width: int = 1600
    height: int = 900
    kind: Kind = "decoder_self"  # the masks walkthrough: attention kind, layer, head, target prefix
    layer: int = 0
    head: int = 0
    target: str | None = None


def build(slide: Slide) -> PlotPanel:
    """The panel of ``slide.view`` showing the slide's sentence and model."""
    if slide.view == "positional":
        positional = PositionalPanel()
        positional.set_model(slide.model)
        if slide.model is not None:
            positional.source.setCurrentIndex(MODEL)  # a model was given: show its own table
        return positional
    if slide.view == "masks":
        if slide.kind not in KINDS:
            raise InputError(f"unknown attention kind {slide.kind!r}; choose one of {', '.join(KINDS)}")
        masks = MasksPanel()
        masks.sentence.setText(slide.sentence)
        if slide.target is not None:
            masks.target.setText(slide.target)
        masks.set_model(slide.model)
        masks.kind.setCurrentIndex(KINDS.index(slide.kind))
        _check_range("layer", slide.layer, masks.layer.maximum(), slide.model)
        _check_range("head", slide.head, masks.head.maximum(), slide.model)
        masks.layer.setValue(slide.layer)
        masks.head.setValue(slide.head)
        return masks
    raise InputError(f"unknown view {slide.view!r}; choose one of {', '.join(VIEWS)}")


def _check_range(what: str, value: int, highest: int, model: Model | None) -> None:
    if model is not None and not 0 <= value <= highest:
        raise InputError(f"{what} {value} does not exist: this model has {what}s 0..{highest}")


def render(slide: Slide, out: str | Path) -> Path:
    """Draw ``slide`` offscreen and write it to ``out`` (``.png`` or ``.svg``)."""
    panel = build(slide)
    try:
        panel.resize(slide.width, slide.height)
        panel.show()  # lays the panel out; under the offscreen platform nothing is displayed
        QApplication.processEvents()
        return save_picture(panel, out, f"transviz: {slide.view}")
    finally:
        dispose(panel)
