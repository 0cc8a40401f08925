"""The strategy chooser has no control for Beam's rule: a strategy it is shown (from a lesson or
a saved session) keeps its rule and early_stopping while the width or penalty change."""
from __future__ import annotations

from pytestqt.qtbot import QtBot

from transviz.core.strategies import Beam
from transviz.gui.decode_controls import StrategyEditor


def test_a_shown_hf_beam_keeps_its_rule_through_edits(qtbot: QtBot) -> None:
    editor = StrategyEditor()
    qtbot.addWidget(editor)
    editor.show_strategy(Beam(3, 0.6, rule="hf", early_stopping="never"))
    with qtbot.waitSignal(editor.changed) as changed:
        editor.beam_width.setValue(4)
    assert changed.args == [Beam(4, 0.6, rule="hf", early_stopping="never")]
    editor.show_strategy(Beam(2, 1.0))  # the default rule again
    assert editor.strategy() == Beam(2, 1.0)
