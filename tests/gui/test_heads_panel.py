"""The heads tab with the shipped model: its maps and curves are the core's measurements, a
click switches the head off in the explorer's session, cancel leaves nothing half-drawn."""
from __future__ import annotations

import re

import numpy as np
import pyqtgraph as pg
import pytest

import transviz
from transviz import AblateHead
from transviz.core.data.held_out import held_out_pairs
from transviz.core.teaching.workspace import Workspace
from transviz.gui.panels.heads import HeadsPanel


@pytest.fixture(scope="module")
def model():
    return transviz.load_model("default")


@pytest.fixture
def panel(qtbot, show, model, tmp_path):
    workspace = Workspace()
    workspace.set_model(model, "default")
    panel = show(HeadsPanel(workspace), 1366, 700)
    path = tmp_path / "some.tsv"
    path.write_text("".join(f"{p.source}\t{p.target}\n" for p in held_out_pairs(model, "test")[:12]),
                    encoding="utf-8")
    panel.data = str(path)
    yield panel
    panel.shutdown()


def test_before_measuring_it_says_what_measure_does(panel):
    assert panel.about.isVisible() and "Press Measure" in panel.about.text()
    assert not any(m.isVisible() for m in panel.maps.values()) and not panel.curve.isVisible()
    assert panel.measure_button.isEnabled() and not panel.cancel_button.isEnabled()


def test_the_maps_and_curves_are_what_the_core_measures(panel, qtbot, model):
    panel.score_choice.setCurrentIndex(panel.score_choice.findData("logprob"))
    panel.start()
    qtbot.waitUntil(lambda: bool(panel.results), timeout=120_000)
    for kind, heatmap in panel.maps.items():
        expected = transviz.head_importance(model, kind, "logprob", data=panel.data)
        np.testing.assert_allclose(heatmap.data, expected, atol=1e-6)
        curve = transviz.prune_curve(model, kind, "logprob", data=panel.data, importance=expected)
        item = next(i for i in panel.curve.getPlotItem().listDataItems() if i.name() == panel._kind_name(kind))
        np.testing.assert_allclose(item.getData()[1], curve.values, atol=1e-6)
    assert panel.progress.value() == 100 and panel.maps["cross"].isVisible() and not panel.about.isVisible()
    assert "cross-attention: " in panel.summary.text()


def test_the_colour_bars_say_their_unit(panel, qtbot):
    panel.start()
    qtbot.waitUntil(lambda: bool(panel.results), timeout=120_000)
    assert {m.colorbar_title for m in panel.maps.values()} == {"score lost (points of exact match)"}
    panel.score_choice.setCurrentIndex(panel.score_choice.findData("logprob"))
    assert {m.colorbar_title for m in panel.maps.values()} == {"score lost (nats per reference token)"}


def test_while_it_measures_the_bar_says_the_time_left(panel, qtbot):
    """A loaded laptop takes minutes, not the "some seconds" the tab once promised."""
    assert "some seconds" not in panel.about.text() and "time left" in panel.about.text()
    panel.data = "test"  # long enough to see the bar move
    panel.start()
    qtbot.waitUntil(lambda: "left" in panel.progress.text(), timeout=60_000)
    assert re.fullmatch(r"\d+% · about (\d+ min )?\d+ s left", panel.progress.text()), panel.progress.text()
    panel.cancel()
    assert panel.progress.text().endswith("%")


def test_clicking_a_head_switches_it_off_in_the_explorer(panel, qtbot, model):
    panel.start()
    qtbot.waitUntil(lambda: bool(panel.results), timeout=120_000)
    with qtbot.waitSignal(panel.show_panel) as shown:
        panel.maps["cross"].clicked.emit(1, 2)
    assert shown.args == ["explorer"]
    session = panel.workspace.session
    assert session is not None and session.interventions == (AblateHead("cross", 1, 2),)
    panel.maps["cross"].clicked.emit(1, 2)  # twice is still once
    assert panel.workspace.interventions == (AblateHead("cross", 1, 2),)
    session.run_to_end()
    expected = transviz.decode(model, session.source, interventions=[AblateHead("cross", 1, 2)])
    np.testing.assert_array_equal(session.trace().cross_attention, expected.cross_attention)


def test_cancel_stops_and_a_new_model_forgets_the_results(panel, qtbot, model):
    panel.data = "test"  # long enough to cancel
    panel.start()
    assert panel.cancel_button.isEnabled() and not panel.measure_button.isEnabled()
    panel.cancel()
    assert panel.measure_button.isEnabled() and not panel.results
    panel.results = {"cross": (np.zeros((3, 4)), None, ())}  # as if measured before
    panel.workspace.set_model(model, "default")
    assert panel.results == {} and panel.about.isVisible()


def count_by_hand(values) -> int:
    """Heads switched off before exact match first falls a point below the start."""
    lost = [k for k, v in enumerate(values) if values[0] - v >= 0.01 - 1e-9]
    return lost[0] - 1 if lost else len(values) - 1


def test_how_many_heads_can_go_is_given_with_its_spread_over_tie_orders(panel, qtbot):
    """Most heads tie on importance: the summary gives the lowest and highest count over the orders
    of equally important heads (counted here from each curve's values), and the band spans them."""
    panel.start()
    qtbot.waitUntil(lambda: bool(panel.results), timeout=300_000)
    lines = panel.summary.text().split("\n")
    bands = [item for item in panel.curve.getPlotItem().items if isinstance(item, pg.FillBetweenItem)]
    assert len(lines) == len(bands) == 3
    for line, (kind, (importance, curve, shuffled)) in zip(lines, panel.results.items(), strict=True):
        assert len(shuffled) >= 4 and curve.ties is None
        counts = [count_by_hand(c.values) for c in (curve, *shuffled)]
        tied = sum(1 for v in importance.flat if (importance == v).sum() > 1)
        name = panel._kind_name(kind)
        if min(counts) < max(counts):
            assert line == (f"{name}: {min(counts)} to {max(counts)} of 12 heads can be switched off losing less "
                            f"than one point, depending on the order of the {tied} heads whose importance ties with "
                            f"another's "
                            f"({len(counts)} orders tried; the curve's, layer and head order, gives {counts[0]})")
        elif tied:
            assert line.startswith(f"{name}: {counts[0]} of 12 heads can be switched off losing less than one "
                                   f"point, in each of {len(counts)} orders of the {tied} heads whose"), line
        else:
            assert "no two heads are equally important" in line
        for c in shuffled:  # shuffled within ties only
            assert [importance[h] for h in c.order] == sorted(importance.flat)
    for band, (_, curve, shuffled) in zip(bands, panel.results.values(), strict=True):
        spread = np.stack([c.values for c in (curve, *shuffled)]) * 100
        low, high = (c.getData()[1] for c in band.curves)
        np.testing.assert_allclose(low, spread.min(axis=0))
        np.testing.assert_allclose(high, spread.max(axis=0))
