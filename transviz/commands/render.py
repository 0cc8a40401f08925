"""``transviz render SENTENCE --view grid|head|positional|masks|window|compare|patching|CONCEPT [--model FILE]
--out slide.png|.svg``: draw a view offscreen, for slides (no window appears, no display needed).
With ``--animate --out run.gif|run.mp4``: the decoding run, a frame per step.
``transviz render --view compare --snapshots STEP_A STEP_B``: two training snapshots, no sentence."""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ..core.base.errors import InputError
from . import model_or_default, picture_size

MAX_STEP = 10**9  # a training step a snapshot can carry: far past any run, short of an overflow

if TYPE_CHECKING:
    from ..core.model.bundle import Model

def register(commands: argparse._SubParsersAction) -> None:
    from ..core.analysis.patching import PATCH_KINDS
    from ..core.analysis.walkthrough import KINDS
    from ..core.teaching.animation import Timing
    from ..gui import CONCEPTS, VIEWS  # Qt-free: listing the views does not load Qt

    parser = commands.add_parser("render", help="render a view to a PNG or SVG file without a window")
    parser.add_argument("sentence", nargs="?", help="the source sentence shown (the positional view does not use "
                                                    "it; left out with --snapshots, whose runs show their probe)")
    parser.add_argument("--view", required=True, choices=VIEWS,
                        help="grid: every head of one attention kind; head: one head large; window: the whole "
                             "window; positional, masks: those tabs; compare, patching: the Compare tab's pages "
                             "(SENTENCE against --compare); " + ", ".join(CONCEPTS)
                             + ": the Concepts tab's views")
    parser.add_argument("--model", help="a .safetensors checkpoint or a shipped model's name (grid, head, window "
                                        "and masks default to the shipped default model; positional shows the "
                                        "formula's table without one)")
    parser.add_argument("--out", required=True, help="the picture to write: .png or .svg (.gif or .mp4 with "
                                                     "--animate)")
    parser.add_argument("--force", action="store_true",
                        help="replace an existing --out file even if it is not a picture of that kind")
    parser.add_argument("--size", default="1600x900", help="width x height in pixels (default 1600x900)")
    parser.add_argument("--kind", choices=KINDS, help="attention kind (default: cross for grid, head and window; "
                                                      "decoder_self for the masks walkthrough)")
    parser.add_argument("--layer", type=int, default=0, help="layer (from 0)")
    parser.add_argument("--head", default="0", help="head (from 0), or mean, max or rollout of the layer's heads "
                                                    "(grid, head and window)")
    parser.add_argument("--step", type=int, help="decoding steps to take first (grid, head, window and the concept "
                                                 "views; default 0, or with --animate: to the end); patching: the "
                                                 "output step (default: the first where the outputs differ)")
    parser.add_argument("--animate", action="store_true",
                        help="draw the run from the first step to --step (default: to the end), a frame per step, "
                             "to a .gif or .mp4 (grid, head, window and the concept views)")
    parser.add_argument("--frame-ms", type=int, default=Timing.frame_ms,
                        help=f"--animate: how long each step shows (default {Timing.frame_ms} ms)")
    parser.add_argument("--hold-ms", type=int, default=Timing.hold_ms,
                        help=f"--animate: how much longer the last step stays (default {Timing.hold_ms} ms)")
    parser.add_argument("--target", help="masks walkthrough: the target so far, after the start token")
    parser.add_argument("--compare", metavar="SENTENCE", help="compare view: run B's sentence (default: the same "
                                                             "sentence, e.g. with --compare-model); patching: the "
                                                             "sentence B that SENTENCE's activations are patched into")
    parser.add_argument("--patch", choices=PATCH_KINDS,
                        help="patching view: what is patched, the encoder's stream at a source position (encoder, "
                             "the default), one cross-attention head's output (cross_head) or the decoder's stream "
                             "(decoder)")
    parser.add_argument("--compare-model", metavar="MODEL", help="compare view: run B's model, a .safetensors "
                                                                 "checkpoint or a shipped model's name (default: "
                                                                 "--model)")
    parser.add_argument("--snapshots", type=int, nargs=2, metavar=("STEP_A", "STEP_B"),
                        help="compare view: run A is the training snapshot at STEP_A saved in --model's checkpoint, "
                             "run B the one at STEP_B (of --compare-model if given), e.g. --snapshots 100 1200; "
                             "the sentence is the snapshots' probe, so leave SENTENCE out")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    width, height = picture_size(args.size)
    if args.step is not None and args.step < 0:
        raise InputError(f"--step must be 0 or more, not {args.step}")
    _check_sentence(args)
    from .. import load_model
    from ..core.io.outputs import ANIMATION, check_output, picture
    from ..core.teaching.animation import Timing

    timing = Timing(args.frame_ms, args.hold_ms) if args.animate else None  # bad timings refused before Qt starts
    kind = ANIMATION if args.animate else picture(args.out)
    check_output(args.out, kind, inputs=[args.model, args.compare_model], force=args.force)
    from ..gui import CONCEPTS
    from ..gui.app import application, use_offscreen_platform
    from ..gui.render import EXPLORER_VIEWS, Slide, animate, render

    use_offscreen_platform()
    application()
    model: Model | None
    if args.compare_model and args.view != "compare":
        raise InputError(f"--compare-model goes with --view compare, not --view {args.view}")
    if args.patch and args.view != "patching":
        raise InputError(f"--patch goes with --view patching, not --view {args.view}")
    if args.compare and args.view not in ("compare", "patching"):
        raise InputError(f"--compare goes with --view compare or patching, not --view {args.view}")
    if args.view in (*EXPLORER_VIEWS, *CONCEPTS, "masks", "compare", "patching"):  # they decode or walk a head: a model
        model = model_or_default(args.model)
    else:
        model = load_model(args.model) if args.model else None
    head = int(args.head) if args.head.isdigit() else args.head
    slide = Slide(args.view, args.sentence or "", model, width, height, args.kind, args.layer, head,
                  args.target, args.step or 0, args.compare, args.compare_model,
                  tuple(args.snapshots) if args.snapshots else None, args.patch or "encoder", args.step)
    if timing is not None:
        print(animate(slide, args.out, to_end=args.step is None, timing=timing))
    else:
        print(render(slide, args.out))
    return 0



def _check_sentence(args: argparse.Namespace) -> None:
    """SENTENCE is needed, except with --snapshots, whose runs show the snapshots' probe sentence."""
    if args.snapshots is None:
        if args.sentence is None:
            raise InputError("SENTENCE is missing: render \"ich mochte ein bier\" --view ... (or, for the compare "
                             "view, --snapshots STEP_A STEP_B)")
        return
    if args.view != "compare":
        raise InputError(f"--snapshots goes with --view compare, not --view {args.view}")
    if not all(0 <= step <= MAX_STEP for step in args.snapshots):
        raise InputError(f"--snapshots takes two training steps from 0 to {MAX_STEP:,}, not "
                         f"{args.snapshots[0]} {args.snapshots[1]}")
    if args.sentence is not None or args.compare is not None:
        raise InputError("--snapshots compares the snapshots' own probe sentence: leave out SENTENCE and --compare")
