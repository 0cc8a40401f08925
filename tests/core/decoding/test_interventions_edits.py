"""Mean and copy ablations and hand-edited rows, against plain torch hooks and numpy."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import transviz
from transviz import AblateHead, EditAttention
from transviz.core.data.batches import encode_pairs
from transviz.core.data.held_out import held_out_pairs
from transviz.core.model.positional import sinusoidal_table

SOURCE, TARGET = "ich mochte ein bier", "i want a beer"


@pytest.fixture(scope="module")
def model():
    return transviz.load_model("default")


def module_of(model, kind, layer):
    return model.net.attention_modules()[kind, layer]


def with_pre_hook(module, hook, run):
    handle = module.out_proj.register_forward_pre_hook(hook)
    try:
        with torch.no_grad():
            return run()
    finally:
        handle.remove()


def teacher_forced_gold_probabilities(model, hook_module=None, hook=None) -> np.ndarray:
    vocab = model.tgt_vocab
    src = torch.tensor([model.src_vocab.encode(SOURCE).ids])
    tgt = torch.tensor([[vocab.bos_id] + vocab.encode(TARGET).ids])
    gold = vocab.encode(TARGET).ids + [vocab.eos_id]

    def run():
        return torch.softmax(model.net.eval()(src, tgt).logits[0], -1)[torch.arange(len(gold)), gold].detach().numpy()
    return run() if hook is None else with_pre_hook(hook_module, hook, run)


@pytest.fixture(scope="module")
def sentence_by_sentence_means(model) -> dict:
    """Every module's output (all heads) averaged over every position of every validation pair,
    one pair at a time: no batch, no padding."""
    seen: dict = {key: [] for key in model.net.attention_modules()}
    handles = [module.out_proj.register_forward_pre_hook(lambda m, a, key=key: seen[key].append(a[0][0].double()))
               for key, module in model.net.attention_modules().items()]
    try:
        with torch.no_grad():
            for src, tgt in encode_pairs(model, held_out_pairs(model, "valid")):
                model.net.eval()(torch.tensor([src]), torch.tensor([tgt[:-1]]))
    finally:
        for handle in handles:
            handle.remove()
    return {key: torch.cat(rows).mean(dim=0).numpy() for key, rows in seen.items()}


@pytest.mark.parametrize("kind, layer, head", [("cross", 1, 2), ("encoder_self", 2, 1)])
def test_a_mean_ablated_head_outputs_its_mean_over_the_validation_sentences(model, sentence_by_sentence_means,
                                                                          kind, layer, head):
    d_k = model.config.d_model // model.config.n_heads
    mean = torch.tensor(sentence_by_sentence_means[kind, layer][head * d_k : (head + 1) * d_k], dtype=torch.float32)

    def replace(module, args):
        x = args[0].clone()
        x[..., head * d_k : (head + 1) * d_k] = mean
        return (x,)

    expected = teacher_forced_gold_probabilities(model, module_of(model, kind, layer), replace)
    trace = transviz.teacher_force(model, SOURCE, TARGET, interventions=[AblateHead(kind, layer, head, "mean")])
    np.testing.assert_allclose(trace.output_probabilities, expected, rtol=1e-4, atol=1e-6)
    assert not np.allclose(expected, teacher_forced_gold_probabilities(model), atol=1e-4)


def test_a_copying_head_attends_exactly_like_its_source_at_every_step(model):
    plain = transviz.decode(model, SOURCE)
    trace = transviz.decode(model, SOURCE, interventions=[AblateHead("cross", 2, 0, "copy", (0, 1)),
                                                           AblateHead("cross", 1, 3, "copy", (1, 0))])
    np.testing.assert_array_equal(trace.cross_attention[2, 0], trace.cross_attention[0, 1])
    np.testing.assert_array_equal(trace.cross_attention[1, 3], trace.cross_attention[1, 0])
    assert not np.allclose(plain.cross_attention[2, 0], plain.cross_attention[0, 1], atol=1e-3)
    # layer 0 runs before any copy: its maps are the model's own for the same inputs
    forced = transviz.teacher_force(model, SOURCE, " ".join(plain.output_tokens[:-1]),
                                    interventions=trace.interventions)
    np.testing.assert_allclose(forced.cross_attention, trace.cross_attention[:, :, : forced.cross_attention.shape[2]],
                               atol=1e-5)


def encoder_layer0_values(model, head) -> np.ndarray:
    """V of one head in encoder layer 0, from the weights in numpy: (embedding * sqrt(d) + PE) W_V^T + b_V."""
    net, d = model.net, model.config.d_model
    d_k = d // model.config.n_heads
    ids = model.src_vocab.encode(SOURCE).ids
    x = net.src_embed.weight.detach().numpy()[ids] * np.sqrt(d) + sinusoidal_table(len(ids), d).numpy()
    attn = module_of(model, "encoder_self", 0)
    w_v = attn.in_proj_weight.detach().numpy()[2 * d :][head * d_k : (head + 1) * d_k]
    b_v = attn.in_proj_bias.detach().numpy()[2 * d :][head * d_k : (head + 1) * d_k]
    return x @ w_v.T + b_v  # (S, d_k)


def test_an_edited_row_is_what_the_next_layer_receives(model):
    head, query, d_k = 1, 2, model.config.d_model // model.config.n_heads
    raw = (0.0, 1.0, 0.0, 3.0)  # all on "mochte" and "bier", 1 : 3
    seen = []
    edit = EditAttention("encoder_self", 0, head, query, raw)
    trace = with_pre_hook(module_of(model, "encoder_self", 0),
                          lambda m, a: seen.append(a[0][0].detach().numpy().copy()),
                          lambda: transviz.teacher_force(model, SOURCE, TARGET, interventions=[edit]))
    row = np.array(raw) / sum(raw)
    np.testing.assert_allclose(trace.encoder_self_attention[0, head, query], row, atol=1e-7)
    got = seen[0][query, head * d_k : (head + 1) * d_k]
    np.testing.assert_allclose(got, row @ encoder_layer0_values(model, head), rtol=1e-4, atol=1e-5)
    plain = transviz.teacher_force(model, SOURCE, TARGET)
    others = [q for q in range(trace.encoder_self_attention.shape[2]) if q != query]
    np.testing.assert_array_equal(trace.encoder_self_attention[0, head, others],
                                  plain.encoder_self_attention[0, head, others])


def test_an_edited_decoder_row_changes_only_that_step_and_what_follows(model):
    plain = transviz.decode(model, SOURCE)
    beer = plain.source_tokens.index("bier")
    weights = tuple(1.0 if i == beer else 0.0 for i in range(len(plain.source_tokens)))
    trace = transviz.decode(model, SOURCE, interventions=[EditAttention("cross", 1, 2, 1, weights)])
    np.testing.assert_array_equal(trace.cross_attention[1, 2, 1], np.array(weights, dtype=np.float32))
    np.testing.assert_array_equal(trace.cross_attention[:, :, 0], plain.cross_attention[:, :, 0])


def test_an_edited_row_leaves_keys_its_query_may_not_see_at_zero(model):
    trace = transviz.teacher_force(model, SOURCE, TARGET,
                                   interventions=[EditAttention("decoder_self", 0, 0, 1, (1.0, 1.0, 1.0, 1.0))])
    np.testing.assert_allclose(trace.decoder_self_attention[0, 0, 1], [0.5, 0.5, 0, 0, 0], atol=1e-7)


@pytest.mark.parametrize("edit, match", [
    (EditAttention("cross", 0, 0, 1, (1.0,) * 40), "has 40 weights, but query 1 sees only 4 keys"),
    (EditAttention("decoder_self", 0, 0, 0, (0.0, 1.0)), "query 0 puts all its weight on keys"),
])
def test_an_edited_row_that_cannot_apply_is_a_clear_error(model, edit, match):
    with pytest.raises(transviz.InputError, match=match):
        transviz.teacher_force(model, SOURCE, TARGET, interventions=[edit])
    assert not any(sites.attached() for sites in model.net.places().values())


def test_mean_ablation_needs_a_built_in_task(model):
    from dataclasses import replace

    other = replace(model, facts={**model.facts, "task": "my-corpus.tsv"})
    with pytest.raises(transviz.InputError, match="not a built-in task"):
        transviz.decode(other, SOURCE, interventions=[AblateHead("cross", 0, 0, "mean")])


def test_a_model_that_names_no_task_is_told_so(model):
    """A Hugging Face or plain PyTorch model names no task: not "this model learned None"."""
    from dataclasses import replace

    other = replace(model, facts={k: v for k, v in model.facts.items() if k != "task"})
    with pytest.raises(transviz.InputError, match="^this model does not say which task it learned: give its sentence "
                                                  "pairs as a TSV file$"):
        transviz.decode(other, SOURCE, interventions=[AblateHead("cross", 0, 0, "mean")])
