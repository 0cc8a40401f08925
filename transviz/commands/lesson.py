"""``transviz lesson FILE``: open the window in lesson mode; ``--check`` validates the file and
each of its slides without a window; ``--export DIR`` draws every slide to a PNG."""
from __future__ import annotations

import argparse
from pathlib import Path

from . import picture_size


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("lesson", help="present a lesson file (.toml), check it, or export its slides")
    parser.add_argument("file", help="a lesson file (the manual: Lesson format reference) or a session (.transviz)")
    parser.add_argument("--check", action="store_true",
                        help="check the file and that every slide runs, print a summary, and exit (no window)")
    parser.add_argument("--export", metavar="DIR",
                        help="draw every slide offscreen to DIR/slide-01.png, slide-02.png, ... (no window)")
    parser.add_argument("--size", default="1600x900", help="with --export: width x height in pixels")
    parser.add_argument("--language", choices=("en", "zh_CN"),
                        help="with --export: the slides' language (default: the window's, from its settings file)")
    parser.add_argument("--force", action="store_true",
                        help="with --export: replace files named slide-NN.png in DIR even if they are not PNG pictures")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.check:
        return check(args.file)
    if args.export is not None:  # "" too: a folder left empty, not a window
        return export(args.file, args.export, args.size, args.force, args.language)
    from ..core.teaching.lesson import read
    from ..gui.app import run as run_app

    lesson = read(args.file)  # a file that cannot be read says so before Qt starts
    return run_app(lesson=lesson)


def check(path: str) -> int:
    """Read the lesson and run every slide; a fault raises LessonError (one line, with its line).
    Warnings (allowed, but likely not what was meant) go to stderr, one a line, and do not fail the check."""
    import sys

    from ..core.teaching.lesson import read
    from ..core.teaching.lesson_run import check as check_slides

    lesson = read(path)
    sessions = check_slides(lesson)
    for warning in lesson.warnings:
        print(f"transviz: warning: {warning}", file=sys.stderr)
    steps = sum(len(s.history) for s in sessions)
    fine = "all fine" if not lesson.warnings else counted(len(lesson.warnings), "warning")
    print(f"{path}: {counted(len(lesson.slides), 'slide')}, {counted(steps, 'decoder step')}, {fine}")
    return 0


def counted(count: int, noun: str) -> str:
    """``1 slide``, ``2 slides``: the English the command line prints."""
    return f"{count:,} {noun}" + ("" if count == 1 else "s")


def export(path: str, folder: str, size: str, force: bool = False, language: str | None = None) -> int:
    from ..core.base.errors import InputError
    from ..core.io.outputs import PNG, check_output
    from ..core.teaching.lesson import read, slide_files

    if not folder:
        raise InputError("--export needs the name of a folder for the slides, e.g. --export slides")
    width, height = picture_size(size)
    lesson = read(path)  # a file that cannot be read says so before Qt starts
    if Path(folder).exists() and not Path(folder).is_dir():
        raise InputError(f"cannot export the slides to {folder}: it is a file, not a folder")
    for file in slide_files(folder, len(lesson.slides)):  # every slide is checked before any is drawn
        check_output(file, PNG, inputs=[path], force=force)
    from ..gui.app import application, use_offscreen_platform
    from ..gui.render import export_lesson
    from ..gui.services.language import current_language, set_language
    from ..gui.services.settings import saved_language

    use_offscreen_platform()
    application()
    before = current_language()
    set_language(language or saved_language())
    try:
        for written in export_lesson(lesson, folder, width, height):
            print(written)
    finally:
        set_language(before)
    return 0
