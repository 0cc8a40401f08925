"""The one-row CPU fast path of decoding (core.model.row_blocks) against F.linear and full recomputation:
where it applies it computes the same numbers, where it does not (training) it is not taken, and
switching a model to it changes no parameter."""
from __future__ import annotations

import copy
from collections.abc import Callable
from contextlib import contextmanager

import pytest
import torch
import torch.nn.functional as F
from torch import Tensor, nn

from decoding_models import SOURCE, tiny_model
from transviz.core.base.cores import fixed_threads
from transviz.core.decoding.session import DecodingSession
from transviz.core.model import row_blocks
from transviz.core.model.config import ModelConfig
from transviz.core.model.row_blocks import Linear, linear
from transviz.core.model.transformer import Decoded, MultiHeadAttention, StepOutput, Transformer

ATOL = 1e-5


@contextmanager
def torch_threads(count: int):
    """``count`` threads for the products here and for the model's steps, whatever their size."""
    before = torch.get_num_threads()
    torch.set_num_threads(count)
    try:
        with fixed_threads(count):
            yield
    finally:
        torch.set_num_threads(before)


@pytest.fixture
def split_small_weights(monkeypatch):
    """Row blocks even for these small weights (the size from which they pay is about speed)."""
    monkeypatch.setattr(row_blocks, "SPLIT_AT", 0)


@pytest.fixture
def blocked_calls(monkeypatch) -> list[int]:
    """Counts the products computed in row blocks (the number of blocks of each)."""
    calls: list[int] = []
    blocked = row_blocks._blocked

    def counted(x: Tensor, weight: Tensor, blocks: int) -> Tensor:
        calls.append(blocks)
        return blocked(x, weight, blocks)

    monkeypatch.setattr(row_blocks, "_blocked", counted)
    return calls


def _wrong_block_order(x: Tensor, weight: Tensor, blocks: int) -> Tensor:
    out_features, in_features = weight.shape
    columns = weight.view(blocks, out_features // blocks, in_features).flip(0).transpose(1, 2)
    return torch.bmm(x.reshape(1, 1, in_features).expand(blocks, 1, in_features), columns)


def _slightly_off(x: Tensor, weight: Tensor, blocks: int) -> Tensor:
    out_features, in_features = weight.shape
    columns = weight.view(blocks, out_features // blocks, in_features).transpose(1, 2)
    return torch.bmm(x.reshape(1, 1, in_features).expand(blocks, 1, in_features), columns) * (1 + 1e-3)


PERTURBED: list[Callable[[Tensor, Tensor, int], Tensor]] = [_wrong_block_order, _slightly_off]


def small_model(seed: int) -> Transformer:
    """d_model 16, d_ff 32 and the 3 x 16 packed projection divide by 2 and 4; the 23-token output
    does not (it falls back to F.linear)."""
    torch.manual_seed(seed)
    model = Transformer(ModelConfig(23, 23, d_model=16, n_heads=4, n_encoder_layers=2, n_decoder_layers=2,
                                    d_ff=32, dropout=0.0, max_len=64))
    gen = torch.Generator().manual_seed(seed + 100)
    with torch.no_grad():
        for p in model.parameters():  # biases and LayerNorms too, which start at 0 / 1
            p.copy_(torch.randn(p.shape, generator=gen) * 0.3)
    return model.eval()


# -- the product ------------------------------------------------------------------------------------

def assert_linear_equals_torchs(out_features: int, rows: int, threads: int) -> None:
    gen = torch.Generator().manual_seed(out_features)
    weight, bias = torch.randn(out_features, 16, generator=gen), torch.randn(out_features, generator=gen)
    for x in (torch.randn(rows, 16, generator=gen), torch.randn(1, rows, 16, generator=gen)):
        with torch_threads(threads):
            ours, ours_no_bias = linear(x, weight, bias), linear(x, weight)
        torch.testing.assert_close(ours, F.linear(x, weight, bias), atol=1e-6, rtol=1e-6)
        torch.testing.assert_close(ours_no_bias, F.linear(x, weight), atol=1e-6, rtol=1e-6)
    assert not torch.equal(F.linear(x, weight, bias), F.linear(x, weight))  # the bias counts


@pytest.mark.parametrize("threads", [2, 3, 4])
@pytest.mark.parametrize("out_features,rows", [(48, 1), (40, 1), (23, 1), (48, 3)])
def test_linear_in_row_blocks_equals_torchs(split_small_weights, blocked_calls, threads, out_features, rows):
    """One input row on several threads goes through bmm over row blocks (when they divide the
    rows of the weight): the same numbers as F.linear, with and without bias, batched or not."""
    assert_linear_equals_torchs(out_features, rows, threads)
    in_blocks = rows == 1 and out_features % threads == 0
    assert blocked_calls == ([threads] * 4 if in_blocks else [])


@pytest.mark.parametrize("perturbed", PERTURBED)
def test_the_product_test_catches_a_wrong_block_product(split_small_weights, monkeypatch, perturbed):
    monkeypatch.setattr(row_blocks, "_blocked", perturbed)
    with pytest.raises(AssertionError):
        assert_linear_equals_torchs(48, 1, 2)


def test_blocks_only_where_they_pay_and_never_under_autograd(split_small_weights, blocked_calls):
    weight = torch.randn(48, 16, requires_grad=True)
    plain, x = weight.detach(), torch.randn(1, 16)
    with torch_threads(1):
        linear(x, plain)  # one thread: nothing to share
    with torch_threads(2):
        linear(torch.randn(2, 16), plain)  # two rows: torch's own kernel shares them
        linear(x, weight)  # a parameter recorded by autograd (training): F.linear
        linear(x.clone().requires_grad_(), plain)
        assert blocked_calls == []
        with torch.no_grad():
            linear(x, weight)
        linear(x, plain)
    assert blocked_calls == [2, 2]


def test_small_weights_are_not_split(blocked_calls):
    with torch_threads(2), torch.no_grad():
        linear(torch.randn(1, 16), torch.randn(48, 16))
        linear(torch.randn(1, 256), torch.randn(256, 256))  # row_blocks.SPLIT_AT elements
    assert blocked_calls == [2]


# -- a model switched to the path -----------------------------------------------------------------

def decode_and_recompute(model: Transformer, threads: int) -> tuple[StepOutput, Decoded]:
    """One sentence decoded step by step on ``threads`` threads, and the same positions recomputed
    all at once on one thread (where every product is F.linear)."""
    src = torch.tensor([[3, 4, 5, 6]])
    tgt = torch.randint(1, 23, (1, 12), generator=torch.Generator().manual_seed(8))
    with torch.no_grad(), torch_threads(threads):
        encoded = model.encode(src)
        state = model.start(encoded)
        for t in range(tgt.shape[1]):
            step = model.step(tgt[:, t], state, return_attention=True)
            state = step.state
        with torch_threads(1):
            full = model.decode(tgt, encoded, return_attention=True)
    return step, full


def assert_step_equals_recomputation(step: StepOutput, full: Decoded) -> None:
    torch.testing.assert_close(step.logits, full.logits[:, -1], atol=ATOL, rtol=0)
    for layer in range(2):
        cross, self_rows = full.cross_attention[layer][:, :, -1:], full.self_attention[layer][:, :, -1:]
        torch.testing.assert_close(step.cross_attention[layer], cross, atol=ATOL, rtol=0)
        torch.testing.assert_close(step.self_attention[layer], self_rows, atol=ATOL, rtol=0)


@pytest.mark.parametrize("threads", [2, 4])
def test_one_sentence_decoded_on_several_threads_equals_recomputation(split_small_weights, blocked_calls, threads):
    """Batch 1 takes the row-block path in every projection of a step but the output layer."""
    model = small_model(seed=5).use_row_blocks()
    assert_step_equals_recomputation(*decode_and_recompute(model, threads))
    # per step and decoder layer: packed Q K V, out, Q, out, two FFN layers; the 23-row output falls back
    assert blocked_calls == [threads] * (12 * 2 * 6)


@pytest.mark.parametrize("perturbed", PERTURBED)
def test_the_decoding_test_catches_a_wrong_block_product(split_small_weights, monkeypatch, perturbed):
    monkeypatch.setattr(row_blocks, "_blocked", perturbed)
    with pytest.raises(AssertionError):
        assert_step_equals_recomputation(*decode_and_recompute(small_model(seed=5).use_row_blocks(), 2))


def test_a_plain_model_never_takes_the_path(split_small_weights, blocked_calls):
    assert_step_equals_recomputation(*decode_and_recompute(small_model(seed=5), 2))
    assert blocked_calls == []


def flags(model: nn.Module) -> dict[str, bool]:
    """Each product layer's row-block flag, by module name."""
    return {name: m.row_blocks for name, m in model.named_modules() if isinstance(m, (Linear, MultiHeadAttention))}


def test_switching_sets_the_flag_only(split_small_weights):
    plain = small_model(seed=6)
    model = copy.deepcopy(plain)
    before = {name: p for name, p in model.named_parameters()}
    kinds = {name: type(m) for name, m in model.named_modules()}
    assert model.use_row_blocks() is model
    assert {name: p for name, p in model.named_parameters()} == before  # the same tensors, names
    assert model.state_dict().keys() == plain.state_dict().keys()
    assert {name: type(m) for name, m in model.named_modules()} == kinds  # no module changes class
    switched = flags(model)
    assert len(switched) == 6 + 6 + 8 + 1 and all(switched.values())  # attention, its W_O, FFN, output layer
    assert not any(flags(plain).values())
    assert flags(model.use_row_blocks()) == switched  # a second call changes nothing
    assert flags(copy.deepcopy(model)) == switched  # a copy keeps the path
    plain.load_state_dict(model.state_dict())  # checkpoints read either way


def test_layers_not_of_the_model_keep_their_own_forward(split_small_weights, blocked_calls):
    """Only the model's own product layers take the path: a layer of another class put in by hand
    (here the output layer, as an importer might) computes as it always does."""
    class Doubled(nn.Linear):
        def forward(self, x: Tensor) -> Tensor:
            return 2 * super().forward(x)

    model = small_model(seed=5)
    model.generator = Doubled(16, 24)
    model.use_row_blocks()
    assert not hasattr(model.generator, "row_blocks") and type(model.generator) is Doubled
    x = torch.randn(1, 16)
    with torch_threads(2), torch.no_grad():
        assert torch.equal(model.generator(x), 2 * F.linear(x, model.generator.weight, model.generator.bias))
    assert blocked_calls == []  # 24 rows divide by 2 threads: a Linear of the model's would have taken blocks


def test_training_a_switched_model_stays_on_f_linear(split_small_weights, blocked_calls):
    """One sentence of one target token: every product is one row, and still F.linear, with the
    same gradients as the plain model's."""
    plain = small_model(seed=7).train()
    switched = copy.deepcopy(plain).use_row_blocks().train()
    src, tgt = torch.tensor([[3, 4, 5]]), torch.tensor([[1]])
    with torch_threads(2):
        for net in (plain, switched):
            net.zero_grad()
            net(src, tgt).logits.square().sum().backward()
    assert blocked_calls == []
    for (name, p), q in zip(plain.named_parameters(), switched.parameters(), strict=True):
        assert torch.equal(p.grad, q.grad), name


# -- where it is applied ---------------------------------------------------------------------------

def test_a_decoding_session_steps_in_row_blocks(split_small_weights, blocked_calls):
    """The session switches its model to the path; its steps take it and give the probabilities of
    the same model decoded on one thread."""
    model = tiny_model(seed=3)
    with torch_threads(1):
        expected = DecodingSession(model, SOURCE, top_k=4, max_len=8).run_to_end()
    assert not blocked_calls
    assert all(flags(model.net).values())
    with torch_threads(2):
        records = DecodingSession(model, SOURCE, top_k=4, max_len=8).run_to_end()
    assert blocked_calls and set(blocked_calls) == {2}
    assert [r.token_id for r in records] == [r.token_id for r in expected]
    for ours, theirs in zip(records, expected, strict=True):
        assert ours.probability == pytest.approx(theirs.probability, abs=1e-6)
        torch.testing.assert_close(torch.from_numpy(ours.cross_rows), torch.from_numpy(theirs.cross_rows),
                                   atol=ATOL, rtol=0)
