"""The FFN spindle's numbers: each token's hidden units equal ReLU(x W1^T + b1) computed here with
numpy from what a plain torch hook saw enter the FFN, for the encoder and the decoder."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import transviz
from transviz.core.analysis.concepts.ffn import ffn_activations
from transviz.core.analysis.concepts.forward import Sentence
from transviz.core.base.errors import InputError


@pytest.fixture(scope="module")
def model():
    return transviz.load_model("default")


def ffn_inputs(model, side: str, layer: int, sentence: Sentence) -> np.ndarray:
    """What enters the FFN of that layer in a teacher-forced pass (a hook on the FFN module)."""
    stack = model.net.encoder_layers if side == "encoder" else model.net.decoder_layers
    seen = []
    handle = stack[layer].ffn.register_forward_pre_hook(lambda _, args: seen.append(args[0].detach()))
    source = torch.tensor([model.src_vocab.encode(sentence.source).ids])
    target = torch.tensor([[model.tgt_vocab.bos_id, *(model.tgt_vocab.stoi[t] for t in sentence.target)]])
    model.net.eval()
    with torch.no_grad():
        model.net(source, target)
    handle.remove()
    return seen[0][0].numpy().astype(np.float64)


@pytest.mark.parametrize(("side", "layer"), [("encoder", 0), ("encoder", 2), ("decoder", 1)])
def test_the_hidden_units_are_relu_of_the_first_linear_layer(model, side, layer):
    sentence = Sentence("ich mochte ein bier", ("i", "want"))
    shown = ffn_activations(model, sentence, side, layer)
    ffn = (model.net.encoder_layers if side == "encoder" else model.net.decoder_layers)[layer].ffn
    w1, b1 = ffn.linear1.weight.detach().double().numpy(), ffn.linear1.bias.detach().double().numpy()
    expected = np.maximum(ffn_inputs(model, side, layer, sentence) @ w1.T + b1, 0.0)
    np.testing.assert_allclose(shown.hidden, expected, atol=1e-5)
    assert shown.tokens == (["ich", "mochte", "ein", "bier"] if side == "encoder" else ["<s>", "i", "want"])
    assert (shown.d_model, shown.d_ff) == (128, 512) and shown.hidden.shape == (len(shown.tokens), 512)
    np.testing.assert_allclose(shown.active_share, [(row > 0).sum() / 512 for row in expected])
    top = shown.strongest(3)
    for row, units in zip(expected, top, strict=True):
        assert sorted(row, reverse=True)[:3] == pytest.approx(list(row[units]), abs=1e-5)


def test_a_layer_the_model_lacks_is_named(model):
    with pytest.raises(InputError, match="no layer 3: the decoder has layers 0 to 2"):
        ffn_activations(model, Sentence("ein bier"), "decoder", 3)


def test_a_target_token_the_vocabulary_lacks_is_read_as_unk(model):
    shown = ffn_activations(model, Sentence("ein bier", ("zzzz",)), "decoder", 0)
    assert shown.tokens == ["<s>", "zzzz"] and np.isfinite(shown.hidden).all()
