"""The window's views follow its one workspace, and the user's actions in them change it:
changing the workspace shows in the widgets, acting on the widgets changes the workspace."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from transviz.gui.services.settings import Preferences, Stored, WindowLayout


@pytest.fixture
def window(open_window):
    return open_window()


def test_views_show_what_the_workspace_holds(window, make_model):
    workspace, explorer, masks = window.workspace, window.panels["explorer"], window.panels["masks"]
    model = make_model()
    workspace.set_model(model, "tiny.safetensors")
    assert explorer.pages.currentIndex() == 1 and masks.walk_pages.currentIndex() == 1
    assert window.panels["positional"].model is model and window.menus.save_action.isEnabled()
    workspace.open("ich mochte bitte")
    assert explorer.source.sentence.text() == "ich mochte bitte"
    assert [chip.text for chip in explorer.source.preview.chips] == ["ich", "mochte", "bitte"]
    record = workspace.session.step()  # the core steps: the output strip and the candidates follow
    assert [chip.text for chip in explorer.output.chips][1:] == [record.token]
    assert [token for token, _ in explorer.candidates.bars()] == [c.token for c in record.candidates]
    window.tabs.setCurrentWidget(masks)  # the masks tab follows the session's sentence and target
    assert masks.sentence.text() == "ich mochte bitte"
    workspace.set_model(None)
    assert explorer.pages.currentIndex() == 0 and not window.menus.export_trace_action.isEnabled()


def test_acting_on_the_views_changes_the_workspace(window, qtbot, make_model):
    workspace, explorer = window.workspace, window.panels["explorer"]
    workspace.set_model(make_model())
    explorer.source.sentence.setText("ein bier bitte")
    assert workspace.sentence == "ein bier bitte" and workspace.session.source == "ein bier bitte"
    qtbot.mouseClick(explorer.controls.step_button, Qt.MouseButton.LeftButton)
    assert workspace.session.position == 1
    explorer.source.teacher.setChecked(True)
    explorer.source.reference.setText("a beer please")
    assert workspace.teacher_forcing and workspace.session.reference_tokens[:3] == ["a", "beer", "please"]
    explorer.source.sentence.setText("")  # nothing to read: no session, and the box says why
    assert workspace.session is None and workspace.error is not None and explorer.source.error.text()


def test_the_window_opens_one_session_at_start(window, qtbot, model_file):
    opened = []
    window.workspace.session_changed.connect(lambda session: opened.append(session and session.source))
    window.restore(Stored(Preferences("en", last_model=str(model_file), last_sentence="ein bier"), WindowLayout()))
    window.open_initial_model(None)
    qtbot.waitUntil(lambda: window.workspace.model_source == str(model_file), timeout=10000)
    # the shipped default's first example while the file loads, then the remembered sentence,
    # opened once: no first example of the remembered model before it
    assert opened == ["ich mochte ein bier", "ein bier"]
    assert window.panels["explorer"].source.sentence.text() == "ein bier"
