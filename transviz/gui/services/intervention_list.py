"""The explorer's interventions as an editable list with undo and redo (no Qt: plain values).

Each intervention edits one *slot*: a head's output (an ablation, whatever its mode), a head's
query projection (Q = K), a layer's score scale, one query row of a head painted by hand. Adding
one to a slot already edited replaces that edit in place (a head is off one way at a time;
scales would otherwise multiply); adding the very one in force toggles it off.
"""
from __future__ import annotations

from collections.abc import Sequence

from ...core.decoding.interventions import Intervention

Items = tuple[Intervention, ...]


def toggled(items: Sequence[Intervention], item: Intervention) -> Items:
    """``items`` with ``item`` removed if in force, else added (replacing the edit of its slot)."""
    if item in items:
        return tuple(i for i in items if i != item)
    return added(items, item)


def added(items: Sequence[Intervention], item: Intervention) -> Items:
    """``items`` with ``item`` in force, in place of the edit of its slot if there is one."""
    key = item.slot()  # two interventions with one slot do not stack
    if any(i.slot() == key for i in items):
        return tuple(item if i.slot() == key else i for i in items)
    return (*items, item)


class InterventionList:
    """The interventions in force and the states before (undo) and after (redo) each change."""

    def __init__(self) -> None:
        self.items: Items = ()
        self._undo: list[Items] = []
        self._redo: list[Items] = []

    def change(self, items: Sequence[Intervention]) -> None:
        """Make ``items`` the list in force; the previous one can be undone back to."""
        items = tuple(items)
        if items == self.items:
            return
        self._undo.append(self.items)
        self._redo.clear()
        self.items = items

    def previous(self) -> Items | None:
        """What :meth:`undo` would bring back, without moving."""
        return self._undo[-1] if self._undo else None

    def following(self) -> Items | None:
        """What :meth:`redo` would bring back, without moving."""
        return self._redo[-1] if self._redo else None

    def undo(self) -> Items | None:
        """Back to the list before the last change; None if there is none."""
        if not self._undo:
            return None
        self._redo.append(self.items)
        self.items = self._undo.pop()
        return self.items

    def redo(self) -> Items | None:
        """The change last undone, again; None if there is none."""
        if not self._redo:
            return None
        self._undo.append(self.items)
        self.items = self._redo.pop()
        return self.items

    def forget(self) -> None:
        """No interventions and no history (another model: its heads are others)."""
        self.items, self._undo, self._redo = (), [], []

    @property
    def can_undo(self) -> bool:
        return bool(self._undo)

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)


def edited_heads(items: Sequence[Intervention], kind: str, layers: int, heads: int) -> set[tuple[int, int]]:
    """(layer, head) of every head of ``kind`` that runs differently under ``items``: read from
    the fields ``kind``, ``layer`` and ``head`` (None or absent: all), so that a new kind of
    intervention with those fields is marked without a change here."""
    found: set[tuple[int, int]] = set()
    for item in items:
        if getattr(item, "kind", "") not in (None, kind):
            continue  # e.g. NoPositions changes the inputs, not a head
        layer, head = getattr(item, "layer", None), getattr(item, "head", None)
        found |= {(i, h) for i in (range(layers) if layer is None else (layer,))
                  for h in (range(heads) if head is None else (head,))}
    return found
