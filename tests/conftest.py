import os

# Qt needs no display in tests (set before pytest-qt creates the QApplication).
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
