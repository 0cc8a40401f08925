"""File > Save session / Open session: a session saved and reopened in a fresh window gives equal
step records and equal pictures; a bad file or a missing model changes nothing."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtWidgets import QApplication

import transviz
from rounding import assert_close
from transviz.core.decoding.interventions import AblateHead
from transviz.core.decoding.session import DecodingSession, StepRecord
from transviz.core.decoding.strategies import Beam, Sampling
from transviz.core.model.bundle import decoding_copy
from transviz.core.teaching import lesson
from transviz.core.teaching.workspace import TOP_K
from transviz.gui.main_window import MainWindow

SIZE = (1366, 768)


def record_facts(record: StepRecord) -> tuple[object, ...]:
    """What a step record says in words and counts (records compare by identity)."""
    return (record.index, record.token, record.token_id, record.forced, tuple(c.token for c in record.candidates),
            record.stop, record.predicted_token, record.strategy, record.interventions)


def record_numbers(record: StepRecord) -> np.ndarray:
    """What a step record says in float32 numbers, in one array."""
    return np.concatenate([[record.probability, record.entropy], [c.probability for c in record.candidates],
                           record.self_rows.ravel(), record.cross_rows.ravel()])


def same_records(a: list[StepRecord], b: list[StepRecord]) -> None:
    """The same steps; their numbers to float32 rounding, since a reopened session decodes again
    where the live one may have stepped on another thread (``rounding``)."""
    assert [record_facts(r) for r in a] == [record_facts(r) for r in b]
    for ra, rb in zip(a, b, strict=True):
        assert_close(record_numbers(ra), record_numbers(rb), err_msg=f"step {ra.index}")


def same_state(a: MainWindow, b: MainWindow) -> None:
    sa, sb = a.workspace.session, b.workspace.session
    assert sa is not None and sb is not None
    same_records(sa.history, sb.history)
    ga, gb = a.panels["explorer"].attention.grid, b.panels["explorer"].attention.grid
    assert_close(ga._maps, gb._maps)
    assert_close(ga._summary, gb._summary)
    assert a.panels["explorer"].view_state() == b.panels["explorer"].view_state()
    assert a.tabs.currentIndex() == b.tabs.currentIndex()
    # the same picture: the grid's pixels, once both windows have laid out what they show
    QApplication.processEvents()
    assert ga.size() == gb.size()
    assert ga.grab().toImage() == gb.grab().toImage()


@pytest.fixture
def fresh_window(show):
    windows = []

    def make() -> MainWindow:
        window = show(MainWindow(), *SIZE)
        windows.append(window)
        return window

    yield make
    for window in windows:
        window.shutdown()


def test_a_session_saved_and_reopened_is_the_same(shipped_window, fresh_window, tmp_path: Path) -> None:
    explorer = shipped_window.panels["explorer"]
    controller = explorer.controller
    controller.set_strategy(Beam(3, 0.5))
    for _ in range(2):
        assert controller.step()
    assert controller.choose_instead("a") or controller.force("a")
    assert controller.set_interventions((AblateHead("cross", 0, 1),))
    explorer.attention.apply_view(lesson.View("decoder_self", 0, "summary", "max", "row"))
    path = shipped_window.sessions.save(tmp_path / "s.transviz")

    saved = lesson.read(path).slides[0]
    assert (saved.model, saved.sentence, saved.steps, saved.strategy) == ("default", "ich mochte ein bier", 2,
                                                                            Beam(3, 0.5))
    assert saved.interventions == (AblateHead("cross", 0, 1),)
    assert any(f.token == "a" for f in saved.forced)

    other = fresh_window()
    assert other.workspace.model is None
    other.sessions.open(path)
    same_state(shipped_window, other)
    # the reopened window shows the strategy it decodes with, and an edit redecodes to the same step
    assert other.panels["explorer"].controls.strategy.strategy() == Beam(3, 0.5)
    assert other.panels["explorer"].controller.clear_interventions()
    assert other.workspace.session is not None and other.workspace.session.position == 2


def test_a_sampled_session_keeps_its_seed(shipped_window, fresh_window, tmp_path: Path) -> None:
    controller = shipped_window.panels["explorer"].controller
    controller.set_strategy(Sampling(temperature=1.5))  # a random seed, drawn by the session
    assert controller.step()
    for _ in range(2):
        controller.step()  # False once the seed has sampled the end token: chance, not a defect
    path = shipped_window.sessions.save(tmp_path / "s.transviz")
    other = fresh_window()
    other.sessions.open(path)
    same_state(shipped_window, other)


def test_the_reopened_steps_equal_a_session_built_by_hand(shipped_window, tmp_path: Path) -> None:
    """Independent of the window: the file's description, decoded directly, gives the same records."""
    controller = shipped_window.panels["explorer"].controller
    for _ in range(3):
        assert controller.step()
    path = shipped_window.sessions.save(tmp_path / "s.transviz")
    # decoding_copy: the copy every window session decodes with
    by_hand = DecodingSession(decoding_copy(transviz.load_model("default")), "ich mochte ein bier", top_k=TOP_K)
    for _ in range(3):
        by_hand.step()
    shipped_window.sessions.open(path)
    session = shipped_window.workspace.session
    assert session is not None
    same_records(session.history, by_hand.history)


def test_a_missing_model_is_named_and_nothing_changes(shipped_window, tmp_path: Path, qtbot) -> None:
    controller = shipped_window.panels["explorer"].controller
    assert controller.step()
    path = shipped_window.sessions.save(tmp_path / "s.transviz")
    text = path.read_text(encoding="utf-8").replace('model = "default"', 'model = "models/gone.safetensors"')
    path.write_text(text, encoding="utf-8")
    assert controller.step()
    before = shipped_window.workspace.session
    assert not shipped_window.sessions.open_reporting(path)
    box = shipped_window.error_dialog
    assert box is not None and "models/gone.safetensors" in box.text() and str(tmp_path / "models") in box.text()
    assert "Nothing in the window changed" in box.text()
    assert shipped_window.workspace.session is before and before.position == 2


def test_nothing_to_save_without_a_session(fresh_window, tmp_path: Path) -> None:
    window = fresh_window()
    with pytest.raises(transviz.TransvizError, match="nothing to save"):
        window.sessions.save(tmp_path / "s.transviz")
    assert not (tmp_path / "s.transviz").exists()

