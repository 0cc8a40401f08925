"""The step-by-step attention of one head against independent references: the model's own
attention maps, the attention output the model computes through scaled_dot_product_attention,
and torch.nn.MultiheadAttention with copied weights."""
from __future__ import annotations

import math
import threading

import numpy as np
import pytest
import torch
from torch import nn

import transviz
from transviz.core.analysis.walkthrough import KINDS, _recording, walkthrough
from transviz.core.model.transformer import Transformer
from transviz.core.model.vocab import Vocab

SOURCE, TARGET = "ich mochte ein bier bitte", "i want a"


def make_model(norm: str = "post", seed: int = 0) -> transviz.Model:
    torch.manual_seed(seed)
    src, tgt = Vocab("ich mochte ein bier bitte".split()), Vocab("i want a beer please".split())
    cfg = transviz.ModelConfig(len(src), len(tgt), d_model=24, n_heads=3, n_encoder_layers=2,
                               n_decoder_layers=2, d_ff=32, dropout=0.1, max_len=16, norm=norm)
    net = Transformer(cfg)
    gen = torch.Generator().manual_seed(seed + 1)
    with torch.no_grad():  # non-trivial biases and LayerNorm affines, so that nothing cancels by luck
        for p in net.parameters():
            p.add_(torch.randn(p.shape, generator=gen) * 0.2)
    return transviz.Model(net, src, tgt)


def tensors(model: transviz.Model, source: str = SOURCE, target: str = TARGET) -> tuple[torch.Tensor, torch.Tensor]:
    src = torch.tensor([model.src_vocab.encode(source).ids])
    tgt = torch.tensor([[model.tgt_vocab.bos_id] + model.tgt_vocab.encode(target).ids])
    return src, tgt


def attention_module(model, kind, layer):
    if kind == "encoder_self":
        return model.net.encoder_layers[layer].self_attn
    return getattr(model.net.decoder_layers[layer], "cross_attn" if kind == "cross" else "self_attn")


@pytest.mark.parametrize("norm", ["post", "pre"])
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("layer,head", [(0, 2), (1, 0)])
def test_softmax_equals_the_models_own_map_and_output_equals_its_head_slice(norm, kind, layer, head):
    model = make_model(norm)
    w = walkthrough(model, SOURCE, TARGET, kind, layer, head)
    src, tgt = tensors(model)
    model.net.eval()
    with torch.no_grad():
        maps = model.net(src, tgt, return_attention=True).attention
        # the attention output before out_proj, through the fused scaled_dot_product_attention path
        concat = []
        hook = attention_module(model, kind, layer).out_proj.register_forward_pre_hook(
            lambda module, args: concat.append(args[0]))  # append returns None: inputs unchanged
        model.net(src, tgt)
        hook.remove()
    reference = getattr(maps, kind)[layer][0, head].numpy()
    np.testing.assert_allclose(w.weights, reference, atol=1e-6)
    d_k = model.config.d_k
    np.testing.assert_allclose(w.output, concat[0][0, :, head * d_k:(head + 1) * d_k].numpy(), atol=1e-5)
    np.testing.assert_allclose(w.weights.sum(-1), 1.0, atol=1e-6)


def test_steps_follow_the_formula_element_by_element():
    model = make_model()
    w = walkthrough(model, SOURCE, TARGET, "decoder_self", 1, 1)
    T = 4  # <s> i want a
    assert w.scores.shape == w.weights.shape == w.mask.shape == (T, T)
    assert w.queries.shape == w.keys.shape == w.values.shape == w.output.shape == (T, w.d_k)
    assert w.d_k == 8 and w.scores.dtype == np.float32 and w.mask.dtype == np.bool_
    for q in range(T):
        for k in range(T):
            dot = sum(float(w.queries[q, i]) * float(w.keys[k, i]) for i in range(w.d_k))
            assert w.scores[q, k] == pytest.approx(dot, abs=1e-5)
            assert w.scaled[q, k] == pytest.approx(dot / math.sqrt(8), abs=1e-5)
            assert w.mask[q, k] == (k <= q)  # causal: a query sees itself and the past
            assert (w.masked[q, k] == -math.inf) == (k > q)
        row = [math.exp(float(w.masked[q, k])) for k in range(q + 1)]
        for k in range(T):
            expected = row[k] / sum(row) if k <= q else 0.0
            assert w.weights[q, k] == pytest.approx(expected, abs=1e-6)
        value = [sum(float(w.weights[q, k]) * float(w.values[k, i]) for k in range(T)) for i in range(w.d_k)]
        np.testing.assert_allclose(w.output[q], value, atol=1e-5)


def test_tokens_on_each_axis():
    model = make_model()
    enc = walkthrough(model, SOURCE, TARGET, "encoder_self", 0, 0)
    assert enc.query_tokens == enc.key_tokens == SOURCE.split()
    cross = walkthrough(model, SOURCE, TARGET, "cross", 0, 0)
    assert cross.query_tokens == ["<s>", "i", "want", "a"] and cross.key_tokens == SOURCE.split()
    assert cross.weights.shape == (4, 5)  # queries (target) x keys (source), not transposed
    start_only = walkthrough(model, SOURCE, "", "decoder_self", 0, 0)
    assert start_only.query_tokens == ["<s>"] and start_only.weights.tolist() == [[1.0]]
    unknown = walkthrough(model, "ich trinke", "", "encoder_self", 0, 0)
    assert unknown.key_tokens == ["ich", "trinke"]  # as typed; the model reads <unk>


def mha_reference(attn):
    """torch.nn.MultiheadAttention with our weights and an identity out_proj: its output is
    the concatenation of the heads' weighted sums."""
    d = attn.d_model
    ref = nn.MultiheadAttention(d, attn.n_heads, batch_first=True).eval()
    with torch.no_grad():
        ref.in_proj_weight.copy_(attn.in_proj_weight)
        ref.in_proj_bias.copy_(attn.in_proj_bias)
        ref.out_proj.weight.copy_(torch.eye(d))
        ref.out_proj.bias.zero_()
    return ref


def test_against_torch_multihead_attention_with_copied_weights():
    model = make_model("post", seed=3)
    net = model.net.eval()
    src, tgt = tensors(model)
    inputs = {}

    def keep(name, tensor):  # hooks must return None, or they replace the module's inputs/outputs
        inputs.setdefault(name, tensor)

    hooks = [
        net.encoder_layers[1].register_forward_pre_hook(lambda m, args: keep("enc", args[0])),
        # post-LN: cross-attention's queries come from the first sublayer's LayerNorm
        net.decoder_layers[0].norm1.register_forward_hook(lambda m, args, out: keep("dec", out)),
    ]
    with torch.no_grad():
        memory = net.encode(src).memory
        net(src, tgt)
    for hook in hooks:
        hook.remove()
    d_k, head = model.config.d_k, 1
    cases = [("encoder_self", 1, inputs["enc"], inputs["enc"]), ("cross", 0, inputs["dec"], memory)]
    for kind, layer, query_input, key_input in cases:
        attn = attention_module(model, kind, layer)
        ref = mha_reference(attn)
        with torch.no_grad():
            out, weights = ref(query_input, key_input, key_input, need_weights=True, average_attn_weights=False)
        w = walkthrough(model, SOURCE, TARGET, kind, layer, head)
        np.testing.assert_allclose(w.weights, weights[0, head].numpy(), atol=1e-6)
        np.testing.assert_allclose(w.output, out[0, :, head * d_k:(head + 1) * d_k].numpy(), atol=1e-5)


def test_the_model_is_left_as_it_was():
    model = make_model()
    model.net.train()
    walkthrough(model, SOURCE, TARGET, "cross", 1, 2)
    assert model.net.training
    assert not any(sites.attached() for sites in model.net.places().values())


def test_calls_from_another_thread_are_not_recorded():
    """The masks tab translates with the same model on a worker thread while the GUI thread walks
    through one of its heads: the walkthrough must see only its own pass."""
    model = make_model()
    model.net.eval()
    src, tgt = tensors(model)
    with _recording(model, "decoder_self", 0) as calls, torch.no_grad():
        worker = threading.Thread(target=transviz.decode, args=(model, SOURCE, "greedy", 3))
        worker.start()
        worker.join()
        assert calls == []  # the other thread's decoding went through the module unrecorded
        model.net(src, tgt)
    assert len(calls) == 1 and calls[0][0].shape[2] == tgt.shape[1]  # (B, H, T, d_k): this thread's pass


@pytest.mark.parametrize("args,message", [
    (("", TARGET, "cross", 0, 0), "empty"),
    ((SOURCE, TARGET, "sideways", 0, 0), "unknown attention kind"),
    ((SOURCE, TARGET, "encoder_self", 2, 0), "layer 2 does not exist"),
    ((SOURCE, TARGET, "cross", 0, 3), "head 3 does not exist"),
    ((SOURCE, "a " * 20, "decoder_self", 0, 0), "at most 16"),
])
def test_bad_requests_raise_input_error(args, message):
    with pytest.raises(transviz.InputError, match=message):
        walkthrough(make_model(), *args)
