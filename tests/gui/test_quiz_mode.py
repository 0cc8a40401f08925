"""Quiz mode in the explorer with the shipped model: the step is hidden, 2 then Enter scores the
class's choice against the model's own next-token distribution, Right moves on."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QCoreApplication, Qt

import transviz
from transviz.core.decoding.session import DecodingSession
from transviz.core.teaching.quiz import QuizSpec
from transviz.gui.panels.concepts.base import hidden_message

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


# -- what is hidden is hidden everywhere, and looks hidden, not masked (issue 35, items 1 and 2) -------------

HIDDEN_WORDS = "hidden until you answer"


def dominant(widget, point) -> tuple[int, int, int]:
    """The commonest colour in a small patch around ``point`` of a grab of ``widget``: a cell's
    fill, whatever lines or marks cross it."""
    from collections import Counter

    image = widget.grab().toImage()
    ratio = image.devicePixelRatio()
    x, y = int(point.x() * ratio), int(point.y() * ratio)
    colours = Counter(image.pixelColor(x + dx, y + dy).getRgb()[:3] for dx in range(-4, 5) for dy in range(-4, 5))
    return colours.most_common(1)[0][0]


def near(colour: tuple[int, int, int], expected) -> bool:
    return max(abs(a - b) for a, b in zip(colour, expected.getRgb()[:3], strict=True)) <= 3


def legend(heatmap) -> list[str]:
    return [text.replace("\u2060", "") for text in heatmap.legend_texts()]  # word joiners keep "-inf" whole


def ask_about_second_step(window):
    """The explorer after one step in the open, then quiz mode on: step 2 is the open question."""
    explorer = window.panels["explorer"]
    assert explorer.controller.step()
    explorer.quiz_action.trigger()
    assert explorer.controller.session.position == 2 and not explorer.quiz.revealed
    return explorer


def hover(qtbot, widget, canvas, point) -> None:
    qtbot.mouseMove(canvas, canvas.rect().topLeft())  # away first: the pointer may already be there
    qtbot.wait(50)  # pyqtgraph's scene drops moves that follow each other too closely
    qtbot.mouseMove(canvas, canvas.mapFrom(widget, point))


def test_hidden_cells_look_and_read_unlike_masked_ones(shipped_window, qtbot) -> None:
    from transviz.core.analysis.walkthrough import KINDS
    from transviz.gui.widgets.heatmap import MASKED_FILL

    explorer = shipped_window.panels["explorer"]
    explorer.attention.kind.setCurrentIndex(KINDS.index("decoder_self"))  # its masked cells beside the hidden row
    explorer = ask_about_second_step(shipped_window)
    large, grid = explorer.attention.large, explorer.attention.grid
    # the large head: row 1 is hidden, cell (0, 1) is the causal mask's
    hidden, masked = dominant(large, large.cell_position(1, 0)), dominant(large, large.cell_position(0, 1))
    assert near(masked, MASKED_FILL) and not near(hidden, MASKED_FILL)

    from transviz.gui.widgets.heatmap import HIDDEN_FILL

    assert near(hidden, HIDDEN_FILL)
    assert large.hidden_rows == [1] and grid.hidden_query == 1
    assert legend(large) == ["grey hatched cells: masked (-inf)", f"cells with ?: {HIDDEN_WORDS}"]
    kinds = dict(explorer.legend.entries)
    assert kinds["hidden"] == HIDDEN_WORDS and kinds["masked"] == "masked"
    view = large._view.viewport()
    hover(qtbot, large, view, large.cell_position(1, 0))
    qtbot.waitUntil(lambda: "->" in large.readout_text(), timeout=2000)
    assert large.readout_text().endswith(f": {HIDDEN_WORDS}") and "masked" not in large.readout_text()
    hover(qtbot, large, view, large.cell_position(0, 1))
    qtbot.waitUntil(lambda: large.readout_text().endswith(": masked"), timeout=2000)
    # the grid: the hidden row of every tile in lavender, its read-out says so
    hidden_cell = grid.tile_position(0, 0, 1, 0)
    assert near(dominant(grid, hidden_cell), HIDDEN_FILL)
    assert not near(dominant(grid, grid.tile_position(0, 0, 0, 1)), HIDDEN_FILL)  # masked: not hidden
    hover(qtbot, grid, grid.canvas, hidden_cell.toPoint())
    qtbot.waitUntil(lambda: "->" in grid.readout_text(), timeout=2000)
    assert grid.readout_text().endswith(f": {HIDDEN_WORDS}")
    explorer.quiz.reveal()  # answered: nothing is hidden, and the legend no longer lists it
    assert large.hidden_rows == [] and grid.hidden_query is None and not np.isnan(large.data[1]).any()
    assert "hidden" not in dict(explorer.legend.entries)
    assert legend(large) == ["grey hatched cells: masked (-inf)"]


def test_concepts_views_hide_the_open_question(shipped_window, qtbot) -> None:
    explorer = ask_about_second_step(shipped_window)
    outputs = explorer.controller.session.output_tokens  # the second is the question's answer
    concepts = shipped_window.panels["concepts"]
    shipped_window.tabs.setCurrentWidget(concepts)
    with concepts.drawn_at_once():
        views = {view.name: view for view in concepts.views}
        concepts.select("attribution")
        attribution = views["attribution"]
        for heatmap in (attribution.attribution, attribution.attention, attribution.rollout):
            assert heatmap.row_labels() == [outputs[0], "?"] and heatmap.hidden_rows == [1]
            assert np.isnan(heatmap.data[1]).all() and not np.isnan(heatmap.data[0]).any()
        summary = attribution.summary.text()
        assert f"? ({HIDDEN_WORDS})" in summary
        assert f"{outputs[1]} +" not in summary and f"{outputs[1]} -" not in summary
        first = attribution.shown.correlation[0]  # the means are of the rows shown: all would give the hidden one away
        assert f"mean {'-' if np.isnan(first) else f'{first:+.2f}'}." in summary
        concepts.select("lookup")  # its whole picture is the hidden query's row
        lookup = views["lookup"]
        assert lookup.hidden.isVisibleTo(concepts) and lookup.hidden.text().startswith("Hidden until you answer")
        assert not lookup.bars.isVisibleTo(concepts) and lookup.shown is None
        concepts.select("additive")
        additive = views["additive"]
        assert additive.dot.hidden_rows == [1] == additive.fitted.hidden_rows
        assert np.isnan(additive.fitted.data[1]).all()
        concepts.select("heads-similarity")  # the alike heads' pair
        pair = views["heads-similarity"].pair
        assert [heatmap.hidden_rows for heatmap in pair.maps] == [[1], [1]]
        concepts.select("hull")
        assert HIDDEN_WORDS in views["hull"].plane.getPlotItem().titleLabel.text
        concepts.kind.setCurrentIndex(0)  # encoder self-attention: its rows are the source, nothing to hide
        assert views["hull"].plane.getPlotItem().titleLabel.text.endswith("(red)")
        concepts.select("lens")  # it names the written token: the answer itself
        lens = views["lens"]
        assert lens.shown is None and lens.guesses.data.size == 0 and lens.summary.text() == hidden_message()
        assert outputs[1] not in concepts.caption.text()
        concepts.select("attribution")
        explorer.quiz.reveal()
        assert attribution.attribution.row_labels() == outputs[:2] and attribution.attribution.hidden_rows == []
        assert f"{outputs[1]} " in attribution.summary.text()


def test_compare_hides_its_runs_while_a_question_is_open(shipped_window) -> None:
    explorer = ask_about_second_step(shipped_window)
    compare = shipped_window.panels["compare"]
    shipped_window.tabs.setCurrentWidget(compare)
    compare.run()  # both runs decode the explorer's sentence to its end
    assert compare.comparison is not None
    assert not compare.outputs.isVisibleTo(compare) and not compare.map_a.isVisibleTo(compare)
    assert compare.hidden_note.isVisibleTo(compare) and compare.hidden_note.text().startswith("Hidden until you answer")
    explorer.quiz.reveal()
    assert compare.outputs.isVisibleTo(compare) and compare.map_a.isVisibleTo(compare)
    assert not compare.hidden_note.isVisibleTo(compare)


def test_a_concepts_slide_with_a_quiz_stays_on_concepts_with_the_answer_hidden(open_window, tmp_path) -> None:
    path = tmp_path / "quiz.toml"
    path.write_text('format = "transviz-lesson"\nversion = 1\ntitle_en = "Quiz"\ntitle_zh = "Quiz"\n\n'
                    f'[[slide]]\nmodel = "default"\nsentence = "{SENTENCE}"\nsteps = 2\ntab = "concepts"\n'
                    'caption_en = "Which token comes next?"\ncaption_zh = "Which token comes next?"\n'
                    'quiz = { ask = "token" }\n', encoding="utf-8")
    window = open_window((1366, 768))
    assert window.open_lesson(path)
    concepts, explorer = window.panels["concepts"], window.panels["explorer"]
    try:
        assert window.tabs.currentWidget() is concepts
        assert explorer.quiz_on and explorer.quiz.question is not None and window.workspace.hidden_step == 1
        lookup = concepts.current
        assert lookup.name == "lookup" and lookup.hidden.isVisibleTo(concepts) and lookup.shown is None
    finally:
        window.lesson_mode.stop()


def test_a_question_asked_while_the_sentence_box_has_the_keyboard_takes_the_digits(shipped_window, qtbot) -> None:
    """A class answers with 1-9 and Enter: a question asked while the sentence box has the focus
    (where the window opens, and where a lesson's slides leave it) moves the keyboard to the explorer."""
    explorer = shipped_window.panels["explorer"]
    edit = explorer.source.sentence
    edit.setFocus()
    qtbot.waitUntil(edit.hasFocus)
    explorer.quiz_action.trigger()
    target = shipped_window.focusWidget()
    assert target is not edit
    qtbot.keyClick(target, Qt.Key.Key_2)
    qtbot.keyClick(target, Qt.Key.Key_Return)
    assert edit.text() == "ich mochte ein bier" and explorer.quiz.revealed and explorer.quiz.choice == 1


def test_lesson_9_asks_about_the_inside_with_answers_from_the_model(open_window) -> None:
    from transviz.core.io.resources import shipped_lessons
    from transviz.core.teaching.lesson import read

    path = shipped_lessons()["09-inside-a-step"]
    slides = read(path).slides
    window = open_window((1366, 768))
    assert window.open_lesson(path)
    explorer = window.panels["explorer"]
    try:
        expected = {"layer": "layer 1", "aligns": "head 2", "queries": "the decoder's inputs (the output so far)",
                    "sums": None, "mask": None}
        asked = set()
        for index, slide in enumerate(slides):
            window.lesson_mode.go(index)
            quiz = explorer.quiz
            question = quiz.question
            assert question is not None and question.ask == slide.quiz.ask, index
            asked.add(question.ask)
            assert quiz.chosen_ask == slide.quiz.ask  # the chooser shows what the slide asks
            assert quiz.prompt.text().startswith(("Step", "Which head", "In cross-attention"))
            if slide.quiz.ask == "mask":  # the slide's tab, its cells numbered over the hidden mask
                masks = window.panels["masks"]
                assert window.tabs.currentWidget() is masks and len(masks.combined_view.cell_marks) == 4
                assert masks.quiz_view.prompt.text() == quiz.prompt.text()
            quiz.choose(0)
            quiz.reveal()
            shown = quiz.result.text()
            if slide.quiz.ask == "mask":
                assert question.probabilities[question.truth] == 0.0 and question.probabilities.count(0.0) == 1
                assert shown.startswith("Right!" if question.truth == 0 else "Not quite") and "Blocked: " in shown
            elif slide.quiz.ask == "sums":  # a decoder-only model's cross view is part of a row; the 2017 one's is not
                yes = slide.model == "default"
                assert question.truth_text == ("yes" if yes else "no") and "The row sums to" in shown
                assert ("1.0000" in shown) == yes
            else:
                assert quiz.choice_name(question, question.truth_text) == expected[slide.quiz.ask]
        assert asked == set(expected)
    finally:
        window.lesson_mode.stop()
