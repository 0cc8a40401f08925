"""``transviz convert SIDECAR OUT``: a plain PyTorch ``nn.Transformer`` model as a transviz checkpoint."""
from __future__ import annotations

import argparse


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("convert", help="write a plain PyTorch nn.Transformer model as a transviz checkpoint")
    parser.add_argument("source", help="the model's sidecar (.json), or its .safetensors weights with the sidecar "
                                       "of the same name beside them (see the manual: Your own PyTorch model)")
    parser.add_argument("out", help="the transviz checkpoint to write (.safetensors)")
    parser.add_argument("--force", action="store_true",
                        help="replace OUT even if it is not a transviz checkpoint (another program's weights)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..core.io.torch_import import convert

    print(f"wrote {convert(args.source, args.out, force=args.force)}")
    return 0
