"""The compare tab with training snapshots as runs, on the real window and the shipped model: the
steps offered against load_snapshots, the difference map against the snapshots' maps (numpy), the
token diff, a checkpoint without snapshots, and render --snapshots."""
import numpy as np
import pytest
from PySide6.QtGui import QImage

from transviz.core.analysis.walkthrough import KINDS
from transviz.core.base.errors import InputError
from transviz.core.io.resources import shipped_models
from transviz.core.training.snapshots import load_snapshots
from transviz.gui.panels.compare import SENTENCE, ComparePanel
from transviz.gui.render import Slide, render


@pytest.fixture
def panel(shipped_window):
    compare = shipped_window.panels["compare"]
    assert isinstance(compare, ComparePanel)
    shipped_window.tabs.setCurrentWidget(compare)
    return compare


@pytest.fixture(scope="module")
def snapshots():
    return {snap.step: snap for snap in load_snapshots(shipped_models()["default"])}


def steps_offered(run):
    return [run.step.itemData(i) for i in range(run.step.count())]


def compare_steps(panel, a, b):
    assert panel.run_a.choose_step(a) and panel.run_b.choose_step(b)
    panel.run()


def test_the_chooser_offers_the_shipped_models_steps(panel, snapshots):
    assert steps_offered(panel.run_a) == [SENTENCE, *snapshots]  # the loaded model is the shipped default
    assert list(snapshots)[:3] == [0, 50, 100] and len(snapshots) >= 25
    panel.run_b.model.setCurrentIndex(panel.run_b.model.findData("zh-en"))
    assert steps_offered(panel.run_b) == [SENTENCE, *(s.step for s in load_snapshots(shipped_models()["zh-en"]))]
    assert panel.run_b.step.itemText(2) == "step 50"


def test_a_snapshot_shows_its_probe_read_only_and_gives_the_sentence_back(panel):
    panel.run_a.sentence.setText("ich mochte ein wasser")
    panel.run_a.choose_step(600)
    assert panel.run_a.sentence.text() == "ich mochte ein bier" and panel.run_a.sentence.isReadOnly()
    panel.run_a.choose_step(None)
    assert panel.run_a.sentence.text() == "ich mochte ein wasser" and not panel.run_a.sentence.isReadOnly()


def test_the_difference_map_is_how_a_head_changed_between_two_steps(panel, snapshots):
    compare_steps(panel, 100, 1200)
    panel.kind.setCurrentIndex(KINDS.index("cross"))
    panel.layer.setValue(1)
    panel.head.setCurrentIndex(2)
    early, late = snapshots[100].cross_attention[1, 2], snapshots[1200].cross_attention[1, 2]
    np.testing.assert_allclose(panel.map_a.data, early, atol=1e-7)
    np.testing.assert_allclose(panel.map_b.data, late, atol=1e-7)
    expected = late.astype(np.float64) - early
    np.testing.assert_allclose(panel.difference.data, expected, atol=1e-6)
    scale = np.abs(expected).max()
    assert panel.difference.levels == pytest.approx((-scale, scale), abs=1e-6)
    assert "step 100" in panel.map_a.title and "step 1200" in panel.map_b.title


def test_the_difference_of_the_layer_means(panel, snapshots):
    compare_steps(panel, 0, 600)
    panel.kind.setCurrentIndex(KINDS.index("encoder_self"))
    panel.layer.setValue(2)
    panel.head.setCurrentIndex(4)  # the shipped model has 4 heads: the first summary, the mean
    expected = snapshots[600].encoder_self_attention[2].mean(axis=0) - snapshots[0].encoder_self_attention[2].mean(
        axis=0)
    np.testing.assert_allclose(panel.difference.data, expected, atol=1e-6)


def test_the_token_diff_of_two_steps_predictions(panel, snapshots):
    assert snapshots[150].predicted_tokens == ["i", "want", "to", "book", "</s>"]
    compare_steps(panel, 150, 250)
    text = panel.outputs.text()
    assert "to book</s>" in text and "a beer</u>" in text and text.endswith("&lt;/s&gt;</b>")


def test_a_checkpoint_without_snapshots_is_named_and_the_comparison_stays(panel, model_file):
    compare_steps(panel, 100, 1200)
    before = panel.comparison
    panel.run_b.add_file(str(model_file))
    assert steps_offered(panel.run_b) == [SENTENCE] and not panel.run_b.step.isEnabled()
    assert "tiny.safetensors holds no training snapshots" in panel.run_b.step.toolTip()
    assert panel.error.isVisibleTo(panel) and "tiny.safetensors holds no training snapshots" in panel.error.text()
    assert panel.comparison is before and not panel.run_b.sentence.isReadOnly()


def test_render_compares_two_snapshots(shipped_model, tmp_path):
    out = render(Slide("compare", "", shipped_model, 800, 500, snapshots=(100, 1200)), tmp_path / "steps.png")
    image = QImage(str(out))
    assert (image.width(), image.height()) == (800, 500)
    assert len({image.pixel(x, y) for x in range(0, 800, 7) for y in range(0, 500, 7)}) > 20
    with pytest.raises(InputError, match="no snapshot at step 75; its steps: 0, 50"):
        render(Slide("compare", "", shipped_model, 800, 500, snapshots=(0, 75)), tmp_path / "none.png")


def test_the_render_command_takes_two_steps_and_no_sentence(tmp_path, capsys):
    from transviz.cli import main

    out = tmp_path / "steps.png"
    assert main(["render", "--view", "compare", "--snapshots", "0", "1200", "--head", "mean", "--out", str(out)]) == 0
    assert QImage(str(out)).width() == 1600
    wrongs = [(["ein bier", "--view", "compare"], "leave out SENTENCE"),
              (["--view", "grid"], "--snapshots goes with --view compare"),
              (["--view", "compare", "--model", "dates"], "dates.safetensors has no snapshot at step 1210")]
    for wrong, message in wrongs:
        assert main(["render", *wrong, "--snapshots", "0", "1210", "--out", str(tmp_path / "x.png")]) == 1
        assert message in capsys.readouterr().err
