"""The bar above the attention grid: the interventions in force as chips ("cross L1 H2 off
(zero)"), each with a remove button, and "Clear all"; hidden while there are none.

The chips sit in a strip that scrolls sideways, so that many interventions never widen the window.
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QPushButton, QScrollArea, QSizePolicy, QToolButton, QWidget

from ...core.decoding.interventions import Intervention
from ..services.core_messages import translated
from ..services.language import Retranslated
from ..services.session import SessionController
from ..style import BLUE
from .labels import bound_label, plain_label


def describe(item: Intervention) -> str:
    """A short readable name of ``item``, in the language in use."""
    return translated(item.describe())


class InterventionChip(QFrame):
    """One intervention's name and its remove button."""

    def __init__(self, item: Intervention, text: str, remove_tip: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.item = item
        self.setObjectName("intervention_chip")
        self.setStyleSheet(f"#intervention_chip {{ border: 2px solid {BLUE}; border-radius: 4px; }}")
        self.label = plain_label(text)
        self.remove = QToolButton()
        self.remove.setText("×")
        self.remove.setAutoRaise(True)
        self.remove.setToolTip(remove_tip)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.label)
        layout.addWidget(self.remove)


class InterventionBar(Retranslated, QWidget):
    """The controller's interventions as removable chips, and "Clear all"."""

    def __init__(self, controller: SessionController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.chips: list[InterventionChip] = []
        self.title = bound_label(self, lambda: self.tr("Interventions:"))
        self.strip = QWidget()
        self.strip_layout = QHBoxLayout(self.strip)
        self.strip_layout.setContentsMargins(0, 0, 0, 0)
        self.strip_layout.addStretch(1)
        self.scroller = QScrollArea()
        self.scroller.setWidget(self.strip)
        self.scroller.setWidgetResizable(True)
        for plain in (self.strip, self.scroller.viewport()):  # the bar's own background shows through
            plain.setAutoFillBackground(False)
        self.scroller.setFrameShape(QFrame.Shape.NoFrame)
        self.scroller.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroller.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.clear_all = QPushButton()
        self.bind_text(self.clear_all.setText, lambda: self.tr("Clear all"))
        self.bind_text(self.clear_all.setToolTip, lambda: self.tr("Remove every intervention (Ctrl+Z undoes it)"))
        self.clear_all.clicked.connect(controller.clear_interventions)
        self.bind_text(self.setToolTip, lambda: self.tr(
            "Attention changed for an experiment (right-click a head to add one; Ctrl+Z undoes the last change). "
            "Edited heads are framed in blue; output tokens that differ from the unmodified model's are blue"))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.scroller, 1)
        layout.addWidget(self.clear_all)
        controller.interventions_changed.connect(self.refresh)
        self.refresh()

    def retranslate(self) -> None:
        super().retranslate()
        self.refresh()

    def refresh(self) -> None:
        """One chip per intervention in force; hidden when there are none."""
        for chip in self.chips:
            self.strip_layout.removeWidget(chip)
            chip.hide()
            chip.deleteLater()
        items = self.controller.interventions.items
        remove_tip = self.tr("Remove this intervention")
        self.chips = [InterventionChip(item, describe(item), remove_tip) for item in items]
        for index, chip in enumerate(self.chips):
            chip.remove.clicked.connect(lambda _=False, item=chip.item: self.controller.remove_intervention(item))
            self.strip_layout.insertWidget(index, chip)
        # room for the chips and, when they overflow, the scroll bar under them
        height = max((chip.sizeHint().height() for chip in self.chips), default=0)
        self.scroller.setFixedHeight(height + self.scroller.horizontalScrollBar().sizeHint().height())
        self.setVisible(bool(items))

    def texts(self) -> list[str]:
        """The chips' texts, in order."""
        return [chip.label.text() for chip in self.chips]
