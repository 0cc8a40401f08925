"""The explorer tab: type a sentence, step through its translation, and watch every head's
attention, the candidates of each step and (in beam search) the tree of hypotheses.

Keyboard: Space or Right = step, Left = back, Home = reset, P = play / pause, unless a text or
number box has the focus and needs the key; Ctrl+Z / Ctrl+Shift+Z (or Ctrl+Y) undo / redo a
change of the interventions (right-click a head to add one, drag along a row of the large head to
paint it). A model opens with the focus in the sentence box; Enter there hands the keys to the
decoder.

Quiz mode (Q, or the Quiz button): each step is taken hidden (its token, its candidates and the
current query row of the maps) and the class predicts; 1-9 choose, Enter reveals, Right (or
Space) reveals an open question, then moves on to the next step and asks again. The quiz's chooser
picks what each step asks; a question on a head asks about the head shown large. A mask question
is answered in the masks tab, which the window then shows: the quiz is published through the
workspace (``quiz_changed``) and takes the moves made there (``quiz_moved``).
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence, QResizeEvent, QShortcut
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QHBoxLayout,
    QLineEdit,
    QSplitter,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ...core.analysis.unmodified import TokenComparison
from ...core.analysis.walkthrough import Kind
from ...core.decoding.paths import walk
from ...core.decoding.session import DecodingSession, Event
from ...core.decoding.strategies import Beam
from ...core.model.bundle import Model
from ...core.teaching.lesson import Quiz, View
from ...core.teaching.quiz import MAX_CHOICES, WHERE_KINDS, QuizSpec
from ...core.teaching.workspace import QuizMove, QuizState, Workspace
from ..services.language import Retranslated
from ..services.observe import subscribe
from ..services.session import SessionController
from ..widgets.alignment import AlignmentLines
from ..widgets.attention_view import AttentionView
from ..widgets.beam_tree import BeamTree
from ..widgets.candidates import CandidatesChart
from ..widgets.decode_controls import DecodingControls
from ..widgets.explain_menu import ExplainMenu
from ..widgets.grid import SUMMARY_COLUMN
from ..widgets.intervention_menu import InterventionMenu
from ..widgets.labels import bound_label
from ..widgets.legend import ColourLegend
from ..widgets.quiz_panel import QuizPanel
from ..widgets.source_box import SourceBox
from ..widgets.token_strip import Chip, TokenStrip
from .base import PlotPanel

QUIZ_KEY = "Q"  # free in the window: Ctrl+Q quits, P plays


class ExplorerPanel(Retranslated, PlotPanel):
    """Sentence, decoding controls, output strip, candidates, beam tree and attention, all
    observing the workspace's session through one :class:`~transviz.gui.services.session.SessionController`.
    Its ``status`` says why a control is disabled or an action refused.
    """

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(workspace, parent)
        self.controller = SessionController(workspace, self)
        self._quiz_from_slide = False  # a lesson slide asks: its tab stays in front
        self._slide_spec: QuizSpec | None = None  # a slide's question, asked until quiz mode or its kind changes
        self._build()
        self._add_shortcuts()
        self.controller.session_changed.connect(self.refresh)
        self.controller.changed.connect(self.refresh)
        self.controller.refused.connect(self.status)
        self.controls.status.connect(self.status)
        self.controls.strategy.changed.connect(self.refresh)  # the beam tree, and captions that name the strategy
        self.output.chip_clicked.connect(self.controller.rewind)
        self.candidates.candidate_clicked.connect(self.controller.choose_instead)
        self.source.submitted.connect(self.take_keyboard)
        self.controller.changed.connect(self._ask)
        self.controller.session_changed.connect(self._ask)
        self.quiz.revealed_changed.connect(self._apply_quiz)
        self.quiz.ask_chosen.connect(self._on_ask_chosen)
        self.quiz.changed.connect(self._publish_quiz)
        subscribe(self, workspace.quiz_moved, self._on_quiz_move)
        self.attention.large.clicked.connect(self._clicked_key)
        self.intervention_menu = InterventionMenu(lambda: self.controller.interventions.items, self)
        self.intervention_menu.chosen.connect(self.controller.toggle_intervention)
        self.explain_menu = ExplainMenu(self.attention, [self.intervention_menu.add_to])
        self.explain_menu.asked.connect(self.why_here)
        self.alignment = AlignmentLines(self, self.output, self.source.preview, between=[self.controls])
        view = self.attention
        for changed in (view.lines.toggled, view.selected_changed, view.kind.currentIndexChanged,
                        view.summary.currentIndexChanged):
            changed.connect(self._draw_alignment)
        self.watch_model()

    # -- construction --------------------------------------------------------------------------
    def _build(self) -> None:
        controller = self.controller
        self.source = SourceBox(controller)
        self.controls = DecodingControls(controller)
        self.output = TokenStrip()
        self.bind_text(self.output.setToolTip,
                       lambda: self.tr("The translation so far; click a token to go back to it"))
        self.bind_text(self.output.set_placeholder,
                       lambda: self.tr("(the translation appears here, one token per step)"))
        self.candidates = CandidatesChart()
        self.quiz = QuizPanel()
        self.quiz.setVisible(False)
        self.quiz_action = QAction(self)
        self.quiz_action.setCheckable(True)
        self.quiz_action.setShortcut(QKeySequence(QUIZ_KEY))
        self.bind_text(self.quiz_action.setText, lambda: self.tr("Quiz mode"))
        self.bind_text(self.quiz_action.setToolTip, lambda: self.tr(
            "Predict, then reveal (Q): each step is hidden until Enter; 1-9 choose, Right moves on"))
        self.quiz_action.toggled.connect(self.set_quiz)
        self.addAction(self.quiz_action)
        quiz_button = QToolButton()
        quiz_button.setDefaultAction(self.quiz_action)
        left = QWidget()
        column = QVBoxLayout(left)
        column.setContentsMargins(0, 0, 0, 0)
        top = QHBoxLayout()  # above the candidates it hides: the row of decoding controls has no room left
        top.addWidget(quiz_button)
        top.addWidget(self.quiz.chooser, 1)  # what each step asks, shown in quiz mode
        top.addStretch(0)
        column.addLayout(top)
        column.addWidget(self.quiz)
        column.addWidget(self.candidates, 1)
        self.beam_tree = BeamTree()
        self.attention = AttentionView(controller)
        self.track(self.attention.grid, self.attention.large, self.candidates, self.beam_tree)
        plots = QSplitter(Qt.Orientation.Horizontal)
        plots.setObjectName("explorer_candidates_and_attention")  # splitter sizes are restored at the next start
        plots.addWidget(left)
        plots.addWidget(self.attention)
        plots.setStretchFactor(0, 1)
        plots.setStretchFactor(1, 3)
        plots.setSizes([300, 1100])  # room for the candidates' words and numbers
        body = QSplitter(Qt.Orientation.Vertical)  # the beam tree, when shown, spans the width: it grows sideways
        body.setObjectName("explorer_beam_tree_and_plots")
        body.addWidget(self.beam_tree)
        body.addWidget(plots)
        body.setStretchFactor(0, 1)
        body.setStretchFactor(1, 3)
        self.no_model = bound_label(
            self, lambda: self.tr("No model loaded: Model > Open a checkpoint to explore its decoding."))
        self.no_model.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.pages = QStackedWidget()
        self.pages.addWidget(self.no_model)
        self.pages.addWidget(body)
        layout = QVBoxLayout(self)
        layout.addWidget(self.source)
        layout.addWidget(self.controls)
        layout.addWidget(self.output)
        layout.addWidget(self.source.summary)  # teacher forcing's summary, under the tokens it sums up
        self.legend = ColourLegend()  # what the chips' and maps' colours mean
        layout.addWidget(self.legend)
        layout.addWidget(self.pages, 1)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

    def _add_shortcuts(self) -> None:
        """Window shortcuts that act only while this tab shows: a text box with the focus keeps
        the keys it uses (Space, arrows, Home, P) for typing."""
        keys = ((Qt.Key.Key_Space, self.move_on), (Qt.Key.Key_Right, self.move_on),
                (Qt.Key.Key_Left, self.controller.back), (Qt.Key.Key_Home, self.controller.reset),
                (Qt.Key.Key_P, self.controls.toggle_play))
        self.shortcuts = [QShortcut(QKeySequence(key), self, action) for key, action in keys]
        for box in self.controls.findChildren(QAbstractSpinBox):  # a number typed and entered:
            edit = box.findChild(QLineEdit)  # Space, the arrows and Home step again (the box keeps them)
            if edit is not None:
                edit.returnPressed.connect(lambda: self.setFocus(Qt.FocusReason.OtherFocusReason))
        undo, redo = QShortcut(self), QShortcut(self)
        undo.setKeys(QKeySequence.StandardKey.Undo)
        # Ctrl+Y too where the platform's Redo lacks it (Linux: Ctrl+Shift+Z); twice would be ambiguous
        redo_keys = QKeySequence.keyBindings(QKeySequence.StandardKey.Redo)
        redo.setKeys(redo_keys + [QKeySequence("Ctrl+Y")] * (QKeySequence("Ctrl+Y") not in redo_keys))
        undo.activated.connect(self.controller.undo_intervention)
        redo.activated.connect(self.controller.redo_intervention)
        self.shortcuts += [undo, redo]
        # on only in quiz mode: otherwise digits and Enter are left alone
        self.quiz_keys = [QShortcut(QKeySequence(str(n + 1)), self, lambda n=n: self.quiz.choose(n))
                          for n in range(MAX_CHOICES)]
        self.quiz_keys += [QShortcut(QKeySequence(key), self, self.quiz.reveal)
                           for key in (Qt.Key.Key_Return, Qt.Key.Key_Enter)]
        for shortcut in self.quiz_keys:
            shortcut.setEnabled(False)

    # -- quiz ------------------------------------------------------------------------------------
    def view_actions(self) -> list[QAction]:
        return [self.quiz_action]

    @property
    def quiz_on(self) -> bool:
        return self.quiz_action.isChecked()

    @contextmanager
    def drawn_at_once(self) -> Iterator[None]:
        self.controls.pause()  # playing would step the run while its frames are taken
        self.attention.set_hints_shown(False)  # a frame shows the run, not how to use the window
        try:
            yield
        finally:
            self.attention.set_hints_shown(True)

    def plot_name(self, plot: QWidget) -> str:
        names = {self.attention.grid: self.tr("the grid of every layer and head"),
                 self.attention.large: self.tr("the head shown large"),
                 self.candidates: self.tr("the next-token candidates"), self.beam_tree: self.tr("the beam tree")}
        return names.get(plot) or super().plot_name(plot)

    def refuses_animation(self) -> str | None:
        if self.quiz_on:
            return self.tr("Turn quiz mode off first: stepping through the run would reveal the answer.")
        return None

    def set_quiz(self, on: bool, spec: QuizSpec | None = None) -> None:
        """Turn quiz mode on (asking ``spec``'s question, default: the kind the chooser shows) or off.
        On, the explorer takes the next step hidden and asks about it."""
        if spec is not None:
            self._slide_spec = spec
            self.quiz.set_chosen_ask(spec.ask)
        if self.quiz_action.isChecked() != on:
            self.quiz_action.setChecked(on)  # toggled comes back here
            return
        if not on:
            self._slide_spec = None
        self.quiz.setVisible(on)
        self.quiz.chooser.setVisible(on)
        if on and not self.isVisible() and not self._quiz_from_slide:  # from the View menu on another tab
            self.show_panel.emit("explorer")
        for shortcut in self.quiz_keys:
            shortcut.setEnabled(on)
        if on and isinstance(self.focusWidget(), (QLineEdit, QAbstractSpinBox)):
            self.take_keyboard()  # a text box would take the class's digits and Enter as typing
        self.quiz.restart()
        session = self.controller.session
        if on and session is not None and session.cant_step() is None:
            self.controller.step()  # asks (_ask)
        self._apply_quiz()

    def move_on(self) -> None:
        """Right / Space: in quiz mode an open question is revealed first; then the next step."""
        if self.quiz_on and not self.quiz.revealed:
            self.quiz.reveal()
        else:
            self.controller.step()

    def _ask(self, event: object) -> None:
        """A step taken in quiz mode is asked about; any other move leaves nothing hidden."""
        if not self.quiz_on:
            return
        if isinstance(event, Event) and event.kind == "step":
            self._ask_newest()
        else:
            self.quiz.ask_about(None)

    def _ask_newest(self) -> None:
        """Ask the chosen kind of question about the session's newest step, hidden until revealed."""
        spec, reason = self._spec_for(self.quiz.chosen_ask)
        if spec is None:
            self.quiz.refuse(reason)
        else:
            reason = self.quiz.ask_about(self.controller.session, spec) or ""
        if reason:
            self.status.emit(reason)
        question = self.quiz.question
        if spec is None or question is None:
            return
        if spec.ask in ("where", "sums"):
            self.attention.show_head(spec.kind, spec.layer, spec.head)
        if spec.ask == "mask" and not self._quiz_from_slide:  # answered there; a slide's own tab stays
            self.show_panel.emit("masks")

    def _spec_for(self, kind: str) -> tuple[QuizSpec | None, str]:
        """The question of ``kind`` on the head shown large (a slide's own question while it lasts),
        or None and why that head cannot be asked about."""
        if self._slide_spec is not None and self._slide_spec.ask == kind:
            return self._slide_spec, ""
        if kind in ("token", "layer", "mask"):
            return QuizSpec(kind), ""
        view = self.attention
        shown_kind = view.current_kind()
        if view.shown is None:
            return None, ""
        layer, head = view.selected()
        name = self.quiz.ask_names()[kind]
        if kind == "queries":
            return QuizSpec(kind, shown_kind), ""
        if kind == "aligns":
            if shown_kind != "cross":
                return None, self.tr("\"{0}\" asks about the heads of cross-attention: show cross-attention, with a "
                                     "head of the layer large.").format(name)
            return QuizSpec(kind, "cross", layer), ""
        if shown_kind not in WHERE_KINDS:
            return None, self.tr("\"{0}\" asks about a head of the decoder: show cross-attention or decoder "
                                 "self-attention, with one of its heads large.").format(name)
        if head == SUMMARY_COLUMN:
            return None, self.tr("\"{0}\" asks about one head: click a head of the grid to show it large, not the "
                                 "layer's summary.").format(name)
        return QuizSpec(kind, shown_kind, layer, head), ""

    def _on_ask_chosen(self, _kind: str) -> None:
        """Another kind of question: a fresh score, and the question on the current step."""
        self._slide_spec = None
        if not self.quiz_on:
            return
        self.quiz.restart()
        session = self.controller.session
        if session is not None and session.history:
            self._ask_newest()  # its answer hidden again (revealed_changed)
        elif session is not None and session.cant_step() is None:
            self.controller.step()  # asks (_ask)

    def _apply_quiz(self, *_: object) -> None:
        # through the workspace: every view that could give the answer away hears it at once
        self.workspace.hide_newest_step(self.quiz_on and not self.quiz.revealed)
        self.refresh()

    def _publish_quiz(self) -> None:
        """Tell the other views what the quiz shows (the masks tab shows a mask question)."""
        self.workspace.show_quiz(self.quiz.state() if self.quiz_on else QuizState())

    def _on_quiz_move(self, move: QuizMove) -> None:
        """A move made in another view (the masks tab), made here."""
        if not self.quiz_on:
            return
        if move.action == "choose":
            self.quiz.choose(move.choice)
        elif move.action == "reveal":
            self.quiz.reveal()
        elif move.action == "next":
            self.move_on()

    def _clicked_key(self, _row: int, column: int) -> None:
        question = self.quiz.question
        if self.quiz_on and question is not None and question.ask == "where":
            self.quiz.choose(column)

    def apply_quiz(self, quiz: Quiz | None) -> None:
        """A slide's quiz asks about the slide's last step (its first, when it takes none): that
        step is taken again, hidden, until the class has answered."""
        if quiz is None:
            if self.quiz_on:
                self.set_quiz(False)
            return
        session = self.controller.session
        if session is not None and session.cant_back() is None:
            self.controller.back()
        # the slide's own tab stays: every view there hides the answer while the question is open
        self._quiz_from_slide = True
        try:
            self.set_quiz(True, QuizSpec(quiz.ask, quiz.kind or "cross", quiz.layer or 0, quiz.head or 0))
        finally:
            self._quiz_from_slide = False

    def view_state(self) -> View:
        return self.attention.view_state()

    def apply_view(self, view: View) -> None:
        self.attention.apply_view(view, redraw=False)  # the session opened next redraws

    def why_here(self, kind: Kind, layer: int, head: int, query: int) -> None:
        """Open the masks tab's walkthrough on this query of this head."""
        self.show_panel.emit("masks")  # first: a tab never shown is built then, and hears the request
        self.workspace.explain(kind, layer, head, query)

    def take_keyboard(self) -> None:
        """Give the explorer the focus, so that Space steps instead of typing a space."""
        self.setFocus(Qt.FocusReason.OtherFocusReason)

    def retranslate(self) -> None:
        super().retranslate()
        self.refresh()  # the output tokens' tooltips

    # -- model -----------------------------------------------------------------------------------
    def set_model(self, model: Model | None) -> None:
        self.pages.setCurrentIndex(0 if model is None else 1)
        self.source.setEnabled(model is not None)
        config = model.facts.get("train_config") if model is not None else None  # how it was trained, if known
        smoothing = config.get("label_smoothing") if isinstance(config, dict) else None
        self.candidates.set_label_smoothing(float(smoothing) if isinstance(smoothing, (int, float)) else None)
        if model is not None:  # typing replaces the example; Enter hands the keys to the decoder
            self.source.sentence.setFocus(Qt.FocusReason.OtherFocusReason)

    # -- drawing ---------------------------------------------------------------------------------
    def refresh(self, *_: object) -> None:
        session = self.controller.session
        hidden = self.quiz_on and not self.quiz.revealed
        self.legend.show_hidden(hidden)
        self.legend.show_teacher_forcing(session is not None and session.teacher_forcing)
        chips = self.output_chips(session) if session is not None else []
        if hidden and len(chips) > 1:  # the step's token is the question
            chips[-1] = Chip("?", self.tr("hidden until the quiz's answer is revealed"), current=True)
        self.output.set_chips(chips)
        record = session.history[-1] if session is not None and session.history else None
        if hidden:
            self.candidates.show_hidden(self.tr("The next token is hidden: predict it, then Reveal (Enter)."))
        else:
            self.candidates.show_record(record, isinstance(self.controller.strategy, Beam))
        self._show_beam_tree()
        if hidden:
            self.beam_tree.setVisible(False)  # it names the tokens
        self._draw_alignment()

    def _draw_alignment(self, *_: object) -> None:
        """Lines from the token just written to the source tokens, when asked for."""
        weights = self.attention.alignment() if self.attention.lines.isChecked() else None
        current = len(self.output.chips) - 1
        self.alignment.show_alignment(None if weights is None else current, [] if weights is None else weights.tolist())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._draw_alignment()  # the chips moved

    def output_chips(self, session: DecodingSession) -> list[Chip]:
        """The start token, then one chip per output token of the best hypothesis (in beam search
        the steps' records describe other hypotheses too); the last is the current step."""
        records, tokens = session.history, session.output_tokens
        nodes = walk(session.beam_history[-1].best.node)  # the best hypothesis, token by token
        go_back = self.tr("click to go back to here")
        # in teacher forcing every chip has two lines, the start token an empty second one: the strip
        # has its height before the first step, and the maps below it do not jump at that step
        chips = [Chip(session.start_token, self.tr("the start token: {0}").format(go_back),
                      current=not tokens, below="" if session.teacher_forcing else None)]
        compared = self.controller.comparison()  # empty without interventions
        # strict=False: in beam search the best hypothesis may have ended steps before the search did
        for i, (token, node, record) in enumerate(zip(tokens, nodes, records, strict=False)):
            # a forced step leaves one hypothesis, so every later one continues the forced token
            tip = self.tr("step {0}: p = {1:.3f}").format(i + 1, node.probability)
            if record.forced:
                tip += self.tr("; forced by you")
            if record.prescribed:
                tip += self.tr("; the target language, which the model is told to write first")
            below = None
            if record.gold_token is not None:
                tip += self.tr("; the model predicted '{0}'").format(record.predicted_token)
                below = record.predicted_token
            comparison = compared[i] if i < len(compared) else None
            if comparison is not None:
                tip += self.compared_text(comparison)
            chips.append(Chip(token, f"{tip}; {go_back}", current=i == len(tokens) - 1, forced=record.forced,
                              below=below, below_right=record.predicted_token == token,
                              changed=comparison is not None and comparison.changed))
        return chips

    def compared_text(self, comparison: TokenComparison) -> str:
        """The tooltip's part on the unmodified model: its token here, and how the interventions
        moved that token's log-probability."""
        if comparison.original is None:
            return self.tr("; without the interventions the translation had ended before here")
        text = self.tr("; without the interventions: '{0}'").format(comparison.original) if comparison.changed \
            else self.tr("; the same without the interventions")
        if comparison.delta is not None:
            text += self.tr(", log p('{0}') {1:+.3f} (from {2:.3f} to {3:.3f})").format(
                comparison.original, comparison.delta, comparison.before, comparison.after)
        return text

    def _show_beam_tree(self, *_: object) -> None:
        session, strategy = self.controller.session, self.controller.strategy
        beam_search = isinstance(strategy, Beam) and not (session is not None and session.teacher_forcing)
        self.beam_tree.setVisible(beam_search)
        if isinstance(strategy, Beam) and beam_search and session is not None:
            self.beam_tree.show_history(session.beam_history, strategy.width, strategy.length_penalty,
                                        session.start_token)


def explorer_in(panels: Mapping[str, PlotPanel]) -> ExplorerPanel:
    """The Explorer tab's panel among a window's ``panels`` (built now if it was not yet)."""
    panel = panels["explorer"]
    assert isinstance(panel, ExplorerPanel)
    return panel
