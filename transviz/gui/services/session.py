"""The explorer's view of the workspace's :class:`~transviz.core.decoding.session.DecodingSession`, as Qt
signals.

:class:`SessionController` forwards the workspace's session events as Qt signals and turns the
errors a user can cause (stepping past the end, forcing in teacher forcing ...) into a message
instead of an exception. Every explorer view takes the controller in its constructor, calls its
methods and redraws from ``controller.session`` when it signals.

It also holds the explorer's interventions (:mod:`~transviz.gui.services.intervention_list`): they stay in
force for every new sentence of the same model, each change can be undone, and
:meth:`SessionController.comparison` says which output tokens the unmodified model wrote otherwise.

Decoding runs on the GUI thread: a step of the shipped model is quicker than handing it to a
thread would be (``transviz bench session_step_ms_default``).
"""
from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QGuiApplication

from ...core.analysis.unmodified import TokenComparison, Unmodified
from ...core.base.errors import InputError, TransvizError
from ...core.decoding.interventions import Intervention
from ...core.decoding.session import DecodingSession, Event
from ...core.decoding.strategies import Strategy
from ...core.model.bundle import Model
from ...core.model.vocab import BOS, PAD
from ...core.teaching.workspace import Workspace
from .core_messages import translated
from .intervention_list import InterventionList, toggled
from .observe import subscribe


class SessionController(QObject):
    """The explorer's actions on the workspace's session.

    Args:
        workspace: holds the model and the session; the controller follows its changes.

    Signals:
        session_changed(object): a new session (new sentence, reference or model), or None
            when there is none (no model, or the sentence could not be read).
        changed(object): the session moved: the core :class:`~transviz.core.decoding.session.Event`.
        refused(str): an action could not run; the plain-language reason.
        interventions_changed(): the interventions in force changed (``changed`` follows when
            a session was decoded again).
    """

    session_changed = Signal(object)
    changed = Signal(object)
    refused = Signal(str)
    interventions_changed = Signal()

    def __init__(self, workspace: Workspace, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.workspace = workspace
        self._quiet = False  # run_to_end reports once, not once per step
        # how far the user decoded (steps, to the end): an edit of the interventions decodes as far
        # again, so that undoing it brings back the very translation
        self._wanted = (0, False)
        self._redecoding = False
        self.interventions = InterventionList()
        self._unmodified = Unmodified()
        subscribe(self, workspace.model_changed, self._forget_interventions)
        subscribe(self, workspace.interventions_changed, self._adopt)
        subscribe(self, workspace.session_changed, self._new_session)
        subscribe(self, workspace.session_moved, self._forward)

    @property
    def model(self) -> Model | None:
        """The model the session decodes with (the workspace's copy)."""
        return self.workspace.decoding_model

    @property
    def session(self) -> DecodingSession | None:
        return self.workspace.session

    @property
    def strategy(self) -> Strategy:
        return self.workspace.strategy

    def _forward(self, event: Event) -> None:
        session = self.session
        if not self._redecoding and event.kind != "interventions" and session is not None:
            self._wanted = (session.position, session.finished)
        if not self._quiet:
            self.changed.emit(event)

    # -- moving ------------------------------------------------------------------------------------
    def _act(self, action: Callable[[DecodingSession], object]) -> bool:
        """Run ``action`` on the session; False (and ``refused``) if there is no session or it refuses."""
        if self.session is None:
            self.refused.emit(self.tr("Type a sentence to translate first."))
            return False
        try:
            action(self.session)
        except InputError as exc:
            self.refused.emit(translated(exc))
            return False
        return True

    def step(self) -> bool:
        return self._act(DecodingSession.step)

    def back(self) -> bool:
        return self._act(DecodingSession.back)

    def reset(self) -> bool:
        return self._act(DecodingSession.reset)

    def rewind(self, position: int) -> bool:
        return self._act(lambda s: s.rewind(position))

    def force(self, token: str) -> bool:
        return self._act(lambda s: s.force(token))

    def choose_instead(self, token: str) -> bool:
        """Replace the last step's token with ``token`` (back, then force): "what if it had said
        this?" Returns whether it did; if not, ``refused`` says why and the session is unchanged."""
        session = self.session
        if session is None or not session.history:
            self.refused.emit(self.tr("Take a step first: the candidates are those of the last step."))
            return False
        if session.teacher_forcing:
            self.refused.emit(self.tr("Teacher forcing feeds the reference: turn it off to choose other words."))
            return False
        if token in (PAD, BOS):
            self.refused.emit(self.tr("{0} is a special token the model never writes.").format(token))
            return False
        before = session.beam_history[-2]
        if session.history[-1].path.previous is not before.hypotheses[before.followed].node:
            # beam search: the candidates shown are those of a hypothesis that was not the best
            # before this step, and forcing continues the best one
            self.refused.emit(self.tr("In beam search these candidates belong to a hypothesis that was not the best "
                                      "one before this step: switch to greedy to force a word here."))
            return False
        session.back()
        if self.force(token):
            return True
        # e.g. the beam's best hypothesis had ended: take the step again, which reproduces it
        # exactly (the strategy is the one it was taken with, unless it was switched since)
        session.step()
        return False

    def run_to_end(self) -> bool:
        """Step until decoding stops, then report the result as one event."""
        session = self.session
        start = session.position if session is not None else 0
        self._quiet = True
        try:
            ran = self._act(DecodingSession.run_to_end)
        finally:
            self._quiet = False
        if ran and session is not None and session.position > start:
            self.changed.emit(Event("step", session.position, session.history[-1]))
        return ran

    def set_strategy(self, strategy: Strategy) -> None:
        """Use ``strategy`` from the next step on (and for new sentences)."""
        try:
            self.workspace.set_strategy(strategy)
        except InputError as exc:
            self.refused.emit(translated(exc))

    # -- interventions -----------------------------------------------------------------------------
    def toggle_intervention(self, item: Intervention) -> bool:
        """Add ``item`` (replacing an edit of the same head or layer), or remove it if in force."""
        return self.set_interventions(toggled(self.interventions.items, item))

    def remove_intervention(self, item: Intervention) -> bool:
        return self.set_interventions(tuple(i for i in self.interventions.items if i != item))

    def clear_interventions(self) -> bool:
        return self.set_interventions(())

    def set_interventions(self, items: tuple[Intervention, ...]) -> bool:
        """Decode the session again with ``items``; False (and ``refused``) if they do not fit the model."""
        if not self._decode_with(items):
            return False
        self.interventions.change(items)
        self._announce()
        return True

    def undo_intervention(self) -> bool:
        """Back to the interventions before the last change."""
        return self._travel(self.interventions.previous, self.interventions.undo,
                            self.tr("No change of the interventions to undo."))

    def redo_intervention(self) -> bool:
        """The change of the interventions last undone, again."""
        return self._travel(self.interventions.following, self.interventions.redo,
                            self.tr("No undone change of the interventions to redo."))

    def _travel(self, target: Callable[[], tuple[Intervention, ...] | None], move: Callable[[], object],
                nothing: str) -> bool:
        items = target()
        if items is None:
            self.refused.emit(nothing)
            return False
        if not self._decode_with(items):
            return False
        move()
        self._announce()
        return True

    def _decode_with(self, items: tuple[Intervention, ...]) -> bool:
        """The session decoded again with ``items``, quietly (the caller announces it)."""
        session = self.session
        if session is None:
            self.refused.emit(self.tr("Type a sentence to translate first."))
            return False
        self._quiet = self._redecoding = True
        # the first mean ablation of a model averages its heads over the validation set first
        QGuiApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            self.workspace.set_interventions(items)  # decodes again as far as it can, up to its position
            steps, to_the_end = self._wanted
            while session.cant_step() is None and (to_the_end or session.position < steps):
                session.step()
        except TransvizError as exc:
            self.refused.emit(translated(exc))
            return False
        finally:
            self._quiet = self._redecoding = False
            QGuiApplication.restoreOverrideCursor()
        return True

    def _announce(self) -> None:
        self.interventions_changed.emit()
        session = self.session
        if session is not None:
            last = session.history[-1] if session.history else None
            self.changed.emit(Event("interventions", session.position, last))

    def comparison(self) -> list[TokenComparison]:
        """Each output token against the unmodified model's (empty without interventions)."""
        session = self.session
        return [] if session is None else self._unmodified.compare(session)

    def _forget_interventions(self, _: object) -> None:
        """Another model: its heads are not the ones edited."""
        if self.interventions.items or self.interventions.can_undo:
            self.interventions.forget()
            self.interventions_changed.emit()

    def _adopt(self, items: tuple[Intervention, ...]) -> None:
        """Interventions set elsewhere (the Heads tab) join the list, undoable like the menu's."""
        if not self._redecoding and items != self.interventions.items:
            self.interventions.change(items)
            self.interventions_changed.emit()

    def _new_session(self, session: DecodingSession | None) -> None:
        """A new sentence: the workspace opened it with the interventions in force (a reopened
        session or a lesson's slide has taken steps already)."""
        self._wanted = (0, False) if session is None else (session.position, session.finished)
        self.session_changed.emit(session)
