"""Started by test_class_window.py in a process of its own whose offscreen screen is the size given
(presentation mode sizes its text from the screen): opens the window with the shipped model,
starts a class on the loopback address, asks a quiz question, and prints, as JSON, the sizes of the
window, its tabs and the Class panel in each language."""
from __future__ import annotations

import json
import sys

import transviz
from transviz.gui.app import application, dispose
from transviz.gui.main_window import MainWindow
from transviz.gui.services.language import LANGUAGES, set_language
from transviz.gui.services.theme import with_changes


def settle(app) -> None:
    for _ in range(4):  # layouts and deferred refits run on the next passes of the event loop
        app.sendPostedEvents()
        app.processEvents()


def pair(size) -> list[int]:
    return [size.width(), size.height()]


def main(presentation: bool) -> None:
    app = application()
    window = MainWindow()
    window.view_choices.show_window()
    window.workspace.set_model(transviz.load_model("default"), "default", sentence="ich mochte ein bier")
    if presentation:
        window.view_choices.choose_appearance(with_changes(presentation=True))
    settle(app)
    assert window.teacher_class.start("127.0.0.1", 0)
    explorer = window.panels["explorer"]
    explorer.controller.step()
    explorer.quiz_action.trigger()
    measured = {}
    for language in LANGUAGES:
        set_language(language)
        settle(app)
        available = window.screen().availableGeometry()
        panel = window.teacher_class.panel
        measured[language] = {
            "available": pair(available.size()), "size": pair(window.frameGeometry().size()),
            "minimum": pair(window.minimumSizeHint()), "on_screen": available.contains(window.frameGeometry()),
            "explorer": pair(explorer.size()), "explorer_minimum": pair(explorer.minimumSizeHint()),
            "dock": pair(window.teacher_class.dock.size()), "chart": pair(panel.chart.size()),
            "panel_content": pair(panel.body.minimumSizeHint())}
    window.teacher_class.stop()
    window.shutdown()
    dispose(window)
    print(json.dumps(measured))


if __name__ == "__main__":
    main(sys.argv[1] == "presentation")
