"""The large fuzz run: thousands of cases, a table of how they ended, and the failures.

    PYTHONPATH=$PWD python tests/fuzz/fuzz_run.py --checkpoints 300 --workers 2 --seed 0

Every case is drawn from ``random.Random(f"{seed}:{class}:{index}")``, so one seed gives the same
cases on every machine and ``--only CLASS --index N`` replays one of them. The quick property
tests (``test_fuzz_*.py``) run the same generators for a few cases each in the normal test run.
"""
from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import fuzz_inputs as inputs
from fuzz_harness import GOOD, TIME_BOUND, Pool, Result, table
from fuzz_inputs import Case

Maker = Callable[[random.Random, Path, int], Case]


def makers(good: bytes) -> dict[str, Maker]:
    """Class name -> the function drawing one case of it."""
    found: dict[str, Maker] = {}
    for kind in inputs.CHECKPOINT_KINDS:
        found[kind] = lambda rng, folder, i, kind=kind: inputs.make_checkpoint(rng, folder, kind, good, i)  # type: ignore[misc]
    found["transviz info on mutated checkpoints"] = lambda rng, folder, i: inputs.make_info(rng, folder, good, i)
    found["sentences through the API"] = inputs.make_sentence
    found["decode on ascii / latin-1 / strict utf-8 terminals"] = inputs.make_terminal
    found["command-line values (decode)"] = inputs.make_cli_values
    found["corpora (load, build, one step)"] = inputs.make_corpus
    found["settings files (read at GUI start)"] = inputs.make_settings
    found["lesson files (lesson --check)"] = inputs.make_lesson
    found["session files (lesson --check)"] = inputs.make_session
    found["Hugging Face folders (load, decode)"] = lambda rng, folder, i: inputs.make_hf_folder(
        rng, folder, i, inputs.good_hf(folder))
    found["command-line values (render, lesson --export, train, heads, convert)"] = inputs.make_command_values
    found["PyTorch models with a sidecar (load, decode)"] = lambda rng, folder, i: inputs.make_sidecar(
        rng, folder, i, inputs.good_sidecar(folder))
    return found


def plan(args: argparse.Namespace) -> dict[str, int]:
    """How many cases each class gets."""
    counts = dict.fromkeys(inputs.CHECKPOINT_KINDS, args.checkpoints)
    counts.update({"transviz info on mutated checkpoints": args.info, "sentences through the API": args.sentences,
                   "decode on ascii / latin-1 / strict utf-8 terminals": args.terminals,
                   "command-line values (decode)": args.cli, "corpora (load, build, one step)": args.corpora,
                   "settings files (read at GUI start)": args.settings, "lesson files (lesson --check)": args.lessons,
                   "session files (lesson --check)": args.sessions,
                   "Hugging Face folders (load, decode)": args.hf,
                   "PyTorch models with a sidecar (load, decode)": args.sidecars,
                   "command-line values (render, lesson --export, train, heads, convert)": args.commands})
    return counts


def cases(args: argparse.Namespace, folder: Path, good: bytes) -> Iterator[Case]:
    found = makers(good)
    counts = plan(args)
    if args.only:
        counts = {args.only: args.index + 1}
    for kind, count in counts.items():
        for index in range(count):
            if args.only and index != args.index:
                continue
            yield found[kind](random.Random(f"{args.seed}:{kind}:{index}"), folder, index)
    if not args.only:
        yield from inputs.output_cases(folder, good)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--bound", type=float, default=TIME_BOUND, help="seconds a case may take")
    parser.add_argument("--checkpoints", type=int, default=300, help="cases of each checkpoint mutation")
    parser.add_argument("--info", type=int, default=60)
    parser.add_argument("--sentences", type=int, default=1000)
    parser.add_argument("--terminals", type=int, default=40)
    parser.add_argument("--cli", type=int, default=60)
    parser.add_argument("--corpora", type=int, default=40)
    parser.add_argument("--settings", type=int, default=40)
    parser.add_argument("--lessons", type=int, default=60)
    parser.add_argument("--sessions", type=int, default=60)
    parser.add_argument("--hf", type=int, default=60, help="cases of Hugging Face folders (needs the hf extra)")
    parser.add_argument("--sidecars", type=int, default=60)
    parser.add_argument("--commands", type=int, default=60,
                        help="cases of render, lesson --export, train, heads and convert")
    parser.add_argument("--only", help="replay one case of this class (with --index)")
    parser.add_argument("--index", type=int, default=0)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for hf_folders (the --hf class)
    start = time.monotonic()
    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="transviz-fuzz-") as name:
        folder = Path(name)
        pool = Pool(args.workers, args.bound)
        try:
            for result in pool.run_all(cases(args, folder, inputs.good_checkpoint(folder))):
                results.append(result)
                if len(results) % 250 == 0:
                    print(f"[{len(results)} cases, {time.monotonic() - start:.0f} s]", file=sys.stderr, flush=True)
                if result.outcome not in GOOD or args.only:
                    print(f"{result.outcome:6} {result.seconds:5.1f}s  {result.case.kind}: {result.case.describe}"
                          f"  ->  {result.detail}", flush=True)
        finally:
            pool.close()
    print()
    print(table(results))
    print(f"\n{len(results)} cases in {time.monotonic() - start:.0f} s with {args.workers} workers, seed {args.seed}")
    return 0 if all(r.outcome in GOOD for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
