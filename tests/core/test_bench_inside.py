"""The figures of one decoding step's inside: each runs by its own code (a quick run) and reports a
time, against the targets the issue set."""
import json

import pytest

from transviz import bench
from transviz.bench.inside import PAIR
from transviz.cli import main


@pytest.mark.parametrize(("name", "target"), [("patching_grid_s_default", 2.0), ("lens_step_ms_default", 20.0),
                                              ("alignment_scores_s_default", 10.0)])
def test_each_figure_runs_and_reports_a_time(capsys, name, target):
    assert bench.REGISTRY[name].target == target and bench.REGISTRY[name].better == "lower"
    assert main(["bench", name, "--quick", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)[0]
    assert record["name"] == name and record["quick"] is True and record["value"] > 0


def test_the_pairs_outputs_differ_so_the_patching_map_has_a_step():
    import transviz

    model = transviz.load_model("default")
    a, b = (transviz.decode(model, sentence).output_tokens for sentence in PAIR)
    assert len(PAIR[0].split()) == 5 and a != b
