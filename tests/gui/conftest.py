"""GUI tests run offscreen (tests/conftest.py) with real widgets and real tiny models."""
from __future__ import annotations

import pytest
import torch

import transviz
from transviz.core.model.transformer import Transformer
from transviz.core.model.vocab import Vocab
from transviz.gui.main_window import MainWindow


@pytest.fixture(autouse=True)
def configured_like_the_app(qapp):
    """What gui.app does at start-up: row-major images, no OpenGL, light background."""
    from transviz.gui.style import configure_pyqtgraph

    configure_pyqtgraph()


@pytest.fixture(autouse=True)
def english_and_the_default_look(qapp):
    """A test that switches the language or the look (View menu) leaves the next one as it found it."""
    yield
    from transviz.gui.services.language import ENGLISH, current_language, set_language
    from transviz.gui.services.theme import Appearance, apply_appearance, current_appearance

    if current_language() != ENGLISH:
        set_language(ENGLISH)
    if current_appearance() != Appearance():
        apply_appearance(Appearance())


def tiny_model(seed: int = 0, layers: int = 2, heads: int = 2, max_len: int = 24,
               decoder_layers: int | None = None) -> transviz.Model:
    """``layers`` is the encoder's depth, and the decoder's unless ``decoder_layers`` differs."""
    torch.manual_seed(seed)
    src = Vocab("ich mochte ein bier bitte".split())
    tgt = Vocab("i want a beer please".split())
    cfg = transviz.ModelConfig(len(src), len(tgt), d_model=12 if heads == 3 else 16, n_heads=heads,
                               n_encoder_layers=layers, n_decoder_layers=decoder_layers or layers, d_ff=32,
                               dropout=0.0, max_len=max_len)
    return transviz.Model(Transformer(cfg).eval(), src, tgt, {"task": "unit-test", "steps": seed})


@pytest.fixture
def show(qtbot):
    """Show a widget at a size and wait until it is exposed (widgets never shown keep default
    sizes offscreen, and their pixels are not drawn)."""

    # pytest-qt holds weak references only: a shown widget the test let go of could be collected in the
    # middle of its own paint event (Qt crashes), so it is held here until pytest-qt has closed it
    shown = []

    def show(widget, width, height):
        qtbot.addWidget(widget)
        shown.append(widget)
        widget.resize(width, height)
        widget.show()
        qtbot.waitExposed(widget)
        return widget

    yield show
    shown.clear()


@pytest.fixture
def make_model():
    """Build a tiny untrained model (seed, layers, heads) for a test."""
    return tiny_model


@pytest.fixture
def open_window(qtbot):
    """Main windows for a test: each shown (resized unless ``size`` is None), exposed or, with
    ``active``, active (the explorer's keys are window shortcuts), with ``model`` if given; each is
    shut down afterwards and leaves none of its worker threads running."""
    windows = []

    def open_window(size: tuple[int, int] | None = (1400, 900), active: bool = False,
                    model: transviz.Model | None = None, source: str | None = None,
                    sentence: str | None = None) -> MainWindow:
        window = MainWindow()
        qtbot.addWidget(window)
        windows.append(window)
        if size is not None:
            window.resize(*size)
        window.show()
        if active:
            window.activateWindow()
            qtbot.waitActive(window)
        else:
            qtbot.waitExposed(window)
        if model is not None:
            window.workspace.set_model(model, source, sentence=sentence)
        return window

    yield open_window
    for window in windows:
        window.shutdown()
        # a tab never shown was never built: it has no worker to leave running
        workers = [window.files.runner, *(window.panels[tab].worker for tab in ("training", "lab")
                                          if window.panels.is_built(tab))]
        assert all(worker.worker_thread.isFinished() for worker in workers)


@pytest.fixture
def stepped_window(open_window, make_model):
    """A main window shown with a tiny model and a sentence decoded ``steps`` steps."""

    def open_stepped(steps: int) -> MainWindow:
        window = open_window(model=make_model(layers=2, heads=2))
        window.panels["explorer"].source.sentence.setText("ich mochte ein bier")
        for _ in range(steps):
            assert window.panels["explorer"].controller.step()
        return window

    return open_stepped


@pytest.fixture(scope="session")
def shipped_model():
    return transviz.load_model("default")


@pytest.fixture
def shipped_window(open_window, shipped_model):
    """The main window with the shipped model and "ich mochte ein bier", not yet decoded."""
    return open_window((1366, 768), model=shipped_model, source="default", sentence="ich mochte ein bier")


@pytest.fixture
def model_file(tmp_path):
    return transviz.save_model(tiny_model(), tmp_path / "tiny.safetensors")



class Pixels:
    """Reads the colours a widget really shows (a grab of its pixels) and compares them with
    the colormap, independently of how the widget chose them."""

    @staticmethod
    def at(widget, point):
        image = widget.grab().toImage()
        ratio = image.devicePixelRatio()
        return image.pixelColor(int(point.x() * ratio), int(point.y() * ratio))

    @staticmethod
    def lut_index(value: float, low: float = 0.0, high: float = 1.0) -> int:
        """The entry pyqtgraph picks for a value: 256 entries spread evenly over the levels."""
        return min(255, max(0, int((value - low) / (high - low) * 256)))

    @classmethod
    def shows(cls, color, value: float, low: float = 0.0, high: float = 1.0) -> bool:
        """Whether ``color`` is the colormap's colour for ``value`` (one entry of slack for rounding)."""
        from transviz.gui.style import lookup_table

        i = cls.lut_index(value, low, high)
        return any(
            max(abs(color.red() - int(r)), abs(color.green() - int(g)), abs(color.blue() - int(b))) <= 2
            for r, g, b in lookup_table()[max(0, i - 1): i + 2]
        )


@pytest.fixture
def pixels():
    return Pixels


@pytest.fixture(autouse=True, scope="session")
def windows_deleted_before_exit(qapp):
    """Every top-level widget is deleted while the application still exists: left to Python's
    shutdown, Qt objects die in an arbitrary order and the process can crash after the last test."""
    yield
    import gc

    from PySide6.QtCore import QCoreApplication, QEvent

    for widget in qapp.topLevelWidgets():
        widget.close()
        widget.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    gc.collect()
