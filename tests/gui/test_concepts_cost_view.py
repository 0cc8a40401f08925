"""The Concepts tab's cost view on the shipped model: its FLOPs add up to what torch's own FLOP
counter sees one teacher-forced pass of the sentence compute, beside them the measured time of each
component, and its texts name the seed's claim. In the tab the timing runs on the view's worker
thread, so a step's redraw does not wait for it."""
from __future__ import annotations

import dataclasses

import pyqtgraph as pg
import pytest
import torch
from PySide6.QtCore import QThread
from torch.utils.flop_counter import FlopCounterMode

import transviz
from transviz.core.analysis.concepts.component_time import PARTS, component_times
from transviz.core.analysis.concepts.cost import flops
from transviz.core.analysis.concepts.forward import Sentence
from transviz.gui.panels.concepts import cost
from transviz.gui.panels.concepts.base import ConceptContext
from transviz.gui.panels.concepts.cost import CostView

WAIT_MS = 60_000


@pytest.fixture(scope="module")
def model():
    return transviz.load_model("default")


def torch_counts(model, sentence: Sentence) -> dict[str, int]:
    """torch's FLOPs of the pass: the output layer's (the generator module), all of them, the
    attention products (every bmm: scores and weights x V), the FFN's, and attention's projections
    (every other addmm)."""
    source = torch.tensor([model.src_vocab.encode(sentence.source).ids])
    target = torch.tensor([[model.tgt_vocab.bos_id, *(model.tgt_vocab.stoi[t] for t in sentence.target)]])
    model.net.eval()
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        model.net(source, target, return_attention=True)  # plain products torch can count
    by_module = {name: {str(op): n for op, n in ops.items()} for name, ops in counter.get_flop_counts().items()}
    ffn = sum(ops.get("aten.addmm", 0) for name, ops in by_module.items() if name.endswith(".ffn"))
    output = sum(by_module["Transformer.generator"].values())
    return {"all": counter.get_total_flops(), "output": output, "products": by_module["Global"]["aten.bmm"],
            "ffn": ffn, "projections": by_module["Global"]["aten.addmm"] - ffn - output}


def bar_heights(view) -> list[list[float]]:
    bars = [item for item in view.bars.getPlotItem().items if isinstance(item, pg.BarGraphItem)]
    return [list(item.opts["height"]) for item in bars]


def test_the_flops_agree_with_torchs_count_and_the_time_is_beside_them(show, model):
    view = show(CostView(), 1100, 650)  # alone, the view measures at once
    sentence = Sentence("ich mochte ein bier", ("i", "want"))
    view.draw(ConceptContext(model, sentence, "cross", 0, 0))
    counted = torch_counts(model, sentence)
    flop_shares, time_shares = bar_heights(view)
    assert len(flop_shares) == len(time_shares) == len(PARTS) == 9
    title = view.bars.getPlotItem().titleLabel.text
    assert "4 source and 3 decoder tokens" in title and f"{counted['all'] / 1e6:.2f} MFLOPs" in title
    assert flop_shares[PARTS.index("output")] == pytest.approx(100 * counted["output"] / counted["all"], rel=1e-6)
    assert flop_shares[PARTS.index("other")] == 0 and sum(flop_shares) == pytest.approx(100)
    assert sum(time_shares) == pytest.approx(100) and all(share > 0 for share in time_shares)
    assert f"{1000 * view.times.total:.2f} ms" in title and (view.times.source_len, view.times.target_len) == (4, 3)
    assert "(FLOPS)" in view.claim() and "n x m x l" in view.claim()
    assert "time is not where the FLOPs are" in view.caption()
    assert f"(median of {view.times.repeats} runs, one thread)" in view.caption()
    # the tutorial's "small part": the products alone, with the numbers torch's counter gives
    shares = {part: counted[part] / counted["all"] for part in ("products", "projections", "ffn")}
    assert shares["products"] < 0.01 < 0.4 < shares["projections"]
    assert (f"only the n x m x l products (QK^T and weights x V) are small: {shares['products']:.1%} of these FLOPs; "
            f"its Q, K, V and output projections take {shares['projections']:.1%}, the FFN {shares['ffn']:.1%}"
            in view.caption())


def test_in_the_tab_the_time_is_measured_off_the_gui_thread(shipped_window, qtbot, monkeypatch):
    threads = []

    def watched(*args, **kwargs):
        threads.append(QThread.currentThread())
        return component_times(*args, **kwargs)

    monkeypatch.setattr(cost, "component_times", watched)
    panel = shipped_window.panels["concepts"]
    shipped_window.tabs.setCurrentWidget(panel)
    panel.select("cost")
    view = panel.current
    title = view.bars.getPlotItem().titleLabel.text
    assert "1 decoder tokens" in title and "measuring its time" in title  # the FLOPs at once
    counted = torch_counts(shipped_window.workspace.decoding_model, Sentence("ich mochte ein bier", ()))
    assert f"are small: {counted['products'] / counted['all']:.1%} of these FLOPs" in panel.caption.text()
    assert view.background.bar.isVisibleTo(view)
    qtbot.waitUntil(lambda: view.times is not None, timeout=WAIT_MS)
    assert threads == [view.background.runner.worker_thread] and threads[0] is not QThread.currentThread()
    assert not view.background.bar.isVisibleTo(view) and sum(bar_heights(view)[1]) == pytest.approx(100)

    controller = shipped_window.panels["explorer"].controller
    while len(controller.session.target_tokens) < 2:  # the first step runs the encoder
        controller.step()  # then a new length: the last time shown until it is measured
    qtbot.waitUntil(lambda: "2 decoder tokens" in view.bars.getPlotItem().titleLabel.text, timeout=WAIT_MS)
    assert "time of 4 and 1 tokens; measuring this length" in view.bars.getPlotItem().titleLabel.text
    qtbot.waitUntil(lambda: view.times.target_len == 2, timeout=WAIT_MS)
    assert "measuring" not in view.bars.getPlotItem().titleLabel.text


def set_spin(view, field: str, value: int) -> None:
    view.spins[field].setValue(value)  # as the user does: the view redraws on the change


def test_the_sizes_the_user_sets_drive_every_picture(show, model):
    view = show(CostView(), 1366, 700)
    sentence = Sentence("ich mochte ein bier", ("i", "want"))
    view.draw(ConceptContext(model, sentence, "cross", 0, 0))
    assert view.sizes().d_model == model.config.d_model and view.sizes().source_len == 4  # the loaded model's
    for field, value in (("d_model", 64), ("d_ff", 100), ("n_heads", 2), ("n_encoder_layers", 1),
                         ("n_decoder_layers", 2), ("source_len", 9), ("target_len", 6)):
        set_spin(view, field, value)
    config = dataclasses.replace(model.config, d_model=64, d_ff=100, n_heads=2, n_encoder_layers=1,
                                 n_decoder_layers=2)
    counts = flops(config, 9, 6)
    total = sum(counts.values())
    flop_shares = bar_heights(view)[0]
    assert flop_shares == pytest.approx([100 * counts.get(part, 0) / total for part in PARTS])
    assert "9 source and 6 decoder tokens" in view.bars.getPlotItem().titleLabel.text
    attention_products = 2 * 2 * 64 * (9 * 9 * 1 + (6 * 6 + 6 * 9) * 2)  # QK^T and weights x V of every block
    assert f"are small: {attention_products / total:.1%} of these FLOPs" in view.caption()  # the user's sizes
    stacked = view.width_bars["ffn"].opts  # this width's bar: its FFN slice is the FFN's share
    at = list(stacked["x"]).index(view.own_width.value())
    assert stacked["height"][at] == pytest.approx(100 * flops(dataclasses.replace(config, d_ff=256), 9, 6)["ffn"]
                                                 / sum(flops(dataclasses.replace(config, d_ff=256), 9, 6).values()))
    tops = sum(item.opts["height"] for item in view.width_bars.values())
    assert tops == pytest.approx(100)  # every stacked bar is all the FLOPs
    products = view.products_curve.yData  # the FLOPs themselves (the axis draws their log)
    at_512 = flops(config, 512, 512)
    assert products[-1] == pytest.approx(at_512["scores"] + at_512["weights_v"])  # n x m x l at 512 tokens
    assert view.times is not None and (view.times.source_len, view.times.target_len) == (9, 6)  # a fresh model
    assert all(seconds > 0 for seconds in view.times.seconds.values())

    view.draw(ConceptContext(model, Sentence("ich", ()), "cross", 0, 0))  # another sentence: the user's sizes stay
    assert view.sizes().source_len == 9
    view.reset.click()
    assert view.sizes().source_len == 1 and view.sizes().d_model == model.config.d_model  # "ich"


def test_impossible_and_untimeable_sizes_say_so(show, model):
    view = show(CostView(), 1366, 700)
    view.draw(ConceptContext(model, Sentence("ich mochte ein bier", ()), "cross", 0, 0))
    before = bar_heights(view)[0]
    set_spin(view, "n_heads", 3)  # 128 is not divisible by 3
    assert view.message.isVisibleTo(view) and "divisible" in view.message.text()
    assert bar_heights(view)[0] == before  # the last picture stays
    set_spin(view, "n_heads", 4)
    assert not view.message.isVisibleTo(view)
    set_spin(view, "d_model", 1024)
    set_spin(view, "source_len", 1000)
    assert "Not timed" in view.message.text() and view.times is None
    assert "too large to time here" in view.bars.getPlotItem().titleLabel.text
