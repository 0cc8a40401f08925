"""The mask question in quiz mode (issue 39, part 4), with the shipped models in a real window: the
chooser asks it, the masks tab shows its four cells numbered over the hidden mask, a click on a
numbered cell chooses it, Enter reveals and scores it against a mask built here from its definition,
and the masks tab never shows the hidden token while a question is open."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

import transviz
from transviz.core.decoding.session import DecodingSession
from transviz.core.teaching.quiz import ASKS

SENTENCE = "ich mochte ein bier"


def causal(size: int) -> np.ndarray:
    """The sequence mask by its definition: query t may attend to keys 0..t."""
    return np.arange(size)[None, :] <= np.arange(size)[:, None]


def greedy_outputs(model: transviz.Model, steps: int) -> list[str]:
    session = DecodingSession(model, SENTENCE)
    for _ in range(steps):
        session.step()
    return session.output_tokens


def every_text(panel) -> str:
    """Every label, title, axis label and line edit of a tab, as one text."""
    from PySide6.QtWidgets import QComboBox, QLabel, QLineEdit

    from transviz.gui.widgets.heatmap import HeatmapWidget

    texts = [label.text() for label in panel.findChildren(QLabel) if label.isVisibleTo(panel)]
    texts += [edit.text() for edit in panel.findChildren(QLineEdit)]
    texts += [box.itemText(i) for box in panel.findChildren(QComboBox) for i in range(box.count())]
    for heatmap in panel.findChildren(HeatmapWidget):
        if heatmap.isVisibleTo(panel):
            texts += [heatmap.title, *heatmap.row_labels(), *heatmap.column_labels()]
    return "\n".join(texts)


def mask_quiz(window):
    """Quiz mode on with the chooser on the mask question: the explorer steps twice in the open first
    (the first step's mask is 1 x 1, too small to ask about)."""
    explorer = window.panels["explorer"]
    explorer.quiz.asks.setCurrentIndex(ASKS.index("mask"))  # quiz mode off: only remembered
    assert explorer.controller.step() and explorer.controller.step()
    explorer.quiz_action.trigger()
    return explorer


def click_cell(heatmap, row: int, column: int) -> None:
    canvas = heatmap.canvas()
    QTest.mouseClick(canvas, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     canvas.mapFrom(heatmap, heatmap.cell_position(row, column)))


def test_a_mask_question_is_answered_on_the_masks_tab(shipped_window, shipped_model, qtbot) -> None:
    explorer = mask_quiz(shipped_window)
    masks = shipped_window.panels["masks"]
    assert shipped_window.tabs.currentWidget() is masks  # the question's place
    question = explorer.quiz.question
    assert question.ask == "mask" and question.step == 2 and shipped_window.workspace.hidden
    outputs = greedy_outputs(shipped_model, 3)  # the third is the hidden token
    inputs = ["<s>", *outputs[:2]]
    combined = masks.combined_view
    assert combined.row_labels() == inputs == combined.column_labels()  # the question's target, no more
    assert list(question.tokens) == inputs
    # four numbered cells over a mask whose values wait for the answer
    assert combined.cell_marks == {cell: str(i + 1) for i, cell in enumerate(question.cells)}
    assert combined.hidden_rows == [0, 1, 2] and masks.causal_view.hidden_rows == [0, 1, 2]
    assert masks.walk_pages.currentWidget() is masks.walk_hidden
    assert masks.quiz_box.isVisibleTo(masks) and masks.quiz_view.prompt.text() == (
        "Step 3: which of these cells of the decoder's self-attention mask is blocked? Press 1-4 or click a "
        "numbered cell in the Masks tab.")
    allowed = causal(3)
    blocked = [i for i, (r, c) in enumerate(question.cells) if not allowed[r, c]]
    assert blocked == [question.truth]
    wrong = next(i for i in range(4) if i != question.truth)
    row, column = question.cells[wrong]
    click_cell(combined, row, column)
    qtbot.waitUntil(lambda: explorer.quiz.choice == wrong, timeout=2000)
    assert combined.cell_marks[row, column] == f"\u25b6{wrong + 1}"
    assert masks.quiz_view.choices_label.text().splitlines()[wrong].startswith("\u25b6")
    qtbot.keyClick(masks, Qt.Key.Key_Return)  # Enter reveals, here too
    assert explorer.quiz.revealed and explorer.quiz.score_text == "score 0 / 1"
    assert masks.quiz_view.score_text == "score 0 / 1"
    truth_row, truth_column = question.cells[question.truth]
    assert combined.cell_marks[truth_row, truth_column] == f"{question.truth + 1} \u2713"
    assert masks.quiz_view.result.text() == (
        f"Not quite: cell {question.truth + 1} is blocked. Blocked: key position {truth_column} comes after query "
        f"position {truth_row}.")
    assert combined.hidden_rows == [] and np.isnan(combined.data[truth_row, truth_column])  # drawn: blocked
    assert masks.walk_pages.currentIndex() == 1
    qtbot.keyClick(masks, Qt.Key.Key_Right)  # on to the next step, asked again
    assert explorer.controller.session.position == 4 and explorer.quiz.question.step == 3
    assert len(combined.cell_marks) == 4 and combined.row_labels() == ["<s>", *outputs[:3]]
    qtbot.keyClick(masks, Qt.Key.Key_1 + explorer.quiz.question.truth)  # the digit of the blocked cell
    qtbot.keyClick(masks, Qt.Key.Key_Return)
    assert explorer.quiz.score_text == "score 1 / 2" and explorer.quiz.result.text().startswith("Right!")
    explorer.quiz_action.trigger()  # quiz mode off: no marks, no question here
    assert combined.cell_marks == {} and not masks.quiz_box.isVisibleTo(masks)


def test_the_first_step_refuses_a_mask_question_in_one_line(shipped_window) -> None:
    explorer = shipped_window.panels["explorer"]
    explorer.quiz.asks.setCurrentIndex(ASKS.index("mask"))
    explorer.quiz_action.trigger()
    assert explorer.quiz.question is None and not shipped_window.workspace.hidden
    assert explorer.quiz.prompt.text().startswith("at step 1 the decoder's mask has 0 blocked cells")
    assert explorer.quiz.prompt.text().endswith("Ask it from step 2 on")


def test_the_chooser_changes_what_is_asked_and_restarts_the_score(shipped_window, shipped_model) -> None:
    from transviz.core.analysis.walkthrough import KINDS

    explorer = shipped_window.panels["explorer"]
    explorer.quiz_action.trigger()
    quiz = explorer.quiz
    assert quiz.question.ask == "token" and quiz.chosen_ask == "token"
    quiz.choose(quiz.question.truth)
    quiz.reveal()
    assert quiz.score_text == "score 1 / 1"
    explorer.attention.kind.setCurrentIndex(KINDS.index("cross"))
    explorer.attention.select(1, 2)
    quiz.asks.setCurrentIndex(ASKS.index("where"))  # the current step, asked again on the head shown large
    question = quiz.question
    assert question.ask == "where" and question.step == 0 and quiz.score_text == "score 0 / 0"
    assert (quiz.spec.kind, quiz.spec.layer, quiz.spec.head) == ("cross", 1, 2)
    trace = transviz.decode(shipped_model, SENTENCE)
    assert question.truth == int(np.argmax(trace.cross_attention[1, 2, 0]))
    assert shipped_window.workspace.hidden  # asked again: hidden again
    explorer.attention.kind.setCurrentIndex(KINDS.index("encoder_self"))
    quiz.asks.setCurrentIndex(ASKS.index("sums"))  # an encoder head has no step to ask about: said in one line
    assert quiz.question is None and not shipped_window.workspace.hidden
    assert quiz.prompt.text() == ("\"does a row sum to 1\" asks about a head of the decoder: show cross-attention or "
                                  "decoder self-attention, with one of its heads large.")
    quiz.asks.setCurrentIndex(ASKS.index("queries"))  # any kind has queries: the encoder's are the source's
    assert quiz.question.ask == "queries" and quiz.spec.kind == "encoder_self" and quiz.question.truth_text == "source"
    quiz.asks.setCurrentIndex(ASKS.index("mask"))
    assert shipped_window.tabs.currentWidget() is explorer  # step 1 has no mask question: nothing to show there
    explorer.move_on()
    explorer.move_on()
    assert quiz.question.ask == "mask" and shipped_window.tabs.currentWidget() is shipped_window.panels["masks"]
    explorer.quiz_action.trigger()
    explorer.quiz_action.trigger()  # off and on again: the kind chosen stays
    assert quiz.chosen_ask == "mask" and quiz.question.ask == "mask"


@pytest.mark.parametrize("question_kind", ["token", "mask"])
def test_the_masks_tab_never_shows_the_hidden_token(shipped_window, shipped_model, qtbot, question_kind) -> None:
    explorer = shipped_window.panels["explorer"]
    masks = shipped_window.panels["masks"]
    shipped_window.tabs.setCurrentWidget(masks)
    masks.others.setText("ich mochte ein bier bitte; ein bier")  # the others' translations name "want"
    qtbot.waitUntil(lambda: len(masks.decoder.tokens) == 3, timeout=20000)  # translated, and kept
    explorer.quiz.asks.setCurrentIndex(ASKS.index(question_kind))
    assert explorer.controller.step()
    explorer.quiz_action.trigger()
    shipped_window.tabs.setCurrentWidget(masks)
    assert shipped_window.workspace.hidden and explorer.quiz.question.step == 1
    hidden = greedy_outputs(shipped_model, 2)[1]
    assert hidden == "want" and explorer.output.chips[-1].text == "?"
    assert masks.decoder.tokens == [["<s>", "i"]]  # sentence 1 alone: the others' rows wait
    assert masks.translation_note.isVisibleTo(masks)
    assert hidden not in every_text(masks).split()
    explorer.quiz.reveal()  # answered: the others' translations are back
    assert not shipped_window.workspace.hidden
    assert len(masks.decoder.tokens) == 3 and hidden in every_text(masks).split()


def prefix_lm_stream(source: int, inputs: int) -> np.ndarray:
    """A prefix LM's one mask by its definition: source positions first, seeing each other both ways
    and no input; each input sees the source and the inputs up to its own."""
    size = source + inputs
    query, key = np.arange(size)[:, None], np.arange(size)[None, :]
    return (key <= query) | ((query < source) & (key < source))


def test_a_decoder_only_models_question_is_on_its_one_stream(open_window, qtbot) -> None:
    model = transviz.load_model("decoder-only")
    window = open_window((1366, 768), model=model, source="decoder-only", sentence=SENTENCE)
    masks = window.panels["masks"]
    masks.others.setText("ich mochte ein bier bitte")  # a longer source: the batch pads sentence 1's
    explorer = window.panels["explorer"]
    explorer.quiz.asks.setCurrentIndex(ASKS.index("mask"))
    explorer.quiz_action.trigger()  # the first step already has blocked cells: the source never sees the output
    question = explorer.quiz.question
    assert question is not None and question.step == 0 and window.tabs.currentWidget() is masks
    combined = masks.combined_view
    names = [*SENTENCE.split(), "<s>"]
    assert combined.row_labels() == names == list(question.tokens)  # no padding between source and inputs
    assert combined.title.replace("\u00a0", " ").endswith(
        "(1, 1, 5, 5); sentence 1, alone: the quiz's positions, without the batch's padding")
    allowed = prefix_lm_stream(4, 1)
    assert [bool(allowed[r, c]) for r, c in question.cells].count(False) == 1
    assert not allowed[question.cells[question.truth]]
    row, column = question.cells[question.truth]
    click_cell(combined, row, column)
    qtbot.waitUntil(lambda: explorer.quiz.choice == question.truth, timeout=2000)
    masks.quiz_view.reveal_button.click()  # asks the explorer's quiz, which reveals
    assert explorer.quiz.answer.correct and masks.quiz_view.result.text().startswith("Right! Blocked: ")
    shown = combined.data  # drawn now: 1 may attend, NaN blocked
    assert all(np.isnan(shown[r, c]) == (not allowed[r, c]) for r, c in question.cells)
