"""``transviz bench [NAME ...] [--json] [--list] [--quick] [--load N] [--training] [--device D]``:
measure the performance figures.

Plain ``transviz bench`` measures the CPU figures. ``--load N`` and ``--training`` measure each
figure quiet and then under each standard load of :mod:`transviz.bench.load`, and say how many
times slower it got. ``--device cuda`` measures instead the device
figures of :mod:`transviz.bench.gpu` on that device (they import no Qt: a GPU machine without
PySide6 runs them). There a figure that fails is reported and the others still run, since a
lent GPU may allow only one run. ``--quick`` runs every figure asked for by its own code with the
fewest repeats and the smallest workloads (toy sizes on a device): a check that it runs and
reports, whose values are not figures.
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
    from ..bench import Figure, Spec
    from ..bench.load import Load

log = logging.getLogger(__name__)
MAX_PROGRAMS = 64
LOAD_LIFETIME_S = 4 * 3600.0  # a load program outlives no bench (it also ends when the bench does)


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("bench", help="measure the performance figures against their targets")
    parser.add_argument("names", nargs="*", metavar="NAME", help="figures to measure (default: all)")
    parser.add_argument("--json", action="store_true", help="print one JSON list of records")
    parser.add_argument("--list", action="store_true", help="list the figures and their targets")
    parser.add_argument("--device", help="measure the device figures (gpu_*) on this device: cuda, cuda:N, cpu, mps")
    parser.add_argument("--quick", action="store_true",
                        help="a dry run: each figure measured by its own code with the fewest repeats and the "
                             "smallest workloads (with --device: toy sizes), to check that it runs and reports; "
                             "the values are not figures (their JSON records say \"quick\": true)")
    parser.add_argument("--load", type=int, default=0, metavar="N",
                        help="measure each figure quiet, then beside N other torch programs (the bench starts "
                             "and stops them), and report how many times slower it got")
    parser.add_argument("--training", action="store_true",
                        help="measure each figure quiet, then with a training run in this process")
    parser.add_argument("--serve-load", type=float, metavar="SECONDS", help=argparse.SUPPRESS)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from .. import bench

    if args.serve_load is not None:  # a load program of another bench (bench/load.py)
        from ..bench.load import serve

        serve(args.serve_load)
        return 0
    if not 0 <= args.load <= MAX_PROGRAMS:
        raise InputError(f"--load takes 0 to {MAX_PROGRAMS} programs, not {args.load}")
    if (args.load or args.training) and (args.device or args.list):
        raise InputError("--load and --training measure the CPU figures; leave out --device and --list")
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
                               "loaded_limit": s.loaded_limit, "description": s.description} for s in specs],
                             indent=1))
            return 0
        for spec in specs:
            sign = ">=" if spec.better == "higher" else "<="
            loaded = f" Under --load: at most {spec.loaded_limit:g}x slower." if spec.loaded_limit else ""
            print(f"{spec.name:40} target {sign} {spec.target:g} {spec.unit:8} {spec.description}{loaded}")
        return 0
    where: dict[str, object] = {}
    if args.device:
        device = gpu.use(args.device, quick=args.quick)
        where = {"device": gpu.describe(device), "torch": torch.__version__}
        if not args.json:
            quick = "; quick: toy sizes, not figures" if args.quick else ""
            print(f"device figures on {where['device']}, torch {torch.__version__}{quick}", flush=True)
    elif args.quick and not args.json:
        print("quick: fewest repeats, smallest workloads; the values are not figures", flush=True)
    if args.load or args.training:
        return _run_loaded(specs, args)
    figures, failed = [], []
    live = not args.json and sys.stderr.isatty()
    for spec in specs:
        if live:
            print(f"{spec.name:40} measuring...", end="\r", flush=True, file=sys.stderr)
        try:
            figures.append(bench.run(spec, args.quick))
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


def _loads(args: argparse.Namespace) -> list[Load]:
    from ..bench.load import Programs, Training

    loads: list[Load] = []
    try:
        if args.load:
            loads.append(Programs(args.load, LOAD_LIFETIME_S))
        if args.training:
            loads.append(Training())
    except BaseException:
        for load in loads:
            load.close()
        raise
    return loads


def _run_loaded(specs: list[Spec], args: argparse.Namespace) -> int:
    """Each figure quiet, then under each load (started once, paused in between)."""
    from .. import bench

    loads = _loads(args)
    records = []
    try:
        for spec in specs:
            try:
                quiet = bench.run(spec, args.quick)
                loaded = []
                for load in loads:
                    load.resume()
                    try:
                        loaded.append((load.name, bench.run(spec, args.quick)))
                    finally:
                        load.pause()
            except bench.Unavailable as exc:
                print(f"{spec.name:40} skipped: {exc}", flush=True, file=sys.stderr)
                continue
            record, rows = _loaded_record(spec, quiet, loaded)
            records.append(record)
            if not args.json:
                print(_row(quiet))
                for row in rows:
                    print(_loaded_row(row, quiet.unit), flush=True)
    finally:
        for load in loads:
            load.close()
    if args.json:
        print(json.dumps(records, indent=1, allow_nan=False))
    return 0


def _loaded_record(spec: Spec, quiet: Figure,
                   loaded: list[tuple[str, Figure]]) -> tuple[dict[str, object], list[dict[str, object]]]:
    """The JSON record of the quiet figure with its loaded rows, and the rows."""
    from .. import bench

    rows: list[dict[str, object]] = []
    for name, figure in loaded:
        slower = bench.slowdown(quiet, figure)
        within = None if spec.loaded_limit is None else slower <= spec.loaded_limit
        rows.append({"load": name, "value": _finite(figure.value), "slowdown": _finite(slower),
                     "limit": spec.loaded_limit, "within_limit": within})
    return {**_json_record(quiet), "loaded": rows}, rows


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _loaded_row(row: dict[str, object], unit: str) -> str:
    value, slower, limit = row["value"], row["slowdown"], row["limit"]
    shown = f"{value:10.3f}" if isinstance(value, float) else f"{'inf':>10}"
    times = f"{slower:.2f}x quiet" if isinstance(slower, float) else "no ratio"
    verdict = "" if limit is None else f"  limit {limit:g}x  {'ok' if row['within_limit'] else 'MISSES'}"
    return f"  {row['load']:38} {shown} {unit:8} {times}{verdict}"


def _json_record(figure: Figure) -> dict[str, object]:
    """The figure as JSON allows it: a value that is not finite (inf: the target was never reached) is null."""
    record = figure.to_dict()
    if not math.isfinite(figure.value):
        record["value"] = None
    return record


def _row(figure: Figure) -> str:
    sign = ">=" if figure.better == "higher" else "<="
    verdict = "quick" if figure.quick else "ok" if figure.meets_target else "MISSES"  # quick: not a figure
    return f"{figure.name:40} {figure.value:10.3f} {figure.unit:8} target {sign} {figure.target:g}  {verdict}"
