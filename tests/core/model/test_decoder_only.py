"""Decoder-only models (``ModelConfig.architecture`` "prefix-lm" and "decoder-only") against independent
references: torch's own ``nn.TransformerEncoderLayer`` run on the whole stream (source, start token,
target) with the prefix-LM or causal mask, and a float64 numpy forward of the stream with RoPE, ALiBi,
shared key/value heads and a sliding window written out. Then the KV cache against a full
recomputation, padding against each sentence alone, and the checkpoint's layout."""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
import torch
from test_model_reference import randomize_
from test_positions_in_attention import rope_numpy
from torch import nn

import transviz
from transviz.core.analysis.aggregate import stream_rollout, summarise_view
from transviz.core.analysis.head_importance import head_importance
from transviz.core.analysis.walkthrough import walkthrough
from transviz.core.base.errors import ConfigError, InputError
from transviz.core.data.batches import encode_pairs, make_batch
from transviz.core.data.held_out import held_out_pairs
from transviz.core.decoding.head_means import BATCH, output_means
from transviz.core.decoding.inference import teacher_force
from transviz.core.decoding.interventions import (
    AblateHead,
    EditAttention,
    NoPositions,
    ScaleScores,
    TieQueryKey,
    intervening,
)
from transviz.core.decoding.session import DecodingSession
from transviz.core.io import checkpoint
from transviz.core.model.config import ModelConfig
from transviz.core.model.layout import tensor_layout
from transviz.core.model.masks import stream_mask
from transviz.core.model.transformer import Transformer

D, H, DFF, LAYERS = 24, 4, 40, 2
H_SHIPPED = 4  # heads of the shipped decoder-only sibling
SRC, TGT = [5, 6, 7, 8, 2], [1, 9, 4, 10]


def model(architecture: str = "prefix-lm", seed: int = 0, **changes: object) -> Transformer:
    config = ModelConfig(30, 32, d_model=D, n_heads=H, n_encoder_layers=LAYERS, n_decoder_layers=LAYERS, d_ff=DFF,
                         dropout=0.0, max_len=40, architecture=architecture, **changes)  # type: ignore[arg-type]
    net = Transformer(config)
    randomize_(net, seed)
    return net.eval()


def allowed(source: int, target: int, prefix_lm: bool, window: int) -> np.ndarray:
    """(n, n) True where stream position i may see position j: causal, the source seeing all of itself
    in a prefix LM, within the window."""
    n = source + target
    mask = np.tril(np.ones((n, n), dtype=bool))
    if prefix_lm:
        mask[:source, :source] = True
    if window:
        mask &= np.abs(np.arange(n)[:, None] - np.arange(n)[None]) < window
    return mask


def sine_numpy(length: int, d: int) -> np.ndarray:
    """The paper's table: PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(...)."""
    angle = np.arange(length)[:, None] / 10000.0 ** (np.arange(0, d, 2) / d)[None]
    table = np.zeros((length, d))
    table[:, 0::2], table[:, 1::2] = np.sin(angle), np.cos(angle)
    return table


def layer_norm_numpy(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    return (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + eps) * weight + bias


def softmax_numpy(scores: np.ndarray) -> np.ndarray:
    e = np.exp(scores - scores.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def stream_numpy(net: Transformer, src: list[int], tgt: list[int]) -> tuple[np.ndarray, list[np.ndarray]]:
    """The model's stream in float64: the target's logits (T, V) and every layer's map (H, n, n)."""
    cfg = net.config
    p = {name: t.double().numpy() for name, t in net.state_dict().items()}
    n, d_k, group = len(src) + len(tgt), cfg.d_k, cfg.n_heads // cfg.kv_heads
    x = np.concatenate([p["src_embed.weight"][src], p["tgt_embed.weight"][tgt]]) * math.sqrt(cfg.d_model)
    if cfg.positional == "sinusoidal":
        x = x + sine_numpy(n, cfg.d_model)
    mask = allowed(len(src), len(tgt), cfg.architecture == "prefix-lm", cfg.attention_window)
    distance = np.abs(np.arange(n)[:, None] - np.arange(n)[None])
    slopes = 2.0 ** (-8.0 * np.arange(1, cfg.n_heads + 1) / cfg.n_heads)  # ALiBi's, for a power of 2 heads
    maps = []

    def norm(name: str, y: np.ndarray) -> np.ndarray:
        return layer_norm_numpy(y, p[f"{name}.weight"], p[f"{name}.bias"], cfg.layer_norm_eps)

    for i in range(cfg.n_decoder_layers):
        at = f"decoder_layers.{i}"
        h = norm(f"{at}.norm1", x) if cfg.norm == "pre" else x
        qkv = h @ p[f"{at}.self_attn.in_proj_weight"].T + p[f"{at}.self_attn.in_proj_bias"]
        q, k, v = np.split(qkv, [cfg.d_model, cfg.d_model + cfg.kv_heads * d_k], axis=-1)
        q = q.reshape(n, cfg.n_heads, d_k).transpose(1, 0, 2)
        k, v = (np.repeat(t.reshape(n, cfg.kv_heads, d_k).transpose(1, 0, 2), group, axis=0) for t in (k, v))
        if cfg.positional == "rotary":
            q, k = rope_numpy(q, np.arange(n, dtype=float)), rope_numpy(k, np.arange(n, dtype=float))
        scores = q @ k.transpose(0, 2, 1) / math.sqrt(d_k)
        if cfg.positional == "alibi":
            scores = scores - slopes[:, None, None] * distance
        weights = softmax_numpy(np.where(mask, scores, -np.inf))
        maps.append(weights)
        out = (weights @ v).transpose(1, 0, 2).reshape(n, cfg.d_model)
        x = x + out @ p[f"{at}.self_attn.out_proj.weight"].T + p[f"{at}.self_attn.out_proj.bias"]
        if cfg.norm == "post":
            x = norm(f"{at}.norm1", x)
        h = norm(f"{at}.norm2", x) if cfg.norm == "pre" else x
        hidden = np.maximum(h @ p[f"{at}.ffn.linear1.weight"].T + p[f"{at}.ffn.linear1.bias"], 0)
        x = x + hidden @ p[f"{at}.ffn.linear2.weight"].T + p[f"{at}.ffn.linear2.bias"]
        if cfg.norm == "post":
            x = norm(f"{at}.norm2", x)
    if cfg.has_final_norm:
        x = norm("decoder_norm", x)
    logits = x[len(src):] @ p["generator.weight"].T + p["generator.bias"]
    return logits, maps


@pytest.mark.parametrize("architecture", ["prefix-lm", "decoder-only"])
@pytest.mark.parametrize("positional", ["sinusoidal", "rotary", "alibi"])
@pytest.mark.parametrize(("norm", "window", "kv_heads"), [("post", 0, 0), ("pre", 3, 2), ("post", 2, 1)])
def test_the_stream_is_the_numpy_forward(architecture, positional, norm, window, kv_heads):
    net = model(architecture, 1, positional=positional, norm=norm, attention_window=window, n_kv_heads=kv_heads)
    logits, maps = stream_numpy(net, SRC, TGT)
    s = len(SRC)
    with torch.no_grad():
        out = net(torch.tensor([SRC]), torch.tensor([TGT]), return_attention=True)
    np.testing.assert_allclose(out.logits[0].numpy(), logits, atol=2e-5)
    assert out.attention is not None
    for layer, weights in enumerate(maps):  # the one map, in its three views
        np.testing.assert_allclose(out.attention.encoder_self[layer][0].numpy(), weights[:, :s, :s], atol=2e-6)
        np.testing.assert_allclose(out.attention.cross[layer][0].numpy(), weights[:, s:, :s], atol=2e-6)
        np.testing.assert_allclose(out.attention.decoder_self[layer][0].numpy(), weights[:, s:, s:], atol=2e-6)


@pytest.mark.parametrize("norm", ["post", "pre"])
def test_the_stream_is_torchs_encoder_layers_with_the_prefix_mask(norm):
    net = model("prefix-lm", 2, norm=norm)
    layers = []
    for ours in net.decoder_layers:
        ref = nn.TransformerEncoderLayer(D, H, DFF, dropout=0.0, batch_first=True, norm_first=norm == "pre").eval()
        ref.load_state_dict({name.replace("ffn.", ""): t for name, t in ours.state_dict().items()})
        layers.append(ref)
    src, tgt = torch.tensor([SRC]), torch.tensor([TGT])
    n = len(SRC) + len(TGT)
    blocked = torch.from_numpy(~allowed(len(SRC), len(TGT), True, 0))  # torch's convention: True = may not attend
    x = torch.cat([net.src_embed(src), net.tgt_embed(tgt)], dim=1) * math.sqrt(D)
    x = x + torch.from_numpy(sine_numpy(n, D)).float()
    with torch.no_grad():
        maps = []
        for ref in layers:
            h = ref.norm1(x) if norm == "pre" else x
            maps.append(ref.self_attn(h, h, h, attn_mask=blocked, average_attn_weights=False)[1][0])
            x = ref(x, src_mask=blocked)
        expected = net.generator(net.decoder_norm(x))[0, len(SRC):]
        out = net(src, tgt, return_attention=True)
    torch.testing.assert_close(out.logits[0], expected, atol=2e-5, rtol=0)
    assert out.attention is not None
    torch.testing.assert_close(out.attention.cross[1][0], maps[1][:, len(SRC):, :len(SRC)], atol=2e-6, rtol=0)
    torch.testing.assert_close(out.attention.decoder_self[0][0], maps[0][:, len(SRC):, len(SRC):], atol=2e-6, rtol=0)


@pytest.mark.parametrize("architecture", ["prefix-lm", "decoder-only"])
def test_a_target_rows_weights_over_source_and_target_sum_to_one_together(architecture):
    net = model(architecture, 3)
    with torch.no_grad():
        out = net(torch.tensor([SRC]), torch.tensor([TGT]), return_attention=True)
    assert out.attention is not None
    for cross, own in zip(out.attention.cross, out.attention.decoder_self, strict=True):
        torch.testing.assert_close(cross.sum(-1) + own.sum(-1), torch.ones_like(own.sum(-1)), atol=1e-6, rtol=0)
        assert (cross.sum(-1) < 0.99).any()  # neither part alone is a distribution
    enc = out.attention.encoder_self[0][0]
    if architecture == "decoder-only":  # the source reads itself causally too
        assert torch.equal(enc.triu(1), torch.zeros_like(enc))
    else:
        assert (enc > 0).all()


@pytest.mark.parametrize("positional", ["sinusoidal", "learned", "rotary", "alibi"])
@pytest.mark.parametrize("window", [0, 2])
def test_a_padded_sentence_reads_as_it_does_alone_and_cached_steps_equal_the_full_pass(positional, window):
    net = model("prefix-lm", 4, positional=positional, attention_window=window, n_kv_heads=2)
    src = torch.tensor([SRC, [11, 12, 2, 0, 0]])
    tgt = torch.tensor([TGT, [1, 13, 14, 0]])
    with torch.no_grad():
        encoded = net.encode(src)
        full = net.decode(tgt, encoded, return_attention=True)
        alone = net(src[1:, :3], tgt[1:, :3], return_attention=True)
        torch.testing.assert_close(full.logits[1, :3], alone.logits[0], atol=2e-5, rtol=0)
        assert full.cross_attention is not None and alone.attention is not None
        torch.testing.assert_close(full.cross_attention[1][1, :, :3, :3], alone.attention.cross[1][0], atol=1e-6,
                                   rtol=0)
        state = net.start(encoded)
        for t in range(tgt.shape[1]):
            step = net.step(tgt[:, t], state)
            state = step.state
            assert step.cross_attention is not None and step.self_attention is not None
            torch.testing.assert_close(step.logits[0], full.logits[0, t], atol=2e-5, rtol=0)
            torch.testing.assert_close(step.cross_attention[0][0], full.cross_attention[0][0, :, t:t + 1],
                                       atol=1e-6, rtol=0)
        assert state.self_kv is not None and state.self_kv[0][0].shape[2] == tgt.shape[1]  # the target's own keys


def test_source_and_output_share_the_models_length():
    net = model("decoder-only", 5)
    with torch.no_grad():
        state = net.start(net.encode(torch.tensor([[5] * 30 + [2]])))
        for _ in range(9):
            state = net.step(torch.tensor([1]), state).state
        with pytest.raises(InputError, match="source and output together"):
            net.step(torch.tensor([1]), state)


def test_layout_parameters_and_checkpoint(tmp_path):
    net = model("prefix-lm", 6, positional="learned")
    names = sorted(net.state_dict())
    assert not [name for name in names if "cross_attn" in name or "encoder_" in name or "norm3" in name]
    assert sorted(tensor_layout(net.config)) == sorted(
        (tuple(g), tuple(net.state_dict()[g[0]].shape)) for g in checkpoint._tied_groups(net))
    assert net.config.parameter_count() == sum(p.numel() for p in net.parameters())
    assert net.config.to_dict()["architecture"] == "prefix-lm"
    assert "architecture" not in dataclasses.replace(net.config, architecture="encoder-decoder").to_dict()
    shipped = transviz.load_model("default")
    src_vocab, tgt_vocab = shipped.src_vocab, shipped.tgt_vocab
    config = dataclasses.replace(shipped.config, architecture="prefix-lm", dropout=0.0)
    big = Transformer(config)
    randomize_(big, 6)
    path = tmp_path / "d.safetensors"
    checkpoint.save(transviz.Model(big, src_vocab, tgt_vocab), path)
    loaded = transviz.load_model(str(path))
    src, tgt = torch.tensor([[4, 5, 6, 2]]), torch.tensor([[1, 7, 8]])
    with torch.no_grad():
        torch.testing.assert_close(loaded.net(src, tgt).logits, big.eval()(src, tgt).logits, atol=0, rtol=0)


def test_a_decoder_only_model_reads_its_source_with_its_decoders_layers():
    with pytest.raises(ConfigError, match="must equal n_decoder_layers"):
        ModelConfig(30, 30, n_encoder_layers=2, n_decoder_layers=3, architecture="prefix-lm")
    with pytest.raises(ConfigError, match="architecture must be one of"):
        ModelConfig(30, 30, architecture="encoder-only")  # type: ignore[arg-type]


# -- the shipped sibling, and what works on it ---------------------------------------------------

SENTENCE = "ich möchte ein bier"


def test_painting_a_cross_row_of_a_decoder_only_model_sets_its_source_part():
    model = transviz.load_model("decoder-only")
    source = len(model.src_vocab.encode(SENTENCE).ids)
    painted = EditAttention("cross", 1, 2, query=1, weights=(0.0, 3.0, 1.0))
    own = EditAttention("decoder_self", 1, 2, query=1, weights=(1.0, 1.0))
    for edit, cross_row, self_row in [(painted, [0, 0.75, 0.25] + [0] * (source - 3), [0, 0]),
                                      (own, [0] * source, [0.5, 0.5])]:
        session = DecodingSession(model, SENTENCE, interventions=[edit])
        session.step()
        session.step()
        np.testing.assert_allclose(session.cross_attention()[1, 2, 1], cross_row, atol=1e-6)
        np.testing.assert_allclose(session.decoder_self_attention()[1, 2, 1, :2], self_row, atol=1e-6)


def test_a_decoder_only_model_refuses_changes_to_a_cross_head_it_does_not_have():
    model = transviz.load_model("decoder-only")
    for intervention in [AblateHead("cross", 0, 1), ScaleScores(2.0, "cross"), TieQueryKey("cross", 0)]:
        with pytest.raises(InputError, match="no cross-attention of its own"):
            DecodingSession(model, SENTENCE, interventions=[intervention])
    with pytest.raises(InputError, match="no cross-attention of its own"):
        head_importance(model, "cross")


def test_a_mean_ablation_of_a_decoder_only_head_uses_its_mean_over_the_output_positions():
    model = transviz.load_model("decoder-only")
    means = output_means(model)
    assert sorted({kind for kind, _ in means}) == ["decoder_self", "encoder_self"]
    net = model.net.eval()
    rows = encode_pairs(model, held_out_pairs(model, "valid"))
    passes: list[torch.Tensor] = []  # the one module runs the source's pass, then the output's
    hook = net.decoder_layers[1].self_attn.out_proj.register_forward_pre_hook(lambda m, args: passes.append(args[0]))
    sums, counts = [0.0, 0.0], [0, 0]
    with torch.no_grad():
        for start in range(0, len(rows), BATCH):  # the batches feed the same positions as the measure's
            batch = make_batch(rows[start : start + BATCH], model.config.pad_id, model.device)
            passes.clear()
            net(batch.src, batch.tgt_in)
            for side, (tokens, out) in enumerate(zip((batch.src, batch.tgt_in), passes, strict=True)):
                real = tokens != model.config.pad_id
                sums[side] = sums[side] + out[real].double().sum(0)
                counts[side] += int(real.sum())
    hook.remove()
    for side, kind in enumerate(("encoder_self", "decoder_self")):
        expected = (sums[side] / counts[side]).view(H_SHIPPED, -1)
        torch.testing.assert_close(means[kind, 1].double(), expected, atol=1e-6, rtol=0)


def shipped_variant(seed: int, **changes: object) -> transviz.Model:
    """The shipped decoder-only sibling's vocabularies around a model of its size with ``changes``,
    its weights spread at random."""
    shipped = transviz.load_model("decoder-only")
    net = Transformer(dataclasses.replace(shipped.config, dropout=0.0, **changes))  # type: ignore[arg-type]
    randomize_(net, seed)
    return transviz.Model(net.eval(), shipped.src_vocab, shipped.tgt_vocab)


@pytest.mark.parametrize("positional", ["rotary", "alibi", "sinusoidal"])
def test_leaving_the_positions_out_of_a_decoder_only_model_is_the_model_without_them(positional):
    model = shipped_variant(9, positional=positional)
    net = model.net
    plain = Transformer(dataclasses.replace(net.config, positional="none")).eval()
    plain.load_state_dict(net.state_dict())
    src, tgt = torch.tensor([[4, 5, 6, 7, 2], [8, 9, 2, 0, 0]]), torch.tensor([[1, 7, 8, 9], [1, 5, 6, 0]])
    with torch.no_grad():
        with intervening(model, [NoPositions("both")]):
            left_out = net(src, tgt).logits
        torch.testing.assert_close(left_out, plain(src, tgt).logits, atol=1e-5, rtol=0)
        assert not torch.allclose(net(src, tgt).logits, left_out, atol=1e-3)  # the positions mattered


def test_head_importance_of_a_decoder_only_model_switches_a_head_off_on_one_side():
    model = transviz.load_model("decoder-only")
    scores = head_importance(model, "decoder_self", data="valid")
    assert scores.shape == (3, 4) and np.isfinite(scores).all() and scores.max() > 0


def test_the_rollout_of_a_decoder_only_model_follows_its_one_stream():
    net = model("prefix-lm", 10)
    _, maps = stream_numpy(net, SRC, TGT)
    joint = np.eye(len(SRC) + len(TGT))
    for weights in maps:  # Abnar & Zuidema: half of each layer passes on by the residual
        a = 0.5 * weights.mean(axis=0) + 0.5 * np.eye(len(joint))
        joint = a / a.sum(-1, keepdims=True) @ joint
    with torch.no_grad():
        out = net(torch.tensor([SRC]), torch.tensor([TGT]), return_attention=True).attention
    assert out is not None
    views = [np.stack([m[0].numpy() for m in kind]) for kind in (out.encoder_self, out.decoder_self, out.cross)]
    rolled = stream_rollout(*views)
    np.testing.assert_allclose(rolled[-1], joint, atol=1e-5)
    s = len(SRC)
    cross = summarise_view("rollout", "cross", *views, one_stream=True)[-1]
    np.testing.assert_allclose(cross, joint[s:, :s] / joint[s:, :s].sum(-1, keepdims=True), atol=1e-5)
    np.testing.assert_allclose(summarise_view("rollout", "encoder_self", *views, one_stream=True)[-1], joint[:s, :s],
                               atol=1e-5)


@pytest.mark.parametrize("positional", ["sinusoidal", "alibi", "rotary"])
def test_the_walkthrough_of_a_decoder_only_output_row_ends_in_the_models_two_views(positional):
    model = shipped_variant(11, positional=positional)
    trace = teacher_force(model, SENTENCE, "i want a beer")
    source = len(trace.source_tokens)
    for kind in ("cross", "decoder_self"):
        steps = walkthrough(model, SENTENCE, "i want", kind, 1, 2)
        assert steps.key_tokens == trace.source_tokens + ["<s>", "i", "want"]
        np.testing.assert_allclose(steps.weights[:, :source], trace.cross_attention[1, 2, :3], atol=1e-5)
        np.testing.assert_allclose(steps.weights[:, source:], trace.decoder_self_attention[1, 2, :3, :3], atol=1e-5)
    steps = walkthrough(model, SENTENCE, "", "encoder_self", 2, 1)
    np.testing.assert_allclose(steps.weights, trace.encoder_self_attention[2, 1], atol=1e-5)


@pytest.mark.parametrize("architecture", ["prefix-lm", "decoder-only"])
@pytest.mark.parametrize("window", [0, 2])
def test_the_stream_mask_is_each_sentences_own_without_its_padding(architecture, window):
    source = torch.tensor([SRC, [11, 12, 2, 0, 0]])
    target = torch.tensor([TGT, [1, 13, 0, 0]])
    mask = stream_mask(source, target, 0, architecture == "decoder-only", window)
    assert mask.shape == (2, 1, 9, 9)
    for row, (s, t) in enumerate([(5, 4), (3, 2)]):
        real = [*range(s), *range(5, 5 + t)]  # the sentence's own positions, its padding left out
        drawn = mask[row, 0][real][:, real].numpy()
        np.testing.assert_array_equal(drawn, allowed(s, t, architecture == "prefix-lm", window))
    net = model(architecture, 12, attention_window=window)  # and the model attends as drawn
    with torch.no_grad():
        out = net(source, target, return_attention=True).attention
    assert out is not None
    whole = torch.cat([out.cross[0], out.decoder_self[0]], dim=-1)  # (B, H, T, S + T): the output rows
    assert (whole[~mask[:, :, 5:].expand_as(whole)] == 0).all()  # no weight where the mask blocks
