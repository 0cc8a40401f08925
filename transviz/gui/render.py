"""Render a view offscreen to a picture, for slides and for tests that look at real pixels
(``transviz render``). The widgets are the window's own; nothing appears on screen.

Views: ``grid`` (every head of one attention kind), ``head`` (one head or summary, large),
``window`` (the whole window, explorer tab) after ``step`` decoding steps of the sentence;
``positional`` and ``masks`` (those tabs); ``compare`` and ``patching`` (the Compare tab's two pages,
the sentence against ``compare``); each view of the Concepts tab by its name, after
``step`` decoding steps. :func:`animate` draws a run of an explorer or concept view, a frame
per step, to GIF or MP4.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QEventLoop
from PySide6.QtWidgets import QApplication, QWidget

from ..core.analysis.patching import PATCH_KINDS
from ..core.analysis.walkthrough import KINDS, Kind
from ..core.base.errors import InputError
from ..core.base.messages import translate_noop
from ..core.decoding.inference import decode
from ..core.decoding.session import DecodingSession
from ..core.model.bundle import Model
from ..core.teaching.animation import Timing, check_name, write_animation
from ..core.teaching.lesson import Lesson, slide_files
from ..core.teaching.workspace import Workspace
from . import CONCEPTS, VIEWS
from .animations import grab_rgb, record_run
from .app import dispose
from .main_window import MainWindow
from .panels.compare import ComparePanel
from .panels.concepts.panel import ConceptsPanel
from .panels.explorer import explorer_in
from .panels.masks import MasksPanel
from .panels.patching_view import PatchingView
from .panels.positional import MODEL, PositionalPanel
from .services.export import save_picture
from .services.session import SessionController
from .widgets.attention_view import SUMMARIES, AttentionView
from .widgets.grid import SUMMARY_COLUMN

EXPLORER_VIEWS = ("grid", "head", "window")


@dataclass(frozen=True)
class Slide:
    """What to render: a view of a sentence (and model), at a size in pixels.

    ``kind``, ``layer`` and ``head`` choose the attention (default kind: cross-attention for the
    explorer's views, decoder self-attention for the masks walkthrough); ``head`` may also be a
    summary of the layer's heads ("mean", "max", "rollout") in the explorer's views. ``step``:
    decoding steps taken first (explorer views); ``target``: the masks walkthrough's target;
    ``compare`` and ``compare_model``: the compare view's second run; ``snapshots``: the compare
    view's runs are the training snapshots at these two steps (A's of ``model``, B's of
    ``compare_model`` or ``model``), the sentence their probe; ``patch`` and ``patch_step``: what the
    patching view patches from the sentence (A) into ``compare`` (B), and at which output step (None:
    the first where their greedy outputs differ).
    """

    view: str
    sentence: str
    model: Model | None = None
    width: int = 1600
    height: int = 900
    kind: Kind | None = None
    layer: int = 0
    head: int | str = 0
    target: str | None = None
    step: int = 0
    compare: str | None = None  # the compare view's run B: its sentence (default: the same)
    compare_model: str | None = None  # and its model, a checkpoint or shipped name (default: the same)
    snapshots: tuple[int, int] | None = None  # the compare view: the training steps of runs A and B
    patch: str = "encoder"  # the patching view: one of PATCH_KINDS
    patch_step: int | None = None  # the patching view's output step; None: the first that differs


def build(slide: Slide) -> QWidget:
    """The widget of ``slide.view`` showing the slide's sentence and model."""
    if slide.kind is not None and slide.kind not in KINDS:
        raise InputError(f"unknown attention kind {slide.kind!r}; choose one of {', '.join(KINDS)}")
    if slide.view == "positional":
        positional = PositionalPanel(_workspace(slide.model))
        if slide.model is not None:
            positional.source.setCurrentIndex(MODEL)  # a model was given: show its own table
        return positional
    if slide.view == "masks":
        return _masks(slide)
    if slide.view == "compare":
        return _compare(slide)
    if slide.view == "patching":
        return _patching(slide)
    if slide.view in (*EXPLORER_VIEWS, *CONCEPTS):
        if slide.model is None:
            raise InputError(f"the {slide.view} view decodes the sentence: it needs a model (--model FILE)")
        if slide.view in CONCEPTS:
            return _concept(slide)
        return _window(slide) if slide.view == "window" else _attention(slide)
    raise InputError(f"unknown view {slide.view!r}; choose one of {', '.join(VIEWS)}")


def _masks(slide: Slide) -> MasksPanel:
    if not isinstance(slide.head, int):
        raise InputError(f"the masks walkthrough shows one head: --head takes a number, not {slide.head!r}")
    masks = MasksPanel(_workspace(slide.model))
    with _disposed_on_error(masks):
        masks.following.setChecked(False)  # the slide's sentence, not the model's first example, once shown
        masks.sentence.setText(slide.sentence)
        if slide.target is not None:
            masks.target.setText(slide.target)
        masks.kind.setCurrentIndex(KINDS.index(slide.kind or "decoder_self"))
        _check_layer(slide.kind or "decoder_self", slide.layer, masks.layer.maximum(), slide.model)
        _check_range("head", slide.head, masks.head.maximum(), slide.model)
        masks.layer.setValue(slide.layer)
        masks.head.setValue(slide.head)
    return masks


def _compare(slide: Slide) -> ComparePanel:
    if slide.model is None:
        raise InputError("the compare view decodes the sentences: it needs a model (--model FILE)")
    panel = ComparePanel(_workspace(slide.model, slide.sentence))
    with _disposed_on_error(panel):
        panel.run_a.sentence.setText(slide.sentence)
        panel.run_b.sentence.setText(slide.compare if slide.compare is not None else slide.sentence)
        if slide.compare_model is not None:
            panel.run_b.add_file(slide.compare_model)
        if slide.snapshots is not None:
            panel.choose_snapshot(panel.run_a, slide.snapshots[0])
            panel.choose_snapshot(panel.run_b, slide.snapshots[1])
        panel.kind.setCurrentIndex(KINDS.index(slide.kind or "cross"))
        _check_layer(slide.kind or "cross", slide.layer, panel.layer.maximum(), slide.model)
        panel.layer.setValue(slide.layer)
        heads = slide.model.config.n_heads
        if isinstance(slide.head, str):
            if slide.head not in SUMMARIES:
                raise InputError(f"--head takes a number or one of {', '.join(SUMMARIES)}, not {slide.head!r}")
            panel.head.setCurrentIndex(heads + SUMMARIES.index(slide.head))
        else:
            _check_range("head", slide.head, heads - 1, slide.model)
            panel.head.setCurrentIndex(slide.head)
        panel.run()
        if panel.comparison is None:
            raise InputError(panel.error.text())
    return panel


def _patching(slide: Slide) -> PatchingView:
    """The sentence's activations patched into ``slide.compare``'s run, one model, as the Compare
    tab's patching page draws them."""
    if slide.model is None or slide.compare is None:
        raise InputError("the patching view patches SENTENCE (A) into another sentence (B) through one model: "
                         "give --compare B (and --model FILE, or the default model)")
    if slide.patch not in PATCH_KINDS:
        raise InputError(f"--patch takes one of {', '.join(PATCH_KINDS)}, not {slide.patch!r}")
    view = PatchingView()
    with _disposed_on_error(view):
        view.kind.setCurrentIndex(PATCH_KINDS.index(slide.patch))
        outputs = (decode(slide.model, slide.sentence).output_tokens, decode(slide.model, slide.compare).output_tokens)
        view.show_pair(slide.model, slide.sentence, slide.compare, outputs)
        if slide.patch_step is not None:
            _check_range("output step", slide.patch_step, view.step.maximum(), slide.model)
            view.step.setValue(slide.patch_step)
        if view.shown is None:
            raise InputError(view.error.text())
    return view


def _attention(slide: Slide) -> AttentionView:
    workspace = _workspace(slide.model)
    controller = SessionController(workspace)
    view = AttentionView(controller)
    controller.setParent(view)
    with _disposed_on_error(view):
        workspace.open(slide.sentence)
        _decode(controller, view, slide)
    view.show_only(view.grid if slide.view == "grid" else view.large)
    return view


def _concept(slide: Slide) -> ConceptsPanel:
    if not isinstance(slide.head, int):
        raise InputError(f"a concept view shows one head: --head takes a number, not {slide.head!r}")
    workspace = _workspace(slide.model, slide.sentence)
    panel = ConceptsPanel(workspace, background=False)  # finished before it is written
    with _disposed_on_error(panel):
        if workspace.error is not None:
            raise workspace.error
        session = workspace.session
        assert session is not None
        _take_steps(session, slide.step, session.step)
        kind = slide.kind or "cross"
        panel.kind.setCurrentIndex(KINDS.index(kind))
        _check_layer(kind, slide.layer, panel.layer.maximum(), slide.model)
        _check_range("head", slide.head, panel.head.maximum(), slide.model)
        panel.layer.setValue(slide.layer)
        panel.head.setValue(slide.head)
        panel.select(slide.view)
    return panel


def _window(slide: Slide) -> MainWindow:
    window = MainWindow(workspace=_workspace(slide.model, slide.sentence), on_screen=False)
    with _disposed_on_error(window):
        explorer = explorer_in(window.panels)
        if window.workspace.error is not None:
            raise window.workspace.error
        _decode(explorer.controller, explorer.attention, slide)
    return window


def _workspace(model: Model | None, sentence: str | None = None) -> Workspace:
    workspace = Workspace()
    workspace.set_model(model, sentence=sentence)
    return workspace


@contextmanager
def _disposed_on_error(widget: QWidget) -> Iterator[None]:
    """A widget half set up when the slide turns out impossible is torn down at once (a
    window's worker thread must be stopped before the process exits)."""
    try:
        yield
    except BaseException:
        _close(widget)
        raise


def _close(widget: QWidget) -> None:
    if isinstance(widget, (MainWindow, ConceptsPanel)):
        widget.shutdown()
    dispose(widget)


def _decode(controller: SessionController, view: AttentionView, slide: Slide) -> None:
    """Take the slide's steps and choose its kind, layer and head."""
    session = controller.session
    assert session is not None
    _take_steps(session, slide.step, controller.step)
    kind = slide.kind or "cross"
    view.kind.setCurrentIndex(KINDS.index(kind))
    layers, heads = session.encoder_attention.shape[:2]
    if kind != "encoder_self":
        layers = session.model.config.n_decoder_layers
    _check_layer(kind, slide.layer, layers - 1, session.model)
    if isinstance(slide.head, str):
        if slide.head not in SUMMARIES:
            raise InputError(f"--head takes a number or one of {', '.join(SUMMARIES)}, not {slide.head!r}")
        view.summary.setCurrentIndex(SUMMARIES.index(slide.head))
        view.select(slide.layer, SUMMARY_COLUMN)
    else:
        _check_range("head", slide.head, heads - 1, session.model)
        view.select(slide.layer, slide.head)


def _take_steps(session: DecodingSession, steps: int, step: Callable[[], object]) -> None:
    """``steps`` decoding steps with ``step``; InputError naming the first that cannot be taken."""
    for _ in range(steps):
        reason = session.cant_step()
        if reason:
            raise InputError(f"cannot take step {session.position + 1} of {steps}: {reason}")
        step()


def _check_layer(kind: Kind, value: int, highest: int, model: Model | None) -> None:
    """An encoder and a decoder may differ in depth: the message names the stack that lacks the layer."""
    if model is not None and not 0 <= value <= highest:
        raise InputError(translate_noop("CoreMessages", "layer {0} does not exist: the {1} attention of this model "
                                                        "has layers 0..{2}"), value, kind, highest)


def _check_range(what: str, value: int, highest: int, model: Model | None) -> None:
    if model is not None and not 0 <= value <= highest:
        raise InputError(f"{what} {value} does not exist: this model has {what}s 0..{highest}")


def _wait_for_translations(masks: MasksPanel) -> None:
    """The masks view translates the batch's other sentences on a worker thread once shown: the
    picture waits for them (the task always ends, drawn or with its error shown). They may have
    arrived already, so the view is then laid out and painted once whatever the timing (pyqtgraph
    resizes its items after a first paint), and the picture does not depend on it."""
    if masks.translator.is_busy():
        loop = QEventLoop()
        masks.translator.busy_changed.connect(loop.quit)
        loop.exec()
        masks.translator.busy_changed.disconnect(loop.quit)
    QApplication.processEvents()
    masks.grab()
    QApplication.processEvents()


def render(slide: Slide, out: str | Path) -> Path:
    """Draw ``slide`` offscreen and write it to ``out`` (``.png`` or ``.svg``)."""
    widget = build(slide)
    try:
        widget.resize(slide.width, slide.height)
        widget.show()  # lays the widget out; under the offscreen platform nothing is displayed
        QApplication.processEvents()
        if isinstance(widget, MasksPanel):
            _wait_for_translations(widget)
        if isinstance(widget, ConceptsPanel) and not widget.error.isHidden():
            # the view drew nothing but its reason (a subword model's alignments, a lens before the
            # first step): say it in one line instead of writing a picture of it
            raise InputError(widget.error.text())
        return save_picture(widget, out, f"transviz: {slide.view}")
    finally:
        _close(widget)


def animate(slide: Slide, out: str | Path, to_end: bool = False, timing: Timing = Timing()) -> Path:
    """Draw ``slide`` at every step from 0 to ``slide.step`` (or to the end of decoding when
    ``to_end``) and write the frames to ``out`` (``.gif`` or ``.mp4``)."""
    check_name(out)
    if slide.view not in (*EXPLORER_VIEWS, *CONCEPTS):
        raise InputError(f"only a view that decodes step by step can be animated ({', '.join(EXPLORER_VIEWS)} or a "
                         f"concept view), not {slide.view!r}")
    widget = build(slide)
    try:
        widget.resize(slide.width, slide.height)
        widget.show()
        QApplication.processEvents()
        session = _session_of(widget)
        frames = record_run(session, lambda: grab_rgb(widget), to_end)
        assert frames is not None  # nothing cancels it
        return write_animation(frames, out, timing)
    finally:
        _close(widget)


def _session_of(widget: QWidget) -> DecodingSession:
    assert isinstance(widget, (AttentionView, MainWindow, ConceptsPanel))  # the views that decode
    session = widget.controller.session if isinstance(widget, AttentionView) else widget.workspace.session
    assert session is not None  # build() decoded the slide's steps in it
    return session


def export_lesson(lesson: Lesson, folder: str | Path, width: int = 1600, height: int = 900) -> list[Path]:
    """Draw every slide of ``lesson`` (checked whole first) as the window shows it in lesson mode,
    to ``slide-01.png``, ``slide-02.png``, ... in ``folder``."""
    window = MainWindow(on_screen=False)
    try:
        window.resize(width, height)
        window.show()
        window.lesson_mode.start(lesson)
        written = []
        for index, file in enumerate(slide_files(folder, len(lesson.slides))):
            window.lesson_mode.go(index)
            QApplication.processEvents()
            masks = window.panels["masks"]
            if window.tabs.currentWidget() is masks and isinstance(masks, MasksPanel):
                _wait_for_translations(masks)
            written.append(save_picture(window, file, f"transviz: {lesson.title_en} {index + 1}"))
        return written
    finally:
        window.lesson_mode.stop()
        _close(window)
