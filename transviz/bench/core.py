"""Figures of the core engine: training throughput against torch, decoding with the cache."""
from __future__ import annotations

import functools
import math
from collections.abc import Callable

import torch
from torch import Tensor, nn

from ..core.base.cores import computing
from ..core.model.config import ModelConfig
from ..core.model.masks import causal_mask
from ..core.model.positional import sinusoidal_table
from ..core.model.transformer import DecoderState, StepOutput, Transformer
from . import figure, median_ratio, seconds, size

# Training comparison: a classroom-size model on a realistic batch.
TRAIN = dict(d_model=128, n_heads=4, layers=2, d_ff=512, vocab=1000, batch=32, src_len=20, tgt_len=22)
# Decoding: the paper's base size.
BASE = ModelConfig(1000, 1000, d_model=512, n_heads=8, n_encoder_layers=6, n_decoder_layers=6, d_ff=2048,
                   dropout=0.0, max_len=128)


class TorchReference(nn.Module):
    """``torch.nn.Transformer`` with the same embeddings, positions and output layer as ours."""

    positional: torch.Tensor

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        d = config.d_model
        self.d = d
        self.src_embed = nn.Embedding(config.src_vocab_size, d)
        self.tgt_embed = nn.Embedding(config.tgt_vocab_size, d)
        self.register_buffer("positional", sinusoidal_table(config.max_len, d), persistent=False)  # moves with .to()
        self.core = nn.Transformer(d, config.n_heads, config.n_encoder_layers, config.n_decoder_layers,
                                   config.d_ff, config.dropout, batch_first=True)
        self.generator = nn.Linear(d, config.tgt_vocab_size)

    def forward(self, src: torch.Tensor, tgt: torch.Tensor) -> torch.Tensor:
        scale = math.sqrt(self.d)
        s = self.src_embed(src) * scale + self.positional[: src.shape[1]]
        t = self.tgt_embed(tgt) * scale + self.positional[: tgt.shape[1]]
        hidden = ~causal_mask(tgt.shape[1], tgt.device)[0, 0]  # torch: True = blocked
        out = self.core(s, t, tgt_mask=hidden, src_key_padding_mask=src == 0,
                        tgt_key_padding_mask=tgt == 0, memory_key_padding_mask=src == 0)
        return self.generator(out)


def _train_step(model: nn.Module, forward: Callable[[Tensor, Tensor], Tensor], optimizer: torch.optim.Optimizer,
                src: Tensor, tgt: Tensor, gold: Tensor) -> None:
    with computing():  # both models on the threads the trainer would give them
        logits = forward(src, tgt)
        loss = nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), gold.reshape(-1), ignore_index=0)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()


@figure("train_tokens_per_s_ratio_vs_torch", "ratio", 1.0, "higher")
def train_ratio() -> float:
    """Training tokens/s of transviz over torch.nn.Transformer, same sizes and batch (CPU)."""
    p = TRAIN
    config = ModelConfig(p["vocab"], p["vocab"], d_model=p["d_model"], n_heads=p["n_heads"],
                         n_encoder_layers=p["layers"], n_decoder_layers=p["layers"], d_ff=p["d_ff"], dropout=0.1)
    torch.manual_seed(0)
    src = torch.randint(4, p["vocab"], (p["batch"], p["src_len"]))
    tgt = torch.randint(4, p["vocab"], (p["batch"], p["tgt_len"]))
    for row in range(0, p["batch"], 3):  # sentences of different lengths: padded tails
        src[row, p["src_len"] - row // 3 :] = 0
        tgt[row, p["tgt_len"] - row // 3 :] = 0
    gold = tgt.roll(-1, dims=1)
    ours, theirs = Transformer(config).train(), TorchReference(config).train()
    opt_ours = torch.optim.Adam(ours.parameters(), lr=1e-4, betas=(0.9, 0.98))
    opt_theirs = torch.optim.Adam(theirs.parameters(), lr=1e-4, betas=(0.9, 0.98))
    return median_ratio(
        lambda: _train_step(ours, lambda s, t: ours(s, t).logits, opt_ours, src, tgt, gold),
        lambda: _train_step(theirs, theirs, opt_theirs, src, tgt, gold),
        rounds=15, warmup=3,
    )


@functools.lru_cache(maxsize=1)
def _base_model() -> tuple[Transformer, torch.Tensor, torch.Tensor]:
    torch.manual_seed(0)
    net = Transformer(BASE).eval().use_row_blocks()  # as a DecodingSession steps it
    src = torch.randint(4, 1000, (1, 20))
    tokens = torch.randint(4, 1000, (101,))
    return net, src, tokens


@torch.no_grad()
def _cached_steps(n: int) -> list[float]:
    """Seconds of each of ``n`` cached steps (with attention maps, as the app asks for)."""
    net, src, tokens = _base_model()
    state = net.start(net.encode(src))
    times = []
    last: list[StepOutput] = []  # where one() leaves its step's output
    for t in range(n):

        def one(t: int = t, state: DecoderState = state) -> None:  # this step's t and state, bound now
            last[:] = [net.step(tokens[t : t + 1], state, return_attention=True)]

        times.append(seconds(one))
        state = last[0].state
    return times


def _step_ms_at(step: int) -> float:
    import statistics

    runs = [_cached_steps(step + 1)[step] for _ in range(size(7))]
    return 1000 * statistics.median(runs)


@figure("decode_step_ms_at_10", "ms", 16.0, "lower")
def step_at_10() -> float:
    """One cached decoder step of a 6x8x512 model at step 10 (target: one 60 fps frame)."""
    return _step_ms_at(10)


@figure("decode_step_ms_at_100", "ms", 16.0, "lower")
def step_at_100() -> float:
    """One cached decoder step of a 6x8x512 model at step 100 (target: one 60 fps frame)."""
    return _step_ms_at(100)


@figure("decode_recompute_over_cached_at_100", "ratio", 3.0, "higher")
def recompute_ratio() -> float:
    """Decoding 100 tokens recomputing every prefix, over decoding them with the cache (6x8x512)."""
    net, src, tokens = _base_model()

    @torch.no_grad()
    def recompute() -> None:
        encoded = net.encode(src)
        for t in range(100):
            net.decode(tokens[None, : t + 1], encoded, return_attention=True)

    @torch.no_grad()
    def cached() -> None:
        state = net.start(net.encode(src))
        for t in range(100):
            state = net.step(tokens[t : t + 1], state, return_attention=True).state

    return median_ratio(cached, recompute, rounds=3, warmup=1)
