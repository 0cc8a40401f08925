"""The look-up's numbers against numpy: weights are the softmax of q.k / sqrt(d_k) from the
walkthrough's own queries and keys, cosines and the retrieved mixture are recomputed here."""
from __future__ import annotations

import numpy as np
import pytest

import transviz
from transviz.core.analysis.concepts.forward import Sentence
from transviz.core.analysis.concepts.lookup import lookup, measure_agreement
from transviz.core.analysis.walkthrough import KINDS, walkthrough
from transviz.core.data.held_out import held_out_pairs

SENTENCE = Sentence("ich mochte ein bier", ("i", "want"))


@pytest.fixture(scope="module", params=["default", "decoder-only"])
def model(request):
    """The default, and a decoder-only model, whose output rows see the source's keys, then the output's."""
    return transviz.load_model(request.param)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("layer", "head"), [(0, 0), (2, 3)])
def test_the_lookup_is_softmax_cosines_and_weights_at_v(model, kind, layer, head):
    walk = walkthrough(model, SENTENCE.source, "i want", kind, layer, head)
    q = walk.queries[-1].astype(np.float64)
    keys, values = walk.keys.astype(np.float64), walk.values.astype(np.float64)
    scores = keys @ q / np.sqrt(keys.shape[1])
    weights = np.exp(scores - scores.max())
    weights /= weights.sum()  # the last query sees every key: no mask to apply
    shown = lookup(model, SENTENCE, kind, layer, head)
    order = np.argsort(-scores)
    assert list(shown.order) == list(order)
    assert shown.query_token == ("bier" if kind == "encoder_self" else "want")
    assert shown.key_tokens == [walk.key_tokens[i] for i in order]
    np.testing.assert_allclose(shown.weights, weights[order], atol=1e-5)
    assert all(np.diff(shown.scaled) <= 0)
    best = keys[order[0]]
    cosines = [k @ best / (np.linalg.norm(k) * np.linalg.norm(best)) for k in keys[order]]
    np.testing.assert_allclose(shown.key_cosine, cosines, atol=1e-6)
    assert shown.key_cosine[0] == pytest.approx(1.0)
    mixture = weights @ values
    np.testing.assert_allclose(shown.mixture, mixture, atol=1e-5)
    np.testing.assert_allclose(shown.best_value, values[order[0]])
    expected = mixture @ values[order[0]] / (np.linalg.norm(mixture) * np.linalg.norm(values[order[0]]))
    assert shown.mixture_cosine == pytest.approx(expected, abs=1e-5)
    assert shown.mixture_norm == pytest.approx(np.linalg.norm(mixture), abs=1e-5)


def test_before_a_step_the_decoder_query_is_the_start_token(model):
    shown = lookup(model, Sentence("ein bier"), "decoder_self", 0, 1)
    source = ["ein", "bier"] if model.config.decoder_only else []  # a decoder-only model's row sees its source first
    assert shown.query_token == "<s>" and shown.key_tokens == source + ["<s>"]
    assert sum(shown.weights) == pytest.approx(1.0) and (source or shown.weights == pytest.approx([1.0]))


def mean_ranks(values) -> list[float]:
    """1-based ranks, equal values sharing the mean of the places they take."""
    ordered = sorted(values)
    return [float(np.mean([i + 1 for i, v in enumerate(ordered) if v == x])) for x in values]


def spearman_by_hand(a, b) -> float | None:
    if len(a) < 3:
        return None
    ra, rb = np.array(mean_ranks(list(a))), np.array(mean_ranks(list(b)))
    if ra.std() == 0 or rb.std() == 0:
        return None
    return float(np.corrcoef(ra, rb)[0, 1])


@pytest.mark.parametrize("kind", KINDS)
def test_the_agreement_over_the_split_is_each_rows_rank_correlation(model, kind):
    """Per sentence and row, from the walkthrough's own keys and scores: the best key, the other keys'
    cosines to it, their rank correlation with the scores; the share above 0 and the mean."""
    pairs = held_out_pairs(model, "test")[:30]
    agreement = measure_agreement(model, kind, sentences=30)
    for layer, head in [(0, 0), (1, 2), (2, 3)]:
        found = []
        for pair in pairs:
            walk = walkthrough(model, pair.source, pair.target, kind, layer, head)
            keys = walk.keys.astype(np.float64)
            for row in range(len(walk.query_tokens)):
                visible = [k for k in range(len(walk.key_tokens)) if walk.mask[row, k]]
                scores = (walk.queries[row].astype(np.float64) @ keys.T) / np.sqrt(walk.d_k)
                best = max(visible, key=lambda k: scores[k])
                others = [k for k in visible if k != best]
                cosines = [keys[k] @ keys[best] / (np.linalg.norm(keys[k]) * np.linalg.norm(keys[best]))
                           for k in others]
                value = spearman_by_hand(cosines, [scores[k] for k in others])
                if value is not None:
                    found.append(value)
        assert agreement.rows[layer, head] == len(found)
        assert agreement.share[layer, head] == pytest.approx(np.mean(np.array(found) > 0), abs=1e-12)
        assert agreement.mean[layer, head] == pytest.approx(np.mean(found), abs=1e-6)
    assert agreement.sentences == 30


def test_the_row_shown_has_its_own_rank_correlation(model):
    shown = lookup(model, SENTENCE, "cross", 0, 0)
    expected = spearman_by_hand(shown.key_cosine[1:], shown.weights[1:])
    assert shown.agreement == pytest.approx(expected, abs=1e-9)
    single = lookup(model, Sentence("ein bier"), "decoder_self", 0, 1)
    assert single.agreement is None  # the start token alone: nothing else to rank
