"""Lesson slides put into a :class:`~transviz.core.teaching.workspace.Workspace`, and the check that every
slide of a lesson can be: its model is there, the model reads its sentence, takes its forced
tokens and interventions, and decodes as many steps as it asks for. The window and
``transviz lesson --check`` share this code, so a lesson that passes the check opens whole."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..analysis.walkthrough import Kind
from ..base.errors import TransvizError
from ..base.messages import translate_noop
from ..decoding.session import DecodingSession
from ..io import hf_import
from ..io.resources import shipped_models
from ..model.bundle import Model, decoding_copy
from ..model.config import ModelConfig
from .lesson import Lesson, LessonError, Slide
from .quiz import mask_question
from .workspace import Workspace

Loaded = tuple[Model, Model]  # a model and the copy its sessions decode with
LINE = translate_noop("CoreMessages", "line {0}: {1}")


def model_source(slide: Slide, folder: Path) -> str:
    """What ``slide`` names: a shipped model's name as it is, else the absolute path (relative to
    ``folder``) of a checkpoint or of a Hugging Face model's folder; LessonError, at the slide's
    line, when there is neither."""
    if slide.model in shipped_models():
        return slide.model
    path = folder / slide.model
    try:
        path = path.resolve()
        found = path.is_file() or hf_import.handles(path)
    except (OSError, RuntimeError, ValueError):  # a symbolic link loop, a NUL byte, a name too long
        found = False
    if not found:
        raise LessonError(translate_noop("CoreMessages", "line {0}: the model {1} is neither a shipped model nor a "
                                                         "file (looked for {2})"), slide.line, repr(slide.model),
                          str(path).replace("\0", "\\x00"))  # a NUL byte shown, not sent to the terminal
    return str(path)


class Models:
    """Loads each model once (a lesson's slides mostly share one)."""

    def __init__(self) -> None:
        self._loaded: dict[str, Loaded] = {}

    def get(self, source: str) -> Loaded:
        if source not in self._loaded:
            from ..io.loading import load_model  # the public loader: a shipped name or a file

            model = load_model(source)
            self._loaded[source] = model, decoding_copy(model)
        return self._loaded[source]


def moves(slide: Slide) -> Callable[[DecodingSession], None]:
    """The slide's steps, as a function that takes them on a fresh session."""
    forced = {f.step: f.token for f in slide.forced}

    def move(session: DecodingSession) -> None:
        for step in range(slide.steps):
            reason = session.cant_step()
            if reason is not None:
                raise LessonError(translate_noop("CoreMessages", "the slide asks for {0} steps, but decoding stops "
                                                                 "after {1}: {2}"), slide.steps, step, reason)
            if step in forced:
                session.force(forced[step])
            else:
                session.step()
    return move


def show(slide: Slide, workspace: Workspace, source: str, loaded: Loaded) -> DecodingSession:
    """Put ``slide`` into ``workspace`` (its model ``loaded`` from ``source`` first, when another
    one is shown). Raises LessonError, naming the slide's line, and then the workspace is as it was,
    unless the model had to change."""
    check_places(slide, loaded[0].config)
    check_answer(slide, loaded[0])
    move = moves(slide)

    def moved(session: DecodingSession) -> None:
        move(session)
        check_mask_question(slide, session)

    try:
        if workspace.model is not loaded[0]:
            workspace.set_model(loaded[0], source, slide.sentence, decoding_model=loaded[1])
        return workspace.restore(slide.sentence, slide.reference, slide.teacher_forcing, slide.strategy,
                                 slide.interventions, moved)
    except QuizNotAskable:
        raise  # it names the quiz's line
    except TransvizError as exc:
        raise LessonError(LINE, slide.line, exc.message) from None


def check_places(slide: Slide, config: ModelConfig) -> None:
    """LessonError, at the slide's line, if its view or its quiz names a layer or head the model lacks."""
    places: list[tuple[str, Kind, int | None, int | str | None]] = [  # "view" and "quiz" are their keys too
        ("view", slide.view.kind, slide.view.layer, slide.view.head)]
    if slide.quiz is not None and slide.quiz.kind is not None:
        places.append(("quiz", slide.quiz.kind, slide.quiz.layer, slide.quiz.head))
    for what, kind, layer, head in places:
        layers = config.layer_count(kind)
        if layer is not None and not 0 <= layer < layers:
            raise LessonError(translate_noop("CoreMessages", "line {0}: the {1} names layer {2}, but the model's {3} "
                                                             "attention has layers 0 to {4}"),
                              slide.line_of(what), what, layer, kind, layers - 1)
        if isinstance(head, int) and not 0 <= head < config.n_heads:
            raise LessonError(translate_noop("CoreMessages", "line {0}: the {1} names head {2}, but the model has "
                                                             "heads 0 to {3}"), slide.line_of(what), what, head,
                              config.n_heads - 1)


class QuizNotAskable(LessonError):
    """A slide's quiz cannot be asked at the slide's step (the message names the quiz's line)."""


def check_mask_question(slide: Slide, session: DecodingSession) -> None:
    """LessonError, at the quiz's line, if the slide asks a mask question at a step whose mask has
    too few blocked or open cells (the question asked in the window: about its last step, its first
    when it takes none). Whether it can be asked depends on the step alone: a slide would open on
    a refusal instead of its question."""
    if slide.quiz is None or slide.quiz.ask != "mask":
        return
    try:
        if session.history:
            mask_question(session, session.history[-1])
            return
        with session.excursion():  # no view listens yet: the window takes this step itself
            mask_question(session, session.step())
    except TransvizError as exc:
        raise QuizNotAskable(LINE, slide.line_of("quiz"), exc.message) from None


def check_answer(slide: Slide, model: Model) -> None:
    """LessonError, at the quiz's line, if the answer a token question expects is no token the model
    can write: the class could never see it, whatever they predict."""
    quiz = slide.quiz
    if quiz is None or quiz.ask != "token" or quiz.answer is None:
        return
    vocab = model.tgt_vocab
    token = vocab.normalize(quiz.answer)  # "Beer" is "beer" to a lower-cased vocabulary, as typed in the window
    if token not in vocab or vocab.id_of(token) in (vocab.pad_id, vocab.bos_id):
        raise LessonError(translate_noop("CoreMessages", "line {0}: the quiz's answer {1} is not a token the model "
                                                         "can write (its output vocabulary has no such token)"),
                          slide.line_of("quiz"), repr(quiz.answer))


def check(lesson: Lesson, models: Models | None = None) -> list[DecodingSession]:
    """Every slide of ``lesson`` shown in a workspace of its own; the sessions, or the first
    slide's error (LessonError, naming the file and line)."""
    models = models or Models()
    sessions = []
    for slide in lesson.slides:
        try:
            source = model_source(slide, lesson.folder)
            try:
                loaded = models.get(source)
            except TransvizError as exc:
                raise LessonError(LINE, slide.line, exc.message) from None
            sessions.append(show(slide, Workspace(), source, loaded))
        except LessonError as exc:
            raise LessonError(translate_noop("CoreMessages", "{0}, {1}"), lesson.name, exc.message) from None
    return sessions
