"""Build the manual as HTML: ``python docs/build_manual.py [OUT] [--strict]``.

The wheel (setup.py), the classroom bundle (build.spec) and the tests build it with this one
function. Without OUT it goes to ``resources/manual``, where a source checkout's window finds it.
"""
from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

DOCS = Path(__file__).resolve().parent
DEFAULT_OUT = DOCS.parent / "resources" / "manual"


def build(out: Path = DEFAULT_OUT, *, strict: bool = False) -> None:
    """Write the HTML manual to ``out``; ``strict``: every warning is an error (CI's build)."""
    from sphinx.cmd.build import build_main

    out = Path(out)
    if out.exists() and any(out.iterdir()):  # a page that was removed must not stay behind
        if not (out / "index.html").is_file():
            raise RuntimeError(f"{out} holds files that are not a manual: not replacing them")
        shutil.rmtree(out)
    with tempfile.TemporaryDirectory() as doctrees:  # Sphinx's cache: not part of the manual
        args = ["-b", "html", "-q", "-E", "-d", doctrees, str(DOCS), str(out)]
        if strict:
            args[:0] = ["-W", "--keep-going"]
        if build_main(args) != 0:
            raise RuntimeError(f"the manual did not build (sphinx-build {' '.join(args)})")
    (out / ".buildinfo").unlink(missing_ok=True)


if __name__ == "__main__":
    flags = [a for a in sys.argv[1:] if a.startswith("--")]
    paths = [a for a in sys.argv[1:] if not a.startswith("--")]
    build(Path(paths[0]) if paths else DEFAULT_OUT, strict="--strict" in flags)
