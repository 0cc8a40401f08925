"""Head aggregations and attention rollout against the formulas written out element by element."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import transviz
from transviz.core.analysis.aggregate import cross_rollout, max_over_heads, mean_over_heads, rollout
from transviz.core.model.transformer import Transformer
from transviz.core.model.vocab import Vocab


def random_maps(seed: int, layers: int, heads: int, queries: int, keys: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    logits = rng.normal(size=(layers, heads, queries, keys)) * 2
    maps = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    return maps.astype(np.float32)


def reference_rollout(maps: np.ndarray) -> list[list[list[float]]]:
    """Abnar & Zuidema 2020 in plain Python: A' = 0.5 * mean_h(A) + 0.5 * I, rows renormalised,
    R_0 = A'_0, R_l = A'_l R_{l-1}."""
    layers, heads, size, _ = maps.shape
    result, joint = [], None
    for layer in range(layers):
        a = [[0.5 * sum(float(maps[layer, h, q, k]) for h in range(heads)) / heads + (0.5 if q == k else 0.0)
              for k in range(size)] for q in range(size)]
        a = [[v / sum(row) for v in row] for row in a]
        if joint is None:
            joint = a
        else:
            joint = [[sum(a[q][m] * joint[m][k] for m in range(size)) for k in range(size)] for q in range(size)]
        result.append(joint)
    return result


@pytest.fixture(scope="module")
def trace():
    torch.manual_seed(5)
    src, tgt = Vocab("ich mochte ein bier".split()), Vocab("i want a beer".split())
    cfg = transviz.ModelConfig(len(src), len(tgt), d_model=16, n_heads=4, n_encoder_layers=3,
                               n_decoder_layers=2, d_ff=32, dropout=0.0, max_len=20)
    model = transviz.Model(Transformer(cfg).eval(), src, tgt)
    return transviz.teacher_force(model, "ich mochte ein bier ein bier", "i want a beer")


def test_mean_and_max_over_heads_match_elementwise_loops():
    maps = random_maps(0, 2, 3, 4, 5)
    mean, peak = mean_over_heads(maps), max_over_heads(maps)
    assert mean.shape == peak.shape == (2, 4, 5) and mean.dtype == peak.dtype == np.float32
    for layer in range(2):
        for q in range(4):
            for k in range(5):
                column = [float(maps[layer, h, q, k]) for h in range(3)]
                assert mean[layer, q, k] == pytest.approx(sum(column) / 3, abs=1e-6)
                assert peak[layer, q, k] == max(column)
    np.testing.assert_allclose(mean.sum(-1), 1.0, atol=1e-5)  # the mean of distributions is one


@pytest.mark.parametrize("shape", [(1, 1, 3, 3), (3, 2, 5, 5), (4, 8, 6, 6)])
def test_rollout_matches_reference(shape):
    maps = random_maps(sum(shape), *shape)
    got = rollout(maps)
    assert got.shape == (shape[0], shape[2], shape[3]) and got.dtype == np.float32
    np.testing.assert_allclose(got, np.array(reference_rollout(maps)), atol=1e-5)
    np.testing.assert_allclose(got.sum(-1), 1.0, atol=1e-5)


def test_rollout_of_real_encoder_and_decoder_maps(trace):
    for maps in (trace.encoder_self_attention, trace.decoder_self_attention):
        np.testing.assert_allclose(rollout(maps), np.array(reference_rollout(maps)), atol=1e-5)
    # decoder self-attention is causal, and mixing causal maps keeps the future out
    dec = rollout(trace.decoder_self_attention)[-1]
    assert np.all(np.triu(dec, k=1) == 0)


def test_rollout_hand_example():
    # one layer, one head that attends fully to token 0: 0.5 * A + 0.5 * I
    maps = np.array([[[[1.0, 0.0], [1.0, 0.0]]]], dtype=np.float32)
    np.testing.assert_allclose(rollout(maps)[0], [[1.0, 0.0], [0.5, 0.5]])
    # two such layers: row 1 = [0.5, 0.5] @ [[1, 0], [0.5, 0.5]] = [0.75, 0.25]
    np.testing.assert_allclose(rollout(np.concatenate([maps, maps]))[1], [[1.0, 0.0], [0.75, 0.25]])


def test_bad_shapes_raise_input_error(trace):
    with pytest.raises(transviz.InputError, match="self-attention"):
        rollout(trace.cross_attention)
    with pytest.raises(transviz.InputError, match="layers, heads"):
        mean_over_heads(np.ones((3, 3)))
    with pytest.raises(transviz.InputError, match="empty"):
        max_over_heads(np.ones((1, 0, 2, 2)))


def reference_cross_rollout(decoder, cross, encoder):
    """The decoder's rollout to the source written as one joint state over T decoder inputs and
    S source tokens: every sublayer is a (T+S) x (T+S) matrix acting on it; the source columns of
    the decoder rows, row-normalised, are the answer."""
    memory = np.array(reference_rollout(encoder)[-1])
    targets, sources = cross.shape[2:]
    joint, out = np.eye(targets + sources), []
    for layer in range(cross.shape[0]):
        self_step = np.eye(targets + sources)
        a = 0.5 * decoder[layer].astype(np.float64).mean(0) + 0.5 * np.eye(targets)
        self_step[:targets, :targets] = a / a.sum(-1, keepdims=True)
        cross_step = np.eye(targets + sources)
        cross_step[:targets, :targets] *= 0.5  # the residual keeps half of the decoder state
        cross_step[:targets, targets:] = 0.5 * cross[layer].astype(np.float64).mean(0) @ memory
        joint = cross_step @ self_step @ joint
        source = joint[:targets, targets:]
        out.append(source / source.sum(-1, keepdims=True))
    return np.array(out)


def test_cross_rollout_of_real_maps_matches_the_joint_state_formula(trace):
    decoder, cross, encoder = trace.decoder_self_attention, trace.cross_attention, trace.encoder_self_attention
    got = cross_rollout(decoder, cross, encoder)
    assert got.shape == (2, 5, 6) and got.dtype == np.float32
    np.testing.assert_allclose(got, reference_cross_rollout(decoder, cross, encoder), atol=1e-5)
    np.testing.assert_allclose(got.sum(-1), 1.0, atol=1e-5)
    assert (got >= 0).all()


def test_cross_rollout_hand_example():
    # one decoder layer, one target, cross-attention all on source 0; the encoder's one layer
    # sends source 1 fully to source 0, so memory row 0 is [1, 0]: the source share is all token 0
    decoder = np.ones((1, 1, 1, 1), np.float32)
    cross = np.array([[[[1.0, 0.0]]]], np.float32)
    encoder = np.array([[[[1.0, 0.0], [1.0, 0.0]]]], np.float32)
    np.testing.assert_allclose(cross_rollout(decoder, cross, encoder), [[[1.0, 0.0]]])
    # attending to source 1 instead reaches memory row 1 = [0.5, 0.5] (0.5 A + 0.5 I)
    np.testing.assert_allclose(cross_rollout(decoder, cross[..., ::-1].copy(), encoder), [[[0.5, 0.5]]])


def test_cross_rollout_refuses_maps_of_different_sentences(trace):
    with pytest.raises(transviz.InputError, match="one sentence"):
        cross_rollout(trace.decoder_self_attention, trace.cross_attention, trace.decoder_self_attention)


@pytest.mark.parametrize(("encoder_layers", "decoder_layers"), [(1, 2), (2, 1), (3, 1)])
def test_rollouts_of_a_session_whose_encoder_and_decoder_differ_in_depth(encoder_layers, decoder_layers):
    """Decoded step by step, each stack rolls out through its own layers, and the decoder's rollout
    to the source (one entry per decoder layer) reads the encoder's last layer: the joint-state
    formula, the compare tab's head_map and the explorer's summarise agree."""
    from transviz.core.analysis.aggregate import summarise
    from transviz.core.analysis.compare import head_map
    from transviz.core.decoding.session import DecodingSession

    torch.manual_seed(encoder_layers * 10 + decoder_layers)
    src, tgt = Vocab("ich mochte ein bier".split()), Vocab("i want a beer".split())
    cfg = transviz.ModelConfig(len(src), len(tgt), d_model=16, n_heads=4, n_encoder_layers=encoder_layers,
                               n_decoder_layers=decoder_layers, d_ff=32, dropout=0.0, max_len=20)
    net = Transformer(cfg).eval()
    with torch.no_grad():
        net.generator.bias[tgt.eos_id] = -1e4  # never ends: every run has the same rows
    session = DecodingSession(transviz.Model(net, src, tgt), "ich mochte ein bier ein bier", max_len=4)
    session.run_to_end()
    encoder, decoder, cross = session.encoder_attention, session.decoder_self_attention(), session.cross_attention()
    assert encoder.shape == (encoder_layers, 4, 6, 6) and decoder.shape == (decoder_layers, 4, 4, 4)
    np.testing.assert_allclose(rollout(encoder), np.array(reference_rollout(encoder)), atol=1e-5)
    np.testing.assert_allclose(rollout(decoder), np.array(reference_rollout(decoder)), atol=1e-5)
    expected = reference_cross_rollout(decoder, cross, encoder)
    assert expected.shape == (decoder_layers, 4, 6)
    np.testing.assert_allclose(summarise("rollout", cross, decoder, encoder), expected, atol=1e-5)
    trace = session.trace()
    for layer in range(decoder_layers):
        np.testing.assert_allclose(head_map(trace, "cross", layer, "rollout").map, expected[layer], atol=1e-5)
    with pytest.raises(transviz.InputError, match="layer 1 does not exist"):
        head_map(trace, "encoder_self" if encoder_layers == 1 else "cross", 1, "rollout")
