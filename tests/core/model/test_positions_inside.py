"""The Positional encoding tab's pictures of positions inside attention against the papers'
formulas and the model's own scores: ALiBi's -slope x distance with slopes 2^(-8h/H), T5's bucket of
each offset (its formula written out) and its learned bias of that bucket, and for RoPE a score that
depends on the offset alone and equals the model's own where the tokens stand."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from test_model_reference import randomize_
from test_t5_options import bucket_numpy

import transviz
from transviz.core.analysis.positions_inside import position_bias, rotary_scores
from transviz.core.analysis.walkthrough import walkthrough
from transviz.core.base.errors import InputError
from transviz.core.model.transformer import Transformer

SOURCE = "ich mochte ein bier"


def test_alibis_bias_is_minus_each_heads_slope_times_the_distance():
    shown = position_bias(transviz.load_model("alibi"), 7)
    slopes = 2.0 ** (-8.0 * np.arange(1, 5) / 4)
    distance = np.abs(np.arange(7)[:, None] - np.arange(7)[None])
    np.testing.assert_allclose(shown.slopes, slopes, rtol=1e-12)
    np.testing.assert_allclose(shown.bias, -slopes[:, None, None] * distance, rtol=1e-6)
    assert shown.buckets is None


@pytest.mark.parametrize(("kind", "both_ways"), [("encoder_self", True), ("decoder_self", False)])
def test_t5s_bias_is_its_learned_value_of_each_offsets_bucket(kind, both_ways):
    shipped = transviz.load_model("default")
    net = Transformer(dataclasses.replace(shipped.config, positional="t5", scale_scores=False))
    randomize_(net, 5)
    model = transviz.Model(net.eval(), shipped.src_vocab, shipped.tgt_vocab)
    shown = position_bias(model, 40, kind)
    offsets = np.arange(40)[None, :] - np.arange(40)[:, None]
    expected = bucket_numpy(offsets.reshape(-1), both_ways, 32, 128).reshape(40, 40)
    np.testing.assert_array_equal(shown.buckets, expected)
    table = (net.encoder_relative_bias if both_ways else net.decoder_relative_bias).table.weight.detach().numpy()
    np.testing.assert_allclose(shown.bias, table[expected].transpose(2, 0, 1), rtol=1e-6)


def test_a_rotary_score_depends_on_the_offset_alone_and_is_the_models_own():
    model = transviz.load_model("rope")
    shown = rotary_scores(model, SOURCE, 1, 2, 12)
    for offset in range(-11, 12):  # every diagonal holds one value
        diagonal = np.diagonal(shown.scores, offset)
        np.testing.assert_allclose(diagonal, diagonal[0], atol=1e-5)
    walk = walkthrough(model, SOURCE, "", "encoder_self", 1, 2)
    last = len(walk.query_tokens) - 1  # the last source token's query over the first token's key
    np.testing.assert_allclose(shown.scores[last, 0], walk.scaled[last, 0], atol=1e-5)
    radius = np.linalg.norm(shown.pair, axis=1)
    np.testing.assert_allclose(radius, radius[0], rtol=1e-6)  # a turn keeps the pair's length


def test_a_model_without_such_positions_is_told_which_it_has():
    with pytest.raises(InputError, match="positions are sinusoidal, not rotary"):
        rotary_scores(transviz.load_model("default"), SOURCE, 0, 0, 5)
    with pytest.raises(InputError, match="positions must be 1 to 128"):
        position_bias(transviz.load_model("alibi"), 500)
