"""``transviz align`` (issue 39, item 3): the ranking table, JSON, a user's corpus with its
alignments, and one-line refusals."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest

import transviz
from transviz.cli import main
from transviz.core.analysis.alignment_heads import alignment_heads, gold_pairs


@pytest.fixture(scope="module")
def expected():
    model = transviz.load_model("default")
    return alignment_heads(model, gold_pairs(model, "test"))


def test_the_table_ranks_every_head_as_the_core_does(capsys, expected):
    assert main(["align"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("cross-attention heads against gold alignments: the test split of toy-de-en, 500 pairs\n")
    rows = re.findall(r"^ +(\d+)  L(\d)H(\d) +([\d.]+)% +([\d.]+)$", out, re.MULTILINE)
    assert [(int(layer), int(head)) for _, layer, head, _, _ in rows] == list(expected.ranking)
    for _, layer, head, accuracy, aer in rows:
        assert float(accuracy) == pytest.approx(100 * expected.accuracy[int(layer), int(head)], abs=0.05)
        assert float(aer) == pytest.approx(expected.aer[int(layer), int(head)], abs=5e-4)
    assert f"L0 {expected.layer_accuracy[0]:.1%} AER {expected.layer_aer[0]:.3f}" in out
    # the example: one line per target word, the head's source word beside the gold one
    best = "L{}H{}".format(*expected.best)
    assert f"{best} on 'sie hoffen , dass sie unseren großen brief schreibt'" in out
    assert re.search(r"^  writes +schreibt +schreibt$", out, re.MULTILINE)


def test_json_holds_the_same_scores(capsys, expected):
    assert main(["align", "--json", "--example", "2"]) == 0
    found = json.loads(capsys.readouterr().out)
    np.testing.assert_allclose(found["accuracy"], expected.accuracy)
    np.testing.assert_allclose(found["layer_aer"], expected.layer_aer)
    assert found["ranking"] == [list(h) for h in expected.ranking] and found["sentences"] == 500
    assert found["example"]["head"] == list(expected.best)
    assert found["example"]["source_tokens"] == gold_pairs(transviz.load_model("default"))[2][0].source.split()


def test_a_corpus_and_its_alignments(tmp_path, capsys):
    corpus, links = tmp_path / "mine.tsv", tmp_path / "mine.align"
    corpus.write_text("ich trinke ein bier\ti drink a beer\ner ruft seine mutter an\the calls his mother\n",
                      encoding="utf-8")
    links.write_text("0-0 1-1 2-2 3-3\n0-0 1-1 4p1 2-2 3-3\n", encoding="utf-8")
    assert main(["align", "--corpus", str(corpus), "--alignments", str(links), "--example", "1"]) == 0
    out = capsys.readouterr().out
    assert f"{corpus} with {links}, 2 pairs" in out and "against 8 sure links" in out
    assert re.search(r"^  calls +. (ruft|an) +ruft \(an\)$", out, re.MULTILINE)


@pytest.mark.parametrize(("argv", "says"), [
    (["align", "--corpus", "x.tsv"], "transviz: --corpus and --alignments go together"),
    (["align", "--model", "dates"], "transviz: the task 'dates' has no gold alignments"),
    (["align", "--example", "500"], "transviz: example must be from 0 to 499, got 500"),
])
def test_refusals_are_one_line(capsys, argv, says):
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith(says) and err.count("\n") == 1
