"""``transviz lab``: the warm-up / initialisation experiment of the seed tutorial
(000_d44500b147c75d2f.txt), one configuration or one of its tables, beside the seed's numbers."""
from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Callable
from typing import Any

LAB_FLAGS = ("lr", "warmup", "init", "layers", "batch", "steps", "test_batches", "seed", "device", "attend", "norm")


def register(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser(
        "lab", help="the seed's warm-up / initialisation experiment",
        description="Train an encoder stack on y = (a+1)^2 + b (d_model 256, 4 heads, sequence 10, input dim 50, "
                    "Adam) and print the test MSE (half the squared error, mean over test batches) beside the "
                    "seed's published value. Predicting the mean scores 3.5.")
    p.add_argument("--lr", type=float, help="learning rate (default 1e-3)")
    p.add_argument("--warmup", type=float,
                   help="the seed's warm-up: 0.01 = the rate rises by 1%% of lr per step, reaching it after 100 steps "
                        "(default 0: none)")
    p.add_argument("--init", help="default, xavier_uniform, xavier_normal, kaiming_uniform, kaiming_normal, "
                                  "normal:STD, uniform:A")
    p.add_argument("--layers", type=int, help="encoder layers (default 6)")
    p.add_argument("--batch", type=int, help="batch size (default 16)")
    p.add_argument("--steps", type=int, help="training steps (default 1000)")
    p.add_argument("--test-batches", type=int, help="batches in the test phase (default 1000)")
    p.add_argument("--seed", type=int)
    p.add_argument("--device", help="auto, cpu, cuda, cuda:N, mps")
    p.add_argument("--attend", choices=("batch", "sequence"),
                   help="attention across the batch as in the seed's script (default), or over the sequence")
    p.add_argument("--norm", choices=("post", "pre"),
                   help="LayerNorm after each sub-layer as in the seed (default), or before it (pre-LN)")
    p.add_argument("--seeds", type=int, default=1, metavar="N",
                   help="run a table N times, with seeds --seed, --seed + 1, ...; prints each run and the mean")
    p.add_argument("--quick", action="store_true",
                   help="300 steps, 200 test batches: fast on a CPU, but NOT the seed's setting")
    p.add_argument("--sweep", metavar="TABLE",
                   help="run one of the seed's tables: lr, init, depth, batch; or norm: its warm-up rows post-LN "
                        "and pre-LN")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..core.training import lab

    base = lab.QUICK if args.quick else lab.SEED
    changes: dict[str, Any] = {k: getattr(args, k) for k in LAB_FLAGS if getattr(args, k) is not None}
    settings = dataclasses.replace(base, **changes)
    if args.quick:
        print(f"quick preset: {settings.steps} steps, {settings.test_batches} test batches -- NOT the seed's "
              "setting (1000 and 1000); expect different numbers", flush=True)
    if args.sweep:
        if args.sweep not in lab.SWEEPS:
            from ..core.base.errors import InputError

            raise InputError(f"no table called {args.sweep!r}; the seed's tables: {', '.join(lab.SWEEPS)}")
        _sweep(args.sweep, settings, args.seeds)
        return 0
    print(f"running: {settings.describe()}", flush=True)
    result = lab.run_lab(settings, on_step=_progress(settings.steps))
    seed = lab.published(settings)
    print(f"test MSE {result.test_mse:.3f} (the seed published {seed:.3f} for this setting)" if seed is not None
          else f"test MSE {result.test_mse:.3f} (the seed has no value for this setting)")
    print(f"{result.seconds:.0f} s" + (f"; {result.mark}" if result.mark else ""))
    return 0


def _sweep(table: str, settings: Any, seeds: int) -> None:
    """Each row of ``table`` for each of ``seeds`` seeds from ``settings.seed``, then the mean of each row."""
    from ..core.base.errors import InputError
    from ..core.training import lab

    if not 1 <= seeds <= 100:
        raise InputError(f"--seeds must be between 1 and 100, got {seeds}")
    print(f"{'setting':36} {'test MSE':>9} {'seed':>6}  {'time':>6}", flush=True)
    results: dict[str, list[float]] = {}
    for offset in range(seeds):
        if seeds > 1:
            print(f"random seed {settings.seed + offset}:", flush=True)
        for row, result in lab.run_sweep(table, dataclasses.replace(settings, seed=settings.seed + offset),
                                         on_row=lambda row, result: print(_row(row.label, result, row.published),
                                                                          flush=True)):
            results.setdefault(row.label, []).append(result.test_mse)
    if seeds > 1:
        print(f"mean of {seeds} seeds (lowest - highest):", flush=True)
        for label, values in results.items():
            print(f"{label:36} {sum(values) / len(values):9.3f}  ({min(values):.3f} - {max(values):.3f})", flush=True)


def _progress(steps: int) -> Callable[[int, float, float], None]:
    from tqdm import tqdm

    bar = tqdm(total=steps, unit="step", desc="lab", file=sys.stderr, dynamic_ncols=True, leave=False)

    def on_step(step: int, loss: float, lr: float) -> None:
        bar.set_postfix(loss=f"{loss:.3f}", refresh=False)
        bar.update(1)
        if step == steps:
            bar.close()

    return on_step


def _row(label: str, result: Any, published: float | None) -> str:
    seed = f"{published:6.3f}" if published is not None else "     -"
    return f"{label:36} {result.test_mse:9.3f} {seed}  {result.seconds:5.0f}s  {result.mark}".rstrip()
