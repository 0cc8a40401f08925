"""The desktop window: PySide6 + pyqtgraph views that draw what :mod:`transviz.core` computes.

This file imports no Qt, so the command line can list the views without loading Qt.
"""

CONCEPTS = ("ffn", "cost", "parallel", "sharing")  # the Concepts tab's views (gui.panels.concepts.catalogue)
VIEWS = ("grid", "head", "positional", "masks", "window", *CONCEPTS)  # what `transviz render --view` draws
