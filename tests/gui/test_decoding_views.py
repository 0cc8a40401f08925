"""What the explorer says about decoding (issue 14, items 5-8), in the real window with real tiny
models, checked against quantities computed here with torch directly on the model's logits."""
from __future__ import annotations

import pytest
import torch
from PySide6.QtCore import Qt

from transviz.core.vocab import BOS, EOS, PAD, UNK
from transviz.gui.main_window import MainWindow

SENTENCE = "ich mochte ein bier"


@pytest.fixture
def window(qtbot):
    win = MainWindow()
    qtbot.addWidget(win)
    win.resize(1400, 900)
    win.show()
    qtbot.waitExposed(win)
    yield win
    win.shutdown()


def words_only(model):
    with torch.no_grad():
        for token in (PAD, BOS, UNK):
            model.net.generator.bias[model.tgt_vocab.stoi[token]] -= 1e4
    return model


def open_sentence(window, qtbot, model, sentence=SENTENCE):
    window.workspace.set_model(model)
    explorer = window.panels["explorer"]
    explorer.source.sentence.setText(sentence)
    return explorer


def next_logits(model, sentence: str, output_tokens: list[str]) -> torch.Tensor:
    """The logits of the next token, by a full forward pass over the prefix (no cache, no session)."""
    src = torch.tensor([model.src_vocab.encode(sentence).ids])
    vocab = model.tgt_vocab
    tgt = torch.tensor([[vocab.bos_id] + [vocab.stoi[t] for t in output_tokens]])
    model.net.eval()
    with torch.no_grad():
        return model.net(src, tgt).logits[0].double()  # (T, V): row t chose output t


def sampling_distribution(logits: torch.Tensor, temperature: float, top_k: int, top_p: float) -> torch.Tensor:
    p = torch.softmax(logits / temperature, -1)
    values, order = torch.sort(p, descending=True, stable=True)
    if top_k:
        values, order = values[:top_k], order[:top_k]
    reached = (torch.cumsum(values, 0) >= top_p - 1e-12).nonzero()
    last = int(reached[0]) if top_p < 1 and len(reached) else len(values) - 1
    kept = torch.zeros_like(p)
    kept[order[: last + 1]] = p[order[: last + 1]]
    return kept / kept.sum()


def test_sampling_bars_show_the_distribution_drawn_from_and_the_raw_one(window, qtbot, make_model):
    """Item 7: at temperature 2.5 the bars are the tempered, filtered distribution; the raw beside it."""
    model = words_only(make_model(layers=2, heads=2))
    explorer = open_sentence(window, qtbot, model)
    editor = explorer.controls.strategy
    editor.choice.setCurrentIndex(1)
    editor.temperature.setValue(2.5)
    editor.top_k.setValue(5)
    editor.top_p.setValue(0.9)
    editor.seed.setValue(7)
    for _ in range(3):
        assert explorer.controller.step()
    session = explorer.controller.session
    logits = next_logits(model, SENTENCE, session.output_tokens[:-1])[-1]
    drawn, raw = sampling_distribution(logits, 2.5, 5, 0.9), torch.softmax(logits, -1)
    bars = explorer.candidates.bars()
    for (token, p), raw_p in zip(bars, explorer.candidates.raw_bars(), strict=True):
        i = model.tgt_vocab.stoi[token]
        assert p == pytest.approx(float(drawn[i]), abs=1e-5)
        assert raw_p == pytest.approx(float(raw[i]), abs=1e-5)
    assert len(bars) == int((drawn > 0).sum().clamp(max=explorer.controller.workspace.top_k))
    title = explorer.candidates.title
    written = session.output_tokens[-1]
    assert f"{float(drawn[model.tgt_vocab.stoi[written]]):.3f}" in title and "raw" in title
