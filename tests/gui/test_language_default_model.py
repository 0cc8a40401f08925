"""A window opens on the shipped model of its language: a Chinese one on ``zh-en`` and its seed
sentence "我爱中国", an English one on toy-de-en (``default``) (issue 18, part 6)."""
from __future__ import annotations

import pytest

from transviz.gui.main_window import MainWindow
from transviz.gui.services.language import CHINESE, ENGLISH
from transviz.gui.services.settings import Preferences, SettingsStore


@pytest.mark.parametrize("language, model, sentence", [
    (CHINESE, "zh-en", "我爱中国"), (ENGLISH, "default", "ich mochte ein bier")])
def test_a_window_opens_on_the_model_of_its_language(qtbot, tmp_path, language, model, sentence):
    ini = tmp_path / "transviz.ini"
    SettingsStore(ini).save_preferences(Preferences(language))  # nothing remembered: a first start
    window = MainWindow(settings=SettingsStore(ini))
    qtbot.addWidget(window)
    try:
        window.restore(window.settings.load())
        window.show()
        qtbot.waitExposed(window)
        window.open_initial_model(None)
        qtbot.waitUntil(lambda: window.workspace.model is not None, timeout=20000)
        assert window.workspace.model_source == model
        assert window.panels["explorer"].controller.session.source == sentence
    finally:
        window.shutdown()
