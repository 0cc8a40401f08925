"""``transviz bench [NAME ...] [--json] [--list] [--device D [--quick]]``: measure the performance figures.

Plain ``transviz bench`` measures the CPU figures; ``--device cuda`` measures instead the device
figures of :mod:`transviz.bench.gpu` on that device (they import no Qt: a GPU machine without
PySide6 runs them). There a figure that fails is reported and the others still run, since a
lent GPU may allow only one run.
"""
from __future__ import annotations

import argparse
import json
import logging
import math
import sys
from typing import TYPE_CHECKING

from ..core.base.errors import InputError

if TYPE_CHECKING:
    from ..bench import Figure

log = logging.getLogger(__name__)


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("bench", help="measure the performance figures against their targets")
    parser.add_argument("names", nargs="*", metavar="NAME", help="figures to measure (default: all)")
    parser.add_argument("--json", action="store_true", help="print one JSON list of records")
    parser.add_argument("--list", action="store_true", help="list the figures and their targets")
    parser.add_argument("--device", help="measure the device figures (gpu_*) on this device: cuda, cuda:N, cpu, mps")
    parser.add_argument("--quick", action="store_true",
                        help="with --device: toy sizes, a dry run that checks the code (its values are not figures)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from .. import bench

    if args.quick and not args.device:
        raise InputError("--quick goes with --device (a dry run of the device figures)")
    if args.device:
        import torch

        from ..bench import gpu

        registry = gpu.FIGURES
    else:
        registry = bench.load_all()
    unknown = [n for n in args.names if n not in registry]
    if unknown:
        listing = "`transviz bench --device cuda --list`" if args.device else "`transviz bench --list`"
        raise InputError(f"no figure called {', '.join(unknown)}; {listing} lists them")
    specs = [registry[n] for n in (args.names or registry)]
    if args.list:
        if args.json:
            print(json.dumps([{"name": s.name, "unit": s.unit, "target": s.target, "better": s.better,
                               "description": s.description} for s in specs], indent=1))
            return 0
        for spec in specs:
            sign = ">=" if spec.better == "higher" else "<="
            print(f"{spec.name:40} target {sign} {spec.target:g} {spec.unit:8} {spec.description}")
        return 0
    where: dict[str, object] = {}
    if args.device:
        device = gpu.use(args.device, quick=args.quick)
        where = {"device": gpu.describe(device), "torch": torch.__version__, "quick": args.quick}
        if not args.json:
            quick = "; quick: toy sizes, not figures" if args.quick else ""
            print(f"device figures on {where['device']}, torch {torch.__version__}{quick}", flush=True)
    figures, failed = [], []
    live = not args.json and sys.stderr.isatty()
    for spec in specs:
        if live:
            print(f"{spec.name:40} measuring...", end="\r", flush=True, file=sys.stderr)
        try:
            figures.append(bench.run(spec))
        except bench.Unavailable as exc:
            print(f"{spec.name:40} skipped: {exc}", flush=True, file=sys.stderr)
            continue
        except Exception:
            if not args.device:
                raise
            log.exception("%s failed", spec.name)
            failed.append(spec.name)
            continue
        if not args.json:
            print(_row(figures[-1]), flush=True)
    if args.json:
        print(json.dumps([{**_json_record(f), **where} for f in figures], indent=1, allow_nan=False))
    if failed:
        print(f"transviz: {len(failed)} figure(s) failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


def _json_record(figure: Figure) -> dict[str, object]:
    """The figure as JSON allows it: a value that is not finite (inf: the target was never reached) is null."""
    record = figure.to_dict()
    if not math.isfinite(figure.value):
        record["value"] = None
    return record


def _row(figure: Figure) -> str:
    sign = ">=" if figure.better == "higher" else "<="
    verdict = "ok" if figure.meets_target else "MISSES"
    return f"{figure.name:40} {figure.value:10.3f} {figure.unit:8} target {sign} {figure.target:g}  {verdict}"
