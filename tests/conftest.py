import os

# Qt needs no display in tests (set before pytest-qt creates the QApplication).
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# Tests never read or write the user's transviz settings, here or in the processes they start
# (gui.services.settings: set but empty = remember nothing); settings tests give their own files.
os.environ["TRANSVIZ_SETTINGS"] = ""
