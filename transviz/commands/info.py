"""``transviz info FILE``: what a checkpoint holds."""
from __future__ import annotations

import argparse


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("info", help="print what a checkpoint holds")
    parser.add_argument("file", help="a .safetensors checkpoint, or a shipped model's name")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from .. import load_model
    from ..core.io.checkpoint import describe

    print(describe(load_model(args.file)))
    return 0
