"""What each attention head outputs on average over a task's validation sentences: the value
that replaces a head's output under a mean ablation (``AblateHead(mode="mean")``).

A head's output is its slice of the concatenated heads that enter the output projection, averaged
over every real (not padding) query position of the teacher-forced validation pairs, with the
model as it is. Means are kept per model until one of its weights changes.
"""
from __future__ import annotations

import weakref

from torch import Tensor

from ..data.batches import encode_pairs, make_batch
from ..data.held_out import held_out_pairs
from ..model.bundle import Model, evaluating
from ..model.sites import Address, Call, Kind, Site, Tap, tapping
from ..model.transformer import Transformer

BATCH = 256
Means = dict[tuple[str, int], Tensor]  # (kind, layer) -> (H, d_k)
_cache: weakref.WeakKeyDictionary[Transformer, tuple[tuple[object, ...], Means]] = weakref.WeakKeyDictionary()


def _measured_on(model: Model) -> tuple[object, ...]:
    """The task and the weights' versions: every in-place change of a tensor (an optimizer step,
    load_state_dict) bumps its version, so changed weights are measured again."""
    return (model.facts.get("task"), *model.weights_version())


def output_means(model: Model) -> Means:
    """Every head's mean output over the validation split of ``model``'s task (InputError for a
    model whose task is not built in)."""
    cached = _cache.get(model.net)
    if cached is not None and cached[0] == _measured_on(model):
        return cached[1]
    means = _measure(model)
    _cache[model.net] = (_measured_on(model), means)
    return means


def _measure(model: Model) -> Means:
    rows = encode_pairs(model, held_out_pairs(model, "valid"))
    net, pad_id = model.net, model.config.pad_id
    sums: dict[tuple[str, int], Tensor] = {}
    counts: dict[tuple[str, int], int] = {}
    real: dict[str, Tensor] = {}  # "src" / "tgt": (B, L) true at real query positions of this batch

    def adder(key: tuple[Kind, int], side: str) -> Tap:
        def add(mixed: Tensor, call: Call) -> None:  # (B, Lq, d): the heads' outputs side by side
            mask = real[side]
            sums[key] = sums.get(key, 0) + mixed[mask].double().sum(dim=0)  # (d,)
            counts[key] = counts.get(key, 0) + int(mask.sum())
        return Tap(Address(key[0], key[1], Site.MIXED), add)

    # taps, not hooks on the modules: a decoder-only model's one module runs the source's pass and the output's
    keys = net.attention_passes()
    with evaluating(model), tapping(net, [adder(key, "src" if key[0] == "encoder_self" else "tgt") for key in keys]):
        for start in range(0, len(rows), BATCH):
            batch = make_batch(rows[start : start + BATCH], pad_id, model.device)
            real["src"], real["tgt"] = batch.src != pad_id, batch.tgt_in != pad_id
            net(batch.src, batch.tgt_in)
    heads, d_k = model.config.n_heads, model.config.d_model // model.config.n_heads
    return {key: (sums[key] / counts[key]).to(next(net.parameters()).dtype).view(heads, d_k) for key in keys}
