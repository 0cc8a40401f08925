"""``transviz bench``: the performance figures the issues set targets for.

Each figure is a function registered with :func:`figure` in one of :data:`MODULES`; it returns
one number. Figures that compare two implementations run them alternately in the same process
and report the median of the per-round ratios, so a machine that drifts in speed affects both.

A quick run (``run(spec, quick=True)``, ``transviz bench --quick``) measures every figure by the
same code with the fewest repeats and the smallest workloads each allows (:func:`size`): it checks
that the figures run and report, in seconds; its values are not figures.
"""
from __future__ import annotations

import importlib
import math
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Literal, TypeVar

Better = Literal["higher", "lower"]
LOADED_SLOWDOWN = 2.5  # the most a standard load may slow the figures that set it (transviz bench --load)
R = TypeVar("R")  # what the two runs median_ratio compares return (its timer may read it)
MODULES = (  # each registers its figures when imported
    "transviz.bench.core", "transviz.bench.training", "transviz.bench.session", "transviz.bench.gui",
    "transviz.bench.packaging", "transviz.bench.studio", "transviz.bench.responsive", "transviz.bench.interventions",
    "transviz.bench.concepts", "transviz.bench.hf", "transviz.bench.variants", "transviz.bench.live",
)


@dataclass(frozen=True)
class Figure:
    """A measured figure, as ``transviz bench --json`` prints it."""

    name: str
    value: float
    unit: str
    target: float
    better: Better
    quick: bool = False  # measured in a quick run: not a figure

    @property
    def meets_target(self) -> bool:
        return self.value >= self.target if self.better == "higher" else self.value <= self.target

    def to_dict(self) -> dict[str, object]:
        return {**asdict(self), "meets_target": self.meets_target}


class Unavailable(Exception):
    """Raised by a figure that cannot be measured here (the message says why); it is skipped."""


@dataclass(frozen=True)
class Spec:
    name: str
    unit: str
    target: float
    better: Better
    measure: Callable[[], float]
    description: str
    loaded_limit: float | None = None  # the most a standard load may slow it down, if it has a limit


REGISTRY: dict[str, Spec] = {}


def figure(name: str, unit: str, target: float, better: Better, into: dict[str, Spec] | None = None,
           loaded_limit: float | None = None) -> Callable[[Callable[[], float]], Callable[[], float]]:
    """Register ``measure`` (no arguments, returns the figure's value) under ``name``, in
    :data:`REGISTRY` or in the registry ``into`` (the figures of ``transviz bench --device``);
    ``loaded_limit``: the most a standard load (:mod:`transviz.bench.load`) may slow it down."""

    def register(measure: Callable[[], float]) -> Callable[[], float]:
        # the description is the docstring's first paragraph, which may be wrapped over lines
        summary = (measure.__doc__ or "").strip().split("\n\n")[0]
        description = " ".join(line.strip() for line in summary.splitlines())
        spec = Spec(name, unit, target, better, measure, description, loaded_limit)
        (REGISTRY if into is None else into)[name] = spec
        return measure

    return register


def load_all() -> dict[str, Spec]:
    for module in MODULES:
        importlib.import_module(module)
    return REGISTRY


_quick = False  # whether the figure being measured is measured quick (see run)


def run(spec: Spec, quick: bool = False) -> Figure:
    """Measure ``spec``; ``quick``: with the fewest repeats and smallest workloads (:func:`size`)."""
    global _quick
    _quick = quick
    try:
        return Figure(spec.name, float(spec.measure()), spec.unit, spec.target, spec.better, quick)
    finally:
        _quick = False


def size(full: int, quick: int = 1) -> int:
    """A figure's repeats or workload: ``full`` when measured, ``quick`` in a quick run."""
    return quick if _quick else full


def slowdown(quiet: Figure, loaded: Figure) -> float:
    """How many times worse ``loaded`` is than ``quiet`` (above 1: slower; nan when both are 0)."""
    worse, better = (quiet.value, loaded.value) if quiet.better == "higher" else (loaded.value, quiet.value)
    if better == 0:
        return math.nan if worse == 0 else math.inf
    return worse / better


# -- timing helpers shared by the figure modules -------------------------------------------------

def seconds(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def median_seconds(fn: Callable[[], object], repeat: int = 7, warmup: int = 1) -> float:
    """The median of ``repeat`` timed calls after ``warmup`` untimed ones (quick: one call)."""
    for _ in range(size(warmup, 0)):
        fn()
    return statistics.median(seconds(fn) for _ in range(size(repeat)))


def median_ratio(a: Callable[[], R], b: Callable[[], R], rounds: int = 7, warmup: int = 1,
                 timer: Callable[[Callable[[], R]], float] = seconds) -> float:
    """Median over rounds of time(b) / time(a), running a and b alternately: above 1 means a is faster.

    ``timer`` says how long one call took: by default its wall time; a run that clocks only
    part of its work itself can be timed by what it returns (``timer=lambda run: run()``).
    Quick: one round, no warm-up.
    """
    for _ in range(size(warmup, 0)):
        a(), b()
    ratios = []
    for i in range(size(rounds)):
        if i % 2:  # alternate which goes first, so neither always runs on a warmer cache
            tb, ta = timer(b), timer(a)
        else:
            ta, tb = timer(a), timer(b)
        ratios.append(tb / ta)
    return statistics.median(ratios)
