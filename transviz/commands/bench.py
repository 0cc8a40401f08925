"""``transviz bench [NAME ...] [--json] [--list]``: measure the performance figures."""
from __future__ import annotations

import argparse
import json
import math
import sys

from ..core.errors import InputError


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("bench", help="measure the performance figures against their targets")
    parser.add_argument("names", nargs="*", metavar="NAME", help="figures to measure (default: all)")
    parser.add_argument("--json", action="store_true", help="print one JSON list of records")
    parser.add_argument("--list", action="store_true", help="list the figures and their targets")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from .. import bench

    registry = bench.load_all()
    unknown = [n for n in args.names if n not in registry]
    if unknown:
        raise InputError(f"no figure called {', '.join(unknown)}; `transviz bench --list` lists them")
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
    figures = []
    live = not args.json and sys.stderr.isatty()
    for spec in specs:
        if live:
            print(f"{spec.name:40} measuring...", end="\r", flush=True, file=sys.stderr)
        try:
            figures.append(bench.run(spec))
        except bench.Unavailable as exc:
            print(f"{spec.name:40} skipped: {exc}", flush=True, file=sys.stderr)
            continue
        if not args.json:
            print(_row(figures[-1]), flush=True)
    if args.json:
        print(json.dumps([_json_record(f) for f in figures], indent=1, allow_nan=False))
    return 0


def _json_record(figure) -> dict[str, object]:  # type: ignore[no-untyped-def]
    """The figure as JSON allows it: a value that is not finite (inf: the target was never reached) is null."""
    record = figure.to_dict()
    if not math.isfinite(figure.value):
        record["value"] = None
    return record


def _row(figure) -> str:  # type: ignore[no-untyped-def]
    sign = ">=" if figure.better == "higher" else "<="
    verdict = "ok" if figure.meets_target else "MISSES"
    return f"{figure.name:40} {figure.value:10.3f} {figure.unit:8} target {sign} {figure.target:g}  {verdict}"
