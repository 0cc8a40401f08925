"""The join address as a QR code (segno: pure Python, no dependencies), for the window (PNG), a
page or a slide (SVG) and the terminal of ``transviz class``."""
from __future__ import annotations

import io

import segno

# Medium error correction: a code on a projector, photographed from the back of a room, survives a
# smudge or a glare spot on 15% of it, at a size a phone still reads.
ERROR = "m"
BORDER = 4  # the quiet zone the standard asks for, in modules


def qr_png(text: str, scale: int = 10) -> bytes:
    """``text`` as a black-on-white PNG, each module ``scale`` pixels square."""
    out = io.BytesIO()
    segno.make(text, error=ERROR, micro=False).save(out, kind="png", scale=scale, border=BORDER)
    return out.getvalue()


def qr_svg(text: str, scale: int = 10) -> str:
    """``text`` as a standalone SVG document."""
    out = io.BytesIO()
    segno.make(text, error=ERROR, micro=False).save(out, kind="svg", scale=scale, border=BORDER, xmldecl=False)
    return out.getvalue().decode("utf-8")


def qr_text(text: str) -> str:
    """``text`` drawn with Unicode half blocks, two rows of modules a line, for a terminal."""
    out = io.StringIO()
    segno.make(text, error=ERROR, micro=False).terminal(out=out, compact=True, border=BORDER)
    return out.getvalue()
