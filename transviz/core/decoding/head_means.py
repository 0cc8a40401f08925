"""What each attention head outputs on average over a task's validation sentences: the value
that replaces a head's output under a mean ablation (``AblateHead(mode="mean")``).

A head's output is its slice of the concatenated heads that enter the output projection, averaged
over every real (not padding) query position of the teacher-forced validation pairs, with the
model as it is. Means are kept per model until one of its weights changes.
"""
from __future__ import annotations

import weakref
from collections.abc import Callable

import torch
from torch import Tensor

from ..data.batches import encode_pairs, make_batch
from ..data.held_out import held_out_pairs
from ..model.bundle import Model, evaluating
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

    def adder(key: tuple[str, int], side: str) -> Callable[[torch.nn.Module, tuple[Tensor, ...]], None]:
        def hook(module: torch.nn.Module, args: tuple[Tensor, ...]) -> None:
            mask = real[side]
            sums[key] = sums.get(key, 0) + args[0][mask].double().sum(dim=0)  # (d,)
            counts[key] = counts.get(key, 0) + int(mask.sum())
        return hook

    modules = net.attention_modules()
    handles = [module.out_proj.register_forward_pre_hook(adder(key, "src" if key[0] == "encoder_self" else "tgt"))
               for key, module in modules.items()]
    try:
        with evaluating(model):
            for start in range(0, len(rows), BATCH):
                batch = make_batch(rows[start : start + BATCH], pad_id, model.device)
                real["src"], real["tgt"] = batch.src != pad_id, batch.tgt_in != pad_id
                net(batch.src, batch.tgt_in)
    finally:
        for handle in handles:
            handle.remove()
    heads, d_k = model.config.n_heads, model.config.d_model // model.config.n_heads
    return {key: (sums[key] / counts[key]).to(next(net.parameters()).dtype).view(heads, d_k) for key in modules}
