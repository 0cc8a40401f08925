"""What the parallel view's claim rests on: T cached decoding steps of the shipped model give the
same logits as the one teacher-forced pass of torch's forward over the same tokens, so training may
read all positions at once; and the chains of layers that must wait for one another are the longest
paths of the dependency graphs. The timings themselves are not tested (they vary); what is timed,
and on how many threads, is."""
from __future__ import annotations

from functools import cache

import pytest
import torch

import transviz
from transviz.core.analysis.concepts import parallel
from transviz.core.analysis.concepts.forward import Sentence
from transviz.core.analysis.concepts.parallel import cached_logits, chains, decoder_inputs, time_parallel


@pytest.fixture(scope="module")
def model():
    return transviz.load_model("default")


@pytest.mark.parametrize("length", [1, 5, 40])
def test_the_cached_steps_compute_the_teacher_forced_logits(model, length):
    source = torch.tensor([model.src_vocab.encode("ich mochte ein bier").ids])
    tokens = decoder_inputs(model, length)
    model.net.eval()
    with torch.no_grad():
        forward = model.net(source, tokens).logits[0]  # the whole model, one call
        stepped = cached_logits(model, model.net.encode(source), tokens)
    assert stepped.shape == forward.shape == (length, len(model.tgt_vocab))
    torch.testing.assert_close(stepped, forward, atol=1e-4, rtol=0)


def test_the_decoder_inputs_start_with_the_start_token_and_skip_the_specials(model):
    ids = decoder_inputs(model, 300)[0].tolist()
    assert ids[0] == model.tgt_vocab.bos_id and len(ids) == 300 and min(ids[1:]) >= 4
    assert len(set(ids[1:])) == len(model.tgt_vocab) - 4  # every ordinary token in turn


def test_the_timings_cover_the_lengths_the_model_reads_in_order(model):
    threads = torch.get_num_threads()
    times = time_parallel(model, Sentence("ein bier"), lengths=[16, 4, 500, 8, 4], repeats=1)
    assert times.lengths == (4, 8, 16)  # sorted, once each, none past max_len 128
    for series in (times.teacher_forced, times.cached_steps, times.gru):
        assert len(series) == 3 and all(seconds > 0 for seconds in series)
    assert torch.get_num_threads() == threads


def test_each_way_is_timed_on_one_thread_over_the_same_lengths(model, monkeypatch):
    """What is timed: for each T, the teacher-forced pass over T decoder tokens, the cached steps
    over the same tokens and a GRU over T inputs, each with torch on one thread."""
    timed = []

    def recorded(work, repeats):
        func, args = work.func, work.args
        name = getattr(func, "__name__", type(func).__name__)
        length = args[-1].shape[1]  # the tokens (1, T) or the GRU's inputs (1, T, d)
        timed.append((name, length, torch.get_num_threads(), repeats))
        return 1.0

    monkeypatch.setattr(parallel, "median_seconds", recorded)
    times = time_parallel(model, Sentence("ein bier"), lengths=[4, 8], repeats=5)
    assert timed == [(name, length, 1, 5) for length in (4, 8)
                     for name in ("teacher_forced_logits", "cached_logits", "GRU")]
    assert times.threads == 1 and times.repeats == 5


@cache
def longest(node, graph) -> int:
    """Layer applications on the longest chain ending at ``node`` of ``graph`` (node -> inputs)."""
    return 1 + max((longest(before, graph) for before in dict(graph)[node]), default=0)


def dependency_graph(kind: str, layers: int, length: int) -> tuple:
    """(layer, position) -> the (layer, position) it reads; layer 0 holds the inputs, which cost nothing."""
    graph = {}
    for layer in range(1, layers + 1):
        for t in range(length):
            if kind == "pass":  # masked self-attention: the layer below at positions up to t
                inputs = [(layer - 1, s) for s in range(t + 1)]
            elif kind == "generating":  # the cache holds this layer's past; the input is the last output
                inputs = [(layer - 1, s) for s in range(t + 1)] + [(layer, s) for s in range(t)]
                if layer == 1 and t > 0:
                    inputs.append((layers, t - 1))
            else:  # a GRU: its own state at t-1 and the layer below at t
                inputs = [(layer - 1, t)] + ([(layer, t - 1)] if t > 0 else [])
            graph[(layer, t)] = tuple(i for i in inputs if i[0] > 0)
    return tuple(graph.items())


@pytest.mark.parametrize(("layers", "lengths"), [(3, (8, 16, 64)), (1, (1, 5)), (4, (2, 7))])
def test_the_chains_are_the_longest_paths_of_the_dependency_graphs(layers, lengths):
    found = chains(layers, lengths)
    for i, length in enumerate(lengths):
        for kind, counted in (("pass", found.teacher_forced), ("generating", found.generating), ("gru", found.gru)):
            graph = dependency_graph(kind, layers, length)
            assert counted[i] == max(longest(node, graph) for node, _ in graph), (kind, length)
