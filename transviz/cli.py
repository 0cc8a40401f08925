"""Command line: ``transviz [COMMAND]``. Results go to stdout; a user error prints one line
to stderr and exits 1. Each command lives in its own module under :mod:`transviz.commands`."""
from __future__ import annotations

import argparse
import contextlib
import importlib
import logging
import os
import sys

from .core.base import startup
from .core.base.errors import TransvizError

# modules of transviz.commands, in --help order
COMMANDS = ("gui", "lesson", "live_class", "render", "decode", "heads", "align", "train", "lab", "info", "convert",
            "bench")


def build_parser() -> argparse.ArgumentParser:
    from . import __version__

    parser = argparse.ArgumentParser(prog="transviz", description="Train, load and look inside a small Transformer.")
    parser.add_argument("--version", action="version", version=f"transviz {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress to stderr")
    parser.add_argument("--self-test", action="store_true",
                        help="check this installation offscreen (models, decoding, every tab) and exit")
    parser.add_argument("--report", metavar="FILE", help="with --self-test: also write the report to FILE")
    parser.add_argument("--force", dest="force_report", action="store_true",
                        help="with --report: replace FILE even if it is not a text file")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f".commands.{name}", __package__).register(commands)
    return parser


def opens_window(args: argparse.Namespace) -> bool:
    """Whether the command line shows the desktop window: plain ``transviz``, ``gui``, ``lesson FILE``."""
    if args.self_test:
        return False
    return args.command in (None, "gui") or (args.command == "lesson" and not args.check and args.export is None)


def launch(argv: list[str] | None = None) -> int:
    """The program's entry (the ``transviz`` command, ``python -m transviz``, the classroom bundle):
    :func:`main` with full garbage collections held back while it starts (:mod:`transviz.core.base.startup`)."""
    startup.pause()
    try:
        return main(argv)
    finally:
        startup.started()


def main(argv: list[str] | None = None) -> int:
    from .core.base.cores import run_as_app

    write_what_the_terminal_can()
    run_as_app()
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(message)s")
    if args.report and not args.self_test:
        parser.error("--report goes with --self-test")
    if args.force_report and not args.report:
        parser.error("--force (before any command) goes with --self-test --report FILE")
    if args.self_test:
        args.func = _self_test
    elif args.command is None:  # plain `transviz` opens the desktop window
        from .commands.gui import run as open_window

        args.func = open_window
    if not opens_window(args):
        startup.started()  # a window ends the start-up's pause once it is up (gui.app.run)
    try:
        return int(args.func(args))
    except TransvizError as exc:
        print(f"transviz: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("transviz: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader left early (`transviz decode ... | head -1`): nothing more to say
        _discard_stdout()
        return 128 + 13  # as if ended by SIGPIPE, the way a shell reports `yes | head -1`
    except OSError as exc:  # a file the system would not let us read or write: its name and the reason
        print(f"transviz: {exc.filename}: {exc.strerror}" if exc.filename else f"transviz: {exc}", file=sys.stderr)
        return 1


def _self_test(args: argparse.Namespace) -> int:
    from .core.io.outputs import TEXT, check_output
    from .selftest import run as self_test

    if args.report:  # refused now, not after the whole test
        check_output(args.report, TEXT, force=args.force_report)
    return self_test(args.report)


def write_what_the_terminal_can() -> None:
    """Never a traceback for a character the terminal cannot show (an ASCII or strict UTF-8
    terminal, a sentence holding an undecodable byte from the command line): stdout writes a
    replacement character ("?") instead, stderr a backslash escape (\\xb7), and stdin reads
    undecodable bytes as the same escapes the command line uses."""
    for stream, errors in ((sys.stdout, "replace"), (sys.stderr, "backslashreplace"), (sys.stdin, "surrogateescape")):
        reconfigure = getattr(stream, "reconfigure", None)  # None: no terminal at all (pythonw), or a test's stand-in
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):  # a closed or detached stream
                reconfigure(errors=errors)


def _discard_stdout() -> None:
    """Point stdout at /dev/null, so that flushing what is left at exit cannot fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
