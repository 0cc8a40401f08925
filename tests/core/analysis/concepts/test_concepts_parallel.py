"""What the parallel view's claim rests on: T cached decoding steps of the shipped model give the
same logits as the one teacher-forced pass of torch's forward over the same tokens, so training may
read all positions at once. The timings themselves are not tested (they vary); their shape is."""
from __future__ import annotations

import pytest
import torch

import transviz
from transviz.core.analysis.concepts.forward import Sentence
from transviz.core.analysis.concepts.parallel import cached_logits, decoder_inputs, time_parallel


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
