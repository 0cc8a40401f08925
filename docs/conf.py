"""Sphinx configuration of the transviz manual (Markdown pages read by MyST, the API from the
docstrings). ``docs/build_manual.py`` builds it for the wheel, the bundle and the tests."""
from __future__ import annotations

import importlib.util
import sys
from collections import defaultdict
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util.docutils import SphinxDirective

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

project = "transviz"
author = "the transviz authors"
copyright = "the transviz authors, MIT licence"
language = "en"
html_theme = "furo"
html_title = "transviz manual"
html_static_path: list[str] = []
html_show_sourcelink = False  # the manual ships offline in the app: no copies of the Markdown
html_copy_source = False

extensions = ["myst_parser"]
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3  # [text](page.md#a-heading) links, checked like every other link
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build", "build_manual.py"]

# The API and command-line pages are generated from the code, which needs transviz's dependencies
# (torch, Qt). Where they are missing (pip's isolated build of the wheel, which ships the manual),
# those pages say where to look instead of failing the build.
CODE_IMPORTABLE = all(importlib.util.find_spec(name) is not None for name in ("torch", "numpy", "PySide6"))
if CODE_IMPORTABLE:
    extensions += ["sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinxarg.ext"]
    autodoc_member_order = "bysource"
    autodoc_typehints = "description"
    napoleon_google_docstring = True


class FromTheCode(SphinxDirective):
    """Stands in for a generated reference where the code cannot be imported."""

    required_arguments = 0
    optional_arguments = 10
    final_argument_whitespace = True
    has_content = True
    option_spec = defaultdict(lambda: directives.unchanged)  # any option the real directive takes

    def run(self) -> list[nodes.Node]:
        text = ("This reference is generated from the code, which this build of the manual could not "
                "import. Run `transviz --help` and `transviz COMMAND --help`, or `help(transviz)` in Python.")
        return [nodes.paragraph(text=text)]


def mark_chinese_pages(app, pagename, templatename, context, doctree) -> None:
    """The pages in zh/ say they are Chinese, so browsers pick Chinese fonts (and screen readers a voice)."""
    if pagename.startswith("zh/"):
        context["language"] = "zh-CN"


def setup(app):
    app.connect("html-page-context", mark_chinese_pages)
    if not CODE_IMPORTABLE:
        for name in ("argparse", "automodule", "autoclass", "autofunction"):
            app.add_directive(name, FromTheCode)
