"""The interventions offered in the right-click menu of a head (grid tile or large view), built
from one table: :data:`HEAD_ACTIONS`. A new kind of intervention is one more row there.

An entry in force is shown checked; choosing it again removes it (a toggle).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication, QObject, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

from ...core.analysis.walkthrough import Kind
from ...core.decoding.interventions import AblateHead, Intervention, ScaleHead, ScaleScores, TieQueryKey
from .grid import SUMMARY_COLUMN

SCALE_FACTORS = (0.0, 0.5, 2.0, 10.0)  # 0: uniform attention; 10: a nearly one-hot softmax


@dataclass(frozen=True)
class HeadTarget:
    """The head right-clicked: ``head`` is SUMMARY_COLUMN on a layer's summary tile. ``layers``
    and ``heads`` are how many the kind has (for entries that list other heads)."""

    kind: Kind
    layer: int
    head: int
    layers: int
    heads: int

    @property
    def one_head(self) -> bool:
        return self.head != SUMMARY_COLUMN


@dataclass(frozen=True)
class HeadAction:
    """One menu entry for one head (disabled on a summary tile)."""

    text: Callable[[], str]
    make: Callable[[HeadTarget], Intervention]


@dataclass(frozen=True)
class HeadChoices:
    """A submenu: (label, intervention) pairs for the target; ``per_head`` ones need one head."""

    text: Callable[[], str]
    choices: Callable[[HeadTarget], Sequence[tuple[str, Intervention]]]
    per_head: bool = True


def factor_text(factor: float) -> str:
    return f"{factor:g}"


def _scales(target: HeadTarget) -> list[tuple[str, Intervention]]:
    label = QCoreApplication.translate("InterventionMenu", "× {0}")
    return [(label.format(factor_text(factor)), ScaleScores(factor, target.kind, target.layer))
            for factor in SCALE_FACTORS]


def _head_scales(target: HeadTarget) -> list[tuple[str, Intervention]]:
    label = QCoreApplication.translate("InterventionMenu", "× {0}")
    return [(label.format(factor_text(factor)), ScaleHead(target.kind, target.layer, target.head, factor))
            for factor in SCALE_FACTORS]


def _sources(target: HeadTarget) -> list[tuple[str, Intervention]]:
    """Every head of the same or an earlier layer whose pattern this head could use instead."""
    return [(f"L{layer} H{head}", AblateHead(target.kind, target.layer, target.head, "copy", (layer, head)))
            for layer in range(target.layer + 1) for head in range(target.heads)
            if (layer, head) != (target.layer, target.head)]


# Literal strings in QCoreApplication.translate calls, so that lupdate finds them.
HEAD_ACTIONS: tuple[HeadAction | HeadChoices, ...] = (
    HeadAction(lambda: QCoreApplication.translate("InterventionMenu", "Turn off (zero output)"),
               lambda t: AblateHead(t.kind, t.layer, t.head, "zero")),
    HeadAction(lambda: QCoreApplication.translate("InterventionMenu", "Turn off (uniform attention)"),
               lambda t: AblateHead(t.kind, t.layer, t.head, "uniform")),
    HeadAction(lambda: QCoreApplication.translate("InterventionMenu", "Turn off (mean output)"),
               lambda t: AblateHead(t.kind, t.layer, t.head, "mean")),
    HeadChoices(lambda: QCoreApplication.translate("InterventionMenu", "Replace by head"), _sources),
    HeadAction(lambda: QCoreApplication.translate("InterventionMenu", "Tie Q = K (this head)"),
               lambda t: TieQueryKey(t.kind, t.layer, t.head)),
    HeadChoices(lambda: QCoreApplication.translate("InterventionMenu", "Scale this layer's scores"), _scales,
                per_head=False),
    HeadChoices(lambda: QCoreApplication.translate("InterventionMenu", "Scale this head's scores"), _head_scales),
)


def _per_head(entry: HeadAction | HeadChoices) -> bool:
    return entry.per_head if isinstance(entry, HeadChoices) else True


class InterventionMenu(QObject):
    """Adds the interventions of :data:`HEAD_ACTIONS` to a head's right-click menu.

    Args:
        active: the interventions in force (their entries are shown checked).

    Signals:
        chosen(object): the :class:`~transviz.core.decoding.interventions.Intervention` of the entry
            chosen, to toggle.
    """

    chosen = Signal(object)

    def __init__(self, active: Callable[[], Sequence[Intervention]], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.active = active

    def add_to(self, menu: QMenu, target: HeadTarget | None) -> None:
        """The table's entries, at the end of ``menu``; disabled where they do not apply to ``target``."""
        active = set(self.active())
        for entry in HEAD_ACTIONS:
            usable = target if target is not None and (target.one_head or not _per_head(entry)) else None
            if isinstance(entry, HeadAction):
                action = menu.addAction(entry.text())
                action.setEnabled(usable is not None)
                if usable is not None:
                    self._offer(action, entry.make(usable), active)
                continue
            submenu = menu.addMenu(entry.text())
            submenu.setEnabled(usable is not None)
            for label, item in entry.choices(usable) if usable is not None else ():
                self._offer(submenu.addAction(label), item, active)

    def _offer(self, action: QAction, item: Intervention, active: set[Intervention]) -> None:
        action.setCheckable(True)
        action.setChecked(item in active)
        action.setData(item)
        action.triggered.connect(lambda _=False, item=item: self.chosen.emit(item))
