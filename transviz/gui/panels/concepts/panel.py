"""The Concepts tab: the pictures the tutorials describe, drawn from the loaded model's real
weights for the explorer's sentence at its step. A list of views on the left; above the view shown,
the tutorial's claim, what the picture shows, and the attention kind, layer and head it uses.

Only the view shown is drawn, and only while the tab shows: stepping in the explorer costs the
other views nothing. Views with slow work do it on their own worker thread, unless the tab is made
``background=False`` (``transviz render``: the picture must be finished when it is written).
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial

from PySide6.QtCore import Qt
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QComboBox,
    QFrame,
    QHBoxLayout,
    QListWidget,
    QSpinBox,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from ....core.analysis.concepts.forward import Sentence
from ....core.analysis.walkthrough import KINDS, Kind
from ....core.base.errors import TransvizError
from ....core.decoding.interventions import Intervention
from ....core.model.bundle import Model
from ....core.teaching.workspace import Workspace
from ...services.core_messages import translated
from ...services.language import Retranslated, set_items
from ...services.observe import subscribe
from ...widgets.attention_view import kind_names
from ...widgets.labels import bound_label, error_label, plain_label, show_error
from ..base import PlotPanel
from .base import ConceptContext, ConceptView
from .catalogue import CONCEPT_VIEWS


class ConceptsPanel(Retranslated, PlotPanel):
    """Every concept view, one shown at a time (:meth:`select` by its ``name``). Without
    ``background`` every view computes on the GUI thread (headless rendering)."""

    def __init__(self, workspace: Workspace, parent: QWidget | None = None, background: bool = True) -> None:
        super().__init__(workspace, parent)
        self.views: list[ConceptView] = [view() for view in CONCEPT_VIEWS]
        self._background = background
        for view in self.views:
            view.set_synchronous(not background)
        self._stale = True  # the view shown has not drawn what the workspace holds now
        self._build()
        for view in self.views:
            self.track(*view.plots())
            view.requested.connect(self._add_intervention)
            view.caption_changed.connect(partial(self._recaption, view))
        self.watch_model()
        subscribe(self, workspace.session_changed, lambda _: self.refresh())
        subscribe(self, workspace.session_moved, lambda _: self.refresh())
        # the session decodes again before the workspace's list changes: a view naming them redraws then
        subscribe(self, workspace.interventions_changed, lambda _: self.refresh())
        subscribe(self, workspace.hidden_changed, lambda _: self.refresh())  # a quiz's question opened or closed

    def _build(self) -> None:
        self.list = QListWidget()
        self.list.addItems([""] * len(self.views))
        # as wide as the longest title in the language and text size in use, never scrolled sideways
        self.list.setSizeAdjustPolicy(QAbstractScrollArea.SizeAdjustPolicy.AdjustToContents)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.claim = plain_label(wrap=True)
        self.claim.setFrameShape(QFrame.Shape.StyledPanel)
        self.claim.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.caption = plain_label(wrap=True)
        self.kind, self.layer, self.head = QComboBox(), QSpinBox(), QSpinBox()
        self.bind_text(lambda names: set_items(self.kind, [names[k] for k in KINDS]), kind_names)
        self.kind.setCurrentIndex(KINDS.index("cross"))
        self.chooser = QWidget()
        row = QHBoxLayout(self.chooser)
        row.setContentsMargins(0, 0, 0, 0)
        self.head_label = bound_label(self, lambda: self.tr("head"))
        self.layer_label = bound_label(self, lambda: self.tr("layer"))
        choosers: list[tuple[QWidget, QWidget]] = [(bound_label(self, lambda: self.tr("Attention")), self.kind),
                                                   (self.layer_label, self.layer),
                                                   (self.head_label, self.head)]
        for label, chooser in choosers:
            row.addWidget(label)
            row.addWidget(chooser)
        row.addStretch(1)
        self.error = error_label()
        self.pages = QStackedWidget()
        for view in self.views:
            self.pages.addWidget(view)
        right = QVBoxLayout()
        for part in (self.claim, self.caption, self.chooser, self.error):
            right.addWidget(part)
        right.addWidget(self.pages, 1)
        layout = QHBoxLayout(self)
        layout.addWidget(self.list)
        layout.addLayout(right, 1)
        self.list.currentRowChanged.connect(self._on_view_chosen)
        self.kind.currentIndexChanged.connect(self._on_kind_chosen)
        self.layer.valueChanged.connect(lambda _: self.refresh())
        self.head.valueChanged.connect(lambda _: self.refresh())
        self._name_views()
        self.list.setCurrentRow(0)

    def _name_views(self) -> None:
        for row, view in enumerate(self.views):
            self.list.item(row).setText(view.title())

    def retranslate(self) -> None:
        super().retranslate()
        self._name_views()
        self._describe()
        self._stale = True
        self.refresh()  # the views' own texts

    # -- choices ---------------------------------------------------------------------------------
    @property
    def current(self) -> ConceptView:
        return self.views[max(self.list.currentRow(), 0)]

    def select(self, name: str) -> None:
        """Show the view called ``name`` (its ``--view`` name)."""
        self.list.setCurrentRow(next(i for i, view in enumerate(self.views) if view.name == name))

    def current_kind(self) -> Kind:
        return KINDS[self.kind.currentIndex()]

    def _on_view_chosen(self, row: int) -> None:
        self.pages.setCurrentIndex(row)
        self._describe()
        self._stale = True
        self.refresh()

    def _on_kind_chosen(self) -> None:
        self._fit_ranges()
        self.refresh()

    def _describe(self) -> None:
        view = self.current
        said = self.tr("The tutorial says: {0}") if view.from_tutorial else self.tr("Beyond the tutorials: {0}")
        self.claim.setText(said.format(view.claim()))
        self.caption.setText(view.caption())
        self.chooser.setVisible(view.uses_layer or view.uses_kind)
        self.layer.setVisible(view.uses_layer)
        self.layer_label.setVisible(view.uses_layer)
        self.head.setVisible(view.uses_head)
        self.head_label.setVisible(view.uses_head)

    def _fit_ranges(self) -> None:
        """The layer and head choosers span the model's layers of the chosen kind and its heads."""
        model = self.workspace.decoding_model
        if model is None:
            return
        cfg = model.config
        self.layer.setMaximum(cfg.layer_count(self.current_kind()) - 1)
        self.head.setMaximum(cfg.n_heads - 1)

    # -- drawing ---------------------------------------------------------------------------------
    def set_model(self, model: Model | None) -> None:
        self._fit_ranges()
        self.refresh()

    def context(self) -> ConceptContext | None:
        """The workspace's sentence at the explorer's step, and the choices; None without a session."""
        session, model = self.workspace.session, self.workspace.decoding_model
        if session is None or model is None:
            return None
        sentence = Sentence(session.source, tuple(session.target_tokens[1:]))
        return ConceptContext(model, sentence, self.current_kind(), self.layer.value(), self.head.value(),
                              self.workspace.interventions, tuple(session.output_tokens),
                              self.workspace.hidden_step is not None)

    def refresh(self) -> None:
        """Draw the view shown for what the workspace holds now (later, if the tab is hidden)."""
        self._stale = True
        if not self.isVisible():
            return
        self._stale = False
        context = self.context()
        if context is None:
            self.pages.setVisible(False)
            show_error(self.error, self.workspace.error and translated(self.workspace.error)
                       or self.tr("Type a sentence in the Explorer tab to see it here."))
            return
        try:
            self.current.draw(context)
        except TransvizError as exc:
            self.pages.setVisible(False)
            show_error(self.error, translated(exc))
            return
        show_error(self.error, None)
        self.pages.setVisible(True)
        self.caption.setText(self.current.caption())  # with the numbers of what was drawn

    def _recaption(self, view: ConceptView) -> None:
        if view is self.current:
            self.caption.setText(self.current.caption())

    def shutdown(self) -> None:
        for view in self.views:
            view.shutdown()

    @contextmanager
    def drawn_at_once(self) -> Iterator[None]:
        for view in self.views:
            view.set_synchronous(True)
        # a measurement still running would arrive after the first frame and change its caption
        self.refresh()
        try:
            yield
        finally:
            for view in self.views:
                view.set_synchronous(not self._background)

    def _add_intervention(self, intervention: Intervention) -> None:
        """Run the explorer with ``intervention`` too; one the model cannot take is shown, not added."""
        if intervention in self.workspace.interventions:
            return  # a second click on the same cell
        try:
            self.workspace.set_interventions((*self.workspace.interventions, intervention))
        except TransvizError as exc:
            show_error(self.error, translated(exc))


    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._stale:
            self.refresh()
