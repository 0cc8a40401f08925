"""Retake the manual's screenshots (resources/screenshots/*.png) from the real window, drawn offscreen:

    python docs/screenshots.py                      # every picture
    python docs/screenshots.py compare heads-importance   # some of them

Each picture is a window state written as a lesson slide (the lesson format), a screen size, a
language and an appearance; a few then do what a user would (select a concept, press Measure,
run the lab, train) and wait for it. Presentation mode sizes its text from the screen, so the
pictures of each screen size are taken in a process of their own whose offscreen screen has
that size. Nothing of the user's settings is read or written.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "resources" / "screenshots"
DESKTOP, PROJECTOR = (1366, 768), (1920, 1080)


@dataclass(frozen=True)
class Shot:
    """One picture: ``slide``, a lesson slide's keys in TOML, shown in ``language`` on a screen
    of ``screen`` pixels; then ``act`` (the name of a function below) prepares the picture."""

    slide: str
    screen: tuple[int, int] = DESKTOP
    language: str = "en"
    presentation: bool = False
    act: str | None = None


GERMAN = 'model = "default"\nsentence = "ich mochte ein bier"\n'
CHINESE = 'model = "zh-en"\nsentence = "我爱中国"\n'

SHOTS: dict[str, Shot] = {
    "explorer-cross-attention": Shot(GERMAN + "steps = 3"),
    "explorer-start": Shot(GERMAN + "steps = 3"),
    "explorer-beam-search": Shot(GERMAN + 'steps = 4\nstrategy = "beam"\nsettings = { width = 3 }'),
    "explorer-teacher-forcing": Shot(GERMAN + 'reference = "i want the beer please"\nteacher_forcing = true\n'
                                     "steps = 5"),
    "explorer-alignment-lines": Shot(GERMAN + "steps = 4", act="alignment_lines"),
    "explorer-interventions": Shot(GERMAN + 'steps = 4\ninterventions = [{ name = "AblateHead", '
                                   'kind = "cross", layer = 2, head = 0 }]'),
    "explorer-chinese": Shot(CHINESE + "steps = 3", language="zh_CN"),
    "presentation-mode-chinese": Shot(CHINESE + "steps = 3", PROJECTOR, "zh_CN", presentation=True),
    "lesson-quiz-zh": Shot(GERMAN, PROJECTOR, "zh_CN", presentation=True, act="where_quiz"),
    "positional-encoding": Shot(GERMAN + 'tab = "positional"'),
    "why-positions": Shot(GERMAN + 'tab = "why"\npage = "positions"'),
    "why-scale-chinese": Shot(CHINESE + 'tab = "why"\npage = "scale"', language="zh_CN"),
    "masks-walkthrough-cross": Shot(GERMAN + 'steps = 3\ntab = "masks"\nview = { kind = "cross" }'),
    "masks-walkthrough-decoder-self": Shot(GERMAN + 'steps = 3\ntab = "masks"\nview = { kind = "decoder_self" }'),
    "compare": Shot(GERMAN + 'tab = "compare"'),
    "variants": Shot(GERMAN + 'steps = 4\ntab = "variants"', act="four_variants"),
    "heads-importance": Shot(GERMAN + 'tab = "heads"', act="measure_heads"),
    "training-finished": Shot(GERMAN + 'tab = "training"', act="train"),
    "training-timeline-scrubbed": Shot(GERMAN + 'tab = "training"', act="scrub_timeline"),
    "lab-tutorial-table": Shot(GERMAN + 'tab = "lab"', act="run_lab"),
    **{f"concepts-{name}": Shot(GERMAN + 'steps = 3\ntab = "concepts"', act="concept")
       for name in ("lookup", "bilinear", "hull", "heads-similarity", "additive", "ffn", "cost", "parallel",
                    "sharing", "attribution")},
}


# -- in the window's process -------------------------------------------------------------------------
def settle(seconds: float = 0.0, until: Callable[[], bool] | None = None, limit: float = 600.0) -> None:
    """Let the event loop run: layouts, deferred redraws and background work that reports back."""
    from PySide6.QtWidgets import QApplication

    start = time.monotonic()
    while True:
        for _ in range(4):
            QApplication.sendPostedEvents()
            QApplication.processEvents()
        waited = time.monotonic() - start
        if waited >= seconds and (until is None or until()):
            return
        if waited > limit:
            raise TimeoutError(f"still waiting after {limit:.0f} s")
        time.sleep(0.05)


def alignment_lines(window, name: str) -> None:
    window.panels["explorer"].attention.lines.setChecked(True)


def where_quiz(window, name: str) -> None:
    from transviz.core.io.resources import shipped_lessons
    from transviz.core.teaching.lesson import read

    path = shipped_lessons()["01-data-flow"]
    slides = read(path).slides
    window.open_lesson(path)
    window.lesson_mode.go(next(i for i, s in enumerate(slides) if s.quiz is not None and s.quiz.ask == "where"))


def four_variants(window, name: str) -> None:
    window.panels["variants"].count.setValue(4)


def concept(window, name: str) -> None:
    window.panels["concepts"].select(name.removeprefix("concepts-"))


def measure_heads(window, name: str) -> None:
    heads = window.panels["heads"]
    heads.start()
    settle(1.0, until=lambda: not heads.runner.is_busy())


def train(window, name: str) -> None:
    training = window.panels["training"]
    training.form.steps.setValue(600)  # long enough for the curves to fall and the attention to form
    training.start()
    settle(1.0, until=lambda: not training.is_running())


def scrub_timeline(window, name: str) -> None:
    train(window, name)
    slider = window.panels["training"].timeline.slider
    slider.setValue(slider.maximum() // 4)


def run_lab(window, name: str) -> None:
    lab = window.panels["lab"]
    lab.quick_button.click()  # the seed's length takes many minutes
    lab.run()
    settle(1.0, until=lambda: not lab.is_running())


def take(names: list[str], screen: tuple[int, int]) -> None:
    from PySide6.QtWidgets import QLineEdit

    from transviz.core.teaching.lesson import Lesson, loads
    from transviz.core.teaching.lesson_run import check
    from transviz.gui.app import application, dispose
    from transviz.gui.main_window import MainWindow
    from transviz.gui.services.export import save_picture
    from transviz.gui.services.language import set_language
    from transviz.gui.services.theme import with_changes

    application()
    for name in names:
        shot = SHOTS[name]
        set_language(shot.language)
        window = MainWindow()
        try:
            window.view_choices.show_window()
            window.view_choices.choose_appearance(with_changes(presentation=shot.presentation))
            window.resize(*screen)
            lesson: Lesson = loads(f'format = "transviz-lesson"\nversion = 1\n[[slide]]\n{shot.slide}\n', name)
            check(lesson, window.sessions.models)
            window.sessions.show_slide(lesson.slides[0], lesson.folder)
            settle(0.5)
            if shot.act is not None:
                globals()[shot.act](window, name)
            for edit in window.findChildren(QLineEdit):
                edit.deselect()  # a window drawn offscreen shows every box's selection, not only the focused one's
            settle(1.0)
            print(save_picture(window, OUT / f"{name}.png", f"transviz: {name}"), flush=True)
        finally:
            window.shutdown()
            dispose(window)


# -- the command -----------------------------------------------------------------------------------
def main(argv: list[str]) -> int:
    if argv[:1] == ["--take"]:  # in a process whose screen is the size given
        take(argv[2:], tuple(int(n) for n in argv[1].split("x")))  # type: ignore[arg-type]
        return 0
    names = argv or list(SHOTS)
    unknown = [name for name in names if name not in SHOTS]
    if unknown:
        print(f"no screenshot called {', '.join(unknown)}; choose among {', '.join(SHOTS)}", file=sys.stderr)
        return 2
    for screen in {SHOTS[name].screen for name in names}:
        with tempfile.TemporaryDirectory() as folder:
            config = Path(folder) / "screen.json"
            config.write_text(json.dumps({"screens": [{"name": "screen", "x": 0, "y": 0, "width": screen[0],
                                                       "height": screen[1], "logicalDpi": 96, "logicalBaseDpi": 96,
                                                       "dpr": 1}]}))
            env = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={config}", "TRANSVIZ_SETTINGS": "",
                   "TRANSVIZ_DATA": folder,  # the training run's checkpoint
                   "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
            size = f"{screen[0]}x{screen[1]}"
            chosen = [name for name in names if SHOTS[name].screen == screen]
            done = subprocess.run([sys.executable, __file__, "--take", size, *chosen], env=env, check=False)
            if done.returncode != 0:
                return done.returncode
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
