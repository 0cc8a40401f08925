"""Files dragged onto the window (checkpoints on the window, corpora on the training tab)."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QDragEnterEvent, QDropEvent


def dropped_file(event: QDragEnterEvent | QDropEvent, suffixes: tuple[str, ...]) -> str | None:
    """The first local file the drag carries whose name ends with one of ``suffixes`` (any case)."""
    for url in event.mimeData().urls():
        if url.isLocalFile() and url.toLocalFile().lower().endswith(suffixes):
            return url.toLocalFile()
    return None


def dropped_folder(event: QDragEnterEvent | QDropEvent) -> str | None:
    """The first local folder the drag carries (a Hugging Face model saved with save_pretrained)."""
    for url in event.mimeData().urls():
        if url.isLocalFile() and Path(url.toLocalFile()).is_dir():
            return url.toLocalFile()
    return None
