"""Attention matrices as labelled text heatmaps for a plain terminal (``transviz decode --show``).

Rows are labelled on the left, columns by their token written top to bottom above the grid;
cells are Unicode block shades scaled to the largest value, optionally with the value itself.
Wider matrices are split into blocks of columns so that every line fits the given width.
"""
from __future__ import annotations

import codecs
import unicodedata

import numpy as np

SHADES = " \u2591\u2592\u2593\u2588"  # blank, light, medium, dark, full block
HIDDEN = "\u00b7"  # a masked cell: attention is not allowed there
LABEL_WIDTH = 12  # row labels longer than this are abbreviated
COLUMN_LABEL_HEIGHT = 8  # column labels longer than this are abbreviated
# the same drawn with ASCII only, for a terminal that cannot show the blocks (PYTHONIOENCODING=ascii)
ASCII_SHADES, ASCII_HIDDEN, ASCII_AT_LEAST = " .:*#", "x", ">="


def can_show(text: str, encoding: str | None) -> bool:
    """Whether a terminal writing ``encoding`` (None: unknown, taken as UTF-8) can show ``text``."""
    try:
        text.encode(codecs.lookup(encoding or "utf-8").name)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def display_width(text: str) -> int:
    """Terminal columns ``text`` takes: wide (CJK, emoji) characters take two, combining marks none."""
    width = 0
    for char in text:
        if unicodedata.combining(char):
            continue
        width += 2 if unicodedata.east_asian_width(char) in "WF" else 1
    return width


def abbreviate(text: str, width: int) -> str:
    """``text`` cut to ``width`` terminal columns, an ellipsis marking the cut."""
    if display_width(text) <= width:
        return text
    out = ""
    for char in text:
        if display_width(out + char) > width - 1:
            break
        out += char
    return out + "\u2026"


def pad(text: str, width: int) -> str:
    return text + " " * max(0, width - display_width(text))


def printable(label: str) -> str:
    """Whitespace tokens (character-level models) shown as a visible symbol."""
    return label.replace(" ", "\u2423").replace("\t", "\u2192").replace("\n", "\u21b5") or "\u2205"


def shade(value: float, largest: float, shades: str = SHADES) -> str:
    """The block for ``value``: one level per fifth of ``largest``."""
    if largest <= 0:
        return shades[0]
    return shades[min(len(shades) - 1, int(5 * value / largest))]


def _value_text(value: float) -> str:
    return "1.0" if value >= 0.995 else f"{value:.2f}"[1:]  # ".83": three columns


def heatmap(
    matrix: np.ndarray,
    rows: list[str],
    columns: list[str],
    *,
    values: bool = False,
    allowed: np.ndarray | None = None,
    width: int = 80,
    literal_rows: bool = False,
    ascii_only: bool = False,
) -> str:
    """Render ``matrix`` (R, C) with ``rows`` and ``columns`` labels.

    Args:
        values: print each value (two decimals) beside its shade.
        allowed: (R, C) booleans; cells where it is False are drawn as masked (``·``).
        width: the terminal width every line must fit.
        literal_rows: the row labels are printable already (built from :func:`printable` tokens)
            and drawn as given: their own spaces are not whitespace tokens.
        ascii_only: draw the shades, masked cells and legend with ASCII characters only.
    """
    shades, hidden, at_least = (ASCII_SHADES, ASCII_HIDDEN, ASCII_AT_LEAST) if ascii_only \
        else (SHADES, HIDDEN, "\u2265")
    matrix = np.asarray(matrix, dtype=np.float64)
    if matrix.shape != (len(rows), len(columns)):
        raise ValueError(f"matrix {matrix.shape} does not match {len(rows)} row and {len(columns)} column labels")
    row_labels = [abbreviate(r if literal_rows else printable(r), LABEL_WIDTH) for r in rows]
    label_width = max([display_width(r) for r in row_labels] + [1])
    cell = 5 if values else 2
    per_block = max(1, (width - label_width - 1) // cell)
    largest = float(matrix.max()) if matrix.size else 0.0
    blocks = []
    for start in range(0, max(len(columns), 1), per_block):
        stop = min(start + per_block, len(columns))
        lines = [] if len(columns) <= per_block else [f"columns {start + 1}-{stop} of {len(columns)}"]
        lines += _column_header(columns[start:stop], label_width, cell)
        for r, label in enumerate(row_labels):
            cells = []
            for c in range(start, stop):
                if allowed is not None and not allowed[r, c]:
                    cells.append(pad(hidden, cell))
                    continue
                block = shade(matrix[r, c], largest, shades)
                cells.append(block + _value_text(matrix[r, c]) + " " if values else block * 2)
            lines.append((pad(label, label_width) + " " + "".join(cells)).rstrip())
        blocks.append("\n".join(lines))
    legend = "  ".join(f"{shades[k]} {at_least}{k / 5:.1f}" for k in range(1, 5))
    masked = f"; {hidden} masked" if allowed is not None else ""
    blocks.append(f"shades: {legend} of the largest value {largest:.3f}{masked}")
    return "\n\n".join(blocks)


def _column_header(columns: list[str], label_width: int, cell: int) -> list[str]:
    """Column labels written downwards, one character per line, above their cells."""
    labels = [list(abbreviate(printable(c), COLUMN_LABEL_HEIGHT)) for c in columns]
    height = max([len(label) for label in labels] + [0])
    lines = []
    for i in range(height):
        chars = [pad(label[i] if i < len(label) else "", cell) for label in labels]
        lines.append((" " * (label_width + 1) + "".join(chars)).rstrip())
    return lines
