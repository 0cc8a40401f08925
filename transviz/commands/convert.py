"""``transviz convert SIDECAR OUT``: a plain PyTorch ``nn.Transformer`` model as a transviz checkpoint."""
from __future__ import annotations

import argparse


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("convert", help="write a plain PyTorch nn.Transformer model as a transviz checkpoint",
                                 description="Write a plain PyTorch nn.Transformer model as a transviz checkpoint; "
                                             "with --half, store a transviz checkpoint again in float16.")
    parser.add_argument("source", help="the model's sidecar (.json), or its .safetensors weights with the sidecar "
                                       "of the same name beside them (see the manual: Your own PyTorch model); "
                                       "with --half, a transviz checkpoint")
    parser.add_argument("out", help="the transviz checkpoint to write (.safetensors)")
    parser.add_argument("--force", action="store_true",
                        help="replace OUT even if it is not a transviz checkpoint (another program's weights)")
    parser.add_argument("--half", action="store_true",
                        help="store SOURCE's weights in float16 (half the file; it still computes in float32); a "
                             "model of a built-in task is tested again as stored")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..core.io.outputs import CHECKPOINT, check_output
    from ..core.io.torch_import import convert

    if not args.half:
        print(f"wrote {convert(args.source, args.out, force=args.force)}")
        return 0
    from ..core.training.stored import store_half

    check_output(args.out, CHECKPOINT, inputs=[args.source], force=args.force)
    path, test = store_half(args.source, args.out)
    if test is not None:
        print(f"test exact match as stored: {test.exact_match:.1%} of {test.count} pairs")
    print(f"wrote {path}")
    return 0
