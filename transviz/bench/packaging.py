"""Figures of the packaged classroom bundle (``pyinstaller build.spec`` -> ``dist/transviz``)."""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from . import Unavailable, figure, size

BUNDLE_VARIABLE = "TRANSVIZ_BUNDLE"  # a built bundle folder to use instead of dist/transviz
LAUNCHES = 5


def bundle_executable() -> Path:
    """The frozen ``transviz`` to measure: the running one when frozen, else ``$TRANSVIZ_BUNDLE``
    or ``dist/transviz`` of the source checkout."""
    if getattr(sys, "frozen", False):
        return Path(sys.executable)
    folder = os.environ.get(BUNDLE_VARIABLE) or Path(__file__).resolve().parents[2] / "dist" / "transviz"
    return Path(folder) / "transviz"


def launch_to_window(executable: Path) -> float:
    """Seconds from starting ``executable --self-test`` to the line saying its window is shown
    (offscreen); the rest of the self-test is not part of the start and is cut short."""
    from ..selftest import WINDOW_SHOWN

    started = time.perf_counter()
    with subprocess.Popen([str(executable), "--self-test"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                          text=True) as process:
        assert process.stdout is not None
        for line in process.stdout:
            if WINDOW_SHOWN in line:
                elapsed = time.perf_counter() - started
                process.kill()
                if not line.startswith("ok"):
                    raise RuntimeError(f"the frozen app did not show its window: {line.strip()}")
                return elapsed
    raise RuntimeError(f"{executable} --self-test exited with {process.returncode} before showing its window")


@figure("frozen_cold_start_s", "s", 4.0, "lower")
def frozen_cold_start() -> float:
    """Launch of the frozen app to its window shown, offscreen (median of 5 launches)."""
    executable = bundle_executable()
    if not executable.is_file():
        raise Unavailable(f"no bundle at {executable.parent}: build it with `pyinstaller build.spec`")
    return statistics.median(launch_to_window(executable) for _ in range(size(LAUNCHES)))
