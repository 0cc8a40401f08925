"""``transviz lesson FILE --export DIR``: one picture per slide, each the window at that slide."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QImage

from transviz.core.io.resources import shipped_lessons
from transviz.core.teaching import lesson
from transviz.gui.render import export_lesson


def test_every_slide_becomes_a_picture(tmp_path: Path) -> None:
    path = shipped_lessons()["01-data-flow"]
    read = lesson.read(path)
    written = export_lesson(read, tmp_path, 1366, 768)
    assert [p.name for p in written] == [f"slide-{i + 1:02d}.png" for i in range(len(read.slides))]
    images = [QImage(str(p)) for p in written]
    assert all((image.width(), image.height()) == (1366, 768) for image in images)
    assert all(a != b for a, b in zip(images, images[1:], strict=False))  # each slide shows something else
