"""Two runs compared: the difference map against B - A taken from the traces here, the summaries
against numpy, and the output diff against hand-written stretches."""
import numpy as np
import pytest

import transviz
from transviz.core.analysis.compare import TokenChange, compare, head_map, token_diff
from transviz.core.base.errors import InputError

SENTENCE = "ich mochte ein bier"


@pytest.fixture(scope="module")
def model():
    return transviz.load_model("default")


@pytest.fixture(scope="module")
def plain(model):
    return transviz.decode(model, SENTENCE)


@pytest.fixture(scope="module")
def ablated(model):
    return transviz.decode(model, SENTENCE, interventions=[transviz.AblateHead("encoder_self", 0, 1)])


def test_the_difference_is_b_minus_a_where_the_shapes_match(plain, ablated):
    assert plain.cross_attention.shape == ablated.cross_attention.shape
    for layer, head in [(0, 1), (1, 1), (1, 3)]:
        shown = compare(plain, ablated, "cross", layer, head)
        expected = ablated.cross_attention[layer, head].astype(np.float64) - plain.cross_attention[layer, head]
        np.testing.assert_allclose(shown.difference, expected, atol=1e-7)
        assert shown.scale == pytest.approx(np.abs(expected).max(), abs=1e-7)
        assert shown.scale > 1e-3  # the ablated encoder head moved every cross map
    assert compare(plain, plain, "decoder_self", 1, 2).scale == 0.0


def test_a_minimal_pair_of_other_lengths_has_no_difference_map(model, plain):
    longer = transviz.decode(model, "ich mochte ein bier trinken")
    shown = compare(plain, longer, "cross", 0, 0)
    assert shown.shapes_differ and shown.difference is None
    np.testing.assert_array_equal(shown.b.map, longer.cross_attention[0, 0])
    assert shown.b.columns == longer.source_tokens and shown.b.rows == longer.query_labels


def test_summaries_are_the_layers_heads_combined(plain):
    np.testing.assert_allclose(head_map(plain, "encoder_self", 1, "mean").map,
                               plain.encoder_self_attention[1].mean(axis=0), atol=1e-6)
    np.testing.assert_allclose(head_map(plain, "cross", 2, "max").map, plain.cross_attention[2].max(axis=0), atol=1e-7)
    rolled = head_map(plain, "cross", 2, "rollout").map
    np.testing.assert_allclose(rolled.sum(axis=1), 1.0, atol=1e-5)  # shares of the source tokens


def test_labels_follow_the_kind(plain):
    encoder = head_map(plain, "encoder_self", 0, 0)
    assert encoder.rows == encoder.columns == plain.source_tokens
    decoder = head_map(plain, "decoder_self", 0, 0)
    assert decoder.rows == plain.query_labels and decoder.columns == plain.target_tokens


def test_the_output_diff_names_each_stretch():
    a = "i want a beer </s>".split()
    b = "i want a glass of beer </s>".split()
    assert token_diff(a, b) == [
        TokenChange("equal", ("i", "want", "a"), ("i", "want", "a")),
        TokenChange("insert", (), ("glass", "of")),
        TokenChange("equal", ("beer", "</s>"), ("beer", "</s>")),
    ]
    assert token_diff(["x", "y"], ["x", "z"]) == [TokenChange("equal", ("x",), ("x",)),
                                                 TokenChange("replace", ("y",), ("z",))]
    assert token_diff(["x", "y"], ["y"]) == [TokenChange("delete", ("x",), ()), TokenChange("equal", ("y",), ("y",))]


def test_the_same_run_has_the_same_output(plain):
    assert compare(plain, plain, "cross", 0, 0).same_output


@pytest.mark.parametrize("kind, layer, head, message", [
    ("cross", 3, 0, "layer 3 does not exist"), ("cross", 0, 4, "head 4 does not exist"),
    ("sideways", 0, 0, "unknown attention kind"), ("cross", 0, "median", "no summary")])
def test_a_head_the_model_lacks_is_named(plain, kind, layer, head, message):
    with pytest.raises(InputError, match=message):
        head_map(plain, kind, layer, head)
