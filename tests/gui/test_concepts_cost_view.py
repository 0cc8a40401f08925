"""The Concepts tab's FLOPs view on the shipped model: its bars add up to what torch's own FLOP
counter sees one teacher-forced pass of the sentence compute, and its texts name the seed's claim."""
from __future__ import annotations

import pyqtgraph as pg
import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode

import transviz
from transviz.core.concepts.forward import Sentence
from transviz.gui.panels.concepts.base import ConceptContext
from transviz.gui.panels.concepts.cost import CostView


@pytest.fixture(scope="module")
def model():
    return transviz.load_model("default")


def torch_total(model, sentence: Sentence) -> int:
    source = torch.tensor([model.src_vocab.encode(sentence.source).ids])
    target = torch.tensor([[model.tgt_vocab.bos_id, *(model.tgt_vocab.stoi[t] for t in sentence.target)]])
    model.net.eval()
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        model.net(source, target, return_attention=True)  # plain products torch can count
    return counter.get_total_flops()


def test_the_bars_add_up_to_torchs_count_of_the_pass(show, model):
    view = show(CostView(), 1100, 650)
    sentence = Sentence("ich mochte ein bier", ("i", "want"))
    view.draw(ConceptContext(model, sentence, "cross", 0, 0))
    bars = [item for item in view.bars.getPlotItem().items if isinstance(item, pg.BarGraphItem)]
    heights = bars[0].opts["height"]
    assert len(heights) == 8 and sum(heights) * 1e6 == pytest.approx(torch_total(model, sentence), rel=1e-6)
    assert "4 source and 3 decoder tokens" in view.bars.getPlotItem().titleLabel.text
    assert "(FLOPS)" in view.claim() and "n x m x l" in view.claim()
