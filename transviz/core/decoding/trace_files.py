"""A decoding session's trace as files: JSON (everything: model, strategy, steps, candidates, beam,
attention) and ``.npz`` (the attention arrays and the tokens, loadable with ``allow_pickle=False``).
The decoder's query rows are named by ``query_labels`` ("input -> written token"); the earlier
keys (``target_tokens``: the inputs, ``output_tokens``) are kept, so older readers still work.

``transviz decode --json / --npz`` and the window's File > Export trace both write these, so a
trace saved from either reads the same way. Files are written atomically.
"""
from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from ..base.errors import InputError
from ..base.files import Writer, write_atomically
from ..base.messages import translate_noop
from .session import DecodingSession, StepRecord
from .strategies import strategy_settings

SUFFIXES = (".npz", ".json")
ATTENTION_AXES = "(layers, heads, queries, keys)"


def step_dict(record: StepRecord) -> dict[str, Any]:
    """One step as JSON-able values."""
    return {
        "index": record.index, "token": record.token, "token_id": record.token_id,
        "probability": record.probability, "forced": record.forced, "prescribed": record.prescribed,
        "entropy_nats": record.entropy,
        "predicted_token": record.predicted_token, "gold_token": record.gold_token,
        "gold_probability": record.gold_probability, "stop": record.stop,
        "candidates": [{"token": c.token, "id": c.id, "probability": c.probability} for c in record.candidates],
    }


def trace_dict(session: DecodingSession) -> dict[str, Any]:
    """The session's best hypothesis so far, with every step, as JSON-able values."""
    model, trace = session.model, session.trace()
    strategy = {"name": "teacher_forcing", "reference": session.reference_tokens} if session.teacher_forcing \
        else {"name": session.strategy.name, **strategy_settings(session.strategy)}
    return {
        "model": {"path": model.path, "config": model.config.to_dict(), "parameters": model.net.parameter_count(),
                  "facts": model.facts},
        "strategy": strategy,
        "interventions": [{"name": type(i).__name__, **asdict(i)} for i in session.interventions],
        "source": session.source,
        "source_tokens": trace.source_tokens,
        "unknown_tokens": [list(u) for u in trace.unknown_tokens],
        "translation": trace.translation,
        "target_tokens": trace.target_tokens,
        "output_tokens": trace.output_tokens,
        "query_labels": trace.query_labels,
        "output_probabilities": trace.output_probabilities.tolist(),
        "stop_reason": session.stop_reason,
        "steps": [step_dict(r) for r in session.history],
        "beam": None if session.beam is None else [
            {"tokens": list(h.tokens), "score": h.score, "normalized_score": h.normalized_score, "finished": h.finished}
            for h in session.beam.hypotheses
        ],
        "attention_axes": ATTENTION_AXES,
        "encoder_self_attention": trace.encoder_self_attention.tolist(),
        "decoder_self_attention": trace.decoder_self_attention.tolist(),
        "cross_attention": trace.cross_attention.tolist(),
    }


def trace_arrays(session: DecodingSession) -> dict[str, np.ndarray]:
    """What the ``.npz`` file holds: float32 attention and probabilities, unicode token arrays."""
    trace = session.trace()
    return {
        "encoder_self_attention": trace.encoder_self_attention,
        "decoder_self_attention": trace.decoder_self_attention,
        "cross_attention": trace.cross_attention,
        "output_probabilities": trace.output_probabilities,
        "source_tokens": np.array(trace.source_tokens, dtype=str),
        "target_tokens": np.array(trace.target_tokens, dtype=str),
        "output_tokens": np.array(trace.output_tokens, dtype=str),
        "query_labels": np.array(trace.query_labels, dtype=str),
    }


def _atomically(path: str | Path, data: bytes | Writer) -> Path:
    target = Path(path)
    if not target.parent.is_dir():
        raise InputError(translate_noop("CoreMessages", "cannot write {0}: the folder {1} does not exist"), str(path),
                         str(target.parent))
    try:
        return write_atomically(target, data)
    except OSError as exc:
        raise InputError(translate_noop("CoreMessages", "cannot write {0}: {1}"), str(path),
                         exc.strerror or str(exc)) from None


def write_npz(session: DecodingSession, path: str | Path) -> Path:
    """Write :func:`trace_arrays` to ``path`` (atomically)."""
    arrays = trace_arrays(session)
    # numpy's stubs take the named arrays for its own keyword arguments
    return _atomically(path, lambda f: np.savez(f, **arrays))  # type: ignore[arg-type]  # see above


def write_json(session: DecodingSession, path: str | Path) -> Path:
    """Write :func:`trace_dict` to ``path`` as UTF-8 JSON (atomically)."""
    text = json.dumps(trace_dict(session), ensure_ascii=False)
    return _atomically(path, text.encode("utf-8"))


def write_trace(session: DecodingSession, path: str | Path) -> Path:
    """Write the trace as ``.npz`` or ``.json``, chosen by the file name."""
    suffix = Path(path).suffix.lower()
    if suffix == ".npz":
        return write_npz(session, path)
    if suffix == ".json":
        return write_json(session, path)
    raise InputError(translate_noop("CoreMessages", "cannot export a trace to {0}: choose a .npz or .json file name"),
                     Path(path).name)
