"""Interventions against independent references: a plain torch hook, the attention formula in
numpy, invariants (uniform rows, symmetric scores, permutation), and the model untouched after."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch

import transviz
from transviz import AblateHead, EditAttention, NoPositions, ScaleScores, TieQueryKey
from transviz.core.data.tasks import TASKS, task_examples
from transviz.core.decoding.interventions import Copy, intervening
from transviz.core.decoding.session import DecodingSession
from transviz.core.io.resources import shipped_models

SOURCE, TARGET = "ich mochte ein bier", "i want a beer"
MAPS = ("encoder_self_attention", "decoder_self_attention", "cross_attention")


@pytest.fixture(scope="module")
def model():
    return transviz.load_model("default")


def same_trace(a, b) -> bool:
    return a.output_tokens == b.output_tokens and all(
        np.array_equal(getattr(a, name), getattr(b, name)) for name in (*MAPS, "output_probabilities"))


@pytest.mark.parametrize("name", sorted(shipped_models()))
def test_without_interventions_nothing_changes_and_after_them_the_model_is_as_it_was(name):
    model = transviz.load_model(name)
    source = model.facts.get("examples", [{}])[0].get("source") if model.facts.get("examples") else None
    task = model.facts.get("task")
    source = source or (task_examples(task)[0].source if task in TASKS else SOURCE)  # a sentence it can read
    before = transviz.decode(model, source)
    state = {k: v.clone() for k, v in model.net.state_dict().items()}
    assert same_trace(transviz.decode(model, source, interventions=[]), before)
    cross = "decoder_self" if model.config.decoder_only else "cross"  # a decoder-only model's output reads its source
    changed = transviz.decode(model, source, interventions=[AblateHead(cross, 0, 0), ScaleScores(3.0),
                                                            TieQueryKey("decoder_self", 0), NoPositions()])
    assert changed.interventions and not same_trace(changed, before)
    assert same_trace(transviz.decode(model, source), before)
    assert all(torch.equal(state[k], v) for k, v in model.net.state_dict().items())


def gold_probabilities(model, logits: torch.Tensor) -> np.ndarray:
    gold = model.tgt_vocab.encode(TARGET).ids + [model.tgt_vocab.eos_id]
    return torch.softmax(logits[0].float(), -1)[torch.arange(len(gold)), gold].numpy()


def hooked_forward(model, hooks) -> torch.Tensor:
    """The model's logits for SOURCE -> TARGET with plain torch forward pre-hooks installed."""
    vocab = model.tgt_vocab
    src = model.source_tensor(model.encode_source(SOURCE))
    tgt = torch.tensor([[vocab.bos_id] + vocab.encode(TARGET).ids])
    handles = [module.register_forward_pre_hook(hook) for module, hook in hooks]
    try:
        with torch.no_grad():
            return model.net.eval()(src, tgt).logits
    finally:
        for handle in handles:
            handle.remove()


def zero_head(head: int, d_k: int):
    def hook(module, args):
        x = args[0].clone()
        x[..., head * d_k : (head + 1) * d_k] = 0.0  # the head's slice of the concatenated outputs
        return (x,)
    return hook


@pytest.mark.parametrize("kind, layer, head", [("cross", 1, 2), ("encoder_self", 0, 3), ("decoder_self", 2, 0)])
def test_a_zeroed_head_is_a_hook_zeroing_its_slice_of_the_output_projections_input(model, kind, layer, head):
    net, d_k = model.net, model.config.d_model // model.config.n_heads
    stack = net.encoder_layers if kind == "encoder_self" else net.decoder_layers
    module = stack[layer].cross_attn if kind == "cross" else stack[layer].self_attn
    expected = gold_probabilities(model, hooked_forward(model, [(module.out_proj, zero_head(head, d_k))]))
    trace = transviz.teacher_force(model, SOURCE, TARGET, interventions=[AblateHead(kind, layer, head)])
    np.testing.assert_allclose(trace.output_probabilities, expected, atol=2e-6)
    assert trace.interventions == (AblateHead(kind, layer, head),)
    plain = transviz.teacher_force(model, SOURCE, TARGET).output_probabilities
    assert np.abs(plain - expected).max() > 1e-4  # the head mattered: the comparison can fail


def test_without_cross_attention_the_output_no_longer_depends_on_the_source(model):
    every = [AblateHead("cross", layer, head) for layer in range(model.config.n_decoder_layers)
             for head in range(model.config.n_heads)]
    first, second = (transviz.teacher_force(model, source, TARGET, interventions=every)
                     for source in (SOURCE, "das ist gut"))
    np.testing.assert_allclose(first.output_probabilities, second.output_probabilities, atol=1e-6)
    np.testing.assert_allclose(first.decoder_self_attention, second.decoder_self_attention, atol=1e-6)
    assert transviz.decode(model, SOURCE, interventions=every).output_tokens == \
        transviz.decode(model, "das ist gut", interventions=every).output_tokens
    plain = [transviz.teacher_force(model, s, TARGET).output_probabilities for s in (SOURCE, "das ist gut")]
    assert np.abs(plain[0] - plain[1]).max() > 1e-3


def test_uniform_ablation_spreads_the_head_over_the_keys_it_may_see(model):
    trace = transviz.decode(model, SOURCE, interventions=[AblateHead("decoder_self", 1, 2, mode="uniform"),
                                                          AblateHead("cross", 0, 1, mode="uniform")])
    rows = trace.decoder_self_attention[1, 2]  # (T, T), row t sees keys 0..t
    for t, row in enumerate(rows):
        np.testing.assert_allclose(row[: t + 1], 1.0 / (t + 1), atol=1e-7)
        assert not row[t + 1 :].any()
    np.testing.assert_allclose(trace.cross_attention[0, 1], 1.0 / len(trace.source_tokens), atol=1e-7)


def test_scale_zero_makes_every_row_uniform_and_scale_one_changes_nothing(model):
    flat = transviz.decode(model, SOURCE, max_len=8, interventions=[ScaleScores(0)])
    S, T = len(flat.source_tokens), len(flat.output_tokens)
    np.testing.assert_allclose(flat.encoder_self_attention, 1.0 / S, atol=1e-7)
    np.testing.assert_allclose(flat.cross_attention, 1.0 / S, atol=1e-7)
    lower = np.tril(np.ones((T, T))) / np.arange(1, T + 1)[:, None]
    np.testing.assert_allclose(flat.decoder_self_attention, np.broadcast_to(lower, flat.decoder_self_attention.shape),
                               atol=1e-7)
    assert same_trace(transviz.decode(model, SOURCE, interventions=[ScaleScores(1.0)]), transviz.decode(model, SOURCE))


def test_a_scaled_layer_is_the_formula_with_its_scale_multiplied(model):
    """Encoder layer 0 from its inputs, in numpy: softmax(factor * Q K^T / sqrt(d_k))."""
    factor = 4.0
    trace = transviz.teacher_force(model, SOURCE, TARGET, interventions=[ScaleScores(factor, "encoder_self", 0)])
    q, k = layer0_projections(model)
    expected = softmax(factor * q @ k.transpose(0, 2, 1) / math.sqrt(q.shape[-1]))
    np.testing.assert_allclose(trace.encoder_self_attention[0], expected, atol=1e-5)


def test_two_scalings_of_one_module_scale_it_once_by_their_product(model):
    """Two factors on one module round as one scaling by their product (as a single HeadEdit scale
    did before taps): the scores are multiplied once, not twice."""
    both = [ScaleScores(0.7, "cross", 1), ScaleScores(3.0, "cross", 1)]
    assert same_trace(transviz.teacher_force(model, SOURCE, TARGET, interventions=both),
                      transviz.teacher_force(model, SOURCE, TARGET, interventions=[ScaleScores(0.7 * 3.0, "cross", 1)]))
    everywhere_then_one = [ScaleScores(0.7), ScaleScores(3.0, "cross", 1)]
    assert same_trace(transviz.decode(model, SOURCE, interventions=everywhere_then_one),
                      transviz.decode(model, SOURCE, interventions=[ScaleScores(0.7 * 3.0, "cross", 1),
                                                                    ScaleScores(0.7, "encoder_self"),
                                                                    ScaleScores(0.7, "decoder_self"),
                                                                    ScaleScores(0.7, "cross", 0),
                                                                    ScaleScores(0.7, "cross", 2)]))


def layer0_projections(model) -> tuple[np.ndarray, np.ndarray]:
    """Queries and keys (H, S, d_k) of encoder layer 0, computed here from the weights."""
    net, cfg = model.net, model.config
    ids = model.encode_source(SOURCE).ids
    weights = net.src_embed.weight.detach().double().numpy()
    x = weights[ids] * math.sqrt(cfg.d_model) + net.positional[: len(ids)].double().numpy()
    if cfg.norm == "pre":
        pytest.skip("the reference below follows post-LN, the shipped model's")
    w = net.encoder_layers[0].self_attn.in_proj_weight.detach().double().numpy()
    b = net.encoder_layers[0].self_attn.in_proj_bias.detach().double().numpy()
    d, heads = cfg.d_model, cfg.n_heads

    def split(y: np.ndarray) -> np.ndarray:
        return y.reshape(len(ids), heads, d // heads).transpose(1, 0, 2)

    return split(x @ w[:d].T + b[:d]), split(x @ w[d : 2 * d].T + b[d : 2 * d])


def softmax(scores: np.ndarray) -> np.ndarray:
    e = np.exp(scores - scores.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_tied_queries_use_the_key_projection_so_the_scores_are_symmetric(model):
    trace = transviz.teacher_force(model, SOURCE, TARGET, interventions=[TieQueryKey("encoder_self", 0)])
    _, k = layer0_projections(model)
    scores = k @ k.transpose(0, 2, 1) / math.sqrt(k.shape[-1])
    np.testing.assert_allclose(scores, scores.transpose(0, 2, 1), atol=1e-12)  # what makes it symmetric
    np.testing.assert_allclose(trace.encoder_self_attention[0], softmax(scores), atol=1e-5)
    one = transviz.teacher_force(model, SOURCE, TARGET, interventions=[TieQueryKey("encoder_self", 0, head=1)])
    q, _ = layer0_projections(model)
    untied = softmax(q @ k.transpose(0, 2, 1) / math.sqrt(k.shape[-1]))
    np.testing.assert_allclose(one.encoder_self_attention[0, 1], softmax(scores)[1], atol=1e-5)
    np.testing.assert_allclose(one.encoder_self_attention[0, 0], untied[0], atol=1e-5)


def test_without_positions_shuffled_words_only_shuffle_the_encoder_maps(model):
    words = SOURCE.split()
    order = [3, 1, 0, 2]
    shuffled = " ".join(words[i] for i in order)
    for interventions, permutes in (([NoPositions("encoder")], True), ([], False)):
        a, b = (transviz.teacher_force(model, s, TARGET, interventions=interventions).encoder_self_attention
                for s in (SOURCE, shuffled))
        assert len(a[0, 0]) == len(words)  # no extra source tokens to keep in place
        moved = a[:, :, order][:, :, :, order]
        difference = np.abs(moved - b).max()
        assert (difference < 1e-5) if permutes else (difference > 1e-3), difference


def test_a_session_decodes_again_with_new_interventions_and_back_without_them(model):
    session = DecodingSession(model, SOURCE)
    for _ in range(3):
        session.step()
    before = session.history
    every = [AblateHead("cross", layer, head) for layer in range(3) for head in range(4)]
    session.set_interventions(every)
    assert session.position == 3 and session.interventions == tuple(every)
    expected = transviz.decode(model, SOURCE, interventions=every, max_len=3)
    assert [r.token for r in session.history] == expected.output_tokens
    assert all(r.interventions == tuple(every) for r in session.history)
    np.testing.assert_array_equal(session.encoder_attention, expected.encoder_self_attention)
    session.set_interventions([])
    assert [r.token for r in session.history] == [r.token for r in before]
    for now, then in zip(session.history, before, strict=True):
        np.testing.assert_array_equal(now.cross_rows, then.cross_rows)
        assert now.probability == then.probability


def test_a_forced_token_stays_forced_when_interventions_change(model):
    session = DecodingSession(model, SOURCE)
    session.step()
    session.force("drink")
    session.set_interventions([ScaleScores(0.5)])
    assert [r.forced for r in session.history] == [False, True] and session.history[1].token == "drink"


@pytest.mark.parametrize("make, match", [
    (lambda: AblateHead("cross", 5, 0), "no layer 5: the cross attention has layers 0 to 2"),
    (lambda: AblateHead("cross", 0, 9), "no head 9: this model has heads 0 to 3"),
    (lambda: TieQueryKey("encoder_self", 3), "no layer 3"),
    (lambda: ScaleScores(1.0, "decoder_self", 7), "no layer 7"),
])
def test_an_intervention_the_model_cannot_take_is_one_clear_error(model, make, match):
    with pytest.raises(transviz.InputError, match=match):
        transviz.decode(model, SOURCE, interventions=[make()])
    session = DecodingSession(model, SOURCE)
    with pytest.raises(transviz.InputError, match=match):
        session.set_interventions([make()])
    assert session.interventions == ()


@pytest.mark.parametrize("make, match", [
    (lambda: AblateHead("self", 0, 0), "kind must be encoder_self, decoder_self or cross"),
    (lambda: AblateHead("cross", -1, 0), "layer must be a whole number"),
    (lambda: AblateHead("cross", 0, 0, mode="half"), "mode must be zero, uniform, mean or copy"),
    (lambda: AblateHead("cross", 0, 0, mode="copy"), "only when, the ablation's mode is copy"),
    (lambda: AblateHead("cross", 0, 0, source=(0, 1)), "only when, the ablation's mode is copy"),
    (lambda: AblateHead("cross", 0, 0, "copy", (1, 1)), "same or an earlier layer"),
    (lambda: AblateHead("cross", 1, 2, "copy", (1, 2)), "same or an earlier layer"),
    (lambda: AblateHead("cross", 1, 2, "copy", (1,)), "a source head is"),
    (lambda: EditAttention("cross", 0, 0, 1, ()), "needs 1 to 8192 weights"),
    (lambda: EditAttention("cross", 0, 0, 1, (0.0, 0.0)), "not all 0"),
    (lambda: EditAttention("cross", 0, 0, 1, (1.0, -0.5)), "none negative"),
    (lambda: EditAttention("cross", 0, 0, 1, (float("inf"),)), "none negative"),
    (lambda: EditAttention("cross", 0, 0, -1, (1.0,)), "query must be a whole number"),
    (lambda: ScaleScores(float("nan")), "scale factor must be a number from 0 to 1e6"),
    (lambda: ScaleScores(-1.0), "scale factor"),
    (lambda: ScaleScores(2.0, layer=1), "needs its attention kind"),
    (lambda: NoPositions("left"), "encoder, the decoder or both"),
])
def test_a_malformed_intervention_is_a_config_error(make, match):
    with pytest.raises(transviz.ConfigError, match=match):
        make()


def test_the_model_is_restored_even_when_the_run_fails(model):
    places = model.net.places()
    with pytest.raises(RuntimeError), intervening(model, [AblateHead("cross", 0, 0), NoPositions()]):
        assert places["cross", 0].attached() and places["encoder", None].attached()
        raise RuntimeError("mid-run")
    assert not any(sites.attached() for sites in places.values())


def test_a_json_trace_names_the_interventions_it_ran_with(model, tmp_path):
    from transviz.core.decoding.trace_files import write_json

    session = DecodingSession(model, SOURCE, interventions=[AblateHead("cross", 1, 2, "uniform"), NoPositions()])
    session.run_to_end()
    written = json.loads(write_json(session, tmp_path / "t.json").read_text(encoding="utf-8"))
    assert written["interventions"] == [
        {"name": "AblateHead", "kind": "cross", "layer": 1, "head": 2, "mode": "uniform", "source": None},
        {"name": "NoPositions", "side": "both"}]


@pytest.mark.parametrize("item, name", [
    (AblateHead("cross", 1, 2), "cross L1 H2 off (zero)"),
    (AblateHead("decoder_self", 0, 3, "uniform"), "decoder self L0 H3 off (uniform)"),
    (AblateHead("encoder_self", 2, 0, "mean"), "encoder self L2 H0 off (mean)"),
    (AblateHead("cross", 2, 1, "copy", (0, 3)), "cross L2 H1 uses L0 H3's pattern"),
    (ScaleScores(0.5), "scores × 0.5: everywhere"),
    (ScaleScores(2.0, "cross"), "scores × 2: cross"),
    (ScaleScores(10.0, "encoder_self", 1), "scores × 10: encoder self L1"),
    (TieQueryKey("decoder_self", 1), "Q = K: decoder self L1"),
    (TieQueryKey("cross", 0, 2), "Q = K: cross L0 H2"),
    (NoPositions("encoder"), "no positions: encoder"),
    (EditAttention("cross", 1, 0, 3, (1.0,)), "cross L1 H0 row 3 painted"),
])
def test_each_intervention_names_itself(item, name):
    assert str(item.describe()) == name


def test_interventions_on_one_slot_replace_each_other_and_others_stack():
    same = [(AblateHead("cross", 1, 2), AblateHead("cross", 1, 2, "uniform")),
            (ScaleScores(2.0, "cross", 1), ScaleScores(0.5, "cross", 1)),
            (TieQueryKey("cross", 1, 2), TieQueryKey("cross", 1, 2)),
            (EditAttention("cross", 1, 2, 3, (1.0,)), EditAttention("cross", 1, 2, 3, (0.0, 1.0)))]
    assert all(a.slot() == b.slot() for a, b in same)
    apart = [AblateHead("cross", 1, 2), TieQueryKey("cross", 1, 2), ScaleScores(2.0, "cross", 1),
             EditAttention("cross", 1, 2, 3, (1.0,)), EditAttention("cross", 1, 2, 4, (1.0,)), NoPositions(),
             NoPositions("encoder"), ScaleScores(2.0)]
    assert len({item.slot() for item in apart}) == len(apart)
    assert AblateHead("cross", 2, 1, "copy", (0, 3)).copied() == Copy("cross", (0, 3), (2, 1))
    assert all(item.copied() is None for item in apart)


@pytest.mark.parametrize("kind, layer, head, factor", [("cross", 1, 2, 3.0), ("decoder_self", 2, 0, 0.0),
                                                        ("encoder_self", 0, 3, 0.25)])
def test_a_scaled_head_is_the_softmax_of_its_scaled_scores_and_leaves_the_others(model, kind, layer, head, factor):
    """The head's weights from the walkthrough's Q and K (the model's own, unmodified: scaling this
    head changes nothing before its layer), in numpy: softmax(factor * Q K^T / sqrt(d_k), masked)."""
    from transviz import ScaleHead
    from transviz.core.analysis.walkthrough import walkthrough

    walk = walkthrough(model, SOURCE, TARGET, kind, layer, head)
    scores = factor * walk.queries.astype(np.float64) @ walk.keys.astype(np.float64).T / math.sqrt(walk.d_k)
    expected = softmax(np.where(walk.mask, scores, -np.inf))
    name = {"encoder_self": "encoder_self_attention", "decoder_self": "decoder_self_attention",
            "cross": "cross_attention"}[kind]
    plain = getattr(transviz.teacher_force(model, SOURCE, TARGET), name)[layer]
    scaled = transviz.teacher_force(model, SOURCE, TARGET, interventions=[ScaleHead(kind, layer, head, factor)])
    ours = getattr(scaled, name)[layer]
    np.testing.assert_allclose(ours[head], expected, atol=1e-5)
    assert not np.allclose(ours[head], plain[head], atol=1e-3)
    others = [h for h in range(model.config.n_heads) if h != head]
    np.testing.assert_array_equal(ours[others], plain[others])  # same layer, its other heads: untouched
    assert str(ScaleHead(kind, layer, head, factor).describe()) == f"scores × {factor:g}: {where(kind, layer, head)}"
    assert scaled.interventions == (ScaleHead(kind, layer, head, factor),)


def where(kind: str, layer: int, head: int) -> str:
    return f"{kind.replace('_', ' ')} L{layer} H{head}"


def test_a_scaled_head_is_checked():
    from transviz import ScaleHead

    with pytest.raises(transviz.ConfigError, match="scale factor"):
        ScaleHead("cross", 0, 0, -1.0)
    with pytest.raises(transviz.InputError, match="no head 9"):
        transviz.decode(transviz.load_model("default"), SOURCE, interventions=[ScaleHead("cross", 0, 9, 2.0)])
