"""The intervention flags of ``transviz decode`` and ``transviz heads`` on the shipped model."""
from __future__ import annotations

import json

import numpy as np
import pytest

import transviz
from transviz import AblateHead, NoPositions, ScaleHead, ScaleScores, TieQueryKey
from transviz.cli import main
from transviz.core.data.held_out import held_out_pairs

SOURCE = "ich mochte ein bier"


@pytest.fixture(scope="module")
def model():
    return transviz.load_model("default")


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_decode_flags_run_the_interventions_they_name(capsys, model):
    code, out, err = run(capsys, "decode", SOURCE, "--json", "--ablate", "cross:1:2", "--ablate", "cross:2:0:copy:0:1",
                         "--ablate", "encoder_self:0:3:uniform", "--scale", "0.5:cross:1", "--scale", "2",
                         "--tie-qk", "encoder_self:0", "--tie-qk", "decoder_self:1:2", "--no-positions", "encoder")
    assert code == 0 and err == ""
    items = [AblateHead("cross", 1, 2), AblateHead("cross", 2, 0, "copy", (0, 1)),
             AblateHead("encoder_self", 0, 3, "uniform"), ScaleScores(0.5, "cross", 1), ScaleScores(2.0),
             TieQueryKey("encoder_self", 0), TieQueryKey("decoder_self", 1, 2), NoPositions("encoder")]
    expected = transviz.decode(model, SOURCE, interventions=items)
    written = json.loads(out)
    assert [i["name"] for i in written["interventions"]] == [type(i).__name__ for i in items]
    assert written["translation"] == expected.translation
    np.testing.assert_allclose(np.array(written["encoder_self_attention"]), expected.encoder_self_attention, atol=1e-6)


def test_decode_scales_one_head(capsys, model):
    code, out, err = run(capsys, "decode", SOURCE, "--json", "--scale-head", "cross:1:2:0", "--scale", "2:cross")
    assert code == 0 and err == ""
    expected = transviz.decode(model, SOURCE, interventions=[ScaleScores(2.0, "cross"), ScaleHead("cross", 1, 2, 0.0)])
    written = json.loads(out)
    assert [i["name"] for i in written["interventions"]] == ["ScaleScores", "ScaleHead"]
    np.testing.assert_allclose(np.array(written["cross_attention"]), expected.cross_attention, atol=1e-6)


def test_decode_says_what_the_unchanged_model_writes(capsys):
    code, out, _ = run(capsys, "decode", SOURCE, "--ablate", "cross:0:0")
    assert code == 0
    assert "intervention: AblateHead(kind='cross', layer=0, head=0, mode='zero', source=None)" in out
    assert "without interventions: i want a beer (the same)" in out
    code, out, _ = run(capsys, "decode", SOURCE, *[f for h in range(4) for f in ("--ablate", f"cross:2:{h}")],
                       *[f for h in range(4) for f in ("--ablate", f"cross:1:{h}")])
    assert "without interventions: i want a beer\n" in out and "translation: i want a beer\n" not in out


@pytest.mark.parametrize("args, message", [
    (["--ablate", "cross:1"], "write KIND:LAYER:HEAD[:MODE]"),
    (["--ablate", "cross:a:1"], "whole numbers counted from 0"),
    (["--ablate", "cross:1:2:copy"], "write KIND:LAYER:HEAD[:MODE]"),
    (["--ablate", "cross:1:2:half"], "mode must be zero, uniform, mean or copy"),
    (["--ablate", "cross:0:1:copy:1:1"], "same or an earlier layer"),
    (["--ablate", "cross:3:0"], "no layer 3: the cross attention has layers 0 to 2"),
    (["--ablate", "self:0:0"], "kind must be encoder_self, decoder_self or cross"),
    (["--scale", "big"], "the factor must be a number"),
    (["--scale", "-1"], "scale factor must be a number from 0 to 1e6"),
    (["--scale", "1:cross:0:0"], "write F, F:KIND or F:KIND:LAYER"),
    (["--tie-qk", "cross"], "write KIND:LAYER or KIND:LAYER:HEAD"),
    (["--tie-qk", "cross:0:7"], "no head 7"),
    (["--scale-head", "cross:0:1"], "write KIND:LAYER:HEAD:F"),
    (["--scale-head", "cross:0:1:big"], "the factor must be a number"),
    (["--scale-head", "cross:0:9:2"], "no head 9"),
])
def test_bad_intervention_flags_are_one_line_errors(capsys, args, message):
    code, out, err = run(capsys, "decode", SOURCE, *args)
    assert code == 1 and out == ""
    assert err.startswith("transviz: ") and message in err and err.count("\n") == 1


def test_heads_prints_json_that_matches_the_core(capsys, model, tmp_path):
    path = tmp_path / "some.tsv"
    pairs = held_out_pairs(model, "test")[:16]
    path.write_text("".join(f"{p.source}\t{p.target}\n" for p in pairs), encoding="utf-8")
    code, out, err = run(capsys, "heads", "--kind", "cross", "--metric", "logprob", "--data", str(path), "--json")
    assert code == 0 and err == ""
    written = json.loads(out)["kinds"]["cross"]
    importance = transviz.head_importance(model, "cross", "logprob", data=str(path))
    np.testing.assert_allclose(written["importance"], importance, atol=1e-9)
    curve = transviz.prune_curve(model, "cross", "logprob", data=str(path), importance=importance)
    assert written["prune_curve"]["order"] == [list(h) for h in curve.order]
    assert written["removable_within_one_point"] is None  # a point of exact match, not of log-probability


def test_heads_table_counts_the_heads_that_can_go(capsys, model, tmp_path):
    path = tmp_path / "some.tsv"
    pairs = held_out_pairs(model, "test")[:20]
    path.write_text("".join(f"{p.source}\t{p.target}\n" for p in pairs), encoding="utf-8")
    code, out, _ = run(capsys, "heads", "--kind", "encoder_self", "--data", str(path))
    curve = transviz.prune_curve(model, "encoder_self", "exact_match", data=str(path))
    lost = [k for k, v in enumerate(curve.values) if curve.values[0] - v >= 0.01 - 1e-9]
    count = (lost[0] - 1) if lost else 12
    assert code == 0 and f"{count} of 12 encoder_self heads can be removed losing less than one point" in out
    assert out.count("layer ") == 3


def test_heads_gives_the_count_with_its_spread_over_tie_orders(capsys, model, tmp_path):
    """Equally important heads in several seeded orders: each order's curve is in the JSON, its
    count is the one recomputed here from its values, and the table prints their lowest and highest."""
    path = tmp_path / "some.tsv"
    pairs = held_out_pairs(model, "test")[:20]
    path.write_text("".join(f"{p.source}\t{p.target}\n" for p in pairs), encoding="utf-8")
    code, out, _ = run(capsys, "heads", "--kind", "cross", "--data", str(path), "--json")
    written = json.loads(out)["kinds"]["cross"]
    importance = np.array(written["importance"])
    counts = []
    for order in (written["prune_curve"], *written["tie_orders"]):
        assert sorted(importance[tuple(h)] for h in order["order"]) == [importance[tuple(h)] for h in order["order"]]
        values = order["values"]
        lost = [k for k, v in enumerate(values) if values[0] - v >= 0.01 - 1e-9]
        counts.append(lost[0] - 1 if lost else 12)
    assert [o["removable_within_one_point"] for o in written["tie_orders"]] == counts[1:]
    assert len(written["tie_orders"]) >= 4 and len({tuple(map(tuple, o["order"])) for o in written["tie_orders"]}) > 1
    assert written["tied_heads"] == sum(1 for v in importance.flat if (importance == v).sum() > 1)
    code, out, _ = run(capsys, "heads", "--kind", "cross", "--data", str(path))
    spread = (f"{min(counts[1:])} to {max(counts[1:])}" if min(counts[1:]) < max(counts[1:])
              else f"{counts[1]} in each")
    assert (f"{counts[0]} of 12 cross heads can be removed losing less than one point; {spread} with the "
            f"{written['tied_heads']} heads of equal importance in {len(counts) - 1} random orders") in out
