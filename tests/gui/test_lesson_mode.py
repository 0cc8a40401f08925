"""Lesson mode: every shipped lesson opens, and each slide shows the state it describes (the
grid's arrays equal those of the slide's session, decoded separately); the keys a clicker sends
move through the slides; Esc leaves them and comes back."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt

from transviz.core.decoding.session import DecodingSession
from transviz.core.decoding.strategies import Greedy
from transviz.core.io.resources import shipped_lessons
from transviz.core.teaching import lesson
from transviz.core.teaching.lesson_run import Models, model_source
from transviz.core.teaching.workspace import TOP_K
from transviz.gui.widgets.attention_view import attention_maps

LESSONS = sorted(shipped_lessons().values())


def decoded_by_hand(slide: lesson.Slide, folder: Path, models: Models) -> DecodingSession:
    """The slide's session built straight from its description, without the workspace."""
    _, decoding = models.get(model_source(slide, folder))
    session = DecodingSession(decoding, slide.sentence, top_k=TOP_K,
                              strategy=Greedy() if slide.teacher_forcing else slide.strategy,
                              reference=slide.reference if slide.teacher_forcing else None,
                              interventions=slide.interventions)
    forced = {f.step: f.token for f in slide.forced}
    for step in range(slide.steps):
        session.force(forced[step]) if step in forced else session.step()
    return session


@pytest.fixture
def window(open_window):
    window = open_window((1366, 768))
    yield window
    window.lesson_mode.stop()


def test_six_lessons_are_shipped() -> None:
    assert len(LESSONS) >= 6


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_each_slide_shows_what_it_describes(window, path: Path) -> None:
    read = lesson.read(path)
    window.lesson_mode.start(read)
    models = Models()
    explorer = window.panels["explorer"]
    for index, slide in enumerate(read.slides):
        window.lesson_mode.go(index)
        expected = decoded_by_hand(slide, read.folder, models)
        assert explorer.quiz_on == (slide.quiz is not None)
        if slide.quiz is not None:  # the slide's last step is asked about, hidden, then revealed
            grid = explorer.attention.grid
            assert np.isnan(grid.maps[:, :, grid.query]).all()
            explorer.quiz.reveal()
        session = window.workspace.session
        assert session is not None and session.output_tokens == expected.output_tokens
        assert window.tabs.currentWidget() is window.panels[slide.tab]
        view = explorer.view_state()
        assert (view.kind, view.summary, view.scale) == (slide.view.kind, slide.view.summary, slide.view.scale)
        shown = attention_maps(expected, slide.view.kind, slide.view.summary)
        if not shown.query_tokens:  # before the first step the grid shows the encoder
            shown = attention_maps(expected, "encoder_self", slide.view.summary)
        grid = explorer.attention.grid
        np.testing.assert_array_equal(grid._maps, shown.maps)
        np.testing.assert_array_equal(grid._summary, shown.summary)
        banner = window.lesson_mode.banner
        assert banner.caption.text() == slide.caption_en
        assert banner.progress.text() == f"{index + 1} / {len(read.slides)}"


def test_clicker_keys_and_escape(window, qtbot) -> None:
    read = lesson.read(LESSONS[0])
    window.lesson_mode.start(read)
    explorer = window.panels["explorer"]
    explorer.setFocus()
    target = window.focusWidget() or explorer
    for key, index in ((Qt.Key.Key_PageDown, 1), (Qt.Key.Key_Right, 2), (Qt.Key.Key_PageUp, 1),
                       (Qt.Key.Key_Left, 0), (Qt.Key.Key_Left, 0)):
        qtbot.keyClick(target, key)
        assert window.lesson_mode.index == index
    plain = next(i for i, slide in enumerate(read.slides) if slide.steps and slide.quiz is None)  # Right steps
    window.lesson_mode.go(plain)
    session = window.workspace.session
    assert session is not None and session.position == read.slides[plain].steps
    qtbot.keyClick(window.focusWidget() or explorer, Qt.Key.Key_Escape)
    assert window.lesson_mode.exploring and "Esc" in window.lesson_mode.banner.caption.text()
    explorer.setFocus()
    qtbot.keyClick(window.focusWidget() or explorer, Qt.Key.Key_Right)  # exploring: the explorer steps
    assert window.lesson_mode.index == plain and window.workspace.session.position == read.slides[plain].steps + 1
    qtbot.keyClick(window.focusWidget() or explorer, Qt.Key.Key_Escape)  # back to the slide as it was
    assert not window.lesson_mode.exploring and window.workspace.session.position == read.slides[plain].steps


def test_the_caption_follows_the_language(window, qtbot) -> None:
    from transviz.gui.services.language import CHINESE, set_language

    read = lesson.read(LESSONS[0])
    window.lesson_mode.start(read)
    set_language(CHINESE)
    qtbot.waitUntil(lambda: window.lesson_mode.banner.caption.text() == read.slides[0].caption_zh, timeout=5000)


def test_a_bad_lesson_never_half_loads(window, tmp_path: Path) -> None:
    text = LESSONS[0].read_text(encoding="utf-8") + '\n[[slide]]\nmodel = "default"\nsentence = "ein bier"\n' \
                                                     'steps = 999\n'
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    assert not window.open_lesson(path)
    assert not window.lesson_mode.active and not window.lesson_mode.bar.isVisible()
    assert window.workspace.model is None
    assert "bad.toml, line" in window.error_dialog.text() and "999 steps" in window.error_dialog.text()


def test_help_lessons_lists_and_opens_the_shipped_lessons(window) -> None:
    actions = window.menus.lessons_menu.actions()
    assert [a.text() for a in actions] == [lesson.read(p).title_en for p in LESSONS]
    actions[1].trigger()
    assert window.lesson_mode.active and window.lesson_mode.index == 0
    assert window.lesson_mode.banner.caption.text() == lesson.read(LESSONS[1]).slides[0].caption_en


def test_the_caption_follows_presentation_mode_and_back(window, qtbot) -> None:
    from PySide6.QtWidgets import QApplication

    from transviz.gui.lesson_mode import CAPTION_SCALE

    window.lesson_mode.start(lesson.read(LESSONS[0]))
    banner = window.lesson_mode.banner
    before = banner.caption.font().pointSizeF()
    assert before == pytest.approx(QApplication.font().pointSizeF() * CAPTION_SCALE)
    window.view_choices.presentation.trigger()
    qtbot.waitUntil(window.isFullScreen, timeout=5000)
    big = QApplication.font().pointSizeF()
    qtbot.waitUntil(lambda: banner.caption.font().pointSizeF() == pytest.approx(big * CAPTION_SCALE), timeout=5000)
    assert banner.caption.font().pointSizeF() > banner.next.font().pointSizeF() == big  # larger than every button
    window.view_choices.presentation.trigger()
    qtbot.waitUntil(lambda: not window.isFullScreen(), timeout=5000)
    qtbot.waitUntil(lambda: banner.caption.font().pointSizeF() == pytest.approx(before), timeout=5000)


MAGMA_LESSON = '''format = "transviz-lesson"
version = 1
title_en = "Magma"

[[slide]]
model = "default"
sentence = "ein bier"
steps = 1
tab = "masks"
view = { kind = "cross", colormap = "magma" }
caption_en = "In magma"
'''


@pytest.fixture
def remembering(qtbot, tmp_path):
    """A window that remembers in a settings file of the test's own, where the user chose cividis."""
    from transviz.gui.main_window import MainWindow
    from transviz.gui.services.language import ENGLISH
    from transviz.gui.services.settings import Preferences, SettingsStore
    from transviz.gui.services.theme import Appearance

    ini = tmp_path / "transviz.ini"
    SettingsStore(ini).save_preferences(Preferences(ENGLISH, Appearance(colormap="cividis"), "dates", "1 mar 2001"))
    window = MainWindow(settings=SettingsStore(ini))
    qtbot.addWidget(window)
    window.restore(window.settings.load())
    window.show()
    qtbot.waitExposed(window)
    path = tmp_path / "magma.toml"
    path.write_text(MAGMA_LESSON, encoding="utf-8")
    yield window, ini, path
    window.lesson_mode.stop()
    window.shutdown()


def test_a_lessons_colormap_is_not_saved_when_the_window_closes_during_it(remembering) -> None:
    from transviz.gui.services.settings import SettingsStore
    from transviz.gui.services.theme import current_appearance

    window, ini, path = remembering
    assert window.open_lesson(path)
    assert current_appearance().colormap == "magma"  # the lesson's, while it is shown
    window.close()
    stored = SettingsStore(ini).load().preferences
    assert stored.appearance.colormap == "cividis"
    assert (stored.last_model, stored.last_sentence) == ("dates", "1 mar 2001")
    assert SettingsStore(ini).load().layout.tab == 0  # not the lesson's masks tab


def test_the_users_colormap_comes_back_when_the_lesson_ends(remembering) -> None:
    from transviz.gui.services.settings import SettingsStore
    from transviz.gui.services.theme import current_appearance

    window, ini, path = remembering
    assert window.open_lesson(path)
    window.view_choices.presentation.trigger()  # a choice of the user's during the lesson is remembered
    window.lesson_mode.stop()
    assert current_appearance().colormap == "cividis" and window.view_choices.colormaps["cividis"].isChecked()
    assert SettingsStore(ini).load().preferences.appearance.presentation
    window.memory.remember()
    assert SettingsStore(ini).load().preferences.appearance.colormap == "cividis"


def test_a_slide_opens_the_page_it_names_and_a_saved_session_keeps_it(shipped_window, tmp_path):
    """Lesson 3's last slide promised the shuffle but opened the Why tab on its scale page."""
    from transviz.core.teaching.lesson import Slide, read

    window = shipped_window
    why = window.panels["why"]
    window.sessions.show_slide(Slide("default", "er sieht den hund nicht", tab="why", page="positions"), tmp_path)
    assert window.tabs.currentWidget() is why and why.current_page() == "positions"
    saved = window.sessions.save(tmp_path / "s.transviz")
    assert read(saved).slides[0].page == "positions"
    window.sessions.show_slide(Slide("default", "er sieht den hund nicht", tab="why", page="scale"), tmp_path)
    assert why.current_page() == "scale"
