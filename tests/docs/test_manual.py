"""The manual (docs/): it builds with every warning an error, every link and picture in it leads
somewhere, every shell block in it runs (or the line above it says why not), every tab has the page
F1 opens, and the lesson format's page agrees with the reader and with the shipped lessons."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import fields
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from run_once import once_per_run

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from transviz.core.decoding.interventions import Intervention
from transviz.core.decoding.strategies import Beam, Sampling
from transviz.core.io.resources import shipped_lessons
from transviz.core.teaching import lesson
from transviz.core.teaching.tabs import TABS
from transviz.gui.services.manual import manual_page

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
FENCE = re.compile(r"^(?P<marker>% example:[^\n]*\n)?```(?P<language>\w+)\n(?P<body>.*?)^```$", re.M | re.S)
SHELLS = ("bash", "sh", "shell", "console")


def blocks(page: Path) -> list[re.Match[str]]:
    return list(FENCE.finditer(page.read_text(encoding="utf-8")))


@pytest.fixture(scope="module")
def manual(tmp_path_factory) -> Path:
    """The manual as CI builds it, in a process of its own (Sphinx keeps state between builds),
    once per test run."""

    def build(out: Path) -> None:
        result = subprocess.run([sys.executable, str(DOCS / "build_manual.py"), str(out), "--strict"],
                                capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]

    return once_per_run(tmp_path_factory, "manual", build)


@pytest.mark.process
def test_the_manual_builds_with_every_warning_an_error_and_has_each_page_f1_opens(manual):
    for tab in TABS:
        assert manual_page(tab, "en", manual) == manual / "tabs" / f"{tab}.html"
    assert manual_page(None, "en", manual) == manual / "index.html"
    assert manual_page(None, "zh_CN", manual) == manual / "zh" / "index.html"
    for page in ("getting-started", "teaching/index", "teaching/first-lesson", "teaching/lesson-format"):
        assert (manual / "zh" / f"{page}.html").is_file(), page
    assert "--self-test" in (manual / "cli.html").read_text(encoding="utf-8")  # generated from the parser
    assert "AblateHead" in (manual / "api.html").read_text(encoding="utf-8")  # and from the docstrings


class Links(HTMLParser):
    """The targets of a page's links and pictures, and the ids its anchors can land on."""

    def __init__(self) -> None:
        super().__init__()
        self.targets: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        self.ids.update(value for key, value in attrs if key in ("id", "name") and value)
        target = named.get("href") if tag in ("a", "link") else named.get("src") if tag in ("img", "script") else None
        if target:
            self.targets.append(target)


def parsed(page: Path) -> Links:
    links = Links()
    links.feed(page.read_text(encoding="utf-8"))
    return links


@pytest.mark.process
def test_every_link_and_picture_inside_the_manual_leads_somewhere(manual):
    pages = {page: parsed(page) for page in manual.rglob("*.html")}
    broken = []
    for page, links in pages.items():
        for target in links.targets:
            parts = urlsplit(target)
            if parts.scheme or parts.netloc:  # the web: not part of the offline manual
                continue
            file = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if not file.is_file():
                broken.append(f"{page.relative_to(manual)}: {target}")
            elif parts.fragment and file.suffix == ".html":
                ids = pages[file].ids if file in pages else parsed(file).ids
                if unquote(parts.fragment) not in ids:
                    broken.append(f"{page.relative_to(manual)}: {target} (no such anchor)")
    assert not broken, "\n".join(broken)
    assert len(pages) > 40


def test_every_shell_block_is_run_below_or_says_why_not():
    for page in sorted(DOCS.rglob("*.md")):
        for block in blocks(page):
            if block["language"] in SHELLS and block["marker"]:
                assert len(block["marker"].split(":", 1)[1].strip()) > 5, f"{page}: say why it is an example"
            assert block["language"] in (*SHELLS, "toml", "python", "json") or block["marker"], \
                f"{page}: a {block['language']} block"


def runnable_lines() -> list[tuple[str, str]]:
    """(page, command) of every shell line of the English pages not marked as an example."""
    found = []
    for page in sorted(DOCS.rglob("*.md")):
        if "zh" in page.relative_to(DOCS).parts:
            continue  # the Chinese pages hold the same blocks (checked below)
        for block in blocks(page):
            if block["language"] in SHELLS and not block["marker"]:
                found += [(str(page.relative_to(DOCS)), line.split("  #")[0].strip())
                          for line in block["body"].splitlines() if line.strip()]
    return found


@pytest.mark.process
@pytest.mark.parametrize("page, command", runnable_lines())
def test_a_command_in_the_manual_runs_as_written(page, command, tmp_path):
    """In a folder holding the first lesson's file (first.toml), with ``transviz`` this checkout's."""
    first_lesson = blocks(DOCS / "teaching" / "first-lesson.md")
    (tmp_path / "first.toml").write_text(
        next(b["body"] for b in reversed(first_lesson) if b["language"] == "toml"), encoding="utf-8")
    shim = tmp_path / "bin" / "transviz"
    shim.parent.mkdir()
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m transviz "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    env = {**os.environ, "PATH": f"{shim.parent}{os.pathsep}{os.environ['PATH']}", "QT_QPA_PLATFORM": "offscreen"}
    result = subprocess.run(["bash", "-euc", command], cwd=tmp_path, env=env, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, f"{page}: {command}\n{result.stdout[-2000:]}{result.stderr[-2000:]}"


def test_the_chinese_pages_hold_the_english_pages_blocks():
    for page in sorted((DOCS / "zh").rglob("*.md")):
        english = DOCS / page.relative_to(DOCS / "zh")
        if english.is_file() and english.name != "index.md":
            assert [b.group(0) for b in blocks(page)] == [b.group(0) for b in blocks(english)], page


def lesson_blocks() -> list[tuple[Path, str]]:
    return [(page, b["body"]) for page in sorted(DOCS.rglob("*.md")) for b in blocks(page)
            if b["language"] == "toml" and b["body"].startswith('format = "transviz-lesson"')]


@pytest.mark.parametrize("page, text", lesson_blocks(), ids=lambda v: v.name if isinstance(v, Path) else "")
def test_every_lesson_in_the_manual_reads(page, text):
    assert lesson.loads(text, page.name, ROOT).slides


def keys_of(table: dict) -> set[str]:
    """Every key of a lesson file, nested tables and arrays of tables included."""
    keys = set()
    for key, value in table.items():
        keys.add(key)
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, dict):
                keys |= keys_of(item)
    return keys


def test_the_lesson_format_page_documents_every_key_and_the_shipped_lessons_use_no_other():
    page = (DOCS / "teaching" / "lesson-format.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"`(\w+)`", page)) | keys_of(tomllib.loads(blocks(DOCS / "teaching" /
                                                                                 "lesson-format.md")[0]["body"]))
    accepted = ({"format", "version", "title_en", "title_zh", "slide", "name", "step", "token"}
                | {f.name for f in fields(lesson.Slide) if f.name not in ("line", "lines")}  # where, not keys
                | {f.name for f in fields(lesson.View)} | {f.name for f in fields(lesson.Quiz)}
                | {f.name for f in fields(Beam)} | {f.name for f in fields(Sampling)})
    assert accepted <= documented, accepted - documented
    # an intervention's fields are its class's, which the page leaves to the API's reference
    intervention_fields = {f.name for cls in Intervention.TYPES.values() for f in fields(cls)}
    for name, path in shipped_lessons().items():
        used = keys_of(tomllib.loads(path.read_text(encoding="utf-8")))
        assert used <= documented | intervention_fields, (name, used - documented - intervention_fields)


def test_the_readmes_python_runs_as_written():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    code = next(b["body"] for b in FENCE.finditer(readme) if b["language"] == "python")
    scope: dict = {}
    exec(compile(code, "README.md", "exec"), scope)
    config, trace = scope["model"].config, scope["trace"]
    assert trace.cross_attention.shape[:2] == (config.n_decoder_layers, config.n_heads)
