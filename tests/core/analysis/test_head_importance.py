"""Head importance and the prune curve against a brute-force loop of single decodings, each with
its ablations passed as interventions, one sentence at a time."""
from __future__ import annotations

import threading

import numpy as np
import pytest

import transviz
from transviz import AblateHead
from transviz.core.analysis.head_importance import Stopped, prune_curves, tied_heads
from transviz.core.data.held_out import held_out_pairs


@pytest.fixture(scope="module")
def model():
    return transviz.load_model("default")


@pytest.fixture(scope="module")
def pairs(model):
    return held_out_pairs(model, "test")[:24]


@pytest.fixture(scope="module")
def tsv(pairs, tmp_path_factory):
    path = tmp_path_factory.mktemp("data") / "some.tsv"
    path.write_text("".join(f"{p.source}\t{p.target}\n" for p in pairs), encoding="utf-8")
    return str(path)


def brute_force(model, pairs, kind, heads, metric) -> float:
    items = [AblateHead(kind, layer, head) for layer, head in heads]
    if metric == "exact_match":
        hits = 0
        for pair in pairs:
            trace = transviz.decode(model, pair.source, interventions=items)
            hits += trace.stop_reason == "end" and trace.output_tokens[:-1] == model.tgt_vocab.tokenize(pair.target)
        return hits / len(pairs)
    logs = [np.log(transviz.teacher_force(model, p.source, p.target, interventions=items).output_probabilities
                   .astype(np.float64)) for p in pairs]
    return float(np.concatenate(logs).mean())


@pytest.mark.parametrize("kind, metric", [("cross", "logprob"), ("encoder_self", "logprob")])
def test_importance_is_the_drop_each_single_ablation_causes(model, pairs, tsv, kind, metric):
    got = transviz.head_importance(model, kind, metric, data=tsv)
    base = brute_force(model, pairs, kind, [], metric)
    expected = np.array([[base - brute_force(model, pairs, kind, [(layer, head)], metric) for head in range(4)]
                         for layer in range(3)])
    np.testing.assert_allclose(got, expected, atol=1e-5)
    assert np.abs(expected).max() > 1e-3  # some head matters on these sentences


def test_the_prune_curve_switches_heads_off_least_important_first(model, pairs, tsv):
    importance = transviz.head_importance(model, "cross", "logprob", data=tsv)
    curve = transviz.prune_curve(model, "cross", "logprob", data=tsv, importance=importance)
    assert sorted(curve.order) == [(layer, head) for layer in range(3) for head in range(4)]
    assert [importance[h] for h in curve.order] == sorted(importance.flatten())
    for k in (0, 1, 5, 12):
        assert curve.values[k] == pytest.approx(brute_force(model, pairs, "cross", curve.order[:k], "logprob"),
                                                abs=1e-5)


def test_the_exact_match_curve_is_what_decoding_with_those_heads_off_gives(model, pairs, tsv):
    # one head alone changes few of these sentences (the model is redundant); many heads do
    curve = transviz.prune_curve(model, "cross", "exact_match", data=tsv, importance=np.zeros((3, 4)))
    assert curve.order[:3] == ((0, 0), (0, 1), (0, 2))  # ties go in layer, head order
    for k in (0, 9, 12):
        assert curve.values[k] == brute_force(model, pairs, "cross", curve.order[:k], "exact_match")
    assert curve.values[0] - curve.values[12] > 0.5


def test_progress_reaches_the_total_and_stop_stops(model, tsv):
    seen = []
    transviz.prune_curve(model, "decoder_self", "logprob", data=tsv, on_progress=lambda d, t: seen.append((d, t)))
    assert seen[-1][0] == seen[-1][1] and all(a[0] <= b[0] for a, b in zip(seen, seen[1:], strict=False))
    stop = threading.Event()
    stop.set()
    with pytest.raises(Stopped):
        transviz.head_importance(model, "cross", data=tsv, cancelled=stop.is_set)


@pytest.mark.parametrize("call, match", [
    (lambda m: transviz.head_importance(m, "self"), "kind must be"),
    (lambda m: transviz.head_importance(m, "cross", "bleu"), "metric must be exact_match or logprob"),
    (lambda m: transviz.head_importance(m, "cross", data="/no/such.tsv"), "cannot read"),
])
def test_bad_requests_are_clear_errors(model, call, match):
    with pytest.raises(transviz.TransvizError, match=match):
        call(model)


def removable_by_hand(values, loss=0.01) -> int:
    """Heads switched off before the metric first falls ``loss`` below the start, counted in a loop."""
    for k, value in enumerate(values):
        if values[0] - value >= loss - 1e-9:
            return k - 1
    return len(values) - 1


def test_tie_orders_shuffle_only_equally_important_heads(model, pairs, tsv):
    """Orders with shuffled ties keep the heads sorted by importance, shuffle within ties only, and
    each curve is what decoding with its heads off gives; the counts come from those values."""
    importance = np.zeros((3, 4))
    importance[2, 1], importance[0, 3] = 0.05, -0.05  # two heads outside the tie of ten
    curves = prune_curves(model, "cross", "exact_match", data=tsv, importance=importance,
                          ties=(None, 0, 1, 2))
    assert [c.ties for c in curves] == [None, 0, 1, 2]
    tied = [(layer, head) for layer in range(3) for head in range(4) if (layer, head) not in ((2, 1), (0, 3))]
    assert curves[0].order == ((0, 3), *tied, (2, 1))  # layer, head order among the ten
    for curve in curves:
        assert curve.order[0] == (0, 3) and curve.order[-1] == (2, 1) and sorted(curve.order[1:-1]) == tied
    assert len({c.order for c in curves}) == 4  # three seeds, three other orders of the ten
    for curve in curves[1:3]:
        for k in (0, 4, 8, 11):
            assert curve.values[k] == brute_force(model, pairs, "cross", curve.order[:k], "exact_match")
        assert curve.removable() == removable_by_hand(curve.values)
    assert curves[0].values[-1] == curves[3].values[-1]  # every head off, in any order


def test_tied_heads_counts_heads_that_share_an_importance():
    importance = np.array([[0.0, 0.002, 0.0], [0.004, 0.002, -0.002]])
    by_hand = sum(1 for v in importance.flat if (importance == v).sum() > 1)
    assert tied_heads(importance) == by_hand == 4
    assert tied_heads(np.arange(6.0).reshape(2, 3)) == 0
