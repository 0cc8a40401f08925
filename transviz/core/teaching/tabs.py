"""The window's tabs by id, declared once and in the window's order. The core holds them because
lesson files name a tab and are checked here without Qt; the window's registry
(``transviz.gui.panels.registry``) gives each id its panel and its help topic (``transviz.gui.services.help_texts``),
and tests check both cover exactly these ids."""
from __future__ import annotations

from typing import Literal, get_args

Tab = Literal["explorer", "positional", "masks", "heads", "why", "concepts", "compare", "variants", "training", "lab"]
TABS: tuple[Tab, ...] = get_args(Tab)
# The pages of a tab that has several, which a lesson slide may open (``page = "positions"``)
TAB_PAGES: dict[str, tuple[str, ...]] = {"why": ("scale", "positions")}
