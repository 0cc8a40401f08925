"""Two training snapshots compared: the difference map against the snapshots' maps read straight
from the shipped checkpoint (numpy), the output diff against hand-written stretches, and the
messages for a step or a checkpoint without snapshots."""
import numpy as np
import pytest

from transviz.core.analysis.compare import TokenChange, compare, snapshot_run
from transviz.core.base.errors import InputError
from transviz.core.io.resources import shipped_models
from transviz.core.training.snapshots import load_snapshots, snapshot_at


@pytest.fixture(scope="module")
def snapshots():
    return {snap.step: snap for snap in load_snapshots(shipped_models()["default"])}


@pytest.mark.parametrize("kind, field", [("cross", "cross_attention"), ("encoder_self", "encoder_self_attention"),
                                         ("decoder_self", "decoder_self_attention")])
def test_the_difference_of_two_steps_is_b_minus_a_for_a_head(snapshots, kind, field):
    early, late = snapshots[100], snapshots[1200]
    for layer, head in [(0, 0), (1, 2), (2, 3)]:
        shown = compare(snapshot_run(early), snapshot_run(late), kind, layer, head)
        expected = getattr(late, field)[layer, head].astype(np.float64) - getattr(early, field)[layer, head]
        np.testing.assert_allclose(shown.difference, expected, atol=1e-7)
        np.testing.assert_array_equal(shown.a.map, getattr(early, field)[layer, head])
        assert shown.scale == pytest.approx(np.abs(expected).max(), abs=1e-7)
    assert compare(snapshot_run(early), snapshot_run(late), kind, 0, 0).scale > 1e-3  # training moved them


def test_the_difference_of_the_layer_means(snapshots):
    early, late = snapshots[0], snapshots[600]
    for layer in range(3):
        shown = compare(snapshot_run(early), snapshot_run(late), "cross", layer, "mean")
        expected = late.cross_attention[layer].mean(axis=0) - early.cross_attention[layer].mean(axis=0)
        np.testing.assert_allclose(shown.difference, expected, atol=1e-6)


def test_a_snapshot_is_labelled_by_its_inputs_and_predictions(snapshots):
    late = snapshot_run(snapshots[1200])
    shown = compare(late, late, "cross", 0, 0)
    assert shown.a.columns == ["ich", "mochte", "ein", "bier"]
    assert shown.a.rows == ["<s> -> i", "i -> want", "want -> a", "a -> beer", "beer -> </s>"]
    assert shown.same_output and shown.scale == 0.0


def test_the_token_diff_of_two_steps_predictions(snapshots):
    assert snapshots[150].predicted_tokens == ["i", "want", "to", "book", "</s>"]
    assert snapshots[250].predicted_tokens == ["i", "want", "a", "beer", "</s>"]
    shown = compare(snapshot_run(snapshots[150]), snapshot_run(snapshots[250]), "cross", 0, 0)
    assert shown.tokens == [TokenChange("equal", ("i", "want"), ("i", "want")),
                            TokenChange("replace", ("to", "book"), ("a", "beer")),
                            TokenChange("equal", ("</s>",), ("</s>",))]


def test_a_step_is_found_or_the_steps_there_are_named(snapshots):
    listed = list(snapshots.values())
    assert snapshot_at(listed, 250, "default") is snapshots[250]
    with pytest.raises(InputError, match=r"default has no snapshot at step 75; its steps: 0, 50, 100, .*, 1200$"):
        snapshot_at(listed, 75, "default")
    with pytest.raises(InputError, match="plain.safetensors holds no training snapshots"):
        snapshot_at([], 0, "plain.safetensors")
