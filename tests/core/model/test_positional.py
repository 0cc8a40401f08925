"""Sinusoidal positions against a plain-Python float64 evaluation of the formula."""
from __future__ import annotations

import math

import pytest
import torch

from transviz.core.model.config import ModelConfig
from transviz.core.model.positional import similarity, sinusoidal_table, split_halves
from transviz.core.model.transformer import Transformer


def reference_table(length: int, d_model: int) -> list[list[float]]:
    """PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(pos / 10000^(2i/d))."""
    rows = []
    for pos in range(length):
        row = []
        for col in range(d_model):
            two_i = col - (col % 2)
            angle = pos / (10000.0 ** (two_i / d_model))
            row.append(math.sin(angle) if col % 2 == 0 else math.cos(angle))
        rows.append(row)
    return rows


@pytest.mark.parametrize("length,d_model", [(1, 1), (5, 2), (20, 16), (50, 33), (64, 7), (30, 512)])
def test_table_matches_formula(length, d_model):
    expected = torch.tensor(reference_table(length, d_model), dtype=torch.float64)
    got64 = sinusoidal_table(length, d_model, dtype=torch.float64)
    assert got64.shape == (length, d_model)
    torch.testing.assert_close(got64, expected, atol=1e-6, rtol=0)
    got32 = sinusoidal_table(length, d_model)
    assert got32.dtype == torch.float32
    torch.testing.assert_close(got32.double(), expected, atol=1e-6, rtol=0)


def test_known_values():
    table = sinusoidal_table(3, 4, dtype=torch.float64)
    # position 0: sin 0 = 0, cos 0 = 1
    assert table[0].tolist() == [0.0, 1.0, 0.0, 1.0]
    # position 1, d=4: frequencies 1 and 1/100
    assert table[1].tolist() == pytest.approx([math.sin(1), math.cos(1), math.sin(0.01), math.cos(0.01)], abs=1e-12)


def test_empty_and_bad_sizes():
    assert sinusoidal_table(0, 8).shape == (0, 8)
    with pytest.raises(ValueError):
        sinusoidal_table(-1, 8)
    with pytest.raises(ValueError):
        sinusoidal_table(4, 0)


@pytest.mark.parametrize("d_model", [6, 7])
def test_split_halves_sin_first(d_model):
    table = sinusoidal_table(10, d_model, dtype=torch.float64)
    halves = split_halves(table)
    n_sin = (d_model + 1) // 2
    ref = reference_table(10, d_model)
    for pos in range(10):
        sins = [ref[pos][c] for c in range(0, d_model, 2)]
        coss = [ref[pos][c] for c in range(1, d_model, 2)]
        assert halves[pos, :n_sin].tolist() == pytest.approx(sins, abs=1e-9)
        assert halves[pos, n_sin:].tolist() == pytest.approx(coss, abs=1e-9)
    # position 0: sin half zeros, cos half ones
    assert torch.all(halves[0, :n_sin] == 0) and torch.all(halves[0, n_sin:] == 1)


@pytest.mark.parametrize("d_model", [8, 32, 128])
def test_similarity_depends_only_on_offset(d_model):
    length = 40
    table = sinusoidal_table(length, d_model, dtype=torch.float64)
    sim = similarity(table)
    # sin(a)sin(b) + cos(a)cos(b) = cos(a - b): entry (i, j) is the sum over frequencies of cos((i - j) w)
    w = 10000.0 ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    offsets = torch.arange(length, dtype=torch.float64)[:, None] - torch.arange(length, dtype=torch.float64)[None, :]
    torch.testing.assert_close(sim, torch.cos(offsets[..., None] * w).sum(-1), atol=1e-9, rtol=0)
    for k in range(1, 10):
        torch.testing.assert_close(sim[k:, k:], sim[:-k, :-k], atol=1e-9, rtol=0)
    # diagonal is d/2 (sum of sin^2 + cos^2 per pair)
    torch.testing.assert_close(torch.diagonal(sim), torch.full((length,), d_model / 2, dtype=torch.float64))
    # symmetric: offset k and -k give the same value
    torch.testing.assert_close(sim, sim.T)


@pytest.mark.parametrize("d_model", [16, 24])
def test_model_positional_buffer_equals_table(d_model):
    config = ModelConfig(11, 11, d_model=d_model, n_heads=4, d_ff=32, dropout=0.0, max_len=37)
    model = Transformer(config)
    expected = torch.tensor(reference_table(37, d_model), dtype=torch.float64)
    assert model.positional.shape == (37, d_model)
    torch.testing.assert_close(model.positional.double(), expected, atol=1e-6, rtol=0)
    assert "positional" not in model.state_dict()  # non-persistent, rebuilt from config


def test_interleave_undoes_split_halves():
    """Marian adds the "sin half | cos half" table; the positional tab shows it back in the formula's order."""
    from transviz.core.model.positional import interleave

    for d_model in (7, 8):
        table = sinusoidal_table(12, d_model)
        assert torch.equal(interleave(split_halves(table)), table)
