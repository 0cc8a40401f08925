"""Started by test_lesson_fits.py in a process of its own, whose offscreen screen is the size given
(presentation mode sizes its text from the screen): shows every slide of every shipped lesson in
each language, as the window shows it, and prints as JSON what did not fit or show as written."""
from __future__ import annotations

import json
import sys

from transviz.core.io.resources import shipped_lessons
from transviz.core.teaching.lesson import read
from transviz.gui.app import application, dispose
from transviz.gui.main_window import MainWindow
from transviz.gui.services.language import LANGUAGES, set_language
from transviz.gui.services.theme import with_changes


def settle(app) -> None:
    for _ in range(4):  # layouts and deferred refits run on the next passes of the event loop
        app.sendPostedEvents()
        app.processEvents()


def cut(label) -> bool:
    """Whether a word-wrapped label shows less than its whole text (its lines need more height)."""
    return label.isVisible() and label.heightForWidth(label.width()) > label.height() + 1


def problems(window: MainWindow, slide) -> list[str]:
    found = []
    banner = window.lesson_mode.banner
    if cut(banner.caption):
        found.append("caption cut")
    shown = window.tabs.currentWidget()
    if shown is not window.panels[slide.tab]:
        found.append(f"tab {slide.tab} not shown")
    if slide.page is not None and shown.current_page() != slide.page:
        found.append(f"page {slide.page} not shown")
    if slide.quiz is not None:
        quiz = window.panels["explorer"].quiz
        if slide.quiz.ask == "mask":  # answered in the masks tab, its cells numbered there
            quiz = window.panels["masks"].quiz_view
            if not quiz.isVisible() or len(window.panels["masks"].combined_view.cell_marks) != 4:
                found.append("mask question not shown")
        if not quiz.isVisible() and slide.tab == "explorer":
            found.append("quiz not shown")
        elif quiz.isVisible() and (cut(quiz.choices_label) or cut(quiz.prompt)):
            found.append("quiz choices cut")
        elif quiz.isVisible() and not quiz.rect().contains(quiz.choices_label.geometry()):
            found.append("quiz choices outside their panel")
    return found


def main(presentation: str) -> None:
    app = application()
    window = MainWindow()
    window.view_choices.show_window()
    window.view_choices.choose_appearance(with_changes(presentation=presentation == "presentation"))
    settle(app)
    report: dict[str, list[str]] = {}
    for language in LANGUAGES:
        set_language(language)
        for name, path in shipped_lessons().items():
            lesson = read(path)
            window.open_lesson(path)
            for index, slide in enumerate(lesson.slides):
                window.lesson_mode.go(index)
                settle(app)
                found = problems(window, slide)
                if found:
                    report[f"{language} {name} slide {index + 1}"] = found
            window.lesson_mode.stop()
    window.shutdown()
    dispose(window)
    print(json.dumps(report))


if __name__ == "__main__":
    main(sys.argv[1])
