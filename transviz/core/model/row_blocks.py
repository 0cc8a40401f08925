"""The CPU fast path of a decoding step: one-row products computed in row blocks of the weight.

A one-token step multiplies one row by every weight of the decoder, so it reads each weight once
and waits on memory; torch computes such a product on one core whatever its thread count. As
``bmm`` over row blocks of the weight, torch's threads share the reading (the manual's
Performance page and ``transviz bench session_step_ms_6x8x512_at_100`` give the figures).

The model's products with a weight go through :class:`Linear` (and the attention's packed
projection through :func:`linear`) only once :meth:`~transviz.core.model.transformer.Transformer.use_row_blocks`
has set their flag; :class:`~transviz.core.decoding.session.DecodingSession` sets it. Parameters, their
names and the state dict stay as they are, results equal ``F.linear``'s to float rounding, and
wherever blocks do not pay, or autograd records the product (training), :func:`linear` is
``F.linear`` itself.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

SPLIT_AT = 1 << 16  # weights (elements) from which sharing the reading pays: below, starting the threads costs more


def linear(x: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``F.linear``; for one input row on several CPU threads, computed as a batch of row blocks.

    With one thread, more rows, a small weight, another device or autograd recording, this is
    ``F.linear`` itself.
    """
    blocks = torch.get_num_threads()
    out_features, in_features = weight.shape
    if (blocks < 2 or x.numel() != in_features or weight.numel() < SPLIT_AT or out_features % blocks
            or x.device.type != "cpu" or not weight.is_contiguous()
            or (torch.is_grad_enabled() and (weight.requires_grad or x.requires_grad))):
        return F.linear(x, weight, bias)
    y = _blocked(x, weight, blocks).reshape(*x.shape[:-1], out_features)
    return y if bias is None else y + bias


def _blocked(x: Tensor, weight: Tensor, blocks: int) -> Tensor:
    """The one row of ``x`` times ``weight`` (out, in) transposed, ``blocks`` row blocks at once."""
    out_features, in_features = weight.shape
    rows = x.reshape(1, 1, in_features).expand(blocks, 1, in_features)  # (blocks, 1, in)
    columns = weight.view(blocks, out_features // blocks, in_features).transpose(1, 2)  # (blocks, in, out/blocks)
    return torch.bmm(rows, columns)  # (blocks, 1, out/blocks)


class Linear(nn.Linear):
    """``nn.Linear``, through :func:`linear` while ``row_blocks`` is set: the same parameters and names."""

    row_blocks = False  # set by Transformer.use_row_blocks (a copy of the model keeps it)

    def forward(self, x: Tensor) -> Tensor:
        return linear(x, self.weight, self.bias) if self.row_blocks else F.linear(x, self.weight, self.bias)
