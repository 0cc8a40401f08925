"""``transviz heads``: how much each attention head matters, and how many can go. For each kind
of attention: the score lost when one head alone is switched off (zero output), then the prune
curve, heads switched off one after another from the least important. Equally important heads go
in layer, head order, and in a few seeded random orders too: how many heads can go is given with
its spread over those orders."""
from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from . import model_or_default

if TYPE_CHECKING:
    import numpy as np

    from ..core.analysis.head_importance import PruneCurve
    from ..core.model.bundle import Model

KINDS = ("encoder_self", "decoder_self", "cross")


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("heads", help="how much each attention head matters, and how many can be removed",
                                 description="Switch each attention head off alone (its output zero) and measure "
                                             "what the task loses, then switch heads off one after another, least "
                                             "important first (the prune curve), equally important heads in layer, "
                                             "head order and in a few seeded random orders. Layers and heads count "
                                             "from 0.")
    parser.add_argument("--model", metavar="FILE",
                        help="a .safetensors checkpoint (default: the shipped default model)")
    parser.add_argument("--kind", choices=KINDS, help="one kind of attention (default: all three)")
    parser.add_argument("--metric", choices=("exact_match", "logprob"), default="exact_match",
                        help="exact match of greedy outputs (default), or the mean log-probability of the gold tokens")
    parser.add_argument("--data", default="test", metavar="SPLIT|FILE",
                        help="test (default) or valid split of the model's task, or a source<TAB>target file")
    parser.add_argument("--json", action="store_true", help="print the tables as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from ..core.analysis.head_importance import head_importance, prune_curves
    from ..core.data.held_out import held_out_pairs

    model = model_or_default(args.model)
    held_out_pairs(model, args.data)  # unusable data fails now, not under a progress bar
    found: dict[str, Any] = {}
    kinds: list[Any] = [args.kind] if args.kind else list(KINDS)  # argparse checked them
    for kind in kinds:
        with tqdm(total=100, desc=kind, file=sys.stderr, leave=False, disable=args.json,
                  bar_format="{desc}: {percentage:3.0f}% {bar}") as bar:  # first the importance, then the curve
            importance = head_importance(model, kind, args.metric, args.data, lambda d, t: _show(bar, d / t / 2))
            curve, *shuffled = prune_curves(model, kind, args.metric, args.data, importance,
                                            on_progress=lambda d, t: _show(bar, 0.5 + d / t / 2))
        found[kind] = (importance, curve, shuffled)
        if not args.json:
            print(_table(kind, args.metric, importance, curve, shuffled), flush=True)
    if args.json:
        print(json.dumps(_as_json(model, args, found)))
    return 0


def _table(kind: str, metric: str, importance: np.ndarray, curve: PruneCurve, shuffled: list[PruneCurve]) -> str:
    from ..core.analysis.head_importance import tied_heads

    exact = metric == "exact_match"
    unit = "points of exact match" if exact else "nats of mean gold log-probability"
    scale = 100 if exact else 1
    base = curve.values[0] * scale
    lines = [f"{kind}: the score each head's removal costs, in {unit} (baseline {base:.3f}{'%' if exact else ''})",
             "          " + "".join(f"{f'head {h}':>9}" for h in range(importance.shape[1]))]
    lines += [f"layer {layer:<3} " + "".join(f"{v * scale:9.3f}" for v in row) for layer, row in enumerate(importance)]
    steps = "  ".join(f"-L{layer}H{head}: {v * scale:.2f}" for (layer, head), v in zip(curve.order, curve.values[1:],
                                                                                         strict=True))
    lines.append(f"prune curve ({'exact match %' if exact else 'mean log-probability'} after each removal): {steps}")
    count = curve.removable()
    if count is not None:
        counts = [c.removable() or 0 for c in shuffled]
        spread = f"{min(counts)} to {max(counts)}" if min(counts) < max(counts) else f"{counts[0]} in each"
        lines.append(f"{count} of {len(curve.order)} {kind} heads can be removed losing less than one point; "
                     f"{spread} with the {tied_heads(importance)} heads of equal importance "
                     f"in {len(shuffled)} random orders (seeds {', '.join(str(c.ties) for c in shuffled)}): "
                     f"{', '.join(map(str, counts))}")
    return "\n".join(lines) + "\n"


def _as_json(model: Model, args: argparse.Namespace, found: dict[str, Any]) -> dict[str, Any]:
    from ..core.analysis.head_importance import tied_heads

    return {"model": model.path, "metric": args.metric, "data": args.data,
            "kinds": {kind: {"importance": importance.tolist(), "baseline": float(curve.values[0]),
                             "prune_curve": {"order": [list(h) for h in curve.order], "values": curve.values.tolist()},
                             "removable_within_one_point": curve.removable(),
                             "tied_heads": tied_heads(importance),
                             "tie_orders": [{"seed": c.ties, "order": [list(h) for h in c.order],
                                             "values": c.values.tolist(), "removable_within_one_point": c.removable()}
                                            for c in shuffled]}
                      for kind, (importance, curve, shuffled) in found.items()}}


def _show(bar: Any, fraction: float) -> None:
    bar.n = round(100 * fraction)
    bar.refresh()
