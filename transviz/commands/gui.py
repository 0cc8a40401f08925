"""``transviz gui [MODEL]``, and plain ``transviz``: open the desktop window."""
from __future__ import annotations

import argparse


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("gui", help="open the desktop window (what plain `transviz` does)")
    parser.add_argument("model", nargs="?", help="a .safetensors checkpoint or a shipped model's name "
                                                 "(default: the shipped default model, if installed)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..gui.app import run as run_app

    return run_app(getattr(args, "model", None))
