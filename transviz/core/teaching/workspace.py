"""The application's state, without Qt: the loaded model and where it came from, the sentence
being explored and its :class:`~transviz.core.decoding.session.DecodingSession`.

Every view of the window takes the one :class:`Workspace` in its constructor and subscribes to
its signals; views never reach into each other. Tests (and scripts) change the workspace and
look at the views, or the other way round.
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field

from ..analysis.walkthrough import Kind
from ..base.errors import InputError, TransvizError
from ..base.events import Signal
from ..base.messages import translate_noop
from ..data.dataset import Pair
from ..data.tasks import TASKS, load_task, task_examples
from ..decoding.interventions import Intervention, taps_for
from ..decoding.session import DecodingSession, Event
from ..decoding.strategies import Greedy, Strategy
from ..model.bundle import Model, decoding_copy
from .quiz import Question, Score

TOP_K = 6  # candidates each step lists: enough to see the alternatives, few enough to read


@functools.lru_cache(maxsize=4)
def _test_split(task: str) -> tuple[Pair, ...]:
    return load_task(task).test


def test_pairs(model: Model | None) -> tuple[Pair, ...]:
    """The test split of the task ``model`` was trained on (pairs it never saw; none for other
    corpora), generated once per task."""
    task = model.facts.get("task") if model is not None else None
    return _test_split(task) if task in TASKS else ()


def model_examples(model: Model | None) -> tuple[Pair, ...]:
    """The examples of the task ``model`` was trained on (none for other corpora)."""
    task = model.facts.get("task") if model is not None else None
    return task_examples(task) if task in TASKS else ()


@dataclass(frozen=True)
class Explanation:
    """A request to show the arithmetic behind one row of one head's attention in the session:
    query ``query`` of ``head`` in ``layer`` of the ``kind`` attention."""

    kind: Kind
    layer: int
    head: int
    query: int


@dataclass(frozen=True)
class QuizState:
    """The explorer's quiz as other views show it: the ``question`` asked (None: none), the class's
    ``choice`` (an index into its choices, or None), whether the answer is ``revealed``, and the
    ``score`` so far."""

    question: Question | None = None
    choice: int | None = None
    revealed: bool = False
    score: Score = field(default_factory=Score)


@dataclass(frozen=True)
class QuizMove:
    """A move another view asks the quiz to make: ``"choose"`` choice ``choice`` (an index into the
    question's choices), ``"reveal"`` the answer, or go on to the ``"next"`` step."""

    action: str
    choice: int = -1


class Workspace:
    """The model, its source, the sentence, its reference and the explorer's session.

    Args:
        top_k: how many candidates each step of the session lists.

    Signals (:class:`~transviz.core.base.events.Signal`):
        model_changed(Model | None): another model (or none); ``session_changed`` follows.
        session_changed(DecodingSession | None): a new session (new sentence, reference, model),
            or None when there is none (no model, or the sentence could not be read: ``error``).
        session_moved(Event): the session stepped, went back, reset or changed strategy.
        explain_requested(Explanation): someone asks why one query row of a head looks as it does
            (the explorer's "Why here?"); the masks tab walks through it.
        interventions_changed(tuple[Intervention, ...]): :meth:`set_interventions` put these in
            force (a new model clears them without this signal: ``model_changed`` says it).
        hidden_changed(bool): a quiz's question opened (True) or was answered or left (False):
            see :attr:`hidden`.
        quiz_changed(QuizState): the explorer's quiz asked, was answered, revealed or left
            (:attr:`quiz`); a view that shows a question hears it here.
        quiz_moved(QuizMove): a view other than the explorer's asks the quiz for a move (a mask
            question is answered in the masks tab); the explorer's quiz makes it.
    """

    def __init__(self, top_k: int = TOP_K) -> None:
        self.top_k = top_k
        self.model: Model | None = None
        self.model_source: str | None = None  # a checkpoint's path or a shipped model's name
        self.decoding_model: Model | None = None  # the session's own copy of ``model``
        self.session: DecodingSession | None = None
        self.sentence = ""
        self.reference: str | None = None  # the sentence's translation, fed when teacher forcing
        self.teacher_forcing = False
        self.strategy: Strategy = Greedy()
        self.interventions: tuple[Intervention, ...] = ()  # how attention runs differently, in every session
        self.error: TransvizError | None = None  # why the sentence has no session
        # a quiz's question is open: every view keeps the session's newest step (the token it wrote and
        # the query row that chose it) to itself until the answer is revealed
        self.hidden = False
        self.quiz = QuizState()  # the explorer's quiz, as the other views show it
        self.model_changed: Signal[Model | None] = Signal()
        self.session_changed: Signal[DecodingSession | None] = Signal()
        self.session_moved: Signal[Event] = Signal()
        self.explain_requested: Signal[Explanation] = Signal()
        self.interventions_changed: Signal[tuple[Intervention, ...]] = Signal()
        self.hidden_changed: Signal[bool] = Signal()
        self.quiz_changed: Signal[QuizState] = Signal()
        self.quiz_moved: Signal[QuizMove] = Signal()

    @property
    def examples(self) -> tuple[Pair, ...]:
        return model_examples(self.model)

    def set_model(self, model: Model | None, source: str | None = None, sentence: str | None = None,
                  fall_back: bool = False, decoding_model: Model | None = None) -> bool:
        """Explore ``model`` (from ``source``) from now on, with ``sentence`` (default: the first
        example of its task, with its translation as the reference). With ``fall_back``, a
        sentence the model cannot read (a remembered one, typed for another model) is replaced by
        the first example. The session is opened before ``model_changed`` is emitted, so that no
        view sees the old model's session with the new model. ``decoding_model`` is the session's
        copy of ``model`` (:func:`~transviz.core.model.bundle.decoding_copy`) when the caller made it
        already: copying a large model takes a while, better spent off a window's event loop.
        Returns whether ``sentence`` was replaced."""
        self.model, self.model_source = model, source
        self.interventions = ()  # they name heads of the old model
        if model is not None and decoding_model is None:
            decoding_model = decoding_copy(model)
        self.decoding_model = None if model is None else decoding_model
        first = next((p.source for p in self.examples), "")
        session = self._session_of(sentence or first)
        replaced = bool(fall_back and sentence and session is None and first and first != sentence)
        if replaced:
            session = self._session_of(first)
        self._replace(session, emit=False)
        self.model_changed.emit(model)
        self.session_changed.emit(self.session)
        return replaced

    def _session_of(self, sentence: str) -> DecodingSession | None:
        """Make ``sentence`` (with its own example's reference) the workspace's; its session, or
        None (``error`` says why)."""
        self.sentence = sentence
        self.reference = self.reference_of(sentence)
        self.teacher_forcing = False
        try:
            return self._new_session()
        except TransvizError:
            return None

    def reference_of(self, sentence: str) -> str | None:
        """The translation of ``sentence`` when it is one of the model's examples, else None."""
        return next((p.target for p in self.examples if p.source == sentence), None)

    def open(self, sentence: str, reference: str | None = None, teacher_forcing: bool = False) -> DecodingSession:
        """A new session for ``sentence`` (fed ``reference`` when ``teacher_forcing``). On an error
        there is no session any more (``error`` says why) and the error is raised."""
        self.sentence, self.reference, self.teacher_forcing = sentence, reference, teacher_forcing
        try:
            session = self._new_session()
        except TransvizError:
            self._replace(None)
            raise
        self._replace(session)
        return session

    def restore(self, sentence: str, reference: str | None, teacher_forcing: bool, strategy: Strategy,
                interventions: tuple[Intervention, ...], moves: Callable[[DecodingSession], object]) -> DecodingSession:
        """Open ``sentence`` with all these settings and make ``moves`` (the steps of a saved session
        or a lesson's slide) before any view hears of it, so that views draw the result once. On an
        error (raised) nothing changes."""
        if self.decoding_model is None:
            raise InputError(translate_noop("CoreMessages", "no model is loaded: open a checkpoint first"))
        taps_for(self.decoding_model, interventions)  # raises when they do not fit the model
        session = DecodingSession(self.decoding_model, sentence, strategy=Greedy() if teacher_forcing else strategy,
                                  top_k=self.top_k, reference=reference if teacher_forcing else None,
                                  interventions=interventions)
        moves(session)
        self.sentence, self.reference, self.teacher_forcing = sentence, reference, teacher_forcing
        self.strategy, self.interventions, self.error = strategy, tuple(interventions), None
        self._replace(session, emit=False)
        self.interventions_changed.emit(self.interventions)
        self.session_changed.emit(session)
        return session

    def _new_session(self) -> DecodingSession:
        """A session of the current sentence; ``error`` says why there can be none."""
        try:
            if self.decoding_model is None:
                raise InputError(translate_noop("CoreMessages", "no model is loaded: open a checkpoint first"))
            strategy = Greedy() if self.teacher_forcing else self.strategy
            session = DecodingSession(self.decoding_model, self.sentence, strategy=strategy, top_k=self.top_k,
                                      reference=self.reference if self.teacher_forcing else None,
                                      interventions=self.interventions)
        except TransvizError as exc:
            self.error = exc
            raise
        self.error = None
        return session

    def explain(self, kind: Kind, layer: int, head: int, query: int) -> None:
        """Ask for the walkthrough of ``query`` of ``head`` in ``layer`` of the session's ``kind`` attention."""
        self.explain_requested.emit(Explanation(kind, layer, head, query))

    def hide_newest_step(self, hidden: bool) -> None:
        """Keep the session's newest step hidden from every view (a quiz's question is open), or not."""
        if hidden != self.hidden:
            self.hidden = hidden
            self.hidden_changed.emit(hidden)

    def show_quiz(self, state: QuizState) -> None:
        """The explorer's quiz is now ``state`` (every view showing it hears it)."""
        if state != self.quiz:
            self.quiz = state
            self.quiz_changed.emit(state)

    def move_quiz(self, move: QuizMove) -> None:
        """Ask the explorer's quiz for ``move`` (from a view that shows its question)."""
        self.quiz_moved.emit(move)

    @property
    def hidden_step(self) -> int | None:
        """The index of the step hidden now (its query row in the decoder's maps), or None."""
        session = self.session
        return session.position - 1 if self.hidden and session is not None and session.position else None

    def set_interventions(self, interventions: tuple[Intervention, ...]) -> None:
        """Run the session, and every later one of this model, with ``interventions``: the session
        decodes again to its step (its ``interventions`` event follows). An intervention the model
        cannot take raises InputError and changes nothing."""
        if self.session is not None:
            self.session.set_interventions(interventions)
        elif self.decoding_model is not None:
            taps_for(self.decoding_model, interventions)
        self.interventions = tuple(interventions)
        self.interventions_changed.emit(self.interventions)

    def set_strategy(self, strategy: Strategy) -> None:
        """Use ``strategy`` from the session's next step on, and for new sentences (teacher
        forcing keeps feeding the reference)."""
        self.strategy = strategy
        if self.session is not None and not self.session.teacher_forcing:
            self.session.set_strategy(strategy)

    def _replace(self, session: DecodingSession | None, emit: bool = True) -> None:
        if self.session is not None:
            self.session.events.disconnect(self.session_moved.emit)
        self.session = session
        if session is not None:
            session.events.connect(self.session_moved.emit)
        if emit:
            self.session_changed.emit(session)
