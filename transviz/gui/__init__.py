"""The desktop window: PySide6 + pyqtgraph views that draw what :mod:`transviz.core` computes.

This file imports no Qt, so the command line can list the views without loading Qt.
"""

# the Concepts tab's views (gui.panels.concepts.catalogue), by --view name
CONCEPTS = ("lookup", "bilinear", "hull", "heads-similarity", "additive", "ffn", "cost", "parallel", "sharing",
            "attribution")
VIEWS = ("grid", "head", "positional", "masks", "window", "compare", *CONCEPTS)  # what `transviz render --view` draws
