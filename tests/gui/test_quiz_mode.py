"""Quiz mode in the explorer with the shipped model: the step is hidden, 2 then Enter scores the
class's choice against the model's own next-token distribution, Right moves on."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QCoreApplication, Qt

import transviz
from transviz.core.decoding.session import DecodingSession
from transviz.core.teaching.quiz import QuizSpec

SENTENCE = "ich mochte ein bier"


def reference_candidates(model: transviz.Model, steps: int) -> dict[str, float]:
    """The next-token probabilities after ``steps`` greedy steps, from a session of its own."""
    session = DecodingSession(model, SENTENCE, top_k=6)
    for _ in range(steps):
        session.step()
    return {c.token: c.probability for c in session.history[-1].candidates}


def test_quiz_hides_the_step_and_scores_the_choice(shipped_window, shipped_model, qtbot) -> None:
    explorer = shipped_window.panels["explorer"]
    explorer.take_keyboard()
    qtbot.keyClick(explorer, Qt.Key.Key_1)  # off: digits are not the quiz's
    assert explorer.quiz.choice is None
    explorer.quiz_action.trigger()
    assert explorer.quiz_on and explorer.controller.session.position == 1
    assert explorer.candidates.bars() == []  # no probabilities shown
    assert explorer.output.chips[-1].text == "?"
    grid, large = explorer.attention.grid, explorer.attention.large
    query = grid.query
    assert query == 0 and np.isnan(grid.maps[:, :, query]).all() and np.isnan(large.data[query]).all()
    trace = transviz.decode(shipped_model, SENTENCE)
    assert explorer.attention.grid.maps.shape[2] == 1
    qtbot.keyClick(explorer, Qt.Key.Key_2)
    qtbot.keyClick(explorer, Qt.Key.Key_Return)
    question = explorer.quiz.question
    reference = reference_candidates(shipped_model, 1)
    chosen = question.choices[1]
    assert explorer.quiz.answer.probability == pytest.approx(reference[chosen], abs=1e-6)
    truth = max(reference, key=reference.get)
    assert truth == trace.output_tokens[0] == question.truth_text
    assert explorer.quiz.score_text == f"score {int(chosen == truth)} / 1"
    np.testing.assert_allclose(grid.maps[:, :, 0], trace.cross_attention[:, :, 0], atol=1e-5)  # shown again
    assert [t for t, _ in explorer.candidates.bars()] == list(reference)
    qtbot.keyClick(explorer, Qt.Key.Key_Right)
    assert explorer.controller.session.position == 2 and explorer.quiz.question.step == 1
    assert explorer.candidates.bars() == [] and np.isnan(grid.maps[:, :, 1]).all()
    explorer.quiz_action.trigger()
    assert explorer.candidates.bars() and not np.isnan(grid.maps[:, :, 1]).any()


def test_quiz_mode_is_in_the_view_menu_and_opens_the_explorer(shipped_window) -> None:
    explorer = shipped_window.panels["explorer"]
    menus = {action.menu().title().replace("&", ""): action.menu() for action in shipped_window.menuBar().actions()}
    assert explorer.quiz_action in menus["View"].actions()
    assert explorer.quiz_action.shortcut().toString() == "Q"
    shipped_window.tabs.setCurrentWidget(shipped_window.panels["masks"])
    menus["View"].actions()[menus["View"].actions().index(explorer.quiz_action)].trigger()
    assert shipped_window.tabs.currentWidget() is explorer and explorer.quiz.question is not None


def test_where_quiz_takes_a_clicked_key(shipped_window, shipped_model, qtbot) -> None:
    explorer = shipped_window.panels["explorer"]
    explorer.set_quiz(True, QuizSpec.of({"ask": "where", "kind": "cross", "layer": 0, "head": 1}))
    trace = transviz.decode(shipped_model, SENTENCE)
    row = trace.cross_attention[0, 1, 0]
    assert explorer.attention.selected() == (0, 1)
    assert np.isnan(explorer.attention.large.data[0]).all()
    explorer.attention.large.clicked.emit(0, 2)
    explorer.quiz.reveal()
    assert explorer.quiz.answer.probability == pytest.approx(float(row[2]), abs=1e-5)
    assert explorer.quiz.answer.correct == (int(np.argmax(row)) == 2)
    np.testing.assert_allclose(explorer.attention.large.data[0], row, atol=1e-5)


def test_a_language_change_keeps_the_step_hidden(shipped_window) -> None:
    from transviz.gui.services.language import CHINESE, set_language

    explorer = shipped_window.panels["explorer"]
    explorer.quiz_action.trigger()
    set_language(CHINESE)  # the fixtures put English back
    QCoreApplication.sendPostedEvents()
    assert explorer.candidates.bars() == [] and "p = " not in explorer.candidates.title
    assert np.isnan(explorer.attention.grid.maps[:, :, explorer.attention.grid.query]).all()
