"""A tensor that a forward pass makes on the CPU fails it on a GPU ("expected all tensors to be on
the same device"). Without a GPU here, the meta device stands in for one: it refuses a CPU operand
the same way. Meta tensors have no values, so the checks that read values are bypassed."""
from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from transviz.bench.core import TorchReference
from transviz.core.decoding.paths import select_rows
from transviz.core.model.config import ModelConfig
from transviz.core.model.transformer import Transformer
from transviz.core.training.lab import IN_DIM, LabModel, LabSettings, lab_loss

META = torch.device("meta")
CONFIG = ModelConfig(50, 60, d_model=32, n_heads=2, n_encoder_layers=2, n_decoder_layers=2, d_ff=64, dropout=0.1)


@pytest.fixture(autouse=True)
def values_unread(monkeypatch):
    real_bool = torch.Tensor.__bool__
    monkeypatch.setattr(torch.Tensor, "__bool__", lambda t: True if t.device == META else real_bool(t))
    monkeypatch.setattr(Transformer, "_check_tokens", lambda *args: None)


def batch() -> tuple[torch.Tensor, torch.Tensor]:
    src, tgt = torch.randint(4, 50, (6, 9)), torch.randint(4, 60, (6, 7))
    src[::2, 6:], tgt[::2, 5:] = 0, 0  # padded tails
    return src.to(META), tgt.to(META)


def test_the_meta_device_refuses_a_cpu_operand_as_a_gpu_does():
    with pytest.raises(RuntimeError, match="device"):
        torch.ones(3, device=META) + torch.ones(3)


@pytest.mark.parametrize("kind", ["ours", "torch reference"])
def test_a_training_step_keeps_every_tensor_on_the_models_device(kind):
    torch.manual_seed(0)
    model = (Transformer(CONFIG) if kind == "ours" else TorchReference(CONFIG)).to(META).train()
    src, tgt = batch()
    logits = model(src, tgt).logits if kind == "ours" else model(src, tgt)
    F.cross_entropy(logits.flatten(0, 1), tgt.roll(-1, dims=1).flatten(), ignore_index=0).backward()
    assert logits.device == META and all(p.grad is not None and p.grad.device == META for p in model.parameters())


def test_decoding_steps_with_their_maps_keep_to_the_device():
    net = Transformer(CONFIG).to(META).eval()
    src, tgt = batch()
    with torch.no_grad():
        encoded = net.encode(src, return_attention=True)
        out = net.step(tgt[:, 0], net.start(encoded), return_attention=True)
        state = select_rows(out.state, [1, 1, 0, 2, 3, 4])  # a beam's reordering
        out = net.step(tgt[:, 1], state, return_attention=True)
    assert out.logits.device == META and all(m.device == META for m in out.cross_attention)


def test_the_lab_model_keeps_to_the_device():
    model = LabModel(LabSettings(d_model=32, heads=2, d_ff=64, layers=2)).to(META).train()
    x, target = torch.randn(16, 10, 2 * IN_DIM).to(META), torch.randn(16, 10, IN_DIM).to(META)
    lab_loss(model(x), target).backward()
    assert all(p.grad.device == META for p in model.parameters())
