"""The public API on a real (untrained) small model: decode and teacher forcing agree."""
import numpy as np
import pytest
import torch

import transviz
from transviz.core.model.transformer import Transformer
from transviz.core.model.vocab import Vocab


@pytest.fixture
def model():
    torch.manual_seed(3)
    src = Vocab("ich mochte ein bier trinken".split())
    tgt = Vocab("i want a beer to drink".split())
    cfg = transviz.ModelConfig(len(src), len(tgt), d_model=32, n_heads=4, d_ff=64, dropout=0.1, max_len=40)
    net = Transformer(cfg)
    with torch.no_grad():  # a trained model never emits <pad>, <s> or <unk>; make this one alike
        net.generator.bias[[0, 1, 3]] = -1e4
    return transviz.Model(net, src, tgt)


def test_decode_equals_teacher_forcing_on_its_output(model):
    with torch.no_grad():  # a slight lean towards the end token, so that this model ends a sentence
        model.net.generator.bias[2] += 0.5
    trace = transviz.decode(model, "ich mochte ein bier", max_len=12)
    assert trace.stop_reason == "end" and trace.output_tokens[-1] == "</s>" and len(trace.output_tokens) > 1
    assert trace.target_tokens[0] == "<s>"
    T, S = len(trace.target_tokens), len(trace.source_tokens)
    assert trace.cross_attention.shape == (2, 4, T, S)
    assert trace.decoder_self_attention.shape == (2, 4, T, T)
    assert trace.encoder_self_attention.shape == (2, 4, S, S)
    forced = transviz.teacher_force(model, "ich mochte ein bier", trace.translation)
    assert forced.target_tokens == trace.target_tokens
    for name in ("encoder_self_attention", "decoder_self_attention", "cross_attention"):
        np.testing.assert_allclose(getattr(forced, name), getattr(trace, name), atol=1e-5)
    np.testing.assert_allclose(trace.cross_attention.sum(-1), 1.0, atol=1e-5)
    assert model.net.training  # the caller's mode is restored


def test_teacher_forcing_matches_greedy_token_by_token(model):
    trace = transviz.decode(model, "ich mochte ein bier", max_len=8)
    forced = transviz.teacher_force(model, "ich mochte ein bier", " ".join(trace.output_tokens[:-1]))
    assert forced.predicted_tokens[: len(trace.output_tokens)] == trace.output_tokens
    n = len(trace.target_tokens)
    np.testing.assert_allclose(forced.cross_attention[:, :, :n], trace.cross_attention, atol=1e-5)
    np.testing.assert_allclose(forced.decoder_self_attention[:, :, :n, :n], trace.decoder_self_attention, atol=1e-5)


def test_unknown_words_are_reported(model):
    trace = transviz.decode(model, "ich mochte ein wasser", max_len=3)
    assert trace.unknown_tokens == [(3, "wasser")]
    assert trace.source_tokens[3] == "wasser"


@pytest.mark.parametrize("text", ["", "   ", "\n\t"])
def test_empty_sentence_is_a_clear_error(model, text):
    with pytest.raises(transviz.InputError, match="empty"):
        transviz.decode(model, text)


def test_too_long_sentence_is_a_clear_error(model):
    with pytest.raises(transviz.InputError, match="at most 40"):
        transviz.decode(model, "bier " * 500)


def test_unknown_strategy_is_a_clear_error(model):
    with pytest.raises(transviz.InputError, match="strategy"):
        transviz.decode(model, "ich", strategy="psychic")


def test_nfc_normalisation_makes_spellings_equal():
    vocab = Vocab(["m\u00f6chte"])
    assert vocab.encode("mo\u0308chte").ids == vocab.encode("m\u00f6chte").ids == [4]
