"""``transviz bench``: --list and --json print what they say, JSON stays valid for any value, and
--quick measures each figure by its own code with the fewest repeats."""
import json
import math

import pytest

from transviz import bench
from transviz.cli import main


def test_list_with_json_prints_the_figures_as_json(capsys):
    assert main(["bench", "--list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    registry = bench.load_all()
    assert [f["name"] for f in listed] == list(registry)
    first = registry[listed[0]["name"]]
    assert listed[0] == {"name": first.name, "unit": first.unit, "target": first.target, "better": first.better,
                         "loaded_limit": first.loaded_limit, "description": first.description}
    limited = {f["name"]: f["loaded_limit"] for f in listed if f["loaded_limit"] is not None}
    assert limited == {name: 2.5 for name in ("session_step_ms_default", "gui_step_redraw_ms_6x8",
                                              "intervene_redecode_ms_default", "head_importance_s_default",
                                              "concept_redraw_ms_default", "train_tokens_per_s")}


def test_an_infinite_figure_is_null_in_json(capsys, monkeypatch):
    bench.load_all()
    never = bench.Spec("never_reached_s", "s", 1.0, "lower", lambda: math.inf, "a target never reached")
    monkeypatch.setitem(bench.REGISTRY, never.name, never)
    assert main(["bench", never.name, "--json"]) == 0
    out = capsys.readouterr().out
    [record] = json.loads(out, parse_constant=lambda name: (_ for _ in ()).throw(ValueError(name)))  # no Infinity
    assert record["value"] is None and record["meets_target"] is False
    assert main(["bench", never.name]) == 0  # the text report still says inf
    assert " inf " in capsys.readouterr().out


def test_a_quick_run_measures_by_the_figures_own_code_with_the_fewest_repeats(capsys, monkeypatch):
    bench.load_all()
    calls: list[int] = []
    counted = bench.Spec("counted_s", "s", 1.0, "lower", lambda: bench.median_seconds(lambda: calls.append(1)),
                         "counts its calls")
    monkeypatch.setitem(bench.REGISTRY, counted.name, counted)
    assert main(["bench", counted.name, "--quick", "--json"]) == 0
    [record] = json.loads(capsys.readouterr().out)
    assert record["quick"] is True and len(calls) == 1  # one timed call, no warm-up
    assert bench.size(7) == 7  # quick only while its figure is measured
    assert main(["bench", counted.name, "--quick"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("quick: ") and lines[1].startswith(counted.name) and lines[1].endswith(" quick")
    calls.clear()
    assert main(["bench", counted.name, "--json"]) == 0
    [record] = json.loads(capsys.readouterr().out)
    assert record["quick"] is False and len(calls) == 8  # measured: one warm-up, seven timed


@pytest.mark.process
def test_a_loaded_bench_measures_each_figure_quiet_and_under_each_load(capsys, monkeypatch):
    """Real load programs and a real training run: every row is the figure measured again, its
    slowdown the loaded value over the quiet one, and nothing of the loads is left afterwards."""
    import threading

    import psutil
    import torch

    bench.load_all()
    matrix = torch.randn(384, 384)
    products = bench.Spec("products_ms", "ms", 1e6, "lower", lambda: 1000 * bench.median_seconds(
        lambda: [matrix @ matrix for _ in range(20)]), "twenty matrix products", loaded_limit=1e6)
    monkeypatch.setitem(bench.REGISTRY, products.name, products)
    assert main(["bench", products.name, "--load", "1", "--training", "--quick", "--json"]) == 0
    [record] = json.loads(capsys.readouterr().out)
    assert record["name"] == products.name and record["value"] > 0 and record["quick"] is True
    loads = ["beside 1 torch program", "with a training run in this process"]
    assert [row["load"] for row in record["loaded"]] == loads
    for row in record["loaded"]:
        assert row["slowdown"] == pytest.approx(row["value"] / record["value"])
        assert row["limit"] == 1e6 and row["within_limit"] is True
    assert psutil.Process().children(recursive=True) == []
    assert not [t for t in threading.enumerate() if t.name == "transviz-bench-training"]


@pytest.mark.parametrize("arguments, message", [
    (["--load", "65"], "--load takes 0 to 64 programs, not 65"),
    (["--load", "-1"], "--load takes 0 to 64 programs, not -1"),
    (["--load", "1", "--device", "cpu"], "--load and --training measure the CPU figures"),
    (["--training", "--list"], "--load and --training measure the CPU figures"),
])
def test_load_options_out_of_place_are_refused(arguments, message, capsys):
    assert main(["bench", *arguments]) == 1
    assert message in capsys.readouterr().err


@pytest.mark.process
def test_a_load_program_ends_when_its_input_closes():
    """A load program outlives no bench: closing its input (the bench ending, or killed) ends it."""
    import subprocess
    import sys

    program = subprocess.Popen([sys.executable, "-m", "transviz", "bench", "--serve-load", "600"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert program.stdout is not None and program.stdin is not None
    assert program.stdout.readline().strip() == "ready"
    program.stdin.write("go\n")
    program.stdin.flush()
    program.stdin.close()
    assert program.wait(timeout=30) == 0


@pytest.mark.parametrize("better, quiet, loaded, slower", [
    ("lower", 2.0, 5.0, 2.5), ("higher", 5000.0, 2000.0, 2.5), ("lower", 2.0, 1.0, 0.5),
    ("lower", 0.0, 0.0, math.nan), ("lower", 0.0, 1.0, math.inf), ("higher", 10.0, 0.0, math.inf),
])
def test_the_slowdown_is_how_many_times_worse_the_loaded_figure_is(better, quiet, loaded, slower):
    def figure(value: float) -> bench.Figure:
        return bench.Figure("f", value, "u", 1.0, better)

    assert bench.slowdown(figure(quiet), figure(loaded)) == pytest.approx(slower, nan_ok=True)
