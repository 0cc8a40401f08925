"""The standard loads of ``transviz bench --load N [--training]``: what a classroom laptop computes
beside transviz while the figures are measured again.

- :class:`Programs`: N other torch programs, each multiplying 256 x 256 matrices in a loop with
  torch's default threads (a notebook training a model, a second transviz, a test suite).
- :class:`Training`: the toy-de-en recipe training on a thread of this process, leaving a core to
  the window as the Training tab's worker does.

Each starts once, paused, and computes only between :meth:`resume` and :meth:`pause`, so quiet
and loaded figures alternate in one run. A load program stops at its deadline, or as soon as its
input closes: when the bench ends, fails or is killed.
"""
from __future__ import annotations

import dataclasses
import subprocess
import sys
import threading
import time
from typing import Protocol

SETTLE_S = 0.6  # after a load starts or stops: its threads come and go, and the free share is remeasured
READY_TIMEOUT_S = 120.0  # a load program imports torch first
GO, WAIT = "go", "wait"
STEPS_FOREVER = 10**7  # the most a run may have: more than any bench takes


class Load(Protocol):
    name: str

    def resume(self) -> None: ...

    def pause(self) -> None: ...

    def close(self) -> None: ...


def _own_command() -> list[str]:
    """The command that runs this transviz: the frozen executable, or this Python with ``-m``."""
    return [sys.executable] if getattr(sys, "frozen", False) else [sys.executable, "-m", "transviz"]


class Programs:
    """``count`` torch programs beside this one, each at most ``seconds`` long."""

    def __init__(self, count: int, seconds: float) -> None:
        self.name = f"beside {count} torch program{'s' * (count != 1)}"
        command = [*_own_command(), "bench", "--serve-load", str(seconds)]
        self._processes = [subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
                           for _ in range(count)]
        try:
            for process in self._processes:
                self._wait_ready(process)
        except BaseException:
            self.close()
            raise

    @staticmethod
    def _wait_ready(process: subprocess.Popen[str]) -> None:
        stdout = process.stdout
        assert stdout is not None
        ready = threading.Event()

        def read_ready() -> None:
            if stdout.readline():
                ready.set()

        threading.Thread(target=read_ready, daemon=True).start()
        if not ready.wait(READY_TIMEOUT_S):
            raise RuntimeError(f"a load program did not start within {READY_TIMEOUT_S:g} s")

    def _tell(self, word: str) -> None:
        for process in self._processes:
            assert process.stdin is not None
            process.stdin.write(word + "\n")
            process.stdin.flush()
        time.sleep(SETTLE_S)

    def resume(self) -> None:
        self._tell(GO)

    def pause(self) -> None:
        self._tell(WAIT)

    def close(self) -> None:
        for process in self._processes:
            if process.stdin is not None:
                process.stdin.close()  # the program ends at once
        for process in self._processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def serve(seconds: float) -> None:
    """Be one load program: say ``ready``, then multiply matrices while told ``go`` (until ``wait``),
    for at most ``seconds``, and end when the input closes."""
    import torch

    matrix = torch.randn(256, 256)
    go, closed = threading.Event(), threading.Event()

    def listen() -> None:
        for line in sys.stdin:
            (go.set if line.strip() == GO else go.clear)()
        closed.set()
        go.set()

    threading.Thread(target=listen, daemon=True).start()
    print("ready", flush=True)
    deadline = time.monotonic() + seconds
    while not closed.is_set() and time.monotonic() < deadline:
        if go.wait(timeout=1.0):
            for _ in range(20):
                matrix @ matrix


class Training:
    """The toy-de-en recipe training on a thread of this process, as the window's worker runs it."""

    name = "with a training run in this process"

    def __init__(self) -> None:
        from ..core.data.tasks import load_task
        from ..core.training.recipes import recipe
        from ..core.training.train import Trainer, TrainObserver, build_model

        shipped = recipe("toy-de-en")
        config = dataclasses.replace(shipped.train, steps=STEPS_FOREVER, snapshot_every=0, eval_every=0,
                                     checkpoint_every=0, device="cpu")
        dataset = load_task(shipped.task)
        paused = threading.Event()

        class Paused(TrainObserver):
            def on_paused(self, step: int) -> None:
                paused.set()

        self._paused = paused
        self._trainer = Trainer(build_model(dataset, config, **shipped.model), dataset, config, Paused())
        self._trainer.pause()
        self._thread = threading.Thread(target=self._run, name="transviz-bench-training", daemon=True)
        self._thread.start()
        self._paused.wait()

    def _run(self) -> None:
        from ..core.base.cores import computing

        with computing(spare=1):
            self._trainer.run()

    def resume(self) -> None:
        self._paused.clear()
        self._trainer.resume()
        time.sleep(SETTLE_S)

    def pause(self) -> None:
        self._trainer.pause()
        self._paused.wait()
        time.sleep(SETTLE_S)

    def close(self) -> None:
        self._trainer.stop()
        self._thread.join()
