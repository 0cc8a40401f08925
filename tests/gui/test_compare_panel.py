"""The compare tab on the real window and the shipped model: what it draws against transviz.decode
run here, the output diff, and errors that leave the last comparison in place."""
import numpy as np
import pytest

import transviz
from transviz.core.analysis.walkthrough import KINDS
from transviz.gui.panels.compare import ComparePanel
from transviz.gui.render import Slide, render

A, B_LONGER, B_SAME_LENGTH = "ich möchte ein bier", "ich möchte ein bier trinken", "ich möchte ein wasser"


@pytest.fixture
def panel(shipped_window):
    compare = shipped_window.panels["compare"]
    assert isinstance(compare, ComparePanel)
    shipped_window.tabs.setCurrentWidget(compare)
    return compare


def run(panel, a, b):
    panel.run_a.sentence.setText(a)
    panel.run_b.sentence.setText(b)
    panel.run()


def test_the_difference_map_is_b_minus_a(panel, shipped_model):
    run(panel, A, B_SAME_LENGTH)
    panel.kind.setCurrentIndex(KINDS.index("cross"))
    panel.layer.setValue(1)
    panel.head.setCurrentIndex(2)
    a, b = transviz.decode(shipped_model, A), transviz.decode(shipped_model, B_SAME_LENGTH)
    np.testing.assert_allclose(panel.map_a.data, a.cross_attention[1, 2], atol=1e-7)
    np.testing.assert_allclose(panel.map_b.data, b.cross_attention[1, 2], atol=1e-7)
    expected = b.cross_attention[1, 2].astype(np.float64) - a.cross_attention[1, 2]
    np.testing.assert_allclose(panel.difference.data, expected, atol=1e-6)
    scale = np.abs(expected).max()
    assert panel.difference.levels == pytest.approx((-scale, scale), abs=1e-6)  # centred at 0
    assert f"±{scale:.3f}" in panel.difference.title
    assert panel.difference.isVisibleTo(panel) and not panel.no_difference.isVisibleTo(panel)


def test_the_mean_of_heads_is_compared_too(panel, shipped_model):
    run(panel, A, B_SAME_LENGTH)
    panel.kind.setCurrentIndex(KINDS.index("encoder_self"))
    panel.head.setCurrentIndex(shipped_model.config.n_heads)  # the first summary: mean
    a, b = transviz.decode(shipped_model, A), transviz.decode(shipped_model, B_SAME_LENGTH)
    expected = b.encoder_self_attention[0].mean(axis=0) - a.encoder_self_attention[0].mean(axis=0)
    np.testing.assert_allclose(panel.difference.data, expected, atol=1e-6)


def test_a_minimal_pair_of_other_lengths_says_why_there_is_no_difference(panel):
    run(panel, A, B_LONGER)
    assert not panel.difference.isVisibleTo(panel) and panel.no_difference.isVisibleTo(panel)
    assert "4 x 4" in panel.no_difference.text() or "5 x 4" in panel.no_difference.text()
    text = panel.outputs.text()
    assert "<u" in text and "to drink" in text and "<s" not in text.replace("<s style", "")  # nothing deleted


def test_the_output_diff_strikes_out_as_words_and_underlines_bs(panel):
    run(panel, A, B_SAME_LENGTH)
    text = panel.outputs.text()
    assert "beer</s>" in text and "water</u>" in text


def test_decoder_self_attention_hatches_the_future(panel):
    run(panel, A, B_SAME_LENGTH)
    panel.kind.setCurrentIndex(KINDS.index("decoder_self"))
    assert np.isnan(panel.map_a.data[0, 1]) and np.isnan(panel.difference.data[0, 1])
    assert not np.isnan(panel.map_a.data[1, 0])


def test_a_file_that_does_not_load_is_named_and_the_comparison_stays(panel, tmp_path):
    run(panel, A, B_SAME_LENGTH)
    before = panel.comparison
    broken = tmp_path / "broken.safetensors"
    broken.write_bytes(b"not a checkpoint")
    panel.run_b.add_file(str(broken))
    panel.run()
    assert panel.error.isVisibleTo(panel) and "broken.safetensors" in panel.error.text()
    assert panel.comparison is before


def test_render_writes_the_compare_view(shipped_model, tmp_path):
    out = render(Slide("compare", A, shipped_model, 800, 500, compare=B_SAME_LENGTH), tmp_path / "pair.png")
    from PySide6.QtGui import QImage

    image = QImage(str(out))
    assert image.width() == 800
    pixels = {image.pixel(x, y) for x in range(0, 800, 7) for y in range(0, 500, 7)}
    assert len(pixels) > 20


def test_it_opens_on_a_minimal_pair_of_the_explorers_sentence(panel):
    """A is the explorer's sentence, B the task's example closest to it (one or two tokens apart),
    not the same sentence twice."""
    assert panel.run_a.sentence.text() == "ich mochte ein bier"
    assert panel.run_b.sentence.text() == "ich möchte ein bier"  # one token replaced


def test_a_new_model_clears_the_last_models_maps(panel, make_model):
    """The maps and the title "loaded model" were the previous model's until Compare was pressed."""
    run(panel, A, B_SAME_LENGTH)
    assert panel.comparison is not None and panel.map_a.isVisibleTo(panel)
    panel.workspace.set_model(make_model())
    assert panel.comparison is None and not panel.map_a.isVisibleTo(panel) and panel.outputs.text() == ""


def test_the_closest_example_within_two_tokens_makes_the_pair():
    from transviz.core.analysis.compare import minimal_partner

    examples = ["a b c d", "a b x d", "a b c d e", "q r s t"]
    assert minimal_partner("a b c d", examples, str.split) == "a b x d"  # one edit, the first such
    assert minimal_partner("a b c", ["a b c d e f"], str.split) is None  # three tokens apart
    assert minimal_partner("q r s t", ["a b c d"], str.split) is None


def test_the_patching_page_patches_a_into_b_at_the_first_step_they_differ(panel, shipped_model):
    from transviz.core.analysis.patching import activation_patching

    run(panel, A, B_SAME_LENGTH)
    panel.pages.setCurrentIndex(1)
    patching = panel.patching
    a, b = transviz.decode(shipped_model, A).output_tokens, transviz.decode(shipped_model, B_SAME_LENGTH).output_tokens
    first = next(i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y)
    assert patching.step.value() == first and patching.step.maximum() == len(a) - 1
    expected = activation_patching(shipped_model, A, B_SAME_LENGTH, first, "encoder")
    np.testing.assert_allclose(patching.map.data, expected.scores, atol=1e-6)
    assert patching.map.column_labels() == list(expected.columns)
    patching.kind.setCurrentIndex(1)  # one cross-attention head at the step
    heads = activation_patching(shipped_model, A, B_SAME_LENGTH, first, "cross_head")
    np.testing.assert_allclose(patching.map.data, heads.scores, atol=1e-6)
    assert f"'{heads.token_a}'" in patching.map.title and patching.error.isHidden()


def test_patching_refuses_what_it_cannot_patch_and_says_why(panel, model_file):
    run(panel, A, B_LONGER)  # sources of other lengths: positions do not match
    assert "source tokens" in panel.patching.error.text() and not panel.patching.map.isVisibleTo(panel)
    panel.patching.kind.setCurrentIndex(2)  # the decoder's stream: any lengths
    assert panel.patching.error.isHidden() and panel.patching.shown.kind == "decoder"
    panel.run_b.add_file(str(model_file))
    run(panel, A, B_SAME_LENGTH)
    assert "choose the same model" in panel.patching.error.text()


def test_the_patching_page_says_what_comes_before_the_first_comparison(qtbot):
    from transviz.gui.panels.patching_view import PatchingView

    view = PatchingView()
    qtbot.addWidget(view)
    view.show()
    assert not view.map.isVisibleTo(view) and view.shown is None
    assert "Compare (Enter) runs sentences A and B" in view.summary.text()
    view.refuse("two models")
    assert view.summary.text() == "" and view.error.text() == "two models"


def test_render_draws_the_patching_view_the_core_computes(shipped_model, tmp_path):
    from PySide6.QtGui import QImage

    from transviz.core.analysis.patching import activation_patching
    from transviz.gui.app import dispose
    from transviz.gui.render import build

    a = transviz.decode(shipped_model, A).output_tokens
    b = transviz.decode(shipped_model, B_SAME_LENGTH).output_tokens
    first = next(i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y)
    slide = Slide("patching", A, shipped_model, 900, 500, compare=B_SAME_LENGTH, patch="cross_head", patch_step=first)
    default = Slide("patching", A, shipped_model, 900, 500, compare=B_SAME_LENGTH)
    for shown, kind in ((slide, "cross_head"), (default, "encoder")):  # the default: the first step that differs
        view = build(shown)
        try:
            assert view.step.value() == first
            expected = activation_patching(shipped_model, A, B_SAME_LENGTH, first, kind)
            np.testing.assert_allclose(view.map.data, expected.scores, atol=1e-6)
        finally:
            dispose(view)
    assert render(slide, tmp_path / "patch.svg").read_text(encoding="utf-8").lstrip().startswith("<?xml")
    assert QImage(str(render(default, tmp_path / "patch.png"))).width() == 900


@pytest.mark.parametrize(("slide", "message"), [
    (dict(compare=None), "give --compare B"),
    (dict(compare=B_LONGER), "source tokens"),
    (dict(compare=B_SAME_LENGTH, patch_step=99), "output step 99 does not exist"),
    (dict(compare=B_SAME_LENGTH, patch="attention"), "--patch takes one of"),
    (dict(compare=B_SAME_LENGTH, patch_step=0), "give the same token"),
])
def test_render_refuses_a_patching_view_it_cannot_draw(shipped_model, tmp_path, slide, message):
    with pytest.raises(transviz.InputError, match=message):
        render(Slide("patching", A, shipped_model, 600, 400, **slide), tmp_path / "patch.png")
    assert not (tmp_path / "patch.png").exists()
