"""Masks against hand-written expected matrices (True = may attend)."""
from __future__ import annotations

import math

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from transviz.core.model import masks

T, F_ = True, False


def test_padding_mask_exact():
    tokens = torch.tensor([[5, 6, 0, 0], [7, 8, 9, 0], [1, 2, 3, 4]])
    expected = torch.tensor([[T, T, F_, F_], [T, T, T, F_], [T, T, T, T]])
    got = masks.padding_mask(tokens, pad_id=0)
    assert got.dtype == torch.bool
    assert got.shape == (3, 1, 1, 4)
    assert torch.equal(got[:, 0, 0, :], expected)


def test_padding_mask_other_pad_id():
    tokens = torch.tensor([[0, 3, 3]])
    got = masks.padding_mask(tokens, pad_id=3)
    assert torch.equal(got, torch.tensor([[[[T, F_, F_]]]]))


def test_causal_mask_exact():
    expected = torch.tensor(
        [
            [T, F_, F_, F_],
            [T, T, F_, F_],
            [T, T, T, F_],
            [T, T, T, T],
        ]
    )
    got = masks.causal_mask(4)
    assert got.dtype == torch.bool
    assert got.shape == (1, 1, 4, 4)
    assert torch.equal(got[0, 0], expected)
    assert masks.causal_mask(1).tolist() == [[[[True]]]]
    assert masks.causal_mask(0).shape == (1, 1, 0, 0)


def test_hidden_positions_is_upper_triangle():
    expected = torch.tensor([[F_, T, T], [F_, F_, T], [F_, F_, F_]])
    assert torch.equal(masks.hidden_positions(masks.causal_mask(3))[0, 0], expected)


def test_decoder_self_mask_exact():
    tgt = torch.tensor([[4, 5, 0], [4, 5, 6]])
    got = masks.decoder_self_mask(tgt, pad_id=0)
    assert got.shape == (2, 1, 3, 3)
    expected0 = torch.tensor([[T, F_, F_], [T, T, F_], [T, T, F_]])  # column 2 is padding
    expected1 = torch.tensor([[T, F_, F_], [T, T, F_], [T, T, T]])
    assert torch.equal(got[0, 0], expected0)
    assert torch.equal(got[1, 0], expected1)


def test_combine_broadcasts_and_ands():
    pad = torch.tensor([[T, T, F_]])[:, None, None, :]  # (1,1,1,3)
    causal = masks.causal_mask(3)  # (1,1,3,3)
    got = masks.combine(pad, causal)
    assert got.shape == (1, 1, 3, 3)
    assert torch.equal(got[0, 0], torch.tensor([[T, F_, F_], [T, T, F_], [T, T, F_]]))
    # batch 2 padding x causal -> (2,1,3,3)
    pad2 = masks.padding_mask(torch.tensor([[1, 0, 0], [1, 1, 1]]), 0)
    got2 = masks.combine(pad2, causal)
    assert got2.shape == (2, 1, 3, 3)
    assert torch.equal(got2[0, 0], torch.tensor([[T, F_, F_], [T, F_, F_], [T, F_, F_]]))
    assert torch.equal(got2[1, 0], causal[0, 0])
    # single mask is returned as-is
    assert torch.equal(masks.combine(causal), causal)


def test_additive_exact():
    mask = torch.tensor([[T, F_], [F_, T]])
    got = masks.additive(mask)
    assert got.dtype == torch.float32
    assert got[0, 0].item() == 0.0 and got[1, 1].item() == 0.0
    assert got[0, 1].item() == -math.inf and got[1, 0].item() == -math.inf
    assert masks.additive(mask, torch.float64).dtype == torch.float64


def test_padding_mask_masks_keys_not_queries():
    """Guard against annotated-transformer #137: the padding mask broadcast on the query axis."""
    tokens = torch.tensor([[3, 4, 5, 0, 0]])
    ours = masks.padding_mask(tokens, 0)  # (1,1,1,5): over keys
    wrong = (tokens != 0)[:, None, :, None]  # (1,1,5,1): over queries (the bug)
    ours_full = ours.expand(1, 1, 5, 5)
    wrong_full = wrong.expand(1, 1, 5, 5)
    assert not torch.equal(ours_full, wrong_full)
    # Our mask: every query row hides columns 3 and 4.
    assert ours_full[0, 0, :, 3:].any().item() is False
    assert ours_full[0, 0, :, :3].all().item() is True

    torch.manual_seed(0)
    scores = torch.randn(1, 2, 5, 5)
    probs = torch.softmax(scores.masked_fill(~ours, float("-inf")), dim=-1)
    assert torch.all(probs[..., 3:] == 0.0)
    torch.testing.assert_close(probs.sum(-1), torch.ones(1, 2, 5))

    # The wrong-axis mask leaves padded columns with non-zero probability for real queries.
    wrong_probs = torch.softmax(scores.masked_fill(~wrong, float("-inf")), dim=-1)
    assert torch.all(wrong_probs[:, :, :3, 3:] > 0)


@settings(max_examples=60, deadline=None)
@given(
    lengths=st.lists(st.integers(1, 7), min_size=1, max_size=4),
    extra=st.integers(0, 3),
    pad_id=st.integers(0, 2),
)
def test_masks_random(lengths, extra, pad_id):
    width = max(lengths) + extra
    batch = len(lengths)
    tokens = torch.full((batch, width), pad_id, dtype=torch.long)
    for b, n in enumerate(lengths):
        tokens[b, :n] = pad_id + 1 + torch.arange(n) % 5  # never pad_id
    pad = masks.padding_mask(tokens, pad_id)
    assert pad.shape == (batch, 1, 1, width)
    causal = masks.causal_mask(width)
    dec = masks.decoder_self_mask(tokens, pad_id)
    assert dec.shape == (batch, 1, width, width)
    for b, n in enumerate(lengths):
        for j in range(width):
            assert bool(pad[b, 0, 0, j]) == (j < n)
        for i in range(width):
            for j in range(width):
                assert bool(causal[0, 0, i, j]) == (j <= i)
                assert bool(dec[b, 0, i, j]) == (j <= i and j < n)
    add = masks.additive(dec)
    assert torch.all((add == 0) == dec)
    assert torch.all(torch.isneginf(add) == ~dec)
