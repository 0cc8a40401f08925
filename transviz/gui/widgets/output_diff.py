"""Two outputs as a token diff in rich text, as the Compare and Variants tabs mark them."""
from __future__ import annotations

import html

from ...core.analysis.compare import TokenChange

INSERTED, DELETED = "#1a7f37", "#cf222e"  # the output diff's colours (GitHub's, readable on white)


def diff_html(changes: list[TokenChange]) -> str:
    """The output diff as rich text: kept tokens plain, A's replaced or deleted tokens struck out
    in red, B's replacing or inserted tokens underlined in green."""
    parts = []
    for change in changes:
        if change.change == "equal":
            parts.append(html.escape(" ".join(change.a)))
            continue
        if change.a:
            parts.append(f'<s style="color:{DELETED}">{html.escape(" ".join(change.a))}</s>')
        if change.b:
            parts.append(f'<u style="color:{INSERTED}">{html.escape(" ".join(change.b))}</u>')
    return " ".join(parts)
