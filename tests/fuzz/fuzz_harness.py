"""Runs fuzz cases in worker processes under a memory cap and a time bound, and sorts each into
clear / valid / crash / hang / silent (see ``fuzz_worker.py``).

A worker is one Python process with ``RLIMIT_AS`` set, reused case after case (importing torch
for each case would cost a second or two); the cap is :data:`HEADROOM` above what the worker maps
once torch and transviz are imported, so that it holds on any build of torch. A worker is killed
when a case runs past the time bound (a hang) and started afresh after any crash, so that no
damage carries over to the next case.
"""
from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from fuzz_inputs import Case

WORKER = Path(__file__).with_name("fuzz_worker.py")
# Address space a worker may map beyond what it holds after importing torch and transviz. The cap
# is relative because torch's builds differ by gigabytes of mapped libraries (the CUDA build maps
# several GB before a tensor exists), while what a sound case needs is the same on all of them.
HEADROOM = 2 * 1024**3
TIME_BOUND = 20.0  # seconds a case may take; a sound one takes well under one
START_BOUND = 120.0  # seconds a worker may take to import torch and transviz
OUTCOMES = ("clear", "valid", "crash", "hang", "silent")
GOOD = ("clear", "valid")


@dataclass(frozen=True)
class Result:
    case: Case
    outcome: str  # one of OUTCOMES
    detail: str
    seconds: float


# The worker caps its address space itself once its imports are done (a preexec_fn is unsafe
# beside threads; see fuzz_worker.cap_memory); an abort leaves no core file behind.
START = (f"import resource, runpy; resource.setrlimit(resource.RLIMIT_CORE, (0, 0)); "
         f"runpy.run_path({str(WORKER)!r}, run_name='__main__')")


class Worker:
    def __init__(self) -> None:
        self.log = tempfile.TemporaryFile()  # the worker's stderr: warnings, and its last words
        env = dict(os.environ, OMP_NUM_THREADS="1", QT_QPA_PLATFORM="offscreen", PYTHONDONTWRITEBYTECODE="1")
        self.process = subprocess.Popen([sys.executable, "-c", START, str(HEADROOM)], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=self.log, env=env, text=True)
        ready = self._answer(START_BOUND)
        if ready is None or ready.get("outcome") != "ready":
            raise RuntimeError(f"the fuzz worker did not start: {self._last_words()}")

    def _answer(self, bound: float) -> dict[str, str] | None:
        """The next line from the worker as JSON; None when it died or said nothing within ``bound``."""
        assert self.process.stdout is not None
        ready, _, _ = select.select([self.process.stdout], [], [], bound)
        if not ready:
            return None
        line = self.process.stdout.readline()
        if not line:  # its end of the pipe closed: it is dying
            self.process.wait()
            return None
        answer: dict[str, str] = json.loads(line)
        return answer

    def _last_words(self) -> str:
        self.log.seek(0)
        lines = [line for line in self.log.read().decode("utf-8", "replace").splitlines() if line.strip()]
        return lines[-1][:150] if lines else "nothing on stderr"

    def run(self, case: Case, bound: float) -> Result:
        assert self.process.stdin is not None
        start = time.monotonic()
        try:
            self.process.stdin.write(json.dumps(case.job) + "\n")
            self.process.stdin.flush()
            answer = self._answer(bound)
        except (BrokenPipeError, ValueError):
            answer = None
        seconds = time.monotonic() - start
        if answer is not None:
            return Result(case, answer["outcome"], answer["detail"], seconds)
        if self.process.poll() is None:
            self.stop()
            return Result(case, "hang", f"no answer within {bound:g} s", seconds)
        code = self.process.returncode
        died = f"killed by {signal.Signals(-code).name}" if code < 0 else f"exit {code}"
        return Result(case, "crash", f"worker {died}: {self._last_words()}", seconds)

    def stop(self) -> None:
        self.process.kill()
        self.process.wait()
        self.log.close()

    @property
    def healthy(self) -> bool:
        return self.process.poll() is None


class Pool:
    """Up to ``size`` workers, started when first needed and restarted after a crash or a hang."""

    def __init__(self, size: int = 1, bound: float = TIME_BOUND) -> None:
        self.size, self.bound = size, bound
        self.idle: list[Worker] = []
        self.lock = threading.Lock()

    def run(self, case: Case) -> Result:
        """One case, on an idle worker (this process waits)."""
        with self.lock:
            worker = self.idle.pop() if self.idle else None
        try:  # a worker that fails to start must not leave the case's files for the next case
            worker = worker or Worker()
            result = worker.run(case, self.bound)
        finally:
            cleanup(case)
        self._give_back(worker, result)
        return result

    def run_all(self, cases: Iterable[Case]) -> Iterator[Result]:
        """Every case, ``size`` at a time; results in the order they finish."""
        from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait

        pending: set[Future[Result]] = set()
        with ThreadPoolExecutor(self.size) as threads:
            for case in cases:  # cases are made lazily: each writes its files just before it runs
                if len(pending) >= self.size:
                    done, pending = wait(pending, return_when=FIRST_COMPLETED)
                    yield from (f.result() for f in done)
                pending.add(threads.submit(self.run, case))
            for future in pending:
                yield future.result()

    def _give_back(self, worker: Worker, result: Result) -> None:
        if result.outcome in ("crash", "hang") or not worker.healthy:
            if worker.healthy:
                worker.stop()
            return
        with self.lock:
            self.idle.append(worker)

    def close(self) -> None:
        while self.idle:
            self.idle.pop().stop()


def cleanup(case: Case) -> None:
    for path in case.files:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif path.exists() or path.is_symlink():
            path.unlink()


def table(results: Iterable[Result]) -> str:
    """A Markdown table: one row a class, how many cases ended each way."""
    counts: dict[str, dict[str, int]] = {}
    for result in results:
        row = counts.setdefault(result.case.kind, dict.fromkeys(OUTCOMES, 0))
        row[result.outcome] += 1
    lines = ["| class | tried | " + " | ".join(OUTCOMES) + " |", "|---" * (len(OUTCOMES) + 2) + "|"]
    for kind, row in counts.items():
        lines.append(f"| {kind} | {sum(row.values()):,} | " + " | ".join(f"{row[o]:,}" for o in OUTCOMES) + " |")
    total = {o: sum(row[o] for row in counts.values()) for o in OUTCOMES}
    lines.append(f"| all | {sum(total.values()):,} | " + " | ".join(f"{total[o]:,}" for o in OUTCOMES) + " |")
    return "\n".join(lines)
