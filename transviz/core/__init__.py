"""The Qt-free core of transviz, in sub-packages by what they do. Each imports only from its own
sub-package and those below it (an import-linter ``layers`` contract in pyproject.toml, run by
the tests), top to bottom:

    teaching > analysis > training > decoding > data | io > model > base

``data`` and ``io`` stand side by side and do not import each other. Nothing here imports
PySide6, pyqtgraph or the package face (:mod:`transviz`), so the core runs in notebooks, scripts
and worker threads alike; :mod:`transviz` re-exports its public API.
"""
