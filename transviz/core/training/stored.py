"""A trained checkpoint stored again in half precision (the shipped models are stored so), and
tested as stored: its recorded test figures become those of the weights the file holds."""
from __future__ import annotations

from pathlib import Path

from ..data.tasks import TASKS, load_task
from ..io import checkpoint
from .evaluate import Evaluation, evaluate
from .train import output_limit


def store_half(source: str | Path, out: str | Path) -> tuple[Path, Evaluation | None]:
    """Write the checkpoint ``source`` to ``out`` with float16 weights, its timeline and curves kept.
    A model of a built-in task is tested again on the task's test split, rounded as stored, and the
    file records that test (None for a model of another corpus, whose record stays as it was)."""
    model = checkpoint.load(source)
    checkpoint.round_to_half(model.net)
    test = None
    task = model.facts.get("task")
    if task in TASKS:
        dataset = load_task(task)
        test = evaluate(model, dataset.test, output_limit(model, dataset))
        model.facts["test"] = test.to_dict()
    return checkpoint.save(model, out, checkpoint.load_extras(source), half=True), test
