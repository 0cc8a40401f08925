"""The decoder's key/value cache grows in place (transviz.core.model.kv_cache) and stays what a full
recomputation gives: for straight decoding, for a branch from an older state (back, then another
token), for a truncated view, and with autograd on (where it falls back to copying)."""
from __future__ import annotations

import pytest
import torch

from transviz.core.decoding.paths import truncate
from transviz.core.model.config import ModelConfig
from transviz.core.model.kv_cache import MIN_CAPACITY
from transviz.core.model.transformer import DecoderState, Transformer


@pytest.fixture(scope="module")
def net() -> Transformer:
    torch.manual_seed(0)
    config = ModelConfig(src_vocab_size=30, tgt_vocab_size=30, d_model=16, n_heads=4, n_encoder_layers=2,
                         n_decoder_layers=2, d_ff=32, dropout=0.0, max_len=48)
    return Transformer(config).eval()


SOURCE = torch.tensor([[5, 6, 7, 8, 9]])


def fed(net: Transformer, tokens: list[int]) -> DecoderState:
    """The state after feeding ``tokens`` one step at a time (no autograd: the in-place path)."""
    with torch.no_grad():
        state = net.start(net.encode(SOURCE))
        for token in tokens:
            state = net.step(torch.tensor([token]), state).state
    return state


def recomputed(net: Transformer, tokens: list[int]) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """Every layer's self-attention keys/values of ``tokens``, from one full pass (an independent path)."""
    with torch.no_grad():
        encoded = net.encode(SOURCE)
        x = net._embed(torch.tensor([tokens]), net.tgt_embed, "decoder")  # (1, T, d)
        keys_values = []
        for layer, memory_kv in zip(net.decoder_layers, net.memory_kv(encoded), strict=True):
            h = layer.norm1(x) if layer.pre_norm else x
            _, k, v = layer.self_attn.project_qkv(h)
            keys_values.append((k, v))
            mask = torch.tril(torch.ones(len(tokens), len(tokens), dtype=torch.bool))[None, None]
            x = layer(x, memory_kv, mask, encoded.mask).x
    return keys_values


def assert_cache_is(net: Transformer, state: DecoderState, tokens: list[int]) -> None:
    assert state.length == len(tokens)
    for (k, v), (k_ref, v_ref) in zip(state.self_kv, recomputed(net, tokens), strict=True):
        torch.testing.assert_close(k, k_ref, atol=1e-5, rtol=1e-5)
        torch.testing.assert_close(v, v_ref, atol=1e-5, rtol=1e-5)


def test_straight_decoding_writes_in_place_and_matches_a_full_pass(net):
    tokens = [1, 4, 9, 2, 7, 7, 3]
    state = fed(net, tokens[:1])
    first = [buffer.keys.data_ptr() for buffer in state.buffers]
    with torch.no_grad():
        for token in tokens[1:]:
            state = net.step(torch.tensor([token]), state).state
    assert [buffer.keys.data_ptr() for buffer in state.buffers] == first  # no copy while there is room
    assert state.buffers[0].keys.shape[2] == MIN_CAPACITY
    assert_cache_is(net, state, tokens)


def test_a_branch_from_an_older_state_leaves_the_newer_one_as_it_was(net):
    older = fed(net, [1, 4, 9])
    with torch.no_grad():
        newer = net.step(torch.tensor([2]), older).state  # writes column 3 in place
        branch = net.step(torch.tensor([5]), older).state  # column 3 is taken: a fresh buffer
    assert branch.buffers[0].keys.data_ptr() != newer.buffers[0].keys.data_ptr()
    assert_cache_is(net, newer, [1, 4, 9, 2])
    assert_cache_is(net, branch, [1, 4, 9, 5])
    with torch.no_grad():
        newer = net.step(torch.tensor([6]), newer).state  # the newer state still grows in place
    assert_cache_is(net, newer, [1, 4, 9, 2, 6])
    assert_cache_is(net, branch, [1, 4, 9, 5])


def test_a_truncated_view_copies_before_it_grows(net):
    long = fed(net, [1, 4, 9, 2, 7])
    short = truncate(long, 3)
    with torch.no_grad():
        grown = net.step(torch.tensor([8]), short).state
    assert_cache_is(net, grown, [1, 4, 9, 8])
    assert_cache_is(net, long, [1, 4, 9, 2, 7])  # its column 3 was not overwritten


def test_the_buffer_doubles_past_its_capacity_and_stops_at_max_len(net):
    tokens = [(3 * i) % 27 + 3 for i in range(net.config.max_len)]
    state = fed(net, tokens)
    assert state.buffers[0].keys.shape[2] == net.config.max_len
    assert_cache_is(net, state, tokens)


def test_with_autograd_on_the_cache_is_copied_and_gradients_flow(net):
    state = net.start(net.encode(SOURCE))
    for token in (1, 4, 9):
        out = net.step(torch.tensor([token]), state)
        state = out.state
    assert state.buffers == (None, None)
    out.logits.sum().backward()  # nothing was written in place under autograd
    assert net.tgt_embed.weight.grad is not None
    net.zero_grad(set_to_none=True)
    assert_cache_is(net, state, [1, 4, 9])
