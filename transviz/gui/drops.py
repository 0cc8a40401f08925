"""Files dragged onto the window (checkpoints on the window, corpora on the training tab)."""
from __future__ import annotations

from PySide6.QtGui import QDragEnterEvent, QDropEvent


def dropped_file(event: QDragEnterEvent | QDropEvent, suffixes: tuple[str, ...]) -> str | None:
    """The first local file the drag carries whose name ends with one of ``suffixes`` (any case)."""
    for url in event.mimeData().urls():
        if url.isLocalFile() and url.toLocalFile().lower().endswith(suffixes):
            return url.toLocalFile()
    return None
