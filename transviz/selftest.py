"""``transviz --self-test``: check this installation end to end, offscreen, in a few seconds.

It runs the same way from a source checkout, a pip install and the frozen classroom bundle, where
it is the proof that nothing the app needs was left out: it opens the main window, checks that the
Chinese translation and its font are there, loads every shipped model, decodes the seed sentence
with the default one, renders every tab of the window and checks that the picture is not blank,
then tears Qt down in order (a PySide6 + pyqtgraph process left to interpreter shutdown can crash
at exit) and exits 0 only if every check passed.
"""
from __future__ import annotations

import logging
import platform
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .core.base.errors import InputError
from .core.base.files import write_atomically
from .core.io.resources import DEFAULT_MODEL

if TYPE_CHECKING:
    from PySide6.QtGui import QImage
    from PySide6.QtWidgets import QApplication

    from .core.model.bundle import Model
    from .gui.main_window import MainWindow

log = logging.getLogger(__name__)

SEED_SENTENCE = "ich mochte ein bier"  # the seed tutorial's example
WINDOW_SHOWN = "window shown"  # the check the cold-start figure waits for (transviz.bench.packaging)
MIN_INK = 0.01  # a tab whose picture is more than 99% one colour counts as blank
GRID_INK = 0.3  # the attention grid is mostly coloured cells: far less means the heatmaps did not draw


class Report:
    """The self-test's lines, printed as they come (so a watcher sees progress) and kept for the file."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.failures = 0

    def note(self, text: str) -> None:
        print(text, flush=True)
        self.lines.append(text)

    def check(self, name: str, passed: bool, detail: str) -> None:
        self.failures += not passed
        self.note(f"{'ok' if passed else 'FAIL':4}  {name}: {detail}")

    def failed(self, name: str, exc: BaseException) -> None:
        log.error("self-test: %s failed", name, exc_info=exc)
        self.check(name, False, f"{type(exc).__name__}: {exc}")

    def write(self, path: str | Path) -> None:
        """The report as a UTF-8 text file, written atomically."""
        try:
            write_atomically(path, ("\n".join(self.lines) + "\n").encode("utf-8"))
        except OSError as exc:
            raise InputError(f"cannot write the report {path}: {exc.strerror or exc}") from None


def ink_share(image: QImage) -> float:
    """The share of pixels whose colour differs from the most common one (0.0: a blank picture)."""
    from PySide6.QtGui import QImage

    image = image.convertToFormat(QImage.Format.Format_RGB32)
    width, height = image.width(), image.height()
    if width == 0 or height == 0:
        return 0.0
    words = np.frombuffer(image.constBits(), dtype=np.uint32, count=height * image.bytesPerLine() // 4)
    pixels = words.reshape(height, -1)[:, :width]  # (H, W): a scan line may be padded past the width
    _, counts = np.unique(pixels, return_counts=True)
    return 1.0 - counts.max() / pixels.size


def run(report_path: str | Path | None = None, models: Mapping[str, Path] | None = None) -> int:
    """Run every check; print the report (and write it to ``report_path``); 0 if all passed.

    Args:
        models: name -> checkpoint of the models to check (default: the shipped models).
    """
    from .core.io.resources import shipped_models
    from .gui.app import application, dispose, use_offscreen_platform

    started = time.perf_counter()
    report = Report()
    use_offscreen_platform()
    app = application()
    window = _show_window(app, report, started)
    try:
        if window is not None:
            _describe_installation(report, app)
            check_icon(report)
            check_languages(report)
            check_manual(report)
            model = check_models(report, shipped_models() if models is None else models)
            window.workspace.set_model(model)
            check_tabs(report, app, window)
    finally:
        if window is not None:
            window.shutdown()
            dispose(window)
    verdict = "passed" if report.failures == 0 else f"FAILED ({report.failures} checks)"
    report.note(f"self-test {verdict} in {time.perf_counter() - started:.1f} s")
    if report_path:
        report.write(report_path)
    return 0 if report.failures == 0 else 1


def _show_window(app: QApplication, report: Report, started: float) -> MainWindow | None:
    """The main window, shown and laid out (nothing appears: the platform is offscreen)."""
    from PySide6.QtTest import QTest

    try:
        from .gui.main_window import MainWindow

        window = MainWindow()
        window.show()
        exposed = QTest.qWaitForWindowExposed(window)
    except Exception as exc:  # the report says what broke instead of a traceback ending the test
        report.failed(WINDOW_SHOWN, exc)
        return None
    report.check(WINDOW_SHOWN, exposed, f"{time.perf_counter() - started:.2f} s after the self-test started")
    return window


def _describe_installation(report: Report, app: QApplication) -> None:
    import torch
    from PySide6.QtCore import qVersion

    from . import __version__
    from .core.io.checkpoint import SUFFIX
    from .core.io.resources import resource_dir

    frozen = "frozen bundle" if getattr(sys, "frozen", False) else f"Python {platform.python_version()}"
    report.note(f"transviz {__version__} ({frozen}), torch {torch.__version__}, Qt {qVersion()}, "
                f"platform {app.platformName()}, {torch.get_num_threads()} torch threads")
    folder = resource_dir()
    counts = {kind: len(list((folder / kind).glob(pattern))) if (folder / kind).is_dir() else 0
              for kind, pattern in (("models", f"*{SUFFIX}"), ("i18n", "*.qm"), ("fonts", "*.[ot]t[fc]"))}
    report.note(f"resources: {folder} ({counts['models']} models, {counts['i18n']} translations, "
                f"{counts['fonts']} fonts)")


def check_icon(report: Report) -> None:
    """The window icon (an SVG: the bundle must carry Qt's SVG plugins) draws."""
    from .gui.app import app_icon

    pixmap = app_icon().pixmap(64, 64)
    report.check("window icon", not pixmap.isNull(), f"{pixmap.width()}x{pixmap.height()} pixels")


def check_languages(report: Report) -> None:
    """The Chinese catalogue loads and translates, and the font that draws Chinese is registered."""
    from PySide6.QtCore import QCoreApplication

    from .gui.services.fonts import shipped_families
    from .gui.services.language import CHINESE, current_language, set_language

    before = current_language()
    try:
        set_language(CHINESE)
        translated = QCoreApplication.translate("MainWindow", "Explorer") != "Explorer"
    finally:
        set_language(before)
    fonts = ", ".join(shipped_families()) or "none"
    report.check("languages", translated and bool(shipped_families()),
                 f"Chinese catalogue {'translates' if translated else 'MISSING'}; fonts: {fonts}")


def check_manual(report: Report) -> None:
    """Help > Manual and F1 have their pages: the first page in English and in Chinese, and one per tab."""
    from .core.teaching.tabs import TABS
    from .gui.services.manual import LANGUAGE_FOLDERS, manual_folder, page_name

    folder = manual_folder()
    source_docs = Path(__file__).resolve().parents[1] / "docs" / "build_manual.py"
    if not folder.exists() and not getattr(sys, "frozen", False) and source_docs.is_file():
        report.check("manual", True, f"not built in this copy of the source (python {source_docs})")
        return
    pages = [page_name(None), *(f"{own}/{page_name(None)}" for own in LANGUAGE_FOLDERS.values()),
             *(page_name(tab) for tab in TABS)]
    missing = [page for page in pages if not (folder / page).is_file()]
    report.check("manual", not missing, f"missing in {folder}: {', '.join(missing)}" if missing else
                 f"{len(pages)} pages found (English, Chinese, one per tab) in {folder}")


def check_models(report: Report, models: Mapping[str, Path]) -> Model | None:
    """Load every model and decode the seed sentence with the default one; return the model the
    tabs show (the default, else the first that loaded, else None)."""
    if not models:
        report.check("shipped models", True, "none installed; model checks skipped")
        return None
    loaded = {name: model for name, path in models.items() if (model := _load(report, name, path)) is not None}
    if DEFAULT_MODEL not in models:
        report.check("default model", False, f"no model called {DEFAULT_MODEL!r} among {', '.join(models)}")
    elif DEFAULT_MODEL in loaded:
        _decode(report, loaded[DEFAULT_MODEL])
    return loaded.get(DEFAULT_MODEL) or next(iter(loaded.values()), None)


def _load(report: Report, name: str, path: Path) -> Model | None:
    from . import load_model

    try:
        model = load_model(path)
    except Exception as exc:
        report.failed(f"model {name}", exc)
        return None
    task = model.facts.get("task", "unknown task")
    report.check(f"model {name}", True, f"{model.net.parameter_count():,} parameters, {task}")
    return model


def _decode(report: Report, model: Model) -> None:
    from . import decode

    started = time.perf_counter()
    try:
        trace = decode(model, SEED_SENTENCE)
    except Exception as exc:
        report.failed("decode", exc)
        return
    milliseconds = 1000 * (time.perf_counter() - started)
    report.check("decode", bool(trace.translation.strip()),
                 f'"{SEED_SENTENCE}" -> "{trace.translation}" ({len(trace.output_tokens)} tokens, '
                 f"stopped: {trace.stop_reason}, {milliseconds:.0f} ms)")


def check_tabs(report: Report, app: QApplication, window: MainWindow) -> None:
    """Show each tab in turn and grab its pixels: a tab that fails to draw is (nearly) one colour.
    With a model, the explorer first steps the seed sentence, and its attention grid must draw."""
    if window.workspace.model is not None:
        _step_explorer(report, app, window)
    tabs = window.tabs
    for index in range(tabs.count()):
        name = tabs.tabText(index).replace("&", "")
        try:
            tabs.setCurrentIndex(index)
            app.processEvents()
            page = tabs.widget(index)
            assert page is not None  # index < tabs.count()
            image = page.grab().toImage()
            ink = ink_share(image)
        except Exception as exc:
            report.failed(f"tab {name}", exc)
            continue
        report.check(f"tab {name}", ink >= MIN_INK,
                     f"{image.width()}x{image.height()} pixels, {ink:.0%} differ from the background")


def _step_explorer(report: Report, app: QApplication, window: MainWindow) -> None:
    """Type the seed sentence, take up to three steps, and grab the attention grid alone."""
    from .gui.panels.explorer import ExplorerPanel

    explorer = window.panels["explorer"]
    assert isinstance(explorer, ExplorerPanel)
    try:
        window.tabs.setCurrentWidget(explorer)
        explorer.source.sentence.setText(SEED_SENTENCE)
        app.processEvents()
        for _ in range(3):
            session = explorer.controller.session
            if session is not None and session.cant_step() is None:
                explorer.controller.step()
                app.processEvents()
        grid = explorer.attention.grid.grab().toImage()
        ink = ink_share(grid)
    except Exception as exc:
        report.failed("attention grid", exc)
        return
    session = explorer.controller.session
    steps = 0 if session is None else session.position
    report.check("attention grid", steps >= 1 and ink >= GRID_INK,
                 f"{steps} steps of the seed sentence; {ink:.0%} of the grid's pixels drawn")
