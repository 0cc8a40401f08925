"""Attribution beside attention, against references written here: completeness of integrated
gradients on the shipped model, a plain one-point-at-a-time IG over an encoder pass written out in
this file, Spearman's correlation by hand (and scipy's where installed), the head mean of
``transviz.decode``'s cross maps, and the rollout composed in numpy."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import transviz
from transviz.core.analysis.concepts.attribution import attribute, integrated_gradients, spearman
from transviz.core.analysis.concepts.forward import Sentence, model_inputs
from transviz.core.base.errors import InputError
from transviz.core.model.bundle import decoding_copy
from transviz.core.model.transformer import Encoded, Transformer
from transviz.core.model.vocab import Vocab

SOURCE = "ich mochte ein bier"


@pytest.fixture(scope="module")
def model():
    return decoding_copy(transviz.load_model("default"))


@pytest.fixture(scope="module")
def trace(model):
    return transviz.decode(model, SOURCE)


@pytest.fixture(scope="module")
def written(trace):
    return tuple(trace.target_tokens[1:])  # greedy: "i want a beer"


@pytest.mark.parametrize("baseline", ["zero", "pad"])
def test_attributions_sum_to_the_change_of_log_probability(model, written, baseline):
    for step in range(1, len(written) + 1):
        sentence = Sentence(SOURCE, written[:step])
        shown = attribute(model, sentence, baseline=baseline, steps=64)
        embedded = model.net.src_embed(model_inputs(model, sentence).source_ids).detach()
        start = torch.zeros_like(embedded) if baseline == "zero" else model.net.src_embed.weight[0].expand_as(embedded)
        with torch.no_grad():
            change = (log_probs_written_out(model, sentence, embedded)
                      - log_probs_written_out(model, sentence, start))[0].double().numpy()
        assert shown.attribution.shape == (step, 4)
        np.testing.assert_allclose(shown.attribution.sum(axis=1), change, rtol=0.05)
        np.testing.assert_allclose(shown.change, change, rtol=1e-4)


def log_probs_written_out(model, sentence: Sentence, embedded: torch.Tensor) -> torch.Tensor:
    """log p of each output token (B, T) with ``embedded`` (B, S, d) as the source embedding
    layer's output: the encoder's steps taken one by one here, the decoder the model's own."""
    net, inputs = model.net, model_inputs(model, sentence)
    batch = embedded.shape[0]
    x = embedded * math.sqrt(model.config.d_model) + net.positional[: embedded.shape[1]]
    mask = (inputs.source_ids != model.config.pad_id)[:, None, None, :]
    for layer in net.encoder_layers:
        x, _ = layer(x, mask)
    decoder_inputs, outputs = inputs.target_ids[:, :-1], inputs.target_ids[:, 1:]
    logits = net.decode(decoder_inputs.expand(batch, -1), Encoded(net.encoder_norm(x), mask, None)).logits
    return torch.log_softmax(logits, dim=-1).gather(-1, outputs.expand(batch, -1)[..., None])[..., 0]


def test_batched_ig_equals_a_plain_loop_over_the_path(model, written):
    sentence = Sentence(SOURCE, written)
    embedded = model.net.src_embed(model_inputs(model, sentence).source_ids).detach()
    baseline = torch.zeros_like(embedded)
    nodes, weights = np.polynomial.legendre.leggauss(32)
    expected = torch.zeros(len(written), *embedded.shape[1:], dtype=torch.float64)
    for node, weight in zip(nodes, weights, strict=True):  # one point of the path at a time
        point = (baseline + (node + 1) / 2 * (embedded - baseline)).requires_grad_(True)
        with torch.enable_grad():
            out = log_probs_written_out(model, sentence, point)[0]
            for t in range(len(written)):
                (grad,) = torch.autograd.grad(out[t], point, retain_graph=True)
                expected[t] += weight / 2 * grad[0].double()
    expected *= (embedded - baseline)[0].double()

    def f(batch: torch.Tensor) -> torch.Tensor:
        return log_probs_written_out(model, sentence, batch)

    np.testing.assert_allclose(integrated_gradients(f, embedded, baseline, 32).double(), expected, atol=1e-5)
    shown = attribute(model, sentence, steps=32)
    np.testing.assert_allclose(shown.attribution, expected.sum(dim=-1).numpy(), atol=1e-4)


def test_spearman_with_ties_worked_by_hand():
    # ranks (1, 2.5, 2.5, 4) and (1, 3, 2, 4): deviations (-1.5, 0, 0, 1.5) and (-1.5, .5, -.5, 1.5)
    assert spearman(np.array([0.1, 0.5, 0.5, 0.9]), np.array([1.0, 7.0, 3.0, 9.0])) == pytest.approx(
        4.5 / math.sqrt(4.5 * 5.0))
    assert spearman(np.array([3.0, 2.0, 1.0]), np.array([0.1, 0.2, 0.3])) == pytest.approx(-1.0)
    assert math.isnan(spearman(np.array([1.0, 1.0]), np.array([0.2, 0.8])))


def test_spearman_equals_scipys():
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(0)
    for _ in range(20):
        a, b = rng.integers(0, 4, 7).astype(float), rng.normal(size=7)
        assert spearman(a, b) == pytest.approx(stats.spearmanr(a, b).statistic)


def test_attention_is_the_head_mean_of_decodes_cross_maps(model, trace, written):
    for layer in range(model.config.n_decoder_layers):
        shown = attribute(model, Sentence(SOURCE, written[:3]), layer=layer)
        np.testing.assert_allclose(shown.attention, trace.cross_attention[layer, :, :3].mean(axis=0), atol=1e-6)
        for row, weights in zip(shown.attribution, shown.attention, strict=True):
            assert np.isnan(spearman(np.abs(row), weights)) or spearman(np.abs(row), weights) in shown.correlation


def test_rollout_is_the_explorers_rollout_through_the_decoder(model, trace, written):
    """The same rollout as the explorer's cross "rollout" summary, written out here in numpy."""
    shown = attribute(model, Sentence(SOURCE, written))
    np.testing.assert_allclose(shown.rollout.sum(axis=1), 1.0, atol=1e-6)
    rows, size = len(written), 4

    def residual(heads: np.ndarray) -> np.ndarray:
        mixed = 0.5 * heads.astype(np.float64).mean(axis=0) + 0.5 * np.eye(len(heads[0]))
        return mixed / mixed.sum(axis=1, keepdims=True)

    memory = np.eye(size)
    for heads in trace.encoder_self_attention:
        memory = residual(heads) @ memory
    targets, source = np.eye(rows), np.zeros((rows, size))
    for self_heads, cross_heads in zip(trace.decoder_self_attention, trace.cross_attention, strict=True):
        a = residual(self_heads[:, :rows, :rows])
        targets, source = 0.5 * (a @ targets), 0.5 * (a @ source) + 0.5 * cross_heads[:, :rows].mean(axis=0) @ memory
    np.testing.assert_allclose(shown.rollout, source / source.sum(axis=1, keepdims=True), atol=1e-5)


def test_before_a_step_there_is_nothing_to_attribute(model):
    with pytest.raises(InputError, match="take a decoding step first"):
        attribute(model, Sentence(SOURCE))
    with pytest.raises(InputError, match="at least 32 steps"):
        attribute(model, Sentence(SOURCE, ("i",)), steps=8)


def test_an_output_as_long_as_the_model_reads_gets_every_row():
    """The decoder reads all but the last output token, so max_len outputs fit (seen: 64 outputs
    drawn as 63 rows)."""
    torch.manual_seed(0)
    src, tgt = Vocab(list("abc"), level="char"), Vocab(list("abc"), level="char")
    config = transviz.ModelConfig(len(src), len(tgt), d_model=8, n_heads=2, n_encoder_layers=1,
                                  n_decoder_layers=1, d_ff=16, dropout=0.0, max_len=6)
    model = transviz.Model(Transformer(config).eval(), src, tgt)
    shown = attribute(model, Sentence("abc", tuple("abcabc")), steps=32)
    assert shown.attribution.shape == (6, 3) and shown.output_tokens == list("abcabc")
    assert np.all(np.abs(shown.gap) <= 0.05 * np.abs(shown.change).max())
