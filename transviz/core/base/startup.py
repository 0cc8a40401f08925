"""Python's full garbage collections, held back while the program starts.

Importing torch, Qt and pyqtgraph and building the window makes hundreds of thousands of objects
that live as long as the process. Each time the heap has grown by a quarter, a full collection
walks all of them again and frees almost nothing: four walks before the window shows, about a
seventh of the start. So the program's entry holds full collections back (the young generations
are still collected: short-lived garbage goes as before), and :func:`started` lets them run again
once the window is up or a command's work begins. First it moves what exists out of the
collector's reach (``gc.freeze``), so later full collections skip the start's objects too.

Only the program's entry does this: ``import transviz`` in a notebook leaves its collector as it is.
"""
from __future__ import annotations

import gc

NEVER = 2**31 - 1  # young collections between full ones: none while the program starts

_thresholds: tuple[int, int, int] | None = None  # the collector's own, while held back


def pause() -> None:
    """Hold full collections back until :func:`started` (a collector switched off stays as it is)."""
    global _thresholds
    if gc.isenabled() and _thresholds is None:
        _thresholds = gc.get_threshold()
        gc.set_threshold(_thresholds[0], _thresholds[1], NEVER)


def started() -> None:
    """Full collections again from here on, without the objects made so far; nothing unless paused."""
    global _thresholds
    if _thresholds is not None:
        gc.freeze()
        gc.set_threshold(*_thresholds)
        _thresholds = None
