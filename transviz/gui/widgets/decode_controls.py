"""Decoding controls: Step, Back, Play/Pause with a speed, Run to end, Reset, and the strategy
(greedy, sampling with its settings, beam search with its width). A control that cannot act is
disabled, and why is said in its tooltip and in the status bar."""
from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QSignalBlocker, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QPushButton,
    QSlider,
    QSpinBox,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from ...core.base.messages import Message
from ...core.decoding.session import Event
from ...core.decoding.strategies import MAX_BEAM_WIDTH, Beam, Greedy, Sampling, Strategy
from ..services.core_messages import translated
from ..services.language import Retranslated, set_items
from ..services.session import SessionController
from ..services.theme import current_appearance
from .labels import bound_label, plain_label

STRATEGY_NAMES = ("greedy", "sampling", "beam")  # entries of the strategy selector
DEFAULT_SPEED, MAX_SPEED = 4, 30  # steps per second while playing
RANDOM_SEED = -1  # the seed box's "random" entry


def _translated(reason: Message | None) -> str | None:
    return None if reason is None else translated(reason)


class StrategyEditor(Retranslated, QWidget):
    """The strategy selector and the settings of the chosen strategy.

    Signals:
        changed(object): the new :class:`~transviz.core.decoding.strategies.Strategy`.
    """

    changed = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.choice = QComboBox()
        self.bind_text(lambda texts: set_items(self.choice, texts),
                       lambda: [self.tr("greedy"), self.tr("sampling"), self.tr("beam search")])
        self.temperature = QDoubleSpinBox(decimals=2, minimum=0.05, maximum=5.0, singleStep=0.1, value=1.0)
        self.top_k = QSpinBox(minimum=0, maximum=10_000, value=0)
        self.bind_text(self.top_k.setSpecialValueText, lambda: self.tr("all"))
        self.top_p = QDoubleSpinBox(decimals=2, minimum=0.01, maximum=1.0, singleStep=0.05, value=1.0)
        self.seed = QSpinBox(minimum=RANDOM_SEED, maximum=2**31 - 1, value=RANDOM_SEED)
        self.bind_text(self.seed.setSpecialValueText, lambda: self.tr("random"))
        self.beam_width = QSpinBox(minimum=1, maximum=MAX_BEAM_WIDTH, value=4)
        self.beam_rule = QComboBox()
        self.bind_text(lambda texts: set_items(self.beam_rule, texts),
                       lambda: [self.tr("transviz"), self.tr("as generate()")])
        self.bind_text(self.beam_rule.setToolTip, lambda: self.tr(
            "transviz: finished hypotheses keep their place among the best; as generate(): transformers' rule, "
            "which keeps as many unfinished ones and sets finished ones aside (a Hugging Face model then decodes "
            "as its generate(num_beams=width, length_penalty=...) does)"))
        self._early_stopping: bool | str = False  # generate()'s default; a lesson or session may set another
        self.length_penalty = QDoubleSpinBox(decimals=2, minimum=0.0, maximum=5.0, singleStep=0.1, value=1.0)
        self.bind_text(self.length_penalty.setToolTip, lambda: self.tr(
            "Hypotheses are ranked by log-probability / length^penalty: 0 favours short outputs, 1 ranks by the "
            "average per token"))
        self.settings = QStackedWidget()
        self.settings.addWidget(QWidget())  # greedy: nothing to set
        self.settings.addWidget(self._row((lambda: self.tr("temperature"), self.temperature),
                                          (lambda: self.tr("top-k"), self.top_k),
                                          (lambda: self.tr("top-p"), self.top_p), (lambda: self.tr("seed"), self.seed)))
        self.settings.addWidget(self._row((lambda: self.tr("width"), self.beam_width),
                                          (lambda: self.tr("length penalty"), self.length_penalty),
                                          (lambda: self.tr("rule"), self.beam_rule)))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(bound_label(self, lambda: self.tr("Strategy")))
        layout.addWidget(self.choice)
        layout.addWidget(self.settings, 1)
        self.choice.currentIndexChanged.connect(self.settings.setCurrentIndex)
        self.choice.currentIndexChanged.connect(self._emit)
        for spin in (self.temperature, self.top_k, self.top_p, self.seed, self.beam_width, self.length_penalty):
            spin.valueChanged.connect(self._emit)
        self.beam_rule.currentIndexChanged.connect(self._emit)

    def _row(self, *pairs: tuple[Callable[[], str], QWidget]) -> QWidget:
        """A strategy's settings: a translated name before each box."""
        page = QWidget()
        layout = QHBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        for text, widget in pairs:
            layout.addWidget(bound_label(self, text))
            layout.addWidget(widget)
        layout.addStretch(1)
        return page

    def strategy(self) -> Strategy:
        """The strategy the widgets describe (their ranges are the strategies' own)."""
        name = STRATEGY_NAMES[self.choice.currentIndex()]
        if name == "sampling":
            seed = None if self.seed.value() == RANDOM_SEED else self.seed.value()
            return Sampling(self.temperature.value(), self.top_k.value(), self.top_p.value(), seed)
        if name == "beam":
            hf = self.beam_rule.currentIndex() == 1
            return Beam(self.beam_width.value(), self.length_penalty.value(), "hf" if hf else "transviz",
                        self._early_stopping if hf else False)
        return Greedy()

    def show_strategy(self, strategy: Strategy) -> None:
        """Show ``strategy`` (one the workspace took from elsewhere: a session reopened, a lesson's
        slide) without announcing it as a change."""
        blockers = [QSignalBlocker(w) for w in (self.choice, self.temperature, self.top_k, self.top_p, self.seed,
                                                 self.beam_width, self.length_penalty, self.beam_rule)]
        self.choice.setCurrentIndex(STRATEGY_NAMES.index(strategy.name))
        self.settings.setCurrentIndex(self.choice.currentIndex())
        if isinstance(strategy, Sampling):
            self.temperature.setValue(strategy.temperature)
            self.top_k.setValue(strategy.top_k)
            self.top_p.setValue(strategy.top_p)
            # a seed the session drew may exceed the box (32 bits, unsigned): it shows "random" then
            fits = strategy.seed is not None and strategy.seed <= self.seed.maximum()
            self.seed.setValue(strategy.seed if fits and strategy.seed is not None else RANDOM_SEED)
        elif isinstance(strategy, Beam):
            self.beam_width.setValue(strategy.width)
            self.length_penalty.setValue(strategy.length_penalty)
            self.beam_rule.setCurrentIndex(1 if strategy.rule == "hf" else 0)
            self._early_stopping = strategy.early_stopping if strategy.rule == "hf" else False
        del blockers

    def _emit(self) -> None:
        self.changed.emit(self.strategy())


class DecodingControls(Retranslated, QWidget):
    """Buttons and strategy for the controller's session.

    Signals:
        status(str): why Step cannot act (for the status bar), when that changes ("" when it can again).
        playing_changed(bool): Play started or stopped.
    """

    status = Signal(str)
    playing_changed = Signal(bool)

    def __init__(self, controller: SessionController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self._last_reason: str | None = ""
        self.step_button = QPushButton()
        self.back_button = QPushButton()
        self.play_button = QPushButton()
        self.play_button.setCheckable(True)
        self.run_button = QPushButton()
        self.reset_button = QPushButton()
        for button, text in ((self.step_button, lambda: self.tr("Step (Space)")),
                             (self.back_button, lambda: self.tr("Back (Left)")),
                             (self.run_button, lambda: self.tr("Run to end")),
                             (self.reset_button, lambda: self.tr("Reset (Home)"))):
            self.bind_text(button.setText, text)
        self.speed = QSlider(Qt.Orientation.Horizontal)
        self.speed.setRange(1, MAX_SPEED)
        self.speed.setValue(DEFAULT_SPEED)
        self.speed.setMaximumWidth(140)
        self.speed_label = plain_label()
        self.strategy = StrategyEditor()
        self.timer = QTimer(self)
        self._buttons_row, self._strategy_row = QHBoxLayout(), QHBoxLayout()
        self._two_rows = False  # the strategy's row apart outside presentation mode too
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(self._buttons_row)
        layout.addLayout(self._strategy_row)
        for button in (self.reset_button, self.back_button, self.step_button, self.play_button, self.run_button):
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # Space and the arrows stay the explorer's keys
            self._buttons_row.addWidget(button)
        self._buttons_row.addWidget(self.speed_label)
        self._buttons_row.addWidget(self.speed)
        self._buttons_row.addSpacing(16)
        self._buttons_row.addStretch(1)  # buttons keep their size on a wide screen
        self.restyle()
        self.step_button.clicked.connect(controller.step)
        self.back_button.clicked.connect(controller.back)
        self.reset_button.clicked.connect(controller.reset)
        self.run_button.clicked.connect(controller.run_to_end)
        self.play_button.toggled.connect(self._on_play_toggled)
        self.speed.valueChanged.connect(self._on_speed_changed)
        self.timer.timeout.connect(self._tick)
        self.strategy.changed.connect(controller.set_strategy)
        controller.session_changed.connect(self._on_session_changed)
        controller.changed.connect(self._on_changed)
        self.retranslate()

    def restyle(self) -> None:
        """One row of controls; two in presentation mode, where the text is too large for one, and
        beside a panel (:meth:`set_two_rows`)."""
        two = current_appearance().presentation or self._two_rows
        row = self._strategy_row if two else self._buttons_row
        if row.indexOf(self.strategy) < 0:
            for other in (self._buttons_row, self._strategy_row):
                other.removeWidget(self.strategy)
            row.insertWidget(row.count() - 1 if row is self._buttons_row else 0, self.strategy, 1)  # before the stretch

    def set_two_rows(self, two: bool) -> None:
        """The strategy on a row of its own, or not: a panel beside the explorer (a live class's)
        leaves it too little width for one row on a 1366-pixel screen."""
        self._two_rows = two
        self.restyle()

    def retranslate(self) -> None:
        super().retranslate()
        self._name_play_button()
        self._on_speed_changed()
        if self._last_reason:
            self._last_reason = None  # say why again, in the new language
        self.update_state()

    # -- playing ---------------------------------------------------------------------------------
    @property
    def playing(self) -> bool:
        return self.timer.isActive()

    def toggle_play(self) -> None:
        self.play_button.setChecked(not self.play_button.isChecked())

    def pause(self) -> None:
        self.play_button.setChecked(False)

    def _on_play_toggled(self, on: bool) -> None:
        session = self.controller.session
        if on and (session is None or session.cant_step()):
            self.play_button.setChecked(False)  # nothing to play: update_state says why
            return
        if on == self.timer.isActive():
            return
        if on:
            self.timer.start()
        else:
            self.timer.stop()
        self._name_play_button()
        self.update_state()
        self.playing_changed.emit(on)

    def _name_play_button(self) -> None:
        self.play_button.setText(self.tr("Pause (P)") if self.timer.isActive() else self.tr("Play (P)"))

    def _on_speed_changed(self) -> None:
        self.timer.setInterval(round(1000 / self.speed.value()))
        self.speed_label.setText(self.tr("{0} steps/s").format(self.speed.value()))

    def _tick(self) -> None:
        session = self.controller.session
        if session is None or not self.controller.step() or session.cant_step():
            self.pause()

    # -- state -----------------------------------------------------------------------------------
    def _on_session_changed(self, _session: object) -> None:
        self.pause()
        if self.strategy.strategy() != self.controller.strategy:  # set elsewhere: a session reopened, a slide
            self.strategy.show_strategy(self.controller.strategy)
        self.update_state()

    def _on_changed(self, event: Event) -> None:
        if event.kind in ("back", "rewind", "reset"):
            self.pause()  # the user took over
        self.update_state()

    def update_state(self) -> None:
        """Enable what can act; say why the rest cannot."""
        session = self.controller.session
        none = self.tr("Type a sentence to translate first.")
        step_reason = none if session is None else _translated(session.cant_step())
        back_reason = none if session is None else _translated(session.cant_back())
        for button, reason in ((self.step_button, step_reason), (self.run_button, step_reason),
                               (self.back_button, back_reason), (self.reset_button, back_reason)):
            button.setEnabled(reason is None)
            button.setToolTip(reason or "")
        self.play_button.setEnabled(step_reason is None or self.playing)
        self.play_button.setToolTip(step_reason or "")
        teacher = session is not None and session.teacher_forcing
        self.strategy.setEnabled(not teacher)
        self.strategy.setToolTip(self.tr("Teacher forcing feeds the reference: no strategy chooses") if teacher else "")
        # what blocks Step (it matters most); at the start, where the translation stands, not what Back cannot do
        start = self.tr("At the start of the translation: Step (Space) writes the first token.")
        reason = step_reason or (start if session is not None and back_reason else "")
        if reason != self._last_reason:
            self._last_reason = reason
            self.status.emit(reason)  # "" clears an old reason
