"""The logit lens and the written token's direct logits (core.analysis.lens) on the shipped models
and a tiny one with the Annotated Transformer's norm: each layer's guess against the layer's output
as a plain torch hook sees it, the last layer against the model's own distribution, the terms
against the logit, and the frozen norms against the norms themselves."""
import numpy as np
import pytest
import torch
from torch import nn

import transviz
from transviz.core.analysis.concepts.forward import Sentence
from transviz.core.analysis.lens import frozen, logit_lens
from transviz.core.base.errors import InputError
from transviz.core.decoding.session import DecodingSession
from transviz.core.model.transformer import StdLayerNorm, Transformer
from transviz.core.model.vocab import Vocab

SOURCE = "ich mochte ein bier trinken"


def at_step(model, step, source=SOURCE):
    trace = transviz.decode(model, source)
    return Sentence(source, tuple(trace.target_tokens[1:step + 1])), trace.output_tokens[step], trace


@pytest.fixture(scope="module", params=["default", "pre-norm", "gqa", "decoder-only"])
def model(request):
    return transviz.load_model(request.param)


def test_each_layers_guess_is_its_output_through_the_final_norm_and_the_output_layer(model):
    sentence, written, _ = at_step(model, 3)
    lens = logit_lens(model, sentence, written, k=4)
    net, outputs = model.net, []
    handles = [layer.register_forward_hook(lambda m, i, out: outputs.append(out.x)) for layer in net.decoder_layers]
    source = torch.tensor([model.source_tensor(model.encode_source(SOURCE))[0].tolist()])
    target = torch.tensor([[model.tgt_vocab.bos_id, *model.tgt_vocab.encode(" ".join(sentence.target)).ids]])
    try:
        with torch.no_grad():
            logits = net(source, target).logits[0, -1]
    finally:
        for handle in handles:
            handle.remove()
    np.testing.assert_allclose(lens.probabilities, torch.softmax(logits.double(), -1).numpy(), atol=1e-6)
    if model.config.decoder_only:
        return  # its layers' target pass is no forward() a hook sees; the last layer is checked above
    for guess, output in zip(lens.layers, outputs, strict=True):
        with torch.no_grad():
            expected = torch.softmax(net.generator(net.decoder_norm(output[0, -1])).double(), -1)
        top = torch.topk(expected, 4)
        assert guess.tokens == model.tgt_vocab.tokens_of(top.indices.tolist())
        np.testing.assert_allclose(guess.probabilities, top.values.numpy(), atol=1e-6)
        assert guess.written == pytest.approx(float(expected[model.tgt_vocab.id_of(written)]), abs=1e-6)


def test_the_last_layers_guess_is_what_the_explorer_offers(model):
    session = DecodingSession(model, SOURCE, top_k=5)
    for _ in range(3):
        record = session.step()
    sentence = Sentence(SOURCE, tuple(session.target_tokens[1:]))
    last = logit_lens(model, sentence, record.token, k=5).layers[-1]
    assert last.tokens == [candidate.token for candidate in record.candidates]
    np.testing.assert_allclose(last.probabilities, [c.probability for c in record.candidates], atol=1e-5)


def test_the_direct_terms_add_up_to_the_written_tokens_logit(model):
    for step in range(4):
        sentence, written, _ = at_step(model, step)
        lens = logit_lens(model, sentence, written)
        if model.config.decoder_only:  # its cross-attention is part of its one self-attention: no split
            assert lens.direct is None
            continue
        direct = lens.direct
        assert direct.heads.shape == (model.config.n_decoder_layers, model.config.n_heads)
        assert direct.total == pytest.approx(direct.logit, abs=1e-4)
        source = model.source_tensor(model.encode_source(SOURCE))
        target = torch.tensor([[model.tgt_vocab.bos_id, *model.tgt_vocab.encode(" ".join(sentence.target)).ids]]
                              if sentence.target else [[model.tgt_vocab.bos_id]])
        with torch.no_grad():
            logit = model.net(source, target).logits[0, -1, model.tgt_vocab.id_of(written)]
        assert direct.logit == pytest.approx(float(logit), abs=1e-5)
        assert {term for term, _, _ in direct.terms} == {"embedding", "self_attention", "cross_bias",
                                                         "feed_forward", "biases"}


def test_in_a_pre_norm_model_a_heads_term_is_its_output_through_the_final_norm():
    model = transviz.load_model("pre-norm")
    sentence, written, _ = at_step(model, 2)
    net = model.net
    mixed = []
    handles = [layer.cross_attn.out_proj.register_forward_pre_hook(lambda m, args: mixed.append(args[0][0, -1]))
               for layer in net.decoder_layers]
    streams = []
    handles.append(net.decoder_layers[-1].register_forward_hook(lambda m, i, out: streams.append(out.x[0, -1])))
    source = model.source_tensor(model.encode_source(SOURCE))
    target = torch.tensor([[model.tgt_vocab.bos_id, *model.tgt_vocab.encode(" ".join(sentence.target)).ids]])
    try:
        with torch.no_grad():
            net(source, target)
    finally:
        for handle in handles:
            handle.remove()
    last = streams[0].double().numpy()
    weight = net.decoder_norm.weight.detach().double().numpy()
    rms = np.sqrt(np.mean(last ** 2) + (net.decoder_norm.eps or np.finfo(np.float32).eps))
    u = net.generator.weight[model.tgt_vocab.id_of(written)].detach().double().numpy()
    d_k = model.config.d_k
    expected = np.zeros((len(mixed), model.config.n_heads))
    for layer, row in enumerate(mixed):
        w_o = net.decoder_layers[layer].cross_attn.out_proj.weight.detach().double().numpy()
        for h in range(model.config.n_heads):
            out = w_o[:, h * d_k:(h + 1) * d_k] @ row[h * d_k:(h + 1) * d_k].double().numpy()
            expected[layer, h] = u @ (weight * out / rms)  # RMSNorm: no centring
    np.testing.assert_allclose(logit_lens(model, sentence, written).direct.heads, expected, atol=1e-5)


@pytest.mark.parametrize("norm", [nn.LayerNorm(8, eps=1e-5), nn.RMSNorm(8, eps=1e-6), StdLayerNorm(8, 1e-6),
                                  nn.Identity()])
def test_a_frozen_norm_is_the_norm_at_its_input_and_its_pull_is_the_transpose(norm):
    torch.manual_seed(0)
    with torch.no_grad():
        for p in norm.parameters():
            p.add_(torch.randn(p.shape))
    x, v, g = torch.randn(3, 8, dtype=torch.float64) * 3
    fixed = frozen(norm, x)
    bias = fixed.bias if fixed.bias is not None else 0.0
    torch.testing.assert_close(fixed.apply(x) + bias, norm(x.float()).double(), atol=1e-5, rtol=1e-5)
    assert float(g @ fixed.apply(v)) == pytest.approx(float(fixed.pull(g) @ v), abs=1e-9)


def test_the_annotated_transformers_norm_splits_exactly_too():
    torch.manual_seed(1)
    src, tgt = Vocab(SOURCE.split()), Vocab("i want to drink a beer".split())
    config = transviz.ModelConfig(len(src), len(tgt), d_model=16, n_heads=2, n_encoder_layers=2, n_decoder_layers=2,
                                  d_ff=24, dropout=0.0, max_len=16, layer_norm="unbiased-std", norm="pre")
    model = transviz.Model(Transformer(config), src, tgt)
    lens = logit_lens(model, Sentence(SOURCE, ("i", "want")), "to")
    assert lens.direct.total == pytest.approx(lens.direct.logit, abs=1e-4)


def test_nothing_written_yet_is_refused_and_the_first_layer_is_where_the_guess_settles():
    model = transviz.load_model("default")
    with pytest.raises(InputError, match="nothing is written yet"):
        logit_lens(model, Sentence(SOURCE), None)
    sentence, written, _ = at_step(model, 3)
    lens = logit_lens(model, sentence, written)
    tops = [guess.tokens[0] for guess in lens.layers]
    expected = next(i for i in range(len(tops)) if all(t == written for t in tops[i:]))
    assert lens.first_layer == expected and tops[-1] == written
