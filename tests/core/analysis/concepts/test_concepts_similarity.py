"""The head-similarity matrix against numpy: for the first test pairs, the JSD of every two heads'
rows is recomputed here from teacher-forced traces, one pair of rows at a time, as the mean of the
two KL divergences to their mixture (decoder rows over their visible keys only)."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import transviz
from transviz.core.analysis.concepts.forward import Sentence
from transviz.core.analysis.concepts.similarity import (
    average_linkage_order,
    head_similarity,
    measure_pair,
    measure_similarity,
)
from transviz.core.analysis.walkthrough import KINDS
from transviz.core.data.held_out import held_out_pairs

SENTENCES = 3
MAPS = {"encoder_self": "encoder_self_attention", "decoder_self": "decoder_self_attention", "cross": "cross_attention"}


@pytest.fixture(scope="module")
def model():
    return transviz.load_model("default")


def kl(p: np.ndarray, q: np.ndarray) -> float:
    seen = p > 0
    return float(np.sum(p[seen] * np.log(p[seen] / q[seen])))


def jsd(p: np.ndarray, q: np.ndarray) -> float:
    m = (p + q) / 2
    return (kl(p, m) + kl(q, m)) / 2


def expected_divergence(model, kind: str) -> np.ndarray:
    traces = [transviz.teacher_force(model, pair.source, pair.target)
              for pair in held_out_pairs(model, "test")[:SENTENCES]]
    heads = [(layer, head) for layer in range(getattr(traces[0], MAPS[kind]).shape[0])
             for head in range(getattr(traces[0], MAPS[kind]).shape[1])]
    total, rows = np.zeros((len(heads), len(heads))), 0
    for trace in traces:
        maps = getattr(trace, MAPS[kind]).astype(np.float64)
        for q in range(maps.shape[2]):
            visible = q + 1 if kind == "decoder_self" else maps.shape[3]
            for i, (la, ha) in enumerate(heads):
                for j, (lb, hb) in enumerate(heads):
                    total[i, j] += jsd(maps[la, ha, q, :visible], maps[lb, hb, q, :visible])
            rows += 1
    return total / rows


@pytest.mark.parametrize("kind", KINDS)
def test_the_matrix_is_the_mean_jsd_of_the_heads_rows(model, kind):
    found = head_similarity(model, kind, sentences=SENTENCES)
    np.testing.assert_allclose(found.divergence, expected_divergence(model, kind), atol=1e-9)
    assert found.sentences == SENTENCES
    assert found.heads[:2] == ((0, 0), (0, 1)) and len(found.heads) == 3 * 4  # layer-major, every layer's heads


@pytest.mark.parametrize("kind", KINDS)
def test_a_divergence_is_symmetric_zero_on_the_diagonal_and_at_most_ln2(model, kind):
    d = head_similarity(model, kind, sentences=SENTENCES).divergence
    np.testing.assert_allclose(d, d.T, atol=1e-12)
    assert np.all(np.diag(d) == 0) and d.min() >= 0 and d.max() <= math.log(2)
    off = d + np.diag(np.full(len(d), np.inf))
    assert off.min() > 0  # trained heads differ somewhat


def test_the_most_alike_pair_is_the_smallest_off_diagonal_cell(model):
    found = head_similarity(model, "cross", sentences=SENTENCES)
    a, b, value = found.most_alike()
    i, j = found.heads.index(a), found.heads.index(b)
    off = found.divergence + np.diag(np.full(len(found.heads), np.inf))
    assert value == off.min() == found.divergence[i, j] and a < b


def test_the_order_is_a_permutation_that_puts_planted_clusters_together(model):
    rng = np.random.default_rng(0)
    points = np.concatenate([rng.normal(centre, 0.1, size=(4, 2)) for centre in (0.0, 5.0, 10.0)])
    shuffle = rng.permutation(len(points))
    points = points[shuffle]
    distance = np.linalg.norm(points[:, None] - points[None, :], axis=-1)
    order = average_linkage_order(distance)
    assert sorted(order.tolist()) == list(range(len(points)))
    clusters = np.round(points[order, 0] / 5).astype(int)  # each planted cluster in one run of the order
    assert sum(clusters[k] != clusters[k + 1] for k in range(len(clusters) - 1)) == 2
    found = head_similarity(model, "encoder_self", sentences=SENTENCES)
    assert sorted(found.order.tolist()) == list(range(len(found.heads)))
    assert np.array_equal(found.ordered, found.divergence[np.ix_(found.order, found.order)])


def test_the_measure_is_kept_until_a_weight_changes(model):
    first = head_similarity(model, "cross", sentences=SENTENCES)
    assert head_similarity(model, "cross", sentences=SENTENCES) is first
    copy = transviz.load_model("default")
    kept = head_similarity(copy, "cross", sentences=SENTENCES)
    with torch.no_grad():
        next(copy.net.parameters()).mul_(1.5)
    assert head_similarity(copy, "cross", sentences=SENTENCES) is not kept


def test_measuring_reports_each_pair_and_stops_when_cancelled(model):
    reports: list[tuple[int, int]] = []
    measured = measure_similarity(model, "cross", SENTENCES, lambda done, total: reports.append((done, total)))
    assert reports == [(done, SENTENCES) for done in range(1, SENTENCES + 1)]
    assert measured is not None
    np.testing.assert_allclose(measured.divergence, head_similarity(model, "cross", SENTENCES).divergence)
    stopped: list[tuple[int, int]] = []
    assert measure_similarity(model, "cross", SENTENCES, lambda d, t: stopped.append((d, t)),
                              lambda: len(stopped) == 2) is None
    assert stopped == [(1, SENTENCES), (2, SENTENCES)]  # checked between pairs: no third pair read


def test_a_pair_holds_both_heads_maps_and_their_sentence_divergence(model):
    """measure_pair on one sentence: the teacher-forced maps of the two heads, earlier head first,
    and the mean row JSD between them written out above."""
    sentence = Sentence("ich mochte ein bier", ("i",))
    pair = measure_pair(model, sentence, "decoder_self", (2, 1), (0, 3), split=0.25)
    trace = transviz.teacher_force(model, sentence.source, "i")
    maps = trace.decoder_self_attention.astype(np.float64)
    assert (pair.a, pair.b, pair.split) == ((0, 3), (2, 1), 0.25)
    np.testing.assert_allclose(pair.maps[0], maps[0, 3], atol=1e-5)
    np.testing.assert_allclose(pair.maps[1], maps[2, 1], atol=1e-5)
    expected = np.mean([jsd(maps[0, 3, q], maps[2, 1, q]) for q in range(maps.shape[2])])
    assert pair.sentence == pytest.approx(expected, abs=1e-6)
    assert pair.queries == ["<s>", "i"] and len(pair.keys) == 2
