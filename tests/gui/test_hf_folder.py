"""A Hugging Face MarianMT folder opened in the window (Model > Open folder, or dropped) and
stepped through in the explorer, its pieces shown as the tokenizer writes them."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication

pytest.importorskip("transformers")
pytest.importorskip("sentencepiece")

from hf_folders import marian_folder

SENTENCE = "ich trinkt das buch xq."


pytestmark = pytest.mark.hf


@pytest.fixture
def window(open_window):
    return open_window((1366, 768))


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return marian_folder(tmp_path_factory.mktemp("opus-mt-tiny"), seed=1)


def test_the_window_opens_a_folder_and_steps_through_it(window, qtbot, folder) -> None:
    with qtbot.waitSignal(window.model_changed, timeout=20000):
        window.files.open(str(folder))
    assert window.workspace.model.path == str(folder)
    explorer = window.panels["explorer"]
    explorer.source.sentence.setText(SENTENCE)
    for _ in range(3):
        assert explorer.controller.step()
    session = explorer.controller.session
    assert session.position == 3
    assert session.source_tokens[:2] == ["▁ich", "▁trinkt"] and session.source_tokens[-1] == "</s>"
    assert "xq" in session.source_tokens  # the unknown piece as written, not as <unk>
    grid = explorer.attention.grid
    # cross attention's keys are the pieces, the unknown one flagged as transviz flags unknown words
    assert grid._key_labels == [t + " (?)" if t == "xq" else t for t in session.source_tokens]
    np.testing.assert_array_equal(grid.maps, session.cross_attention())
    # Marian's decoder starts with <pad>: the first chip and the decoder's first input say so
    assert explorer.output.chips[0].text == "<pad>" and session.target_tokens[0] == "<pad>"


def test_a_dropped_folder_opens(window, qtbot, folder) -> None:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(folder))])
    enter = QDragEnterEvent(QPoint(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window, enter)
    assert enter.isAccepted()
    drop = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                      Qt.KeyboardModifier.NoModifier)
    with qtbot.waitSignal(window.model_changed, timeout=20000):
        QApplication.sendEvent(window, drop)
    assert window.workspace.model.path == str(folder)


def test_a_folder_missing_its_weights_says_which_file(window, qtbot, folder, tmp_path) -> None:
    broken = tmp_path / "broken"
    broken.mkdir()
    for name in ("config.json", "vocab.json", "source.spm", "target.spm"):
        (broken / name).write_bytes((folder / name).read_bytes())
    with qtbot.waitSignal(window.load_failed, timeout=20000) as signal:
        window.files.open(str(broken))
    assert "model.safetensors" in signal.args[0]


def test_a_learned_position_table_is_shown_as_learned_not_as_a_sine_table(window, qtbot, tmp_path) -> None:
    from hf_folders import bart_folder

    with qtbot.waitSignal(window.model_changed, timeout=20000):
        window.files.open(str(bart_folder(tmp_path / "bart")))
    positional = window.panels["positional"]
    assert positional.source.currentIndex() == 1 and "from the loaded model" in positional.table_view.title
    table = window.workspace.model.net.position_table("encoder").detach().numpy()  # BART's, two rows in
    shown = positional.table_view.displayed_image()
    np.testing.assert_allclose(shown, table[: shown.shape[0]], atol=1e-6)
    assert "learned table" in positional.layout_note.text() and "learned" in positional.similarity_view.title
