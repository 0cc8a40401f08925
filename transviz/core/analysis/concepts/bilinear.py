"""Attention scores as a bilinear form (seed 000, "Attention的几种角度"): q.k = x_q W_Q (x_k W_K)^T
= x_q W_Z x_k^T with W_Z = W_Q W_K^T, which the tutorial reads as an inner product with W_Z as
its metric. That needs the symmetric part of W_Z to be positive definite, which the signs of its
eigenvalues (:attr:`Bilinear.inertia`) show it is not: the reading holds as a bilinear form only. The projections'
biases join as an extra row and column, so that [x_q, 1] W_Z [x_k, 1]^T / sqrt(d_k) is exactly the
head's scaled score; x are the inputs the attention module projected in a teacher-forced pass.

What depends only on the weights (W_Z, its singular values, its symmetric and antisymmetric parts)
is kept per attention module and head until the module's weights change; a step of the explorer
then costs one forward pass, which records both the walkthrough and the projected inputs."""
from __future__ import annotations

import math
import weakref
from dataclasses import dataclass

import numpy as np

from ...base.errors import InputError
from ...base.messages import translate_noop
from ...model.bundle import Model
from ...model.sites import Address, Site, recording
from ...model.transformer import MultiHeadAttention
from ..walkthrough import Kind, attention_module
from .forward import Sentence
from .head import head_attention

TOLERANCE = 1e-6  # singular values below this share of the largest count as zero


@dataclass(frozen=True)
class Bilinear:
    """One head's W_Z, (d_model + 1) square, float64: rows for the query's input and a 1 (the
    query bias), columns for the key's input and a 1."""

    d_model: int
    d_k: int
    query_tokens: list[str]
    key_tokens: list[str]
    matrix: np.ndarray
    form: np.ndarray  # (Q, K): [x_q, 1] W_Z [x_k, 1]^T / sqrt(d_k)
    check: float  # the largest |form - the scaled scores the model computed|
    singular_values: np.ndarray  # of ``matrix``, largest first
    symmetric: np.ndarray  # (matrix + matrix^T) / 2
    antisymmetric: np.ndarray  # (matrix - matrix^T) / 2
    symmetric_norm: float  # Frobenius norms of the two parts
    antisymmetric_norm: float
    eigenvalues: np.ndarray  # of ``symmetric``, largest first

    @property
    def inertia(self) -> tuple[int, int, int]:
        """How many eigenvalues of the symmetric part are positive, negative and zero (below
        TOLERANCE of the largest magnitude). W_Z is a metric (x W_Z x^T > 0 for every x != 0) only
        if all are positive; S = (Q K^T + K Q^T) / 2 through d_k has at most d_k of each sign, fewer
        than its d_model + 1 dimensions, so no head's W_Z is one."""
        return inertia(self.eigenvalues)

    @property
    def rank(self) -> int:
        """Singular values above TOLERANCE of the largest: at most d_k, W_Z is a product through d_k."""
        values = self.singular_values
        return int((values > TOLERANCE * values[0]).sum())

    @property
    def entropy_rank(self) -> float:
        """exp of the entropy of the normalised singular values (Roy and Vetterli's effective rank)."""
        share = self.singular_values / self.singular_values.sum()
        share = share[share > 0]
        return float(np.exp(-(share * np.log(share)).sum()))


def inertia(eigenvalues: np.ndarray) -> tuple[int, int, int]:
    """Positive, negative and zero counts of ``eigenvalues``, zero meaning below TOLERANCE of the
    largest magnitude (the rounding of a product through d_k leaves tiny values of either sign)."""
    largest = float(np.abs(eigenvalues).max()) if len(eigenvalues) else 0.0
    positive = int((eigenvalues > TOLERANCE * largest).sum())
    negative = int((eigenvalues < -TOLERANCE * largest).sum())
    return positive, negative, len(eigenvalues) - positive - negative

@dataclass(frozen=True)
class _Weights:
    """What a head's W_Z gives without a sentence."""

    versions: tuple[int, int]
    matrix: np.ndarray
    singular_values: np.ndarray
    symmetric: np.ndarray
    antisymmetric: np.ndarray
    symmetric_norm: float
    antisymmetric_norm: float
    eigenvalues: np.ndarray


# per attention module and head, until the module's projection weights change (training, loading)
_kept: weakref.WeakKeyDictionary[MultiHeadAttention, dict[int, _Weights]] = weakref.WeakKeyDictionary()


def _head_weights(attention: MultiHeadAttention, head: int) -> _Weights:
    bias = attention.in_proj_bias
    versions = (attention.in_proj_weight._version, -1 if bias is None else bias._version)
    kept = _kept.setdefault(attention, {})
    found = kept.get(head)
    if found is None or found.versions != versions:
        matrix = head_matrix(attention, head)
        symmetric, antisymmetric = (matrix + matrix.T) / 2, (matrix - matrix.T) / 2
        found = kept[head] = _Weights(versions, matrix, np.linalg.svd(matrix, compute_uv=False), symmetric,
                                      antisymmetric, float(np.linalg.norm(symmetric)),
                                      float(np.linalg.norm(antisymmetric)),
                                      np.linalg.eigvalsh(symmetric)[::-1].copy())
    return found


def head_matrix(attention: MultiHeadAttention, head: int) -> np.ndarray:
    """W_Z of ``head`` with the biases: [[W_Q^T W_K, W_Q^T b_K], [b_Q^T W_K, b_Q . b_K]] where
    W_Q, W_K are the head's (d_k, d_model) rows of the packed projection (W_K those of the key
    head it reads, when heads share keys)."""
    weight = attention.in_proj_weight.detach().double().cpu().numpy()
    packed = attention.in_proj_bias
    bias = np.zeros(len(weight)) if packed is None else packed.detach().double().cpu().numpy()  # no biases
    query_rows, key_rows = attention.rows("q", head), attention.rows("k", head)
    query = np.vstack([weight[query_rows].T, bias[query_rows]])  # (d + 1, d_k): [x, 1] @ this = q
    key = np.vstack([weight[key_rows].T, bias[key_rows]])
    return np.asarray(query @ key.T)


def bilinear(model: Model, sentence: Sentence, kind: Kind, layer: int, head: int) -> Bilinear:
    """W_Z of ``head`` in ``layer`` and the check that it gives the model's scaled scores
    (InputError for a layer or head the model lacks, or for rotary self-attention)."""
    attention = attention_module(model, kind, layer)  # validates kind and layer
    if attention.rotary is not None:
        raise InputError(translate_noop("CoreMessages", "with rotary positions a self-attention score is a different "
                                                        "bilinear form for each distance between query and key, not "
                                                        "one W_Z: choose cross-attention, which has no positions"))
    inputs = [Address(kind, layer, Site.QUERY_INPUT), Address(kind, layer, Site.KEY_INPUT)]
    with recording(model.net, inputs) as seen:  # the walkthrough's own pass, which validates the head
        walk = head_attention(model, sentence, kind, layer, head)
    weights = _head_weights(attention, head)
    x_q, x_k = (np.hstack([seen[side][0].double().cpu().numpy(), np.ones((seen[side].shape[1], 1))])
                for side in inputs)
    form = x_q @ weights.matrix @ x_k.T / math.sqrt(attention.d_k)
    check = float(np.abs(form - walk.scaled).max())
    return Bilinear(attention.d_model, attention.d_k, walk.query_tokens, walk.key_tokens, weights.matrix, form, check,
                    weights.singular_values, weights.symmetric, weights.antisymmetric, weights.symmetric_norm,
                    weights.antisymmetric_norm, weights.eigenvalues)
