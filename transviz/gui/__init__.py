"""The desktop window: PySide6 + pyqtgraph views that draw what :mod:`transviz.core` computes.

In layers, top to bottom (an import-linter contract in pyproject.toml): ``render`` and ``app``
> ``main_window`` > ``window_menus`` > ``lesson_files`` > ``lesson_mode`` > ``session_files`` and
``animations`` > ``panels`` (one module per tab) > ``widgets`` (what the tabs are built from) >
``services`` (threads, session, settings, language, files) > ``style``.

This file imports no Qt, so the command line can list the views without loading Qt.
"""

# the Concepts tab's views (gui.panels.concepts.catalogue), by --view name
CONCEPTS = ("lookup", "bilinear", "hull", "heads-similarity", "additive", "ffn", "cost", "parallel", "sharing",
            "attribution", "flash", "kv-cache", "lens", "alignment")
# what `transviz render --view` draws
VIEWS = ("grid", "head", "positional", "masks", "window", "compare", "patching", *CONCEPTS)
