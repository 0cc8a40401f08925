"""Named sites and taps (core.model.sites) on real small models: each site holds the value an independent
computation gives, taps never outlive their block (an exception included), a tap belongs to its
thread, the fast path runs untapped, and the model file names no intervention."""
from __future__ import annotations

import ast
import copy
import dataclasses
import math
import threading
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import transviz
from transviz.core.decoding import interventions
from transviz.core.decoding.interventions import AblateHead, Intervention, intervening
from transviz.core.model import transformer as model_module
from transviz.core.model.positional import sinusoidal_table
from transviz.core.model.sites import Address, Site, Tap, recording, tapping
from transviz.core.model.transformer import Transformer
from transviz.core.model.vocab import Vocab

SOURCE, TARGET = "ich mochte ein bier bitte", "i want a"
# BIASED: ALiBi models only; POSITIONS and RESIDUAL are a stack's
ATTENTION_SITES = [site for site in Site if site not in (Site.POSITIONS, Site.RESIDUAL, Site.BIASED)]


def make_model(seed: int = 0) -> transviz.Model:
    torch.manual_seed(seed)
    src, tgt = Vocab("ich mochte ein bier bitte".split()), Vocab("i want a beer please".split())
    cfg = transviz.ModelConfig(len(src), len(tgt), d_model=24, n_heads=3, n_encoder_layers=2,
                               n_decoder_layers=2, d_ff=32, dropout=0.1, max_len=16)
    net = Transformer(cfg)
    gen = torch.Generator().manual_seed(seed + 1)
    with torch.no_grad():  # non-trivial biases and LayerNorm affines, so that nothing cancels by luck
        for p in net.parameters():
            p.add_(torch.randn(p.shape, generator=gen) * 0.2)
    net.eval()
    return transviz.Model(net, src, tgt)


@pytest.fixture(scope="module")
def model() -> transviz.Model:
    return make_model()


def batch(model: transviz.Model) -> tuple[torch.Tensor, torch.Tensor]:
    """Two sentences, the second padded on both sides, so that the masks hide something."""
    src = torch.tensor([model.src_vocab.encode(SOURCE).ids, model.src_vocab.encode("ich mochte").ids + [0, 0, 0]])
    ids = [model.tgt_vocab.bos_id] + model.tgt_vocab.encode(TARGET).ids
    tgt = torch.tensor([ids, ids[:2] + [0, 0]])
    return src, tgt


def no_taps_left(net: Transformer) -> bool:
    return not any(sites.attached() for sites in net.places().values())


# -- what each site holds ----------------------------------------------------------------------------

def heads(x: torch.Tensor, n_heads: int) -> np.ndarray:
    """(B, L, d) -> (B, H, L, d_k) float64, the model's head split done again in numpy."""
    b, length, d = x.shape
    return x.double().numpy().reshape(b, length, n_heads, d // n_heads).transpose(0, 2, 1, 3)


@pytest.mark.parametrize("kind, layer", [("encoder_self", 1), ("decoder_self", 0), ("cross", 1)])
def test_each_site_holds_what_an_independent_computation_gives(model, kind, layer):
    net = model.net
    module = net.attention_modules()[kind, layer]
    src, tgt = batch(model)
    mixed: list[torch.Tensor] = []
    hook = module.out_proj.register_forward_pre_hook(lambda m, args: mixed.append(args[0]))  # a plain torch hook
    try:
        with torch.no_grad(), recording(net, [Address(kind, layer, site) for site in ATTENTION_SITES]) as seen:
            out = net(src, tgt, return_attention=True)
            encoded = net.encode(src, return_attention=True)  # as the pass above encoded
    finally:
        hook.remove()
    at = {address.site: value for address, value in seen.items()}
    assert set(at) == set(ATTENTION_SITES)
    d, n_heads = net.config.d_model, net.config.n_heads
    weight, bias = module.in_proj_weight.detach().double().numpy(), module.in_proj_bias.detach().double().numpy()
    x_q, x_k = at[Site.QUERY_INPUT].double().numpy(), at[Site.KEY_INPUT].double().numpy()
    if kind == "cross":
        assert torch.equal(at[Site.KEY_INPUT], encoded.memory)  # cross-attention's keys come from the memory
    else:
        assert torch.equal(at[Site.QUERY_INPUT], at[Site.KEY_INPUT])
    q = heads(torch.from_numpy(x_q @ weight[:d].T + bias[:d]), n_heads)
    k = heads(torch.from_numpy(x_k @ weight[d:2 * d].T + bias[d:2 * d]), n_heads)
    v = heads(torch.from_numpy(x_k @ weight[2 * d:].T + bias[2 * d:]), n_heads)
    for site, expected in ((Site.QUERIES, q), (Site.KEYS, k), (Site.VALUES, v)):
        np.testing.assert_allclose(at[site].double().numpy(), expected, atol=1e-5)
    scores = q @ k.transpose(0, 1, 3, 2)
    np.testing.assert_allclose(at[Site.SCORES].numpy(), scores, atol=1e-4)
    np.testing.assert_allclose(at[Site.SCALED].numpy(), scores / math.sqrt(d // n_heads), atol=1e-4)
    pad = src if kind != "decoder_self" else tgt
    hidden = np.broadcast_to((pad == 0).numpy()[:, None, None, :], scores.shape).copy()
    if kind == "decoder_self":
        hidden |= np.triu(np.ones(scores.shape[-2:], dtype=bool), k=1)  # the future
    masked = at[Site.MASKED].numpy()
    assert np.all(masked[hidden] == -np.inf) and np.all(np.isfinite(masked[~hidden]))
    maps = {"encoder_self": out.attention.encoder_self, "decoder_self": out.attention.decoder_self,
            "cross": out.attention.cross}[kind]
    assert torch.equal(at[Site.WEIGHTS], maps[layer])  # the weights site is the attention returned
    expected = at[Site.WEIGHTS].double().numpy() @ v
    np.testing.assert_allclose(at[Site.HEAD_OUTPUT].double().numpy(), expected, atol=1e-5)
    assert torch.equal(at[Site.MIXED], mixed[0])
    b, _, length, _ = at[Site.HEAD_OUTPUT].shape
    assert torch.equal(at[Site.MIXED], at[Site.HEAD_OUTPUT].transpose(1, 2).reshape(b, length, d))


def test_a_decoding_step_sees_its_cached_keys_and_its_position(model):
    """One step: the new query row, every key so far, and the positional term of its position."""
    net = model.net
    src, tgt = batch(model)
    src, tgt = src[:1], tgt[:1]
    firsts: list[int] = []

    def first(value: torch.Tensor, call) -> None:
        firsts.append(call.first_query)
    with torch.no_grad():
        state = net.start(net.encode(src))
        for t in range(2):
            state = net.step(tgt[:, t], state).state
        sites = [Address("decoder_self", 1, site) for site in (Site.QUERIES, Site.KEYS, Site.WEIGHTS)]
        with recording(net, [*sites, Address("decoder", None, Site.POSITIONS)]) as seen, \
                tapping(net, [Tap(Address("decoder_self", 1, Site.SCORES), first)]):
            step = net.step(tgt[:, 2], state)
    queries, keys, weights, positions = (seen[a] for a in (*sites, Address("decoder", None, Site.POSITIONS)))
    assert queries.shape[2] == 1 and keys.shape[2] == 3 and firsts == [2]
    assert torch.equal(weights, step.self_attention[1])
    table = sinusoidal_table(net.config.max_len, net.config.d_model)
    assert torch.equal(positions, table[2:3])


# -- editors -------------------------------------------------------------------------------------------

def test_an_editor_changes_what_the_model_goes_on_with_and_runs_in_order(model):
    net = model.net
    src, tgt = batch(model)
    address = Address("cross", 0, Site.WEIGHTS)
    order: list[str] = []

    def first_key(weights: torch.Tensor, call) -> torch.Tensor:
        order.append("first key")
        edited = torch.zeros_like(weights)
        edited[..., 0] = 1.0
        return edited

    def seen_after(weights: torch.Tensor, call) -> None:
        order.append("recorder")
        assert torch.all(weights[..., 0] == 1.0)  # it sees the edit of the tap before it

    def last_key(weights: torch.Tensor, call) -> torch.Tensor:
        order.append("last key")
        edited = torch.zeros_like(weights)
        edited[..., -1] = 1.0
        return edited
    with torch.no_grad():
        plain = net(src, tgt, return_attention=True)
        with tapping(net, [Tap(address, last_key, order=1), Tap(address, first_key), Tap(address, seen_after)]):
            edited = net(src, tgt, return_attention=True)
    assert order == ["first key", "recorder", "last key"]  # by order, then as attached
    assert torch.all(edited.attention.cross[0][..., -1] == 1.0)
    assert not torch.allclose(edited.logits, plain.logits)
    assert torch.equal(edited.attention.encoder_self[0], plain.attention.encoder_self[0])  # before the edit


def test_the_projections_inputs_can_be_recorded_not_replaced(model):
    src, tgt = batch(model)
    tap = Tap(Address("encoder_self", 0, Site.QUERY_INPUT), lambda x, call: x * 2)
    with pytest.raises(ValueError, match="record QUERY_INPUT, not replace"), tapping(model.net, [tap]), \
            torch.no_grad():
        model.net(src, tgt)
    assert no_taps_left(model.net)


def test_an_address_is_checked():
    with pytest.raises(ValueError):
        Address("encoder", 0, Site.POSITIONS)
    with pytest.raises(ValueError):
        Address("cross", None, Site.WEIGHTS)
    with pytest.raises(ValueError):
        Address("encoder", None, Site.WEIGHTS)
    net = make_model().net
    with pytest.raises(ValueError, match="no cross layer 5"), tapping(net, [Tap(Address("cross", 5, Site.WEIGHTS),
                                                                                lambda w, call: None)]):
        pass


# -- taps never outlive their block ----------------------------------------------------------------

def test_taps_never_outlive_their_block_even_when_it_raises(model):
    net = model.net
    src, tgt = batch(model)
    seen: list[torch.Tensor] = []
    taps = [Tap(Address(kind, layer, site), lambda value, call: seen.append(value))
            for (kind, layer) in net.attention_modules() for site in ATTENTION_SITES]
    taps += [Tap(Address(stack, None, Site.POSITIONS), lambda value, call: seen.append(value))
             for stack in ("encoder", "decoder")]
    taps += [Tap(Address(stack, layer, Site.RESIDUAL), lambda value, call: seen.append(value))
             for stack in ("encoder", "decoder") for layer in range(2)]
    with torch.no_grad():
        with tapping(net, taps):
            assert all(sites.attached() for sites in net.places().values())
            net(src, tgt)
        assert seen and no_taps_left(net)
        count = len(seen)
        with pytest.raises(RuntimeError, match="inside"), tapping(net, taps):
            net(src, tgt)
            raise RuntimeError("inside the block")
        assert len(seen) == 2 * count and no_taps_left(net)
        with pytest.raises(transviz.InputError), tapping(net, taps):
            net(src, torch.tensor([[99]]))  # the model itself raises mid-run, after the encoder
        assert no_taps_left(net)
        after = len(seen)
        net(src, tgt)
        net.step(tgt[:1, 0], net.start(net.encode(src[:1])))
    assert len(seen) == after  # the runs after the blocks recorded nothing


def test_an_inner_block_adds_to_the_outer_and_gives_it_back(model):
    net = model.net
    src, tgt = batch(model)
    address = Address("cross", 1, Site.WEIGHTS)
    calls: list[str] = []
    with torch.no_grad(), tapping(net, [Tap(address, lambda w, call: calls.append("outer"))]):
        with tapping(net, [Tap(address, lambda w, call: calls.append("inner"))]):
            net(src, tgt)
        net(src, tgt)
    net(src, tgt)
    assert calls == ["outer", "inner", "outer"] and no_taps_left(net)


def test_a_copy_of_a_tapped_model_starts_untapped(model):
    with tapping(model.net, [Tap(Address("cross", 0, Site.WEIGHTS), lambda w, call: torch.zeros_like(w))]):
        twin = copy.deepcopy(model.net)
    assert no_taps_left(twin) and no_taps_left(model.net)


# -- a tap belongs to its thread ---------------------------------------------------------------------

def test_another_thread_runs_the_model_untapped_meanwhile(model):
    """The masks tab translates on a worker thread while the walkthrough records on the GUI thread:
    this thread's editor and recorder never reach the worker's passes, which run at the same time."""
    net = model.net
    src, tgt = batch(model)
    with torch.no_grad():
        plain = net(src, tgt, return_attention=True)
    recorded: list[int] = []

    def uniform(weights: torch.Tensor, call) -> torch.Tensor:
        recorded.append(threading.get_ident())
        return torch.full_like(weights, 1.0 / weights.shape[-1])
    both_running = threading.Barrier(2, timeout=30)
    theirs: list[torch.Tensor] = []

    def worker() -> None:
        with torch.no_grad():
            both_running.wait()  # the main thread is inside its block
            for _ in range(5):
                theirs.append(net(src, tgt, return_attention=True).attention.cross[0])
            both_running.wait()
    thread = threading.Thread(target=worker)
    with torch.no_grad(), tapping(net, [Tap(Address("cross", 0, Site.WEIGHTS), uniform)]):
        thread.start()
        both_running.wait()
        ours = [net(src, tgt, return_attention=True).attention.cross[0] for _ in range(5)]
        both_running.wait()
    thread.join()
    assert set(recorded) == {threading.get_ident()} and len(recorded) == 5
    assert all(torch.equal(t, plain.attention.cross[0]) for t in theirs)
    assert all(torch.allclose(o, torch.full_like(o, 1.0 / o.shape[-1])) for o in ours)
    assert no_taps_left(net)


def test_interventions_in_one_thread_leave_another_threads_decoding_alone():
    model = transviz.load_model("default")
    source = "ich mochte ein bier"
    plain = transviz.decode(model, source)
    items = [AblateHead("cross", 0, 0), AblateHead("cross", 1, 0), AblateHead("cross", 2, 0),
             AblateHead("cross", 1, 1), AblateHead("cross", 1, 2), AblateHead("cross", 1, 3)]
    found: list[transviz.Trace] = []
    src = model.source_tensor(model.encode_source(source))
    tgt = torch.tensor([[model.tgt_vocab.bos_id]])
    with torch.no_grad():
        unchanged = model.net.eval()(src, tgt, return_attention=True).attention.cross[1]
    with intervening(model, items):
        thread = threading.Thread(target=lambda: found.append(transviz.decode(model, source)))
        thread.start()
        thread.join()
        with torch.no_grad():
            changed = model.net(src, tgt, return_attention=True).attention.cross[1]
    assert found[0].output_tokens == plain.output_tokens
    assert np.array_equal(found[0].cross_attention, plain.cross_attention)
    assert not torch.allclose(changed, unchanged)  # while the worker decoded, this thread's model was changed


# -- the fast path -----------------------------------------------------------------------------------

def test_untapped_attention_takes_the_fast_path(model, monkeypatch):
    calls: list[int] = []
    fused = F.scaled_dot_product_attention

    def counted(*args, **kwargs):
        calls.append(threading.get_ident())
        return fused(*args, **kwargs)
    monkeypatch.setattr(model_module.F, "scaled_dot_product_attention", counted)
    net = model.net
    src, tgt = batch(model)
    modules = len(net.attention_modules())
    tapped, done = threading.Event(), threading.Event()

    def other_thread() -> None:  # taps every module, in its own thread only
        taps = [Tap(Address(kind, layer, Site.WEIGHTS), lambda w, call: None)
                for kind, layer in net.attention_modules()]
        with tapping(net, taps):
            tapped.set()
            done.wait(30)
    other = threading.Thread(target=other_thread)
    other.start()
    tapped.wait(30)
    with torch.no_grad():
        net(src, tgt)
        assert len(calls) == modules  # another thread's taps leave this one on the fast path
        done.set()
        other.join()
        with tapping(net, [Tap(Address("cross", 1, Site.MIXED), lambda x, call: None)]):
            net(src, tgt)
        assert len(calls) == 2 * modules - 1  # the tapped module computes its sites step by step
        net(src, tgt, return_attention=True)
    assert len(calls) == 2 * modules - 1  # weights asked for: the explicit path everywhere
    assert no_taps_left(net)


# -- the model names no intervention -----------------------------------------------------------------

def names_in(source: str) -> set[str]:
    """Every identifier, attribute, imported module and name, and word of the docstrings and
    comments-free source: what a reader of the file meets."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, ast.alias):
            found.update(node.name.split("."))
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.update(node.module.split("."))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.update(word.strip("`.,:()*") for word in node.value.split())
    return found


def intervention_names() -> set[str]:
    """Every intervention class, their base, the edits the model once held, the module and its entry."""
    return {*Intervention.TYPES, "Intervention", "HeadEdit", "RowEdit", "interventions", "intervening"}


def test_the_model_file_names_no_intervention():
    assert {"AblateHead", "ScaleScores", "TieQueryKey", "NoPositions", "EditAttention"} <= intervention_names()
    source = Path(model_module.__file__).read_text(encoding="utf-8")
    assert "MultiHeadAttention" in names_in(source)  # the parse finds the file's own names
    assert not names_in(source) & intervention_names()
    assert not names_in(Path(interventions.__file__).read_text(encoding="utf-8")).isdisjoint(intervention_names())


@pytest.mark.parametrize("line", ["edit: HeadEdit | None = None", "from .interventions import RowEdit",
                                  "def f(x):\n    '''see AblateHead'''", "x = self.edit.ScaleScores"])
def test_the_check_of_the_model_file_catches_a_name(line):
    assert names_in(line) & intervention_names()


# -- the residual stream after each layer ------------------------------------------------------------

def _layer_outputs(net, module_list):
    """Each layer's output as plain torch forward hooks see it (the reference)."""
    seen = []

    def hook(module, inputs, output):
        seen.append(output.x if hasattr(output, "x") else output[0])  # a decoder layer's record, an encoder's tuple
    handles = [layer.register_forward_hook(hook) for layer in module_list]
    return seen, handles


def test_the_residual_sites_hold_each_layers_output_and_the_last_gives_the_logits(model):
    net = model.net
    src, tgt = batch(model)
    addresses = [Address(stack, layer, Site.RESIDUAL) for stack in ("encoder", "decoder") for layer in range(2)]
    encoder_seen, handles = _layer_outputs(net, net.encoder_layers)
    decoder_seen, more = _layer_outputs(net, net.decoder_layers)
    try:
        with torch.no_grad(), recording(net, addresses) as seen:
            out = net(src, tgt)
    finally:
        for handle in handles + more:
            handle.remove()
    for layer in range(2):
        torch.testing.assert_close(seen[Address("encoder", layer, Site.RESIDUAL)], encoder_seen[layer])
        torch.testing.assert_close(seen[Address("decoder", layer, Site.RESIDUAL)], decoder_seen[layer])
    last = seen[Address("decoder", 1, Site.RESIDUAL)]
    torch.testing.assert_close(net.generator(net.decoder_norm(last)), out.logits)


def test_a_residual_tap_in_a_cached_step_knows_its_position_and_an_edit_equals_a_torch_hooks(model):
    net = model.net
    src, tgt = batch(model)
    src, tgt = src[:1], tgt[:1]
    position = 2

    def zero_row(value, call):
        rows = torch.arange(value.shape[1]) + call.first_query
        return value.masked_fill((rows == position)[None, :, None], 0.0)

    def zero_row_hook(module, inputs, output):  # the reference: a plain torch hook on the layer
        x = output.x.clone()
        x[:, position] = 0.0
        return dataclasses.replace(output, x=x)

    with torch.no_grad():
        handle = net.decoder_layers[0].register_forward_hook(zero_row_hook)
        try:
            expected = net(src, tgt).logits
        finally:
            handle.remove()
        with tapping(net, [Tap(Address("decoder", 0, Site.RESIDUAL), zero_row)]):
            full = net(src, tgt).logits
            state, stepped = net.start(net.encode(src)), []
            for t in range(tgt.shape[1]):
                out = net.step(tgt[:, t], state, return_attention=False)
                state = out.state
                stepped.append(out.logits)
    torch.testing.assert_close(full, expected)
    torch.testing.assert_close(torch.stack(stepped, dim=1), expected, atol=1e-5, rtol=1e-5)
    assert not torch.allclose(expected, net(src, tgt).logits)  # the edit changed something
