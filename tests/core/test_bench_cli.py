"""``transviz bench``: --list and --json print what they say, and JSON stays valid for any value."""
import json
import math

from transviz import bench
from transviz.cli import main


def test_list_with_json_prints_the_figures_as_json(capsys):
    assert main(["bench", "--list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    registry = bench.load_all()
    assert [f["name"] for f in listed] == list(registry)
    first = registry[listed[0]["name"]]
    assert listed[0] == {"name": first.name, "unit": first.unit, "target": first.target, "better": first.better,
                         "description": first.description}


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
