"""Heads that align (issue 39, item 3): the batched scores against a numpy re-computation from
teacher-forced traces, one sentence at a time, written here (argmax accuracy and AER by their
definitions), on an encoder-decoder and a decoder-only model, a task's split and a user's files."""
from __future__ import annotations

import numpy as np
import pytest

import transviz
from transviz.core.analysis.alignment_heads import Stopped, alignment_heads, gold_pairs
from transviz.core.base.errors import InputError
from transviz.core.data.alignments import Alignment, parse_line
from transviz.core.decoding.inference import teacher_force

COUNT = 40  # test pairs re-computed one by one


@pytest.fixture(scope="module", params=["default", "zh-en", "decoder-only"])
def model(request):
    return transviz.load_model(request.param)


@pytest.fixture(scope="module")
def pairs(model):
    return gold_pairs(model, "test")[:COUNT]


def reference(model, pairs):
    """Per (layer, head-or-mean): hits, gold-linked steps, |A|, |A∩S|, |A∩P|, |S|, from each trace."""
    traces = [teacher_force(model, p.source, p.target) for p, _ in pairs]
    layers, heads = traces[0].cross_attention.shape[:2]
    hits = np.zeros((layers, heads + 1))
    a, a_s, a_p = np.zeros_like(hits), np.zeros_like(hits), np.zeros_like(hits)
    steps = sure = 0
    for trace, (_, gold) in zip(traces, pairs, strict=True):
        maps = trace.cross_attention  # (layers, heads, T, S): T - 1 target words, then the end token
        assert trace.output_tokens[-1] == "</s>" and "</s>" not in trace.source_tokens
        maps = np.concatenate([maps, maps.mean(axis=1, keepdims=True)], axis=1)
        words = len(trace.output_tokens) - 1
        sure += len(gold.sure)
        for j in range(words):
            linked = {i for i, t in gold.possible if t == j}
            steps += bool(linked)
            for layer in range(layers):
                for head in range(heads + 1):
                    i = int(np.argmax(maps[layer, head, j]))
                    hits[layer, head] += i in linked
                    a[layer, head] += 1
                    a_s[layer, head] += (i, j) in gold.sure
                    a_p[layer, head] += (i, j) in gold.possible
    return hits / steps, 1 - (a_s + a_p) / (a + sure), steps, traces


def test_scores_match_a_per_sentence_recomputation(model, pairs):
    accuracy, aer, steps, traces = reference(model, pairs)
    found = alignment_heads(model, pairs, example=3)
    heads = found.accuracy.shape[1]
    assert found.sentences == COUNT and found.steps == steps
    assert found.tokens == sum(len(t.output_tokens) - 1 for t in traces)
    np.testing.assert_allclose(found.accuracy, accuracy[:, :heads], atol=1e-12)
    np.testing.assert_allclose(found.aer, aer[:, :heads], atol=1e-12)
    np.testing.assert_allclose(found.layer_accuracy, accuracy[:, heads], atol=1e-12)
    np.testing.assert_allclose(found.layer_aer, aer[:, heads], atol=1e-12)
    # the ranking: every head once, by accuracy down then AER up
    assert sorted(found.ranking) == [(layer, h) for layer in range(accuracy.shape[0]) for h in range(heads)]
    keys = [(-accuracy[h], aer[h]) for h in found.ranking]
    assert keys == sorted(keys)
    assert found.best == found.ranking[0] and accuracy[found.best] == accuracy[:, :heads].max()


def test_the_example_is_the_best_heads_argmax_beside_the_gold(model, pairs):
    found = alignment_heads(model, pairs, example=3)
    pair = pairs[3][0]
    trace = teacher_force(model, pair.source, pair.target)
    layer, head = found.best
    example = found.example
    assert example.head == found.best and example.source_tokens == tuple(trace.source_tokens)
    assert example.target_tokens == tuple(trace.output_tokens[:-1])
    rows = trace.cross_attention[layer, head, :-1]
    assert example.predicted == tuple((int(np.argmax(row)), j) for j, row in enumerate(rows))
    assert set(example.sure) == set(pair.alignment) == set(example.possible)


def test_the_shipped_models_have_heads_that_align(model):
    found = alignment_heads(model, gold_pairs(model, "test"))
    assert found.sentences == 500
    assert found.accuracy[found.best] > 0.9 and found.aer[found.best] < found.aer_floor + 0.1
    # a perfect head's AER, by its definition: every target token a link, one gold link hit per linked token
    perfect = 1 - 2 * found.steps / (found.tokens + found.sure_links)  # all links sure in the tasks
    assert found.aer_floor == pytest.approx(perfect)
    assert (found.aer_floor < 0.05) == (model.src_vocab.level == "word")  # 中 and 国 -> "china": two links
    assert found.accuracy.min() < 0.7  # not every head aligns


def test_a_users_corpus_with_possible_links(model, pairs, tmp_path):
    corpus, links = tmp_path / "c.tsv", tmp_path / "c.align"
    corpus.write_text("".join(f"{p.source}\t{p.target}\n" for p, _ in pairs), encoding="utf-8")
    # every second sure link of each sentence becomes possible, and a possible link is added
    lines = []
    for pair, _ in pairs:
        written = [f"{i}{'-' if k % 2 == 0 else 'p'}{j}" for k, (i, j) in enumerate(sorted(pair.alignment))]
        lines.append(" ".join(written + ["0p0"]))
    links.write_text("\n".join(lines) + "\n", encoding="utf-8")
    items = gold_pairs(model, str(corpus), str(links))
    assert [p.source for p, _ in items] == [p.source for p, _ in pairs]
    assert items[0][1] == parse_line(lines[0], 1, "c.align")
    accuracy, aer, _, _ = reference(model, items)
    found = alignment_heads(model, items)
    heads = found.accuracy.shape[1]
    np.testing.assert_allclose(found.accuracy, accuracy[:, :heads], atol=1e-12)
    np.testing.assert_allclose(found.aer, aer[:, :heads], atol=1e-12)
    assert found.sure_links < sum(len(p.alignment) for p, _ in pairs)


def test_aer_by_hand_on_one_sentence(model, pairs):
    """A gold alignment made of one head's own argmax links scores that head perfectly."""
    pair, _ = pairs[0]
    trace = teacher_force(model, pair.source, pair.target)
    rows = trace.cross_attention[0, 0, :-1]
    own = frozenset((int(np.argmax(row)), j) for j, row in enumerate(rows))
    found = alignment_heads(model, [(pair, Alignment(own, own))])
    assert found.accuracy[0, 0] == 1.0 and found.aer[0, 0] == 0.0
    # half of them possible only: still no error (AER counts A∩P over |A| + |S|)
    half = frozenset(sorted(own)[::2])
    found = alignment_heads(model, [(pair, Alignment(half, own))])
    assert found.aer[0, 0] == pytest.approx(1 - (len(half) + len(own)) / (len(own) + len(half)))


def test_refusals_and_stopping(model, pairs):
    with pytest.raises(InputError, match="no pairs"):
        alignment_heads(model, [])
    with pytest.raises(InputError, match="example must be from 0 to 39, got 40"):
        alignment_heads(model, pairs, example=COUNT)
    with pytest.raises(InputError, match="needs its file of alignments"):
        gold_pairs(model, "some.tsv")
    with pytest.raises(Stopped):
        alignment_heads(model, pairs, cancelled=lambda: True)
    seen = []
    alignment_heads(model, pairs, on_progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (COUNT, COUNT)


def test_a_task_without_gold_alignments_is_refused():
    with pytest.raises(InputError, match="the task 'dates' has no gold alignments"):
        gold_pairs(transviz.load_model("dates"), "test")
