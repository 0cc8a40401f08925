"""The "Why" tab (issue 16): two claims of the seed tutorial demonstrated live. Why scale: the
1/sqrt(d_k) keeps the softmax out of its flat region as d_k grows. Why positions: without the
positional encoding a shuffled sentence gives the same attention, only reordered.

Both follow the workspace's model and sentence. They run their own copy of the model (the
workspace's may be trained or replaced meanwhile), on the GUI thread and only while the tab shows:
its forward passes are a few milliseconds.
"""
from __future__ import annotations

from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QTabWidget, QVBoxLayout, QWidget

from ...core.model.bundle import Model, decoding_copy
from ...core.teaching.tabs import TAB_PAGES
from ...core.teaching.workspace import Workspace
from ..services.language import Retranslated
from ..services.observe import subscribe
from .base import PlotPanel
from .why_positions_view import PositionsSection
from .why_scale_view import ScaleSection

SCALE, POSITIONS = 0, 1  # the pages, in the order of TAB_PAGES["why"]


class WhyPanel(Retranslated, PlotPanel):
    """Why scale and why positions, one page each."""

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(workspace, parent)
        self._own: Model | None = None  # this tab's copy of the workspace's model, made when first needed
        self._copied: Model | None = None  # the workspace's model that ``_own`` copies
        self._shown: tuple[Model | None, str] | None = None  # the workspace's model and sentence the pages have
        self.scale = ScaleSection()
        self.positions = PositionsSection()
        self.pages = QTabWidget()
        self.pages.addTab(self.scale, "")
        self.pages.addTab(self.positions, "")
        self.bind_text(lambda text: self.pages.setTabText(SCALE, text), lambda: self.tr("Why scale"))
        self.bind_text(lambda text: self.pages.setTabText(POSITIONS, text), lambda: self.tr("Why positions"))
        self.track(*self.scale.plots(), *self.positions.plots())
        layout = QVBoxLayout(self)
        layout.addWidget(self.pages)
        self.pages.currentChanged.connect(lambda _: self.refresh())
        self.watch_model()
        subscribe(self, workspace.session_changed, lambda _: self.refresh())

    def set_model(self, model: Model | None) -> None:
        """Shown with the sentence of the session that follows (``session_changed``)."""
        self.refresh()

    def current_page(self) -> str | None:
        return TAB_PAGES["why"][self.pages.currentIndex()]

    def show_page(self, page: str) -> None:
        self.pages.setCurrentIndex(TAB_PAGES["why"].index(page))

    def refresh(self) -> None:
        """Draw the page shown, with the workspace's model and sentence; nothing while the tab is hidden."""
        if not self.isVisible():
            return
        self._follow()
        if self.pages.currentWidget() is self.scale:
            self.scale.refresh()
        else:
            self.positions.refresh()

    def _follow(self) -> None:
        """Give the pages the workspace's model (copied) and sentence, if either changed since they got them."""
        model, sentence = self.workspace.model, self.workspace.sentence
        if self._shown is not None and self._shown[0] is model and self._shown[1] == sentence:
            return  # the same sentence decoded another way: the shuffle stays
        self._shown = (model, sentence)
        if self._copied is not model:
            self._own, self._copied = (None if model is None else decoding_copy(model)), model
        for part in (self.scale.model_rows, self.positions):
            part.set_model(self._own, sentence)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.refresh()
