"""The Qt-free core of transviz: model, masks, vocabularies, checkpoints, decoding.

Nothing in this package may import PySide6 or pyqtgraph (an import-linter contract
checked by the test suite), so it runs in notebooks, scripts and worker threads alike.
"""
