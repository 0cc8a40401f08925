"""One head's attention for a concept view's sentence: the walkthrough of
:mod:`transviz.core.analysis.walkthrough` (queries, keys, values, scores and weights the model itself used),
read from a :class:`~.forward.Sentence`."""
from __future__ import annotations

from ...model.bundle import Model
from ..walkthrough import Kind, Walkthrough, walkthrough
from .forward import Sentence


def head_attention(model: Model, sentence: Sentence, kind: Kind, layer: int, head: int) -> Walkthrough:
    """The four attention steps of ``head`` in ``layer`` for ``sentence`` (InputError for a layer
    or head the model lacks)."""
    prefix = model.tgt_vocab.detokenize(list(sentence.target))
    return walkthrough(model, sentence.source, prefix, kind, layer, head)
