"""Sizes a user sets in the cost view: their FLOPs agree with torch's own FLOP counter on a
freshly built network of those sizes, impossible or too large sizes say why, and a timing of a
fresh network has one positive median per part."""
from __future__ import annotations

import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode

from transviz.core.analysis.concepts.component_time import PARTS
from transviz.core.analysis.concepts.cost import flops
from transviz.core.analysis.concepts.sized import Sizes, check_timeable, fresh_net, sized_times
from transviz.core.base.errors import ConfigError
from transviz.core.model.config import ModelConfig

BASE = ModelConfig(src_vocab_size=50, tgt_vocab_size=60)


def counted_by_torch(config: ModelConfig, source_len: int, target_len: int) -> dict[str, int]:
    """torch's FLOPs per module kind of a fresh network: FFN (linear1/linear2), output layer, all."""
    net = fresh_net(config)
    src = torch.randint(1, config.src_vocab_size, (1, source_len))
    tgt = torch.randint(1, config.tgt_vocab_size, (1, target_len))
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        net(src, tgt, return_attention=True)
    by_module = counter.get_flop_counts()
    def modules(suffix: str) -> int:  # summed over the layers; "ffn" and not its linear1 and linear2 too
        return sum(sum(counts.values()) for name, counts in by_module.items() if name.endswith(suffix))
    products = sum(count for op, count in by_module["Global"].items() if "bmm" in str(op))
    return {"all": counter.get_total_flops(), "output": modules(".generator"), "ffn": modules(".ffn"),
            "out_proj": modules(".out_proj"), "products": products}


@pytest.mark.parametrize("sizes", [Sizes(64, 96, 1, 3, 2, 7, 5), Sizes(96, 384, 2, 1, 8, 11, 13)])
def test_user_sizes_count_what_torch_counts(sizes):
    config = sizes.config(BASE)
    ours = flops(config, sizes.source_len, sizes.target_len)
    torch_counts = counted_by_torch(config, sizes.source_len, sizes.target_len)
    assert sum(ours.values()) == pytest.approx(torch_counts["all"], rel=0.02)
    for part in ("output", "ffn", "out_proj"):
        assert ours[part] == pytest.approx(torch_counts[part], rel=0.02)
    assert ours["scores"] + ours["weights_v"] == pytest.approx(torch_counts["products"], rel=0.02)  # the bmms


def test_heads_that_do_not_divide_d_model_say_so():
    with pytest.raises(ConfigError, match="divisible"):
        Sizes(100, 400, 2, 2, 3, 5, 5).config(BASE)


def test_a_pass_too_large_to_time_is_refused():
    big = Sizes(1024, 4096, 12, 12, 16, 512, 512)
    with pytest.raises(ConfigError, match="MFLOPs"):
        check_timeable(big.config(BASE), big.source_len, big.target_len)
    check_timeable(BASE, 10, 10)  # the default classroom size is timed


def test_a_fresh_network_is_timed_per_part():
    times = sized_times(Sizes(32, 64, 1, 1, 2, 6, 4).config(BASE), 6, 4, repeats=3)
    assert times is not None and set(times.seconds) == set(PARTS)
    assert all(seconds > 0 for seconds in times.seconds.values()) and times.whole > 0
    assert (times.source_len, times.target_len, times.repeats) == (6, 4, 3)
