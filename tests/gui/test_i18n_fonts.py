"""Chinese renders as glyphs, not boxes: UI labels and tokens on plot axes, here and in a process
whose fontconfig sees no font at all (a classroom box without CJK fonts, the worst case), where
only the font shipped in resources/fonts can draw them.

A missing glyph is glyph 0 (.notdef, drawn as a box), so the tests read the glyph indexes Qt lays
out for the text, and count the ink of the text drawn into an image."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QFont, QFontDatabase, QImage, QPainter, QTextLayout

from transviz.gui.services.fonts import install_fonts, shipped_families, shipped_font_files, with_fallback

ROOT = Path(__file__).resolve().parents[2]
CHINESE = "注意力 查询 键 值 掩码 位置编码"


def glyph_runs(text: str, font: QFont) -> list[tuple[str, list[int]]]:
    """(font family, glyph indexes) of each run Qt lays ``text`` out in."""
    layout = QTextLayout(text, font)
    layout.beginLayout()
    layout.createLine()
    layout.endLayout()
    return [(run.rawFont().familyName(), list(run.glyphIndexes())) for run in layout.glyphRuns()]


def ink(text: str, font: QFont) -> int:
    """Dark pixels of ``text`` drawn black on white."""
    image = QImage(600, 80, QImage.Format.Format_RGB32)
    image.fill(Qt.GlobalColor.white)
    painter = QPainter(image)
    painter.setFont(font)
    painter.setPen(Qt.GlobalColor.black)
    painter.drawText(QPointF(4, 50), text)
    painter.end()
    pixels = np.frombuffer(image.constBits(), np.uint8).reshape(80, image.bytesPerLine())[:, : 600 * 4]
    return int((pixels.reshape(80, 600, 4)[:, :, :3].min(axis=2) < 128).sum())


def test_a_font_with_chinese_glyphs_is_shipped_with_its_licence():
    files = shipped_font_files()
    assert [f.name for f in files] == ["wqy-microhei.ttc"]
    assert sum(f.stat().st_size for f in files) < 8_000_000  # a few MB: the repository stays light
    folder = files[0].parent
    assert "Apache License" in (folder / "LICENSE-Apache-2.0.txt").read_text()
    assert "WenQuanYi" in (folder / "COPYRIGHT-wqy-microhei.txt").read_text()
    assert "WenQuanYi Micro Hei" in shipped_families()


def test_chinese_labels_render_with_real_glyphs(qapp):
    install_fonts()
    font = with_fallback(QFont())
    runs = glyph_runs(CHINESE, font)
    assert runs and all(0 not in glyphs for _, glyphs in runs)
    assert ink(CHINESE, font) > 400
    if not set(QFontDatabase.families(QFontDatabase.WritingSystem.SimplifiedChinese)) - set(shipped_families()):
        # no Chinese font of the system's own: the shipped one draws the Chinese
        assert {family for family, _ in runs if family in shipped_families()}


# Run in a process whose fontconfig has an empty font folder: Qt sees no system font at all.
NO_SYSTEM_FONTS = r"""
import json, sys
import numpy as np
from PySide6.QtGui import QFontDatabase
from transviz.gui.app import application, dispose
sys.path.insert(0, sys.argv[1])
from test_i18n_fonts import CHINESE, glyph_runs, ink
from transviz.gui.widgets.heatmap import HeatmapWidget
from transviz.gui.widgets.labels import plain_label

app = application()  # registers the shipped font, as the app does at start
families = QFontDatabase.families()
label = plain_label(CHINESE)
heatmap = HeatmapWidget("交叉注意力")
heatmap.resize(500, 400)
tokens = ["注意力", "查询", "键"]
heatmap.set_data(np.eye(3, dtype=np.float32), tokens, tokens)
heatmap.show()
app.processEvents()
axis = heatmap.axis("left")
tick_font = axis.style["tickFont"] or axis.font()
print(json.dumps({
    "families": families,
    "label": glyph_runs(CHINESE, label.font()),
    "label_ink": ink(CHINESE, label.font()),
    "axis": [glyph_runs(token, tick_font) for token in tokens],
    "axis_ink": ink(" ".join(tokens), tick_font),
}))
dispose(heatmap)
"""


@pytest.mark.process
def test_chinese_renders_where_the_system_has_no_font_at_all(tmp_path):
    empty = tmp_path / "no-fonts"
    empty.mkdir()
    config = tmp_path / "fonts.conf"
    config.write_text(f'<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>'
                      f"<dir>{empty}</dir><cachedir>{tmp_path / 'cache'}</cachedir></fontconfig>\n")
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "FONTCONFIG_FILE": str(config), "QT_QPA_FONTDIR": str(empty),
           "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
    result = subprocess.run([sys.executable, "-c", NO_SYSTEM_FONTS, str(Path(__file__).parent)], env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    shown = json.loads(result.stdout.strip().splitlines()[-1])
    real = set(shown["families"]) - {"Monospace", "Sans Serif", "Serif"}  # fontconfig's aliases, with no font behind
    assert real == {"WenQuanYi Micro Hei", "WenQuanYi Micro Hei Mono"}  # only the shipped font exists there
    for runs in (shown["label"], *shown["axis"]):
        assert runs and all(family == "WenQuanYi Micro Hei" and 0 not in glyphs for family, glyphs in runs)
    assert shown["label_ink"] > 400 and shown["axis_ink"] > 100
