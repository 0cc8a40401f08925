"""A small pure-Python signal: observers (the GUI, the CLI) subscribe to a core object's changes
without the core knowing who they are. No Qt here; a GUI adapter may forward to Qt signals."""
from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

EventT = TypeVar("EventT")


class Signal(Generic[EventT]):
    """Calls every connected callback with the event, in the order they were connected.

    A callback that raises does not stop the others: every callback is called, then the first
    exception is raised again to whoever caused the event (the emitter's state is already
    consistent by then).
    """

    def __init__(self) -> None:
        self._callbacks: list[Callable[[EventT], object]] = []

    def connect(self, callback: Callable[[EventT], object]) -> Callable[[EventT], object]:
        """Subscribe ``callback``; returns it, so this works as a decorator."""
        if not callable(callback):
            raise TypeError(f"expected a callable, got {callback!r}")
        self._callbacks.append(callback)
        return callback

    def disconnect(self, callback: Callable[[EventT], object]) -> None:
        """Unsubscribe ``callback`` (every time it was connected); unknown callbacks are ignored."""
        self._callbacks = [c for c in self._callbacks if c != callback]

    def emit(self, event: EventT) -> None:
        first_error: Exception | None = None
        for callback in list(self._callbacks):  # a callback may disconnect itself
            try:
                callback(event)
            except Exception as exc:  # raised again below, once the other callbacks ran
                first_error = first_error or exc
        if first_error is not None:
            raise first_error

    def __len__(self) -> int:
        return len(self._callbacks)
