"""Models decoded side by side in lock-step (the Variants tab's core), on the shipped siblings:
each run equals the model decoded alone, steps and backs line up, the KV bytes equal the cache's
own tensors, the head groups are those the weights share, and a decoder-only model's one map is
whole."""
import copy

import numpy as np
import pytest
import torch

import transviz
from transviz.core.analysis.concepts.forward import Sentence
from transviz.core.analysis.concepts.kv_cache import cache_contents
from transviz.core.analysis.lockstep import Lockstep, kv_groups, recorded_exact_match
from transviz.core.base.errors import InputError

SENTENCE = "ich mochte ein bier"


@pytest.fixture(scope="module")
def siblings():
    return {name: transviz.load_model(name) for name in ("default", "gqa", "mqa", "decoder-only", "window")}


def lockstep(siblings, *names):
    return Lockstep([(name, siblings[name]) for name in names], SENTENCE)


def test_each_run_equals_its_model_decoded_alone(siblings):
    together = lockstep(siblings, "default", "gqa", "decoder-only")
    together.run_to_end()
    for name, session in zip(together.names, together.sessions, strict=True):
        alone = transviz.decode(siblings[name], SENTENCE)
        assert session.output_tokens == alone.output_tokens
        np.testing.assert_allclose(session.cross_attention(), alone.cross_attention, atol=1e-6)
        np.testing.assert_allclose(session.decoder_self_attention(), alone.decoder_self_attention, atol=1e-6)


def test_a_step_back_shows_what_the_step_before_showed(siblings):
    names = ("default", "mqa", "decoder-only")
    there = lockstep(siblings, *names)
    for _ in range(3):
        there.step()
    there.back()
    before = lockstep(siblings, *names)
    for _ in range(2):
        before.step()
    assert there.position == before.position == 2
    for a, b in zip(there.panes("cross", 1, 2), before.panes("cross", 1, 2), strict=True):
        assert a.rows == b.rows and a.columns == b.columns
        np.testing.assert_array_equal(a.map, b.map)


def test_a_model_that_ended_waits_and_goes_back_only_when_the_others_reach_its_end(siblings):
    ended_early = copy.deepcopy(siblings["default"])
    ended_early.facts = {}
    together = Lockstep([("default", siblings["default"]), ("short", ended_early)], SENTENCE)
    together.sessions[1].max_len = 2  # the second run stops after two tokens
    together.run_to_end()
    lengths = [len(session.output_tokens) for session in together.sessions]
    assert lengths[1] == 2 < lengths[0] == together.position
    assert not together.step()  # every run has ended
    together.back()
    assert [session.position for session in together.sessions] == [lengths[0] - 1, 2]
    together.reset()
    assert together.position == 0 and all(session.position == 0 for session in together.sessions)


@pytest.mark.parametrize("name", ["default", "gqa", "mqa", "decoder-only", "window"])
def test_the_kv_bytes_are_those_of_the_caches_own_tensors(siblings, name):
    together = lockstep(siblings, name, "default")
    for _ in range(3):
        together.step()
    session = together.sessions[0]
    fed = session.target_tokens  # the start token and the two outputs fed after it
    held = cache_contents(siblings[name], Sentence(SENTENCE, tuple(fed[1:])))
    now, per_token = together.kv_bytes(0)
    assert now == held.own_bytes + held.source_bytes
    assert per_token == held.bytes_per_token


def _changed_heads(model, kv_head):
    """The query heads whose encoder self-attention changes when kv head ``kv_head``'s keys change."""
    changed = copy.deepcopy(model)
    weight = changed.net.state_dict()["encoder_layers.0.self_attn.in_proj_weight"]
    d_k = model.config.d_model // model.config.n_heads
    with torch.no_grad():  # the key rows come after the d_model query rows, d_k per key/value head
        weight[model.config.d_model + kv_head * d_k:model.config.d_model + (kv_head + 1) * d_k] *= 3.0
    before = transviz.decode(model, SENTENCE).encoder_self_attention[0]
    after = transviz.decode(changed, SENTENCE).encoder_self_attention[0]
    return [h for h in range(model.config.n_heads) if not np.allclose(before[h], after[h], atol=1e-6)]


@pytest.mark.parametrize("name", ["default", "gqa", "mqa"])
def test_the_head_groups_are_the_heads_that_read_one_key_head(siblings, name):
    model = siblings[name]
    groups = kv_groups(model.config)
    assert [_changed_heads(model, g) for g in range(len(groups))] == groups
    assert sorted(h for group in groups for h in group) == list(range(model.config.n_heads))


def test_a_decoder_only_models_output_rows_are_one_map(siblings):
    together = lockstep(siblings, "decoder-only", "default")
    for _ in range(4):
        together.step()
    stream, paper = together.panes("cross", 0, 1)
    source = together.sessions[0].source_tokens
    assert stream.source_columns == len(source) and paper.source_columns is None
    assert stream.columns == source + together.sessions[0].target_tokens
    np.testing.assert_allclose(stream.map.sum(axis=1), 1.0, atol=1e-5)  # one softmax over both parts
    assert stream.map.shape == (4, len(source) + 4)
    np.testing.assert_allclose(paper.map.sum(axis=1), 1.0, atol=1e-5)
    mean, _ = together.panes("decoder_self", 0, "mean")
    np.testing.assert_allclose(mean.map.sum(axis=1), 1.0, atol=1e-5)


def test_the_recorded_exact_match_is_read_and_a_bad_record_is_none(siblings):
    assert recorded_exact_match(siblings["gqa"]) == siblings["gqa"].facts["test"]["exact_match"]
    model = copy.copy(siblings["default"])
    for facts in ({}, {"test": "x"}, {"test": {"exact_match": "1"}}, {"test": {"exact_match": 1.5}},
                  {"test": {"exact_match": True}}, {"test": {"exact_match": float("nan")}}):
        model.facts = facts
        assert recorded_exact_match(model) is None, facts


def test_two_to_four_models_and_a_sentence_they_can_read(siblings):
    with pytest.raises(InputError, match="2 to 4 models"):
        lockstep(siblings, "default")
    with pytest.raises(InputError, match="2 to 4 models"):
        Lockstep([("default", siblings["default"])] * 5, SENTENCE)
    with pytest.raises(InputError, match="^gqa cannot decode this sentence"):
        Lockstep([("gqa", siblings["gqa"]), ("default", siblings["default"])], "   ")
    with pytest.raises(InputError, match="^default: layer 7 does not exist"):
        lockstep(siblings, "default", "gqa").panes("cross", 7, 0)
