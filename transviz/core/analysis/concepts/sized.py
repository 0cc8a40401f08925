"""The cost view's model of the sizes a user sets (d_model, d_ff, layers, heads, sentence
lengths): its config, whether a timing of it fits in a few seconds, and that timing, measured on a
freshly built network (random weights: the arithmetic, and so the time, does not depend on them)."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import torch

from ...base.errors import ConfigError
from ...base.messages import translate_noop
from ...model.config import ModelConfig
from ...model.transformer import Transformer
from .component_time import REPEATS, ComponentTimes, net_times
from .cost import flops

MAX_LENGTH = 4096  # tokens per sentence a user may set (FLOPs only; timing is capped below)
# A timing runs 2 x (WARM_UP + REPEATS) passes on one thread: at a few GFLOP/s, passes of at most
# this many FLOPs keep it to a few seconds; building more parameters than this takes seconds too.
MAX_TIMED_FLOPS = 300_000_000
MAX_TIMED_PARAMETERS = 20_000_000


@dataclass(frozen=True)
class Sizes:
    """What the user sets; the rest of the config (vocabularies, norm) is the loaded model's."""

    d_model: int
    d_ff: int
    n_encoder_layers: int
    n_decoder_layers: int
    n_heads: int
    source_len: int
    target_len: int

    @classmethod
    def of(cls, config: ModelConfig, source_len: int, target_len: int) -> Sizes:
        return cls(config.d_model, config.d_ff, config.n_encoder_layers, config.n_decoder_layers, config.n_heads,
                   source_len, target_len)

    def config(self, base: ModelConfig) -> ModelConfig:
        """``base`` at these sizes; ConfigError (with its message) for sizes no model can have."""
        return replace(base, d_model=self.d_model, d_ff=self.d_ff, n_encoder_layers=self.n_encoder_layers,
                       n_decoder_layers=self.n_decoder_layers, n_heads=self.n_heads,
                       max_len=max(base.max_len, self.source_len, self.target_len))


def check_timeable(config: ModelConfig, source_len: int, target_len: int) -> None:
    """ConfigError when timing a pass of this size would take more than a few seconds."""
    total = sum(flops(config, source_len, target_len).values())
    if total > MAX_TIMED_FLOPS:
        raise ConfigError(translate_noop("CoreMessages", "a pass of these sizes costs {0} MFLOPs; transviz times "
                                                         "passes of at most {1} MFLOPs (a few seconds)"),
                          f"{total / 1e6:,.0f}", f"{MAX_TIMED_FLOPS / 1e6:,.0f}")
    if config.parameter_count() > MAX_TIMED_PARAMETERS:
        raise ConfigError(translate_noop("CoreMessages", "a model of these sizes has {0} parameters; transviz times "
                                                         "models of at most {1}"),
                          f"{config.parameter_count():,}", f"{MAX_TIMED_PARAMETERS:,}")


def fresh_net(config: ModelConfig) -> Transformer:
    """A network of ``config`` with random weights (seeded: the same each time), in eval mode."""
    with torch.random.fork_rng():
        torch.manual_seed(0)
        net = Transformer(config)
    return net.eval()


def sized_times(config: ModelConfig, source_len: int, target_len: int, repeats: int = REPEATS,
                cancelled: Callable[[], bool] = lambda: False,
                progress: Callable[[int, int], None] = lambda done, total: None) -> ComponentTimes | None:
    """Median seconds per part of one teacher-forced pass through a fresh network of ``config``,
    of random tokens (no padding: every token is attended to). ConfigError if not timeable."""
    check_timeable(config, source_len, target_len)
    net = fresh_net(config)
    low = config.pad_id + 1
    generator = torch.Generator().manual_seed(0)
    src = torch.randint(low, config.src_vocab_size, (1, source_len), generator=generator)
    tgt = torch.randint(low, config.tgt_vocab_size, (1, target_len), generator=generator)
    with torch.no_grad():
        return net_times(net, src, tgt, repeats, cancelled, progress)


__all__ = ["MAX_LENGTH", "Sizes", "check_timeable", "fresh_net", "sized_times"]
