"""Activation patching against plain torch hooks: the reference records A's activation with a forward
hook (or a forward pre-hook on an output projection) and writes it into B's run the same way,
without the model's sites, the batch or the core's bookkeeping."""
from __future__ import annotations

import contextlib
import dataclasses

import numpy as np
import pytest
import torch

import transviz
from decoding_models import one_thread  # noqa: F401  (a fixture: tiny models run single-threaded)
from transviz.core.analysis.patching import activation_patching, patched_log_probs
from transviz.core.model.transformer import Transformer
from transviz.core.model.vocab import Vocab

A, B = "ich mochte ein bier", "ich mochte ein wasser"


def make_model(seed: int = 2) -> transviz.Model:
    """An untrained 3-layer model with perturbed weights (nothing cancels by luck) that never writes
    <pad>, <s> or <unk>, nor ends early."""
    torch.manual_seed(seed)
    src = Vocab("ich mochte ein bier wasser brot bitte".split())
    tgt = Vocab("i want a beer water bread please".split())
    cfg = transviz.ModelConfig(len(src), len(tgt), d_model=24, n_heads=3, n_encoder_layers=3, n_decoder_layers=3,
                               d_ff=32, dropout=0.1, max_len=12)
    net = Transformer(cfg)
    gen = torch.Generator().manual_seed(seed + 1)
    with torch.no_grad():
        for p in net.parameters():
            p.add_(torch.randn(p.shape, generator=gen) * 0.2)
        net.generator.bias[[0, 1, 2, 3]] = -1e4
    return transviz.Model(net, src, tgt)  # left in training mode: patching must switch dropout off itself


@pytest.fixture(scope="module")
def small() -> transviz.Model:
    return make_model()


@pytest.fixture(scope="module")
def default() -> transviz.Model:
    return transviz.load_model("default")


@pytest.fixture(scope="module")
def stream() -> transviz.Model:
    return transviz.load_model("decoder-only")


def no_taps_left(model: transviz.Model) -> bool:
    return not any(sites.attached() for sites in model.net.places().values())


def inputs_of(model: transviz.Model, sentence: str) -> list[int]:
    """A's decoder inputs: the start token, then its greedy output less the last token."""
    out = transviz.decode(model, sentence).output_tokens
    return [model.tgt_vocab.bos_id] + [model.tgt_vocab.stoi[token] for token in out[:-1]]


class Hooked:
    """Where a kind's activation lives as a plain torch module: a forward hook on a layer's output,
    or a forward pre-hook on a head's slice of cross-attention's output projection."""

    def __init__(self, model: transviz.Model, kind: str, layer: int, column: int, step: int) -> None:
        self.net, self.kind, self.layer, self.column, self.step = model.net, kind, layer, column, step
        self.stream = model.config.decoder_only
        d_k = model.config.d_k
        self.heads = slice(column * d_k, (column + 1) * d_k)

    def module(self) -> torch.nn.Module:
        layers = self.net.decoder_layers if self.kind != "encoder" or self.stream else self.net.encoder_layers
        layer = layers[self.layer]
        if self.kind == "cross_head":
            return (layer.self_attn if self.stream else layer.cross_attn).out_proj
        if self.stream:  # a stream layer runs by its own methods, not forward: its post-LN output is norm2's
            assert self.net.config.norm == "post"
            return layer.norm2
        return layer

    def run(self, src: torch.Tensor, tgt: torch.Tensor,
            clean: torch.Tensor | None) -> tuple[torch.Tensor, torch.Tensor]:
        """Logits (T, V) and the activation seen (the whole tensor); with ``clean``, the cell's part
        of it is replaced by ``clean``'s."""
        seen: list[torch.Tensor] = []

        def layer_hook(module, args, output):
            x = output if isinstance(output, torch.Tensor) else output[0] if isinstance(output, tuple) else output.x
            seen.append(x)
            if clean is None:
                return None
            x = x.clone()
            if self.kind == "encoder":
                x[:, self.column] = clean[:, self.column]
            else:
                x[:, self.step] = clean[:, self.step]
            if isinstance(output, torch.Tensor):
                return x
            return (x, *output[1:]) if isinstance(output, tuple) else dataclasses.replace(output, x=x)

        def head_hook(module, args):
            seen.append(args[0])
            if clean is None:
                return None
            mixed = args[0].clone()  # (B, T, d): the heads side by side
            mixed[:, self.step, self.heads] = clean[:, self.step, self.heads]
            return (mixed,)

        self.net.eval()
        source_pass = self.kind == "encoder"  # else the output's pass (a stream layer runs in both)
        with torch.no_grad():
            with self._hooked(layer_hook, head_hook, source_pass):
                encoded = self.net.encode(src)
            with self._hooked(layer_hook, head_hook, not source_pass):
                logits = self.net.decode(tgt, encoded).logits
        return logits[0], seen[0]

    @contextlib.contextmanager
    def _hooked(self, layer_hook, head_hook, on: bool):
        """The hook on the activation's module for the block, when ``on``."""
        if not on:
            yield
            return
        module = self.module()
        handle = (module.register_forward_pre_hook(head_hook) if self.kind == "cross_head"
                  else module.register_forward_hook(layer_hook))
        try:
            yield
        finally:
            handle.remove()


def reference(model: transviz.Model, kind: str, layer: int, column: int, step: int,
              a: str = A, b: str = B) -> np.ndarray:
    """B's log-probabilities (V,) at ``step`` after A's prefix, with one cell of A's patched in by hooks."""
    tgt = torch.tensor([inputs_of(model, a)])
    hooked = Hooked(model, kind, layer, column, step)
    _, clean = hooked.run(model.source_tensor(model.encode_source(a)), tgt, None)
    logits, _ = hooked.run(model.source_tensor(model.encode_source(b)), tgt, clean)
    return torch.log_softmax(logits[step].double(), -1).numpy()


def unpatched(model: transviz.Model, sentence: str, prefix_of: str, step: int) -> np.ndarray:
    """log-probabilities (V,) at ``step`` of a plain forward pass on ``prefix_of``'s greedy output."""
    tgt = torch.tensor([inputs_of(model, prefix_of)])
    model.net.eval()
    with torch.no_grad():
        logits = model.net(model.source_tensor(model.encode_source(sentence)), tgt).logits
    return torch.log_softmax(logits[0, step].double(), -1).numpy()


def first_differing_step(model: transviz.Model, a: str, b: str, start: int = 2) -> int:
    """The first step from ``start`` on where A and B predict different tokens after A's prefix
    (from 2: the prefix has rows before the step's)."""
    steps = len(inputs_of(model, a))
    for step in range(start, steps):
        if unpatched(model, a, a, step).argmax() != unpatched(model, b, a, step).argmax():
            return step
    raise AssertionError("the two sentences never differ")


CELLS = {"encoder": [(0, 0), (1, 3), (2, 3), (2, 1)], "cross_head": [(0, 2), (1, 0), (2, 1)],
         "decoder": [(0, 0), (1, 0), (2, 0)]}


@pytest.mark.parametrize("kind", ["encoder", "cross_head", "decoder"])
@pytest.mark.parametrize("which", ["small", "default"])
def test_each_cell_equals_a_forward_pass_patched_by_a_torch_hook(request, which, kind):
    model = request.getfixturevalue(which)
    step = first_differing_step(model, A, B)
    result = activation_patching(model, A, B, step, kind)
    batched = patched_log_probs(model, A, B, step, kind, [[cell] for cell in CELLS[kind]])
    for cell, log_probs in zip(CELLS[kind], batched, strict=True):
        expected = reference(model, kind, *cell, step)
        np.testing.assert_allclose(log_probs, expected, atol=2e-5)
        a_token, b_token = model.tgt_vocab.stoi[result.token_a], model.tgt_vocab.stoi[result.token_b]
        np.testing.assert_allclose(result.differences[cell], expected[a_token] - expected[b_token], atol=5e-5)
    clean_a, clean_b = unpatched(model, A, A, step), unpatched(model, B, A, step)
    assert (result.token_a, result.token_b) == tuple(model.tgt_vocab.itos[int(lp.argmax())]
                                                     for lp in (clean_a, clean_b))
    a_token, b_token = clean_a.argmax(), clean_b.argmax()
    assert result.m_a == pytest.approx(clean_a[a_token] - clean_a[b_token], abs=5e-5)
    assert result.m_b == pytest.approx(clean_b[a_token] - clean_b[b_token], abs=5e-5)
    assert result.m_a > 0 > result.m_b
    np.testing.assert_allclose(result.scores, (result.differences - result.m_b) / (result.m_a - result.m_b))
    assert result.scores.shape == (3, {"encoder": 4, "cross_head": model.config.n_heads, "decoder": 1}[kind])
    assert result.rows == ("L0", "L1", "L2") and result.kind == kind and result.step == step
    assert list(result.prefix) == transviz.decode(model, A).target_tokens[: step + 1]
    assert no_taps_left(model)


@pytest.mark.parametrize("which", ["small", "default"])
def test_patching_the_last_layer_everywhere_recovers_a_and_patching_nothing_keeps_b(request, which):
    model = request.getfixturevalue(which)
    step = first_differing_step(model, A, B)
    result = activation_patching(model, A, B, step, "encoder")
    last = model.config.n_encoder_layers - 1
    every_position = [(last, p) for p in range(4)]
    nothing, everywhere, one = patched_log_probs(model, A, B, step, "encoder", [[], every_position, [(0, 1)]])
    a_token, b_token = model.tgt_vocab.stoi[result.token_a], model.tgt_vocab.stoi[result.token_b]

    def m(log_probs: np.ndarray) -> float:
        return float(log_probs[a_token] - log_probs[b_token])
    assert result.normalised(m(everywhere)) == pytest.approx(1.0, abs=1e-5)
    np.testing.assert_allclose(everywhere, unpatched(model, A, A, step), atol=2e-5)  # A's memory: A's output
    assert result.normalised(m(nothing)) == pytest.approx(0.0, abs=1e-6)
    np.testing.assert_allclose(nothing, unpatched(model, B, A, step), atol=2e-5)
    assert m(one) == pytest.approx(result.differences[0, 1], abs=1e-5)
    decoder = activation_patching(model, A, B, step, "decoder")  # the last residual row is the logits' input
    assert decoder.scores[-1, 0] == pytest.approx(1.0, abs=1e-5)


def test_the_shipped_default_moves_beer_to_water_through_the_noun_alone(default):
    """bier vs wasser at step 3 ("i want a" -> beer or water): every encoder layer carries it at the
    noun's position and nowhere else; no single cross-attention head carries it; the decoder's
    residual at the step carries it fully after its last layer, partly after the middle one."""
    encoder = activation_patching(default, A, B, 3, "encoder")
    assert (encoder.token_a, encoder.token_b) == ("beer", "water")
    assert encoder.columns == ("ich", "mochte", "ein", "bier/wasser")
    assert encoder.prefix == ("<s>", "i", "want", "a")
    assert (encoder.scores[:, 3] > 0.95).all() and (np.abs(encoder.scores[:, :3]) < 0.05).all()
    heads = activation_patching(default, A, B, 3, "cross_head")
    assert heads.columns == ("H0", "H1", "H2", "H3") and (heads.scores < 0.5).all() and heads.scores.max() > 0.05
    decoder = activation_patching(default, A, B, 3, "decoder")
    assert decoder.columns == ("a",)
    assert decoder.scores[0, 0] < 0.1 < decoder.scores[1, 0] < 0.9
    assert decoder.scores[2, 0] == pytest.approx(1.0, abs=1e-5)


@pytest.mark.parametrize("kind", ["cross_head", "decoder"])
def test_a_decoder_only_model_patches_its_output_rows_as_a_torch_hook_would(stream, kind):
    result = activation_patching(stream, A, B, 3, kind)
    assert result.one_stream and (result.token_a, result.token_b) == ("beer", "water")
    cells = [(layer, column) for layer in range(3) for column in range(result.scores.shape[1])][::2]
    batched = patched_log_probs(stream, A, B, 3, kind, [[cell] for cell in cells])
    for cell, log_probs in zip(cells, batched, strict=True):
        np.testing.assert_allclose(log_probs, reference(stream, kind, *cell, 3), atol=2e-5)
    if kind == "decoder":
        assert result.scores[-1, 0] == pytest.approx(1.0, abs=1e-5) and abs(result.scores[0, 0]) < 0.5


def test_a_decoder_only_models_source_pass_after_its_last_layer_moves_nothing(stream):
    result = activation_patching(stream, A, B, 3, "encoder")
    np.testing.assert_array_equal(result.scores[-1], 0.0)  # no later layer reads it
    assert result.scores[0, 3] > 0.5
    np.testing.assert_allclose(patched_log_probs(stream, A, B, 3, "encoder", [[(0, 3)]])[0],
                               reference(stream, "encoder", 0, 3, 3), atol=2e-5)


def test_positions_of_sources_of_different_lengths_are_refused_with_the_reason(default):
    a, b = "ich mochte ein kaffee", "ich mochte bier"
    with pytest.raises(transviz.InputError, match="A has 4 source tokens and B 3: a position of one is not"):
        activation_patching(default, a, b, 3, "encoder")
    heads = activation_patching(default, a, b, 3, "cross_head")  # heads and the decoder take any lengths
    assert (heads.token_a, heads.token_b) == ("coffee", "beer")
    np.testing.assert_allclose(patched_log_probs(default, a, b, 3, "cross_head", [[(2, 1)]])[0],
                               reference(default, "cross_head", 2, 1, 3, a, b), atol=2e-5)
    decoder = activation_patching(default, a, b, 3, "decoder")
    assert decoder.scores[-1, 0] == pytest.approx(1.0, abs=1e-5)


@pytest.mark.parametrize(("args", "message"), [
    ((A, B, 0, "encoder"), r"the same token \(i\) at step 0: nothing to move; after A's output they differ at "
                           r"steps 3$"),
    ((A, A, 3, "encoder"), r"the same token \(beer\) at step 3: nothing to move; .* same token at every step"),
    ((A, B, 5, "encoder"), r"step 5 is beyond A's output: it wrote 5 tokens \(steps 0 to 4\)"),
    ((A, B, -1, "encoder"), r"step must be a whole number >= 0, got -1"),
    ((A, B, 3, "heads"), r"unknown patch kind 'heads'; choose one of encoder, cross_head, decoder"),
    (("", B, 3, "encoder"), r"sentence A is empty"),
    ((A, "  ", 3, "decoder"), r"sentence B is empty"),
])
def test_what_a_user_can_get_wrong_is_an_input_error(default, args, message):
    with pytest.raises(transviz.InputError, match=message):
        activation_patching(default, *args)
    assert no_taps_left(default)


def test_a_cell_outside_the_grid_is_refused(small):
    with pytest.raises(transviz.InputError, match=r"no cell \(3, 0\) to patch: layers 0 to 2, columns 0 to 3"):
        patched_log_probs(small, A, B, 0, "encoder", [[(3, 0)]])


def test_no_weight_changes_and_no_tap_stays_behind_even_when_the_run_fails(small, monkeypatch):
    step = first_differing_step(small, A, B)
    before = {name: value.clone() for name, value in small.net.state_dict().items()}
    small.net.train()
    for kind in ("encoder", "cross_head", "decoder"):
        activation_patching(small, A, B, step, kind)
    assert no_taps_left(small) and small.net.training  # the caller's mode is back
    assert all(torch.equal(before[name], value) for name, value in small.net.state_dict().items())

    batches = []

    def failing(x):  # the model fails inside the patched batch (two rows), after the runs of one sentence
        batches.append(x.shape[0])
        if x.shape[0] > 1:
            raise RuntimeError("inside the patched run")
        return torch.nn.functional.linear(x, small.net.generator.weight, small.net.generator.bias)
    monkeypatch.setattr(small.net.generator, "forward", failing)
    with pytest.raises(RuntimeError, match="inside the patched run"):
        patched_log_probs(small, A, B, step, "cross_head", [[(0, 0)], []])
    assert batches[-1] == 2 and no_taps_left(small)
