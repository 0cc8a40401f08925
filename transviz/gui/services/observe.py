"""Qt objects observing the Qt-free core: a subscription that ends with its subscriber."""
from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from PySide6.QtCore import QObject

from ...core.base.events import Signal

EventT = TypeVar("EventT")


def subscribe(owner: QObject, signal: Signal[EventT], callback: Callable[[EventT], object]) -> None:
    """Call ``callback`` on ``signal`` until ``owner`` is destroyed (a core object may outlive
    the widget that watches it, and must not call into a deleted one)."""
    signal.connect(callback)
    owner.destroyed.connect(lambda *_: signal.disconnect(callback))
