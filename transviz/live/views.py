"""What a decoding session looks like to the class: the view :meth:`ClassServer.show
<transviz.live.server.ClassServer.show>` sends (the schema in :mod:`.protocol`), and the next-token
question of a step. Used by ``transviz class``; the window may build its own from what it shows."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..core.decoding.session import DecodingSession
from ..core.teaching.quiz import token_question
from .protocol import MAX_MAP_SIDE, MAX_TEXT, MAX_TOKEN_CHARS, MAX_TOKENS, Question, Text


def _clip(token: str) -> str:
    return token if len(token) <= MAX_TOKEN_CHARS else token[: MAX_TOKEN_CHARS - 1] + "\u2026"


def session_view(session: DecodingSession, kind: str = "cross", layer: int = -1, head: int | None = None,
                 model_name: str = "", caption: Text | None = None) -> dict[str, Any]:
    """The class's view of ``session`` now: its sentence and tokens, the last step's candidates, and
    head ``head`` (None: the mean of the layer's heads) of ``layer`` (negative: from the last) of the
    ``kind`` attention ("encoder", "decoder" or "cross"), rows the queries, columns the keys. Before
    the first step the decoder's maps have no rows: no head is shown then."""
    record = session.history[-1] if session.history else None
    view: dict[str, Any] = {
        "sentence": session.source[:MAX_TEXT],
        "source": [_clip(t) for t in session.source_tokens[:MAX_TOKENS]],
        "output": [_clip(t) for t in session.output_tokens[-MAX_TOKENS:]],
        "step": session.position,
        "candidates": [] if record is None else [[_clip(c.token), c.probability] for c in record.candidates[:20]],
        "head": head_view(session, kind, layer, head),
        "model": model_name[:100],
    }
    if caption is not None:
        view["caption"] = {"en": caption, "zh": caption} if isinstance(caption, str) else dict(caption)
    return view


def head_view(session: DecodingSession, kind: str, layer: int, head: int | None) -> dict[str, Any] | None:
    """One head's map as the view holds it (at most :data:`~.protocol.MAX_MAP_SIDE` rows, the latest,
    and columns, the first); None when it has no rows yet."""
    if kind == "encoder":
        maps, rows, cols = session.encoder_attention, session.source_tokens, session.source_tokens
    elif kind == "decoder":
        maps, rows, cols = session.decoder_self_attention(), session.query_labels, session.target_tokens
    elif kind == "cross":
        maps, rows, cols = session.cross_attention(), session.query_labels, session.source_tokens
    else:
        raise ValueError(f"no attention kind {kind!r}")
    if maps.shape[2] == 0:
        return None
    layers = maps.shape[0]
    layer = layer % layers if -layers <= layer < layers else layer
    matrix = maps[layer].mean(axis=0) if head is None else maps[layer, head]  # (queries, keys)
    matrix = np.asarray(matrix, dtype=np.float64)[-MAX_MAP_SIDE:, :MAX_MAP_SIDE]
    return {"kind": kind, "layer": layer, "head": head, "rows": [_clip(t) for t in rows[-MAX_MAP_SIDE:]],
            "cols": [_clip(t) for t in cols[:MAX_MAP_SIDE]], "weights": matrix.tolist()}


def next_token_question(session: DecodingSession, question_id: str, label: str | None = None,
                        seed: int = 0) -> Question:
    """Which token will the model write next? Its top candidates at the next step, shuffled (their
    order says nothing of their rank); the answer is the most probable one, what greedy decoding
    writes. The session is left exactly as it was. InputError when the translation has ended."""
    with session.excursion():
        record = session.step()
    question = token_question(record, seed)
    so_far = " ".join(session.output_tokens)
    prompt = ({"en": f"Which token will the model write next, after \u201c{so_far}\u201d?",
               "zh": f"在\u201c{so_far}\u201d之后，模型下一个会写哪个词？"} if so_far else
              {"en": "Which token will the model write first?", "zh": "模型第一个会写哪个词？"})
    return Question(question_id, "next", prompt, question.choices, question.truth, label)
