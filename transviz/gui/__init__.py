"""The desktop window: PySide6 + pyqtgraph views that draw what :mod:`transviz.core` computes.

This file imports no Qt, so the command line can list the views without loading Qt.
"""

VIEWS = ("grid", "head", "positional", "masks", "window")  # what `transviz render --view` draws (gui.render)
