"""A fuzz worker: reads one job a line (JSON) on stdin, runs it, answers one JSON line.

Started by ``fuzz_harness.Pool``; it imports torch and transviz once, caps its address space at
what it then maps plus the harness's headroom (its first argument), and runs job after job. The
answer is ``{"outcome": ..., "detail": ...}`` with outcome ``clear`` (a transviz error, or the
command line's one-line error), ``valid`` (a sound result), ``silent``
(a result that is wrong: NaN, a mistyped setting, a file replaced) or ``crash`` (any other
exception). Hangs and deaths are for the harness to see.
"""
from __future__ import annotations

import hashlib
import io
import json
import math
import os
import re
import resource
import sys
import time
import traceback
from pathlib import Path
from types import UnionType
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

import numpy as np
import torch

import transviz
from transviz.core.decoding.strategies import Beam, Greedy, Sampling, Strategy
from transviz.core.model.config import ModelConfig
from transviz.core.model.vocab import PAD

Answer = tuple[str, str]
SENTENCE, TARGET = "ich mochte ein bier", "i want a beer"
_shipped: dict[str, transviz.Model] = {}


def crash(exc: BaseException) -> Answer:
    """The exception and the innermost frame of ours it came through, on one line."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "transviz" in f.filename] or \
        traceback.extract_tb(exc.__traceback__)[-1:]
    where = f" at {Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else ""
    return "crash", f"{type(exc).__name__}: {str(exc)[:150]}{where}"


def finite(array: Any) -> bool:
    return bool(np.isfinite(np.asarray(array, dtype=np.float64)).all())


def trace_problem(trace: transviz.Trace) -> str | None:
    """What is wrong with a decoded or teacher-forced trace (None: nothing)."""
    p = np.asarray(trace.output_probabilities, dtype=np.float64)
    if not finite(p) or (p < 0).any() or (p > 1 + 1e-6).any():
        return f"probabilities from {p.min():.3g} to {p.max():.3g} ({np.isnan(p).sum()} NaN of {p.size})"
    for name in ("encoder_self_attention", "decoder_self_attention", "cross_attention"):
        if not finite(getattr(trace, name)):
            return f"{name} not finite"
    if trace.strategy != "teacher_forcing" and PAD in trace.output_tokens:
        return f"output {trace.output_tokens[:4]}"
    return None


def well_typed(hint: Any, value: Any) -> bool:
    """``value`` is what the config's annotation ``hint`` allows: an int is no bool, a float finite,
    a Literal one of its values."""
    if get_origin(hint) is Literal:
        return value in get_args(hint) and isinstance(value, str)
    if get_origin(hint) in (Union, UnionType):
        return any(well_typed(option, value) for option in get_args(hint))
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    return type(value) is hint


def model_problem(model: transviz.Model) -> str | None:
    """A loaded model whose settings are mistyped (``pad_id=true``, ``tie_output="no"``...)."""
    hints = get_type_hints(ModelConfig)
    for name, value in model.config.to_dict().items():
        if not well_typed(hints[name], value):
            return f"config.{name} = {value!r}"
    for vocab in (model.src_vocab, model.tgt_vocab):
        if not all(isinstance(t, str) for t in vocab.itos) or len(set(vocab.itos)) != len(vocab.itos):
            return "vocabulary tokens not distinct strings"
        if not isinstance(vocab.lowercase, bool):
            return f"lowercase = {vocab.lowercase!r}"
    return None


def load(job: dict[str, Any]) -> Answer:
    """Load a checkpoint, then decode and teacher-force with it."""
    try:
        model = transviz.load_model(job["path"])
        problem = model_problem(model)
        if problem:
            return "silent", problem
        for trace in (transviz.decode(model, SENTENCE, max_len=12), transviz.teacher_force(model, SENTENCE, TARGET)):
            problem = trace_problem(trace)
            if problem:
                return "silent", f"{trace.strategy}: {problem}"
    except transviz.TransvizError as exc:
        return "clear", str(exc)[:150]
    return "valid", ""


def make_strategy(spec: dict[str, Any]) -> Strategy:
    settings = {k: v for k, v in spec.items() if k != "name"}
    return {"greedy": Greedy, "sampling": Sampling, "beam": Beam}[spec["name"]](**settings)


def sentence(job: dict[str, Any]) -> Answer:
    model = _shipped.setdefault("default", transviz.load_model("default"))
    try:
        trace = transviz.decode(model, job["text"], make_strategy(job["strategy"]), job["max_len"])
        problem = trace_problem(trace)
        if problem:
            return "silent", problem
        problem = trace_problem(transviz.teacher_force(model, job["text"], job["target"]))
        if problem:
            return "silent", f"teacher forcing: {problem}"
    except transviz.TransvizError as exc:
        return "clear", str(exc)[:150]
    return "valid", ""


def digest(path: str) -> str | None:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def cli(job: dict[str, Any]) -> Answer:
    """``transviz ARGV`` in this process, its stdout encoded strictly as a terminal would."""
    from transviz.cli import main

    before = {p: digest(p) for p in job["protect"]}
    out, err = io.BytesIO(), io.BytesIO()
    streams = sys.stdin, sys.stdout, sys.stderr
    # kept in locals: a wrapper that is collected closes the buffer under it
    terminal = (io.TextIOWrapper(out, encoding=job["encoding"], errors="strict", line_buffering=True),
                io.TextIOWrapper(err, encoding=job["encoding"], errors="backslashreplace", line_buffering=True))
    sys.stdin, (sys.stdout, sys.stderr) = io.StringIO(job["stdin"]), terminal
    try:
        code = main(job["argv"])
    except SystemExit as exc:  # argparse's usage errors
        code = exc.code if isinstance(exc.code, int) else 1
    except Exception as exc:
        return crash(exc)
    finally:
        for stream in terminal:
            stream.flush()
        sys.stdin, sys.stdout, sys.stderr = streams
    stdout, stderr = out.getvalue().decode("latin-1"), err.getvalue().decode("latin-1")
    lines = [line for line in stderr.splitlines() if line.strip()]
    if code != 0:
        if "Traceback" in stderr or not lines or not lines[-1].startswith("transviz"):
            return "crash", f"exit {code}: {lines[-1][:150] if lines else 'nothing on stderr'}"
        return "clear", lines[-1][:150]
    changed = [Path(p).name for p in job["protect"] if digest(p) != before[p]]
    if changed:
        return "silent", f"exit 0 and {', '.join(changed)} replaced"
    if re.search(r"\b(nan|inf)\b", stdout):
        return "silent", "nan or inf printed"
    chosen = re.findall(r"^\s*\d+\s+\S.*?\s(\d\.\d{3})\s", stdout, flags=re.MULTILINE)
    if len(chosen) >= 3 and all(p == "0.000" for p in chosen):
        return "silent", f"{len(chosen)} tokens of p = 0.000 chosen"
    return "valid", ""


def corpus(job: dict[str, Any]) -> Answer:
    """Read a corpus and train a tiny model on it for one step, as ``transviz train --data`` would."""
    from transviz.core.data.corpus import load_tsv
    from transviz.core.model.config import TrainConfig
    from transviz.core.training.train import Trainer, build_model

    try:
        dataset = load_tsv(job["path"], level=job["level"])
        config = TrainConfig(steps=1, batch_size=16, eval_every=0, eval_limit=2, snapshot_every=0,
                             checkpoint_every=0, device="cpu")
        model = build_model(dataset, config, d_model=16, n_heads=2, d_ff=32, n_encoder_layers=1, n_decoder_layers=1)
        result = Trainer(model, dataset, config).run()
    except transviz.TransvizError as exc:
        return "clear", str(exc)[:150]
    if result.status != "finished":
        return "silent", f"training {result.status}: {result.message}"
    return "valid", ""


def settings(job: dict[str, Any]) -> Answer:
    """Read a settings file the way the window does at start."""
    from transviz.gui.services.settings import SettingsStore

    stored = SettingsStore(job["path"]).load()
    return "valid", "; ".join(stored.warnings)[:150]


def allocate(job: dict[str, Any]) -> Answer:
    """The harness's own check: more memory than the cap allows is a MemoryError here."""
    return "valid", str(len(bytearray(job["bytes"])))


def abort(job: dict[str, Any]) -> Answer:
    """The harness's own check: a process that dies the way Qt's std::bad_alloc ends it."""
    os.abort()


def wait(job: dict[str, Any]) -> Answer:
    """The harness's own check: a case that never answers (as a FIFO read as settings did)."""
    time.sleep(job["seconds"])
    return "valid", "woke"


JOBS = {"load": load, "sentence": sentence, "cli": cli, "corpus": corpus, "settings": settings,
        "allocate": allocate, "abort": abort, "wait": wait}


def mapped_bytes() -> int:
    """The address space this process maps now (the first field of /proc/self/statm, in pages)."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[0]) * resource.getpagesize()


def cap_memory(headroom: int) -> None:
    """Cap the address space at ``headroom`` bytes above what is mapped now, once torch is imported."""
    cap = mapped_bytes() + headroom
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


def hugging_face_imported() -> None:
    """transformers' modules for Marian folders, imported before the cap: they map hundreds of MB."""
    try:
        from transformers import AutoConfig, AutoTokenizer, MarianConfig, MarianTokenizer  # noqa: F401
    except ImportError:  # the hf extra is optional; its cases then end clear, saying how to install it
        pass


def main() -> None:
    answers = os.fdopen(os.dup(1), "w")  # our channel; anything else printed goes to stderr
    os.dup2(2, 1)
    torch.set_num_threads(1)
    hugging_face_imported()
    cap_memory(int(sys.argv[1]))
    print(json.dumps({"outcome": "ready"}), file=answers, flush=True)
    for line in sys.stdin:
        job = json.loads(line)
        try:
            outcome, detail = JOBS[job["do"]](job)
        except Exception as exc:  # MemoryError, RecursionError and every other escape
            outcome, detail = crash(exc)
        print(json.dumps({"outcome": outcome, "detail": detail}), file=answers, flush=True)


if __name__ == "__main__":
    main()
