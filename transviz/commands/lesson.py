"""``transviz lesson FILE``: open the window in lesson mode; ``--check`` validates the file and
each of its slides without a window; ``--export DIR`` draws every slide to a PNG."""
from __future__ import annotations

import argparse


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("lesson", help="present a lesson file (.toml), check it, or export its slides")
    parser.add_argument("file", help="a lesson file (README: Lesson files), or a saved session (.transviz)")
    parser.add_argument("--check", action="store_true",
                        help="check the file and that every slide runs, print a summary, and exit (no window)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.check:
        return check(args.file)
    from ..core.lesson import read
    from ..gui.app import run as run_app

    lesson = read(args.file)  # a file that cannot be read says so before Qt starts
    return run_app(lesson=lesson)


def check(path: str) -> int:
    """Read the lesson and run every slide; a fault raises LessonError (one line, with its line)."""
    from ..core.lesson import read
    from ..core.lesson_run import check as check_slides

    lesson = read(path)
    sessions = check_slides(lesson)
    steps = sum(len(s.history) for s in sessions)
    print(f"{path}: {len(lesson.slides)} slides, {steps} decoder steps, all fine")
    return 0
