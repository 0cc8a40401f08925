"""Decoder self-attention keys/values that grow in place, one column per decoding step.

A step used to concatenate the whole cache with the new column (a copy of every earlier column, in
every layer, at every step). Here the columns live in a buffer with room to spare, and a step
writes only its own column. States stay immutable to their readers: a cache is a view of the
buffer's first ``length`` columns, and a column is written only past every view that exists (the
buffer's ``written`` count), so a step from an older state (going back, then another token) copies
into a fresh buffer instead of overwriting what a newer state still shows.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

KeyValue = tuple[Tensor, Tensor]  # keys and values, each (B, H, L, d_k)
MIN_CAPACITY = 16  # columns of a new buffer at least; it doubles as decoding goes on


@dataclass
class _Written:
    columns: int  # columns of the buffer that hold values (every view's length is at most this)


@dataclass(frozen=True)
class KVBuffer:
    """Keys and values ``(B, H, capacity, d_k)`` of one decoder layer; the first ``written.columns``
    hold values, shared by every cache that views them."""

    keys: Tensor
    values: Tensor
    written: _Written

    def extends(self, past: KeyValue, length: int) -> bool:
        """Whether ``past`` is this buffer's first ``length`` columns, with room after them and
        nothing written there yet: then the next column can go in place."""
        keys = past[0]
        return (self.written.columns == length < self.keys.shape[2] and keys.data_ptr() == self.keys.data_ptr()
                and keys.shape == (*self.keys.shape[:2], length, self.keys.shape[3])
                and keys.stride() == self.keys.stride())


def append(past: KeyValue | None, buffer: KVBuffer | None, key: Tensor, value: Tensor,
           max_len: int) -> tuple[KeyValue, KVBuffer | None]:
    """The cache ``past`` (``L`` columns) followed by ``key``/``value`` ``(B, H, 1, d_k)``, and the
    buffer that now holds it (None when autograd records: in-place writes would break backward)."""
    if torch.is_grad_enabled():
        if past is None:
            return (key, value), None
        return (torch.cat([past[0], key], dim=2), torch.cat([past[1], value], dim=2)), None  # (B, H, L+1, d_k)
    length = 0 if past is None else past[0].shape[2]
    if past is None or buffer is None or not buffer.extends(past, length):
        buffer = _fresh_buffer(past, key, length, max_len)
    buffer.keys[:, :, length : length + 1] = key
    buffer.values[:, :, length : length + 1] = value
    buffer.written.columns = length + 1
    return (buffer.keys[:, :, : length + 1], buffer.values[:, :, : length + 1]), buffer


def _fresh_buffer(past: KeyValue | None, key: Tensor, length: int, max_len: int) -> KVBuffer:
    """A new buffer holding ``past`` (copied once), with room to double."""
    batch, heads, _, d_k = key.shape
    capacity = max(length + 1, min(max_len, max(MIN_CAPACITY, 2 * (length + 1))))
    keys = key.new_empty(batch, heads, capacity, d_k)
    values = key.new_empty(batch, heads, capacity, d_k)
    if past is not None:
        keys[:, :, :length] = past[0]
        values[:, :, :length] = past[1]
    return KVBuffer(keys, values, _Written(length))


@dataclass
class Growing:
    """One decoder layer's cache during a step: the columns so far and the buffer they sit in;
    :meth:`grow` appends the step's column and keeps the buffer for the next step."""

    past: KeyValue | None
    buffer: KVBuffer | None
    max_len: int

    def grow(self, key: Tensor, value: Tensor) -> KeyValue:
        grown, self.buffer = append(self.past, self.buffer, key, value, self.max_len)
        return grown
