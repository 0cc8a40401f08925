"""The strategy chooser's beam rule, transviz's or transformers' generate(): a strategy it is shown
(from a lesson or a saved session) keeps its rule and early_stopping while the width or penalty change."""
from __future__ import annotations

from pytestqt.qtbot import QtBot

from transviz.core.decoding.strategies import Beam
from transviz.gui.widgets.decode_controls import StrategyEditor


def test_a_shown_hf_beam_keeps_its_rule_through_edits(qtbot: QtBot) -> None:
    editor = StrategyEditor()
    qtbot.addWidget(editor)
    editor.show_strategy(Beam(3, 0.6, rule="hf", early_stopping="never"))
    with qtbot.waitSignal(editor.changed) as changed:
        editor.beam_width.setValue(4)
    assert changed.args == [Beam(4, 0.6, rule="hf", early_stopping="never")]
    editor.show_strategy(Beam(2, 1.0))  # the default rule again
    assert editor.strategy() == Beam(2, 1.0)


def test_the_rule_box_chooses_transformers_rule(qtbot: QtBot) -> None:
    editor = StrategyEditor()
    qtbot.addWidget(editor)
    editor.show_strategy(Beam(3, 0.6))
    assert editor.beam_rule.currentIndex() == 0
    with qtbot.waitSignal(editor.changed) as changed:
        editor.beam_rule.setCurrentIndex(1)
    assert changed.args == [Beam(3, 0.6, rule="hf", early_stopping=False)]  # generate()'s default
    editor.show_strategy(Beam(3, 0.6, rule="hf", early_stopping=True))
    assert editor.beam_rule.currentIndex() == 1 and editor.strategy() == Beam(3, 0.6, rule="hf", early_stopping=True)
    editor.beam_rule.setCurrentIndex(0)
    assert editor.strategy() == Beam(3, 0.6)
