"""Decoded paths: one node per output token, linked to the node before it.

Every hypothesis (the greedy path, a sampled path, each beam hypothesis) is its last node, and
hypotheses that share a prefix share its nodes. A node keeps only what its own step computed:
the new query row of every attention head and the key/value column of the decoder input it fed.
Cumulative matrices and the key/value cache of any path are rebuilt from those on demand, so a
step stores nothing quadratic, and going back is exact: keys and values of earlier positions
never change, since a decoder position attends only to the positions before it.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import torch

from ..model.kv_cache import KeyValue
from ..model.transformer import DecoderState


@dataclass(frozen=True, eq=False)
class PathNode:
    """One output token and how the model came to it."""

    token_id: int
    probability: float  # the model's probability of this token after the prefix
    log_probability: float  # its natural log, from log_softmax (finite where the probability underflows)
    predicted_id: int  # the model's most probable token at this position
    self_rows: np.ndarray  # (L, H, length): decoder self-attention row of the query that chose this token
    cross_rows: np.ndarray  # (L, H, S): its cross-attention row
    key_values: tuple[KeyValue, ...]  # per layer (1, H, 1, d_k): cache column of the decoder input fed here
    previous: PathNode | None

    @property
    def length(self) -> int:
        """Output tokens up to and including this one."""
        return int(self.self_rows.shape[-1])


def walk(node: PathNode | None) -> list[PathNode]:
    """The nodes of the path ending at ``node``, first token first."""
    nodes = []
    while node is not None:
        nodes.append(node)
        node = node.previous
    return nodes[::-1]


def decoder_self_attention(nodes: list[PathNode], layers: int, heads: int) -> np.ndarray:
    """(L, H, T, T) float32: row t is query t, zero above the diagonal (future positions)."""
    T = len(nodes)
    out = np.zeros((layers, heads, T, T), dtype=np.float32)
    for t, node in enumerate(nodes):
        # numpy would broadcast one layer's rows over every layer: a wrong depth must not pass
        assert node.self_rows.shape[:2] == (layers, heads), (node.self_rows.shape, layers, heads)
        out[:, :, t, : t + 1] = node.self_rows
    return out


def cross_attention(nodes: list[PathNode], layers: int, heads: int, source_len: int) -> np.ndarray:
    """(L, H, T, S) float32: row t is decoder query t, columns the source tokens."""
    if not nodes:
        return np.zeros((layers, heads, 0, source_len), dtype=np.float32)
    return np.stack([node.cross_rows for node in nodes], axis=2)


def with_batch(state: DecoderState, size: int) -> DecoderState:
    """``state`` with the encoder keys/values and mask viewed (not copied) for ``size`` rows."""
    memory_kv = tuple((k[:1].expand(size, -1, -1, -1), v[:1].expand(size, -1, -1, -1)) for k, v in state.memory_kv)
    first = None if state.first is None else state.first[:1].expand(size)
    return replace(state, memory_kv=memory_kv, memory_mask=state.memory_mask[:1].expand(size, -1, -1, -1),
                   first=first)


def select_rows(state: DecoderState, rows: list[int]) -> DecoderState:
    """The cache of the hypotheses in batch ``rows`` of ``state``, in that order (beam reordering)."""
    if rows == list(range(len(rows))) and state.memory_mask.shape[0] == len(rows):
        return state  # the same hypotheses in the same order
    index = torch.tensor(rows, dtype=torch.long, device=state.memory_mask.device)
    self_kv = None
    if state.self_kv is not None:
        # (B', H, t, d_k)
        self_kv = tuple((k.index_select(0, index), v.index_select(0, index)) for k, v in state.self_kv)
    return replace(with_batch(state, len(rows)), self_kv=self_kv)


def truncate(state: DecoderState, length: int) -> DecoderState:
    """The cache of the first ``length`` decoder inputs of every row (a view, no copy)."""
    if state.length == length or state.self_kv is None:
        return state
    self_kv = tuple((k[:, :, :length], v[:, :, :length]) for k, v in state.self_kv)  # (B, H, length, d_k)
    return replace(state, self_kv=self_kv, length=length)


def _ancestor(node: PathNode, length: int) -> PathNode:
    while node.length > length:
        node = node.previous  # type: ignore[assignment]  # a node longer than ``length`` has a previous one
    return node


@dataclass(frozen=True)
class FedCache:
    """The cache a batched step left: row b holds the decoder inputs of the path ending at
    ``row_parents[b]`` (None: the empty path) and the token fed after it.

    Stepping on, going back a few steps, and beam reordering all take their cache from here by
    selecting rows and truncating them, without recomputing or copying the earlier columns.
    """

    state: DecoderState
    row_parents: tuple[PathNode | None, ...]

    def rows_for(self, nodes: list[PathNode]) -> DecoderState | None:
        """The cache for stepping the paths ending at ``nodes`` (all of one length), or None
        if some path's inputs are not in any row."""
        rows = [self._row_holding(node.previous) for node in nodes]
        if None in rows:
            return None
        return truncate(select_rows(self.state, rows), nodes[0].length)  # type: ignore[arg-type]  # no None left

    def _row_holding(self, parent: PathNode | None) -> int | None:
        """A row holding the inputs of ``parent``'s path and the token fed after ``parent``: any row
        whose path runs through ``parent`` (the same inputs at the same positions, so the same columns)."""
        for row, fed in enumerate(self.row_parents):
            if parent is None:
                return row  # every row starts with the start token
            if fed is not None and fed.length >= parent.length and _ancestor(fed, parent.length) is parent:
                return row
        return None


def rebuild_cache(start: DecoderState, paths: list[PathNode | None]) -> DecoderState:
    """The cache after feeding every path's decoder inputs, one batch row per path (equal lengths)."""
    walks = [walk(node) for node in paths]
    length = len(walks[0])
    state = with_batch(start, len(paths))
    if length == 0:
        return state
    self_kv = []
    for layer in range(len(start.memory_kv)):
        # (B, n_kv_heads, t, d_k)
        keys = torch.cat([torch.cat([n.key_values[layer][0] for n in nodes], dim=2) for nodes in walks])
        values = torch.cat([torch.cat([n.key_values[layer][1] for n in nodes], dim=2) for nodes in walks])
        self_kv.append((keys, values))
    return replace(state, self_kv=tuple(self_kv), length=length)
