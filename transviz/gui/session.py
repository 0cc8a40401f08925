"""The explorer's view of the workspace's :class:`~transviz.core.decoding.DecodingSession`, as Qt
signals.

:class:`SessionController` forwards the workspace's session events as Qt signals and turns the
errors a user can cause (stepping past the end, forcing in teacher forcing ...) into a message
instead of an exception. Every explorer view takes the controller in its constructor, calls its
methods and redraws from ``controller.session`` when it signals.

Decoding runs on the GUI thread: a step of the shipped model is quicker than handing it to a
thread would be (``transviz bench session_step_ms_default``).
"""
from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext

from PySide6.QtCore import QObject, Signal

from ..core.bundle import Model
from ..core.decoding import DecodingSession, Event
from ..core.errors import InputError
from ..core.strategies import Strategy
from ..core.vocab import BOS, PAD
from ..core.workspace import Workspace
from .core_messages import translated
from .observe import subscribe
from .step_threads import StepThreads


class SessionController(QObject):
    """The explorer's actions on the workspace's session.

    Args:
        workspace: holds the model and the session; the controller follows its changes.

    Signals:
        session_changed(object): a new session (new sentence, reference or model), or None
            when there is none (no model, or the sentence could not be read).
        changed(object): the session moved: the core :class:`~transviz.core.decoding.Event`.
        refused(str): an action could not run; the plain-language reason.
    """

    session_changed = Signal(object)
    changed = Signal(object)
    refused = Signal(str)

    def __init__(self, workspace: Workspace, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.workspace = workspace
        self._quiet = False  # run_to_end reports once, not once per step
        self._threads = StepThreads()  # the window waits for a step: more cores when they help
        subscribe(self, workspace.session_changed, self.session_changed.emit)
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
        if not self._quiet:
            self.changed.emit(event)

    # -- moving ------------------------------------------------------------------------------------
    def _act(self, action: Callable[[DecodingSession], object],
             threads: Callable[[], AbstractContextManager[object]] = nullcontext) -> bool:
        """Run ``action`` on the session within ``threads()`` (how many torch threads compute it);
        False (and ``refused``) if there is no session or it refuses."""
        if self.session is None:
            self.refused.emit(self.tr("Type a sentence to translate first."))
            return False
        try:
            with threads():
                action(self.session)
        except InputError as exc:
            self.refused.emit(translated(exc))
            return False
        return True

    def step(self) -> bool:
        return self._act(DecodingSession.step, self._threads.step)

    def back(self) -> bool:
        return self._act(DecodingSession.back)

    def reset(self) -> bool:
        return self._act(DecodingSession.reset)

    def rewind(self, position: int) -> bool:
        return self._act(lambda s: s.rewind(position))

    def force(self, token: str) -> bool:
        return self._act(lambda s: s.force(token), self._threads.step)

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
        if session.history[-1].path.previous is not session.beam_history[-2].best.node:
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
            ran = self._act(DecodingSession.run_to_end, self._threads.steps)
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
