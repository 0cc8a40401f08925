"""The FLOP counts of transviz.concepts.flops agree, component by component, with what torch's own
counter (torch.utils.flop_counter.FlopCounterMode) sees the real model compute: the shipped model
and a bigger random one built with transviz's Transformer. FlopCounterMode reports by module, so
the test attributes its counts: the FFN modules, the out_proj modules, the generator; every other
addmm is a Q/K/V projection; every bmm is a score or a weights x V product (equal in size)."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode

import transviz
from transviz import concepts
from transviz.core.analysis.concepts.cost import PRODUCTS, flops_by_length, flops_by_width, share
from transviz.core.model.config import ModelConfig
from transviz.core.model.transformer import Transformer


def counted(net: Transformer, source_len: int, target_len: int) -> dict[str, float]:
    """torch's FLOPs of one teacher-forced pass, attributed to the components. The attention maps
    are asked for, so the scores and weights x V run as plain products torch counts (the fused
    CPU kernel has no FLOP formula in torch)."""
    cfg = net.config
    source = torch.randint(4, cfg.src_vocab_size, (1, source_len))
    target = torch.randint(4, cfg.tgt_vocab_size, (1, target_len))
    net.eval()
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        net(source, target, return_attention=True)
    by_module = {name: {str(op): n for op, n in ops.items()} for name, ops in counter.get_flop_counts().items()}

    def addmm(suffix: str) -> int:
        return sum(ops.get("aten.addmm", 0) for name, ops in by_module.items() if name.endswith(suffix))

    ffn, out_proj, output = addmm(".ffn"), addmm(".out_proj"), addmm(".generator")
    total = by_module["Global"]
    assert set(total) == {"aten.addmm", "aten.bmm"}  # nothing the components leave out
    return {"ffn": ffn, "out_proj": out_proj, "output": output,
            "qkv": total["aten.addmm"] - ffn - out_proj - output, "attention_products": total["aten.bmm"]}


def assert_close(config: ModelConfig, net: Transformer, source_len: int, target_len: int) -> None:
    ours = concepts.flops(config, source_len, target_len)
    torch_counts = counted(net, source_len, target_len)
    ours_joined = {**ours, "attention_products": ours["scores"] + ours["weights_v"]}
    for part, expected in torch_counts.items():
        assert ours_joined[part] == pytest.approx(expected, rel=0.02), part
    assert ours["embeddings"] == ours["softmax"] == 0  # a lookup and a normalisation: no products


@pytest.mark.parametrize(("source_len", "target_len"), [(4, 1), (7, 5), (20, 20)])
def test_the_shipped_model_matches_torchs_counter(source_len, target_len):
    model = transviz.load_model("default")
    assert_close(model.config, model.net, source_len, target_len)


def test_a_bigger_random_model_matches_torchs_counter():
    config = ModelConfig(src_vocab_size=1000, tgt_vocab_size=1000, d_model=256, n_heads=8, n_encoder_layers=4,
                         n_decoder_layers=5, d_ff=1024, activation="gelu", share_embeddings=True,
                         tie_output=True, max_len=64)
    torch.manual_seed(0)
    assert_close(config, Transformer(config), 23, 17)


@pytest.mark.parametrize("kv_heads", [1, 2])
def test_a_model_whose_heads_share_keys_and_values_matches_torchs_counter(kv_heads):
    config = ModelConfig(src_vocab_size=300, tgt_vocab_size=300, d_model=128, n_heads=8, n_kv_heads=kv_heads,
                         n_encoder_layers=2, n_decoder_layers=3, d_ff=256)
    torch.manual_seed(1)
    assert_close(config, Transformer(config), 11, 9)
    full = concepts.flops(dataclasses.replace(config, n_kv_heads=0), 11, 9)["qkv"]
    assert concepts.flops(config, 11, 9)["qkv"] < full  # keys and values kv_heads/8 as wide
    widths = flops_by_width(config, [128], 11, 9)
    assert widths[0]["qkv"] == concepts.flops(config, 11, 9)["qkv"]  # the width curve keeps the share


def test_wider_models_spend_less_on_the_attention_products_and_longer_sentences_more():
    """Seed 001's claims, by the formulas: with d_ff = 4 d_model the FFN keeps over half of the
    FLOPs as the model widens while the n x m x l products' share falls; it rises with length."""
    base = transviz.load_model("default").config
    widths = flops_by_width(base, [128, 256, 512, 1024], 20, 20)
    assert [counts["ffn"] for counts in widths] == [2 * 2 * w * 4 * w * 20 * 6 for w in [128, 256, 512, 1024]]
    products = [share(counts, PRODUCTS) for counts in widths]
    assert all(a > b for a, b in zip(products, products[1:], strict=False))
    assert all(0.5 < share(counts, ["ffn"]) < 0.6 for counts in widths)
    by_length = [share(counts, PRODUCTS) for counts in flops_by_length(base, [8, 32, 128])]
    assert all(a < b for a, b in zip(by_length, by_length[1:], strict=False))


def test_the_manuals_shares_are_torchs_counts():
    """docs/tabs/concepts.md quotes the shares at 20 and 20 tokens for the shipped model and for it
    made 512 and 1,024 wide: each is what torch's counter sees such a network compute."""
    page = (Path(__file__).resolve().parents[4] / "docs" / "tabs" / "concepts.md").read_text(encoding="utf-8")
    cost = " ".join(page[page.index("FLOPs and time"):page.index("Training against decoding")].split())
    model = transviz.load_model("default")
    torch.manual_seed(0)
    nets = [model.net] + [Transformer(dataclasses.replace(model.config, d_model=w, d_ff=4 * w)) for w in (512, 1024)]
    shares = []
    for net in nets:
        counts = counted(net, 20, 20)
        total = sum(counts.values())
        shares.append({part: counts[part] / total for part in counts})
    ffn, products = ([f"{s[part]:.1%}" for s in shares] for part in ("ffn", "attention_products"))
    projections = [f"{s['qkv'] + s['out_proj']:.1%}" for s in shares]
    assert f"the FFN takes {ffn[0]} of the FLOPs of the shipped model, {ffn[1]} at d_model 512 and {ffn[2]} at" in cost
    assert (f"small part: {products[0]} of the shipped model's FLOPs at these lengths, {products[1]} at d_model 512 "
            f"and {products[2]} at 1,024") in cost
    assert f"projections take {projections[0]}, {projections[1]} and {projections[2]}." in cost
