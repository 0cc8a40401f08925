"""What a live class sees of the explorer: the view that :meth:`ClassServer.show
<transviz.live.server.ClassServer.show>` sends (the schema in :mod:`transviz.live.protocol`), built
from the session's own arrays, with a quiz's open question kept out of it.

Qt-free, so that it is tested against the session without a window; the window passes what it
shows (the kind, the layer and the head shown large, the lesson slide's caption).
"""
from __future__ import annotations

from typing import Any

from ...core.analysis.walkthrough import Kind
from ...core.decoding.session import DecodingSession
from ...live.views import session_view

# the explorer's names of the kinds of attention -> the protocol's
WIRE_KINDS: dict[Kind, str] = {"encoder_self": "encoder", "decoder_self": "decoder", "cross": "cross"}
APP_KINDS: dict[str, Kind] = {wire: kind for kind, wire in WIRE_KINDS.items()}


def class_view(session: DecodingSession, kind: Kind, layer: int, head: int | None, model_name: str,
               caption: dict[str, str] | None = None, hidden: bool = False) -> dict[str, Any]:
    """The class's view of ``session``: its sentence and tokens, the last step's candidates, and
    head ``head`` (None: the mean of the layer's heads) of ``layer`` of the ``kind`` attention
    (rows the queries, columns the keys); ``caption``: the slide's, ``{"en": ..., "zh": ...}``.

    ``hidden``: the newest step is a quiz's open question, so its output token, its candidates and
    its query row are left out (and the step counts one less): nothing a student receives then
    holds the answer.
    """
    view = session_view(session, WIRE_KINDS[kind], layer, head, model_name, _caption(caption))
    view.setdefault("caption", None)
    if hidden and session.position:
        view["output"] = view["output"][:-1]
        view["step"] = session.position - 1
        view["candidates"] = []
        if kind != "encoder_self":  # the encoder's rows are source tokens: no step has one
            view["head"] = _without_newest_row(view["head"])
    return view


def _without_newest_row(head: dict[str, Any] | None) -> dict[str, Any] | None:
    """The map without its last row (the hidden step's query); None when no row is left."""
    if head is None or len(head["rows"]) <= 1:
        return None
    return {**head, "rows": head["rows"][:-1], "weights": head["weights"][:-1]}


def _caption(caption: dict[str, str] | None) -> dict[str, str] | None:
    """The caption's languages that have a text; None when none has."""
    kept = {language: text for language, text in (caption or {}).items() if text}
    return kept or None
