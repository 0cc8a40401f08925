"""The measured time per component of one forward pass: the pieces that are timed recompose the
model's own logits (so what was timed is the real computation), the timed pieces cover the pass
(little runs between the clocks), their medians add up to about the model's own pass, and at a
size where the FFN does most of the arithmetic it also takes most of the time."""
from __future__ import annotations

import time

import pytest
import torch

import transviz
from transviz.core.analysis.concepts.component_time import PARTS, Clock, component_times, timed_forward
from transviz.core.analysis.concepts.forward import Inputs, Sentence, model_inputs
from transviz.core.model.config import ModelConfig
from transviz.core.model.transformer import Transformer
from transviz.core.model.vocab import Vocab

WHOLE_TOLERANCE = 0.35  # the parts' medians against the model's own pass (it also checks its inputs)


@pytest.fixture(scope="module")
def shipped():
    return transviz.load_model("default")


def random_model(**sizes: object) -> transviz.Model:
    """A model of transviz's own Transformer with ``sizes``, random weights, eval mode."""
    torch.manual_seed(0)
    src, tgt = Vocab([f"s{i}" for i in range(40)]), Vocab([f"t{i}" for i in range(30)])
    config = ModelConfig(len(src), len(tgt), **sizes)  # type: ignore[arg-type]  # the test's own sizes
    return transviz.Model(Transformer(config).eval(), src, tgt, {"task": "unit-test"})


def random_inputs(model: transviz.Model, source_len: int, target_len: int) -> Inputs:
    cfg = model.net.config
    return Inputs([], [], torch.randint(4, cfg.src_vocab_size, (1, source_len)),
                  torch.randint(4, cfg.tgt_vocab_size, (1, target_len)))


def shipped_inputs(model: transviz.Model) -> Inputs:
    return model_inputs(model, Sentence("ich mochte ein bier trinken", ("i", "want", "to")))


@pytest.mark.parametrize("sizes", [
    {},  # the shipped model's layout: post-LN, ReLU
    {"d_model": 48, "n_heads": 3, "d_ff": 96, "n_encoder_layers": 2, "n_decoder_layers": 1, "norm": "pre",
     "activation": "gelu", "dropout": 0.3},
    # today's variants: shared keys and values, positions inside attention, a window, RMSNorm
    {"n_kv_heads": 2, "positional": "rotary", "attention_window": 3},
    {"n_kv_heads": 1, "positional": "alibi", "norm": "pre", "layer_norm": "rms"},
])
def test_the_timed_pieces_recompose_the_models_logits(shipped, sizes):
    model = shipped if not sizes else random_model(**sizes)
    inputs = shipped_inputs(model) if not sizes else random_inputs(model, 7, 5)
    with torch.no_grad():
        expected = model.net(inputs.source_ids, inputs.target_ids).logits
        clock = Clock()
        got = timed_forward(model.net, inputs.source_ids, inputs.target_ids, clock)
    torch.testing.assert_close(got, expected, atol=1e-5, rtol=0)
    assert all(clock.spent[part] > 0 for part in PARTS)  # every component ran under the clock


@pytest.mark.timing
def test_the_clocks_cover_the_pass(shipped):
    """Little runs outside the timed pieces: their sum is most of the piecewise pass's own time."""
    inputs = shipped_inputs(shipped)
    ratios = []
    with torch.no_grad():
        for _ in range(7):
            clock = Clock()
            start = time.perf_counter()
            timed_forward(shipped.net, inputs.source_ids, inputs.target_ids, clock)
            ratios.append(sum(clock.spent.values()) / (time.perf_counter() - start))
    assert sorted(ratios)[3] > 0.8


@pytest.mark.timing
def test_the_parts_add_up_to_about_the_models_own_pass(shipped):
    """On a busy machine one measurement can be off: one of three attempts must agree."""
    attempts = [component_times(shipped, shipped_inputs(shipped)) for _ in range(3)]
    assert all(times is not None and (times.source_len, times.target_len) == (5, 4) for times in attempts)
    ratios = [times.total / times.whole for times in attempts if times is not None]
    assert any(abs(ratio - 1) <= WHOLE_TOLERANCE for ratio in ratios), ratios
    assert sum(attempts[0].share(part) for part in PARTS) == pytest.approx(1.0)  # type: ignore[union-attr]


def test_where_the_ffn_does_most_of_the_arithmetic_it_takes_most_of_the_time():
    model = random_model(d_model=256, n_heads=4, d_ff=4096, n_encoder_layers=1, n_decoder_layers=1)
    times = component_times(model, random_inputs(model, 64, 64), repeats=5)
    assert times is not None and times.share("ffn") > 0.5


def test_a_cancelled_measurement_returns_nothing(shipped):
    assert component_times(shipped, shipped_inputs(shipped), cancelled=lambda: True) is None


def test_each_pass_is_reported(shipped):
    reports: list[tuple[int, int]] = []
    component_times(shipped, shipped_inputs(shipped), repeats=3, progress=lambda d, t: reports.append((d, t)))
    assert reports == [(done, 5) for done in range(1, 6)]  # two warm-up passes, then the three timed
