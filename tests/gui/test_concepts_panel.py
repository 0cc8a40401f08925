"""The Concepts tab in the real window with the shipped model: it follows the explorer's sentence
and step, its choices pick the layer drawn, it says plainly when there is nothing to show, and
`transviz render --view NAME` draws every concept view to a PNG and an SVG."""
from __future__ import annotations

import contextlib
import xml.etree.ElementTree as ET

import pytest
from PySide6.QtGui import QImage

from rounding import assert_close
from transviz import cli
from transviz.core.analysis.concepts.ffn import ffn_activations
from transviz.core.analysis.concepts.forward import Sentence
from transviz.core.analysis.walkthrough import KINDS
from transviz.gui import CONCEPTS
from transviz.gui.panels.concepts.catalogue import CONCEPT_VIEWS


def test_the_catalogue_and_the_command_lines_names_agree():
    assert tuple(view.name for view in CONCEPT_VIEWS) == CONCEPTS


def test_the_ffn_view_follows_the_explorers_step(shipped_window, shipped_model):
    panel = shipped_window.panels["concepts"]
    shipped_window.tabs.setCurrentWidget(panel)
    panel.select("ffn")
    view = panel.current
    assert view.units.row_labels() == ["<s>"]  # cross-attention chosen: the decoder's FFN, before a step
    explorer = shipped_window.panels["explorer"]
    explorer.controller.step()
    explorer.controller.step()
    written = tuple(shipped_window.workspace.session.target_tokens[1:])
    assert view.units.row_labels() == ["<s>", *written]
    expected = ffn_activations(shipped_model, Sentence("ich mochte ein bier", written), "decoder", 0)
    assert_close(view.units.data, expected.hidden)  # the window computes on its own thread count

    panel.kind.setCurrentIndex(KINDS.index("encoder_self"))
    panel.layer.setValue(2)
    assert view.units.row_labels() == ["ich", "mochte", "ein", "bier"] and "encoder layer 2" in view.units.title
    assert panel.layer.maximum() == 2 and not panel.head.isVisibleTo(panel)  # the FFN has no heads
    assert "spindle-shaped FFN" in panel.claim.text() and panel.list.currentItem().text() == "The FFN spindle"


def test_without_a_model_or_a_sentence_the_tab_says_why(shipped_window):
    panel = shipped_window.panels["concepts"]
    shipped_window.tabs.setCurrentWidget(panel)
    shipped_window.workspace.set_model(None)
    assert panel.error.text() == "no model is loaded: open a checkpoint first"
    assert not panel.error.isHidden() and not panel.pages.isVisibleTo(panel)


@pytest.mark.parametrize("view", CONCEPTS)
def test_every_concept_view_renders_to_png_and_svg(tmp_path, view):
    for suffix in (".png", ".svg"):
        out = tmp_path / f"{view}{suffix}"
        assert cli.main(["render", "ich mochte ein bier", "--view", view, "--step", "2", "--layer", "1",
                         "--out", str(out), "--size", "1280x720"]) == 0
        if suffix == ".png":
            image = QImage(str(out))
            colours = {image.pixel(x, y) for x in range(0, 1280, 4) for y in range(0, 720, 4)}
            assert (image.width(), image.height()) == (1280, 720) and len(colours) > 20
        else:
            root = ET.parse(out).getroot()
            assert root.find("{http://www.w3.org/2000/svg}title").text == f"transviz: {view}"


def test_the_sharing_view_hides_the_choosers_and_states_the_counts(shipped_window, shipped_model):
    panel = shipped_window.panels["concepts"]
    shipped_window.tabs.setCurrentWidget(panel)
    panel.select("sharing")
    assert not panel.chooser.isVisibleTo(panel)
    total = sum(p.numel() for p in shipped_model.net.parameters())
    assert f"This model stores {total:,} parameters" in panel.current.facts.text()
    assert "(509 and 286 tokens)" in panel.current.facts.text()
    # the third bar is one joint table of both vocabularies, d_model wide, drawn and named as such
    joint = len(set(shipped_model.src_vocab.itos) | set(shipped_model.tgt_vocab.itos))
    legend = {label.text: sample.item for sample, label in panel.current.legend.items}
    bars = legend["one joint table (both sides and the output)"]
    assert list(bars.opts["height"]) == pytest.approx([0, 0, joint * shipped_model.config.d_model / 1000])
    assert list(legend["source embedding"].opts["height"][2:]) == [0]


def test_every_concept_maps_axis_names_follow_the_language(shipped_window, qtbot):
    from transviz.gui.services.language import CHINESE, ENGLISH, set_language
    from transviz.gui.widgets.heatmap import HeatmapWidget

    panel = shipped_window.panels["concepts"]
    heatmaps = panel.findChildren(HeatmapWidget)
    english = [(heatmap.axes.row_title, heatmap.axes.column_title) for heatmap in heatmaps]
    assert len(heatmaps) >= 8 and ("tokens (rows)", "hidden units of the FFN (columns)") in english
    set_language(CHINESE)

    def untranslated():
        return [names for heatmap, names in zip(heatmaps, english, strict=True)
                if heatmap.axes.row_title == names[0] or heatmap.axes.column_title == names[1]]
    try:
        with contextlib.suppress(qtbot.TimeoutError):
            qtbot.waitUntil(lambda: not untranslated(), timeout=3000)
        assert untranslated() == []
    finally:
        set_language(ENGLISH)
