"""``transviz bench --device D``: the device figures (transviz.bench.gpu), dry-run on the CPU with
``--quick``; and that they, and tests/gpu, run where Qt is not installed (the lent GPU machine)."""
from __future__ import annotations

import json
import math
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch

from transviz import bench
from transviz.bench import gpu
from transviz.cli import main

ROOT = Path(__file__).resolve().parents[2]
QUICK = ["gpu_train_tokens_per_s", "gpu_train_tokens_per_s_nn_transformer", "gpu_train_tokens_ratio_vs_nn_transformer",
         "gpu_lab_1000_steps_s", "gpu_lab_test_mse", "gpu_decode_step_ms"]


@pytest.fixture(autouse=True)
def no_device_chosen(monkeypatch):
    monkeypatch.setattr(gpu, "_chosen", None)


def test_the_device_figures_are_listed_apart_from_the_cpu_figures(capsys):
    assert main(["bench", "--device", "cpu", "--list", "--json"]) == 0
    assert [f["name"] for f in json.loads(capsys.readouterr().out)] == list(gpu.FIGURES)
    assert set(QUICK) < set(gpu.FIGURES) and all(name.startswith("gpu_") for name in gpu.FIGURES)
    assert main(["bench", "--list", "--json"]) == 0
    assert not [f for f in json.loads(capsys.readouterr().out) if f["name"].startswith("gpu_")]


def test_a_quick_dry_run_on_the_cpu_measures_every_figure_and_names_the_device(capsys):
    assert main(["bench", "--device", "cpu", "--quick", "--json", *QUICK]) == 0
    records = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert list(records) == QUICK
    assert all(r["device"].startswith("cpu (CPU, ") and r["quick"] is True for r in records.values())
    assert all(r["value"] > 0 and math.isfinite(r["value"]) for r in records.values())
    assert main(["bench", "--device", "cpu", "--quick", "gpu_lab_test_mse"]) == 0  # the text report, from the cache
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("device figures on cpu (CPU, ") and out[0].endswith("quick: toy sizes, not figures")
    assert out[1].split()[:2] == ["gpu_lab_test_mse", f"{records['gpu_lab_test_mse']['value']:.3f}"]


def test_toy_de_en_stops_at_the_target_or_at_the_time_limit():
    cpu = torch.device("cpu")
    reached = gpu.train_to_target(cpu, gpu.TOY_QUICK, target=0.0, limit_s=600, held_out=10)
    assert reached.steps == 10 and 0 < reached.seconds < math.inf  # the first validation, at step 10
    assert [step for step, _, _ in reached.checks] == [10] and reached.checks[0][1] == reached.seconds
    limited = gpu.train_to_target(cpu, gpu.TOY_QUICK, target=0.95, limit_s=0.0, held_out=10)
    assert limited.steps == 1 and limited.seconds == math.inf and limited.checks == ()  # stopped after one step
    assert limited.exact_match == 0.0


def test_a_figure_that_fails_is_reported_and_the_others_still_run(capsys, caplog, monkeypatch):
    def boom() -> float:
        raise RuntimeError("CUDA error: out of memory")

    monkeypatch.setitem(gpu.FIGURES, "gpu_boom", bench.Spec("gpu_boom", "s", 1.0, "lower", boom, "fails"))
    monkeypatch.setitem(gpu.FIGURES, "gpu_one", bench.Spec("gpu_one", "s", 1.0, "lower", lambda: 1.0, "one"))
    assert main(["bench", "--device", "cpu", "--json", "gpu_boom", "gpu_one"]) == 1
    captured = capsys.readouterr()
    assert [r["name"] for r in json.loads(captured.out)] == ["gpu_one"]
    assert "gpu_boom failed" in caplog.text and "out of memory" in caplog.text  # with its traceback
    assert "1 figure(s) failed: gpu_boom" in captured.err


def test_figures_sharing_a_run_never_repeat_it_even_when_it_failed():
    calls = []

    @gpu.once
    def run(choice: gpu.Choice) -> float:
        calls.append(choice)
        raise RuntimeError("no luck")

    choice = gpu.Choice(torch.device("cpu"), True)
    for _ in range(3):
        with pytest.raises(RuntimeError, match="no luck"):
            run(choice)
    assert calls == [choice]


def test_an_absent_device_is_one_line(capsys):
    if not torch.cuda.is_available():
        assert main(["bench", "--device", "cuda", "gpu_decode_step_ms"]) == 1
        assert "not available on this machine" in capsys.readouterr().err
    with pytest.raises(bench.Unavailable, match="--device"):  # a figure measured before any device was chosen
        gpu.decode_step_ms()


NO_QT = textwrap.dedent("""
    import sys

    class NoQt:  # the lent GPU machine has torch but neither PySide6, pyqtgraph nor pytest-qt
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("PySide6", "pyqtgraph", "pytestqt"):
                raise ImportError(name + " is not installed here")

    sys.meta_path.insert(0, NoQt())
""")


def run_without_qt(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", NO_QT + textwrap.dedent(code)], cwd=ROOT, check=False,
                          capture_output=True, text=True, timeout=300,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})


@pytest.mark.process
def test_the_device_figures_run_without_qt():
    done = run_without_qt("""
        from transviz.cli import main
        assert main(["bench", "--device", "cpu", "--quick", "--json", "gpu_decode_step_ms"]) == 0
        assert not [m for m in sys.modules if m.startswith(("PySide6", "pyqtgraph"))]
    """)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)[0]["name"] == "gpu_decode_step_ms"


@pytest.mark.process
def test_the_gpu_tests_and_their_conftests_load_without_qt():
    done = run_without_qt("""
        import pytest
        sys.exit(pytest.main(["tests/gpu", "-q", "-p", "no:pytest-qt", "-p", "no:cacheprovider"]))
    """)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "9 skipped" in done.stdout or "9 passed" in done.stdout
