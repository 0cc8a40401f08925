"""Command line: ``transviz [COMMAND]``. Results go to stdout; a user error prints one line
to stderr and exits 1."""
from __future__ import annotations

import argparse
import logging
import sys

from .core.errors import TransvizError


def _info(args: argparse.Namespace) -> int:
    from .core.checkpoint import describe

    print(describe(args.file))
    return 0


def build_parser() -> argparse.ArgumentParser:
    from . import __version__

    parser = argparse.ArgumentParser(prog="transviz", description="Train, load and look inside a small Transformer.")
    parser.add_argument("--version", action="version", version=f"transviz {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress to stderr")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    info = commands.add_parser("info", help="print what a checkpoint holds")
    info.add_argument("file", help="a .safetensors checkpoint")
    info.set_defaults(func=_info)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(message)s")
    if args.command is None:
        # The desktop window arrives with the explorer; until then list what works.
        parser.print_help()
        return 0
    try:
        return int(args.func(args))
    except TransvizError as exc:
        print(f"transviz: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("transviz: interrupted", file=sys.stderr)
        return 130
