"""``transviz train``: train a model on a built-in task or a TSV corpus and save it.

A progress bar (stderr) shows loss and ETA; a summary follows. The first Ctrl-C stops after the
current batch, saves the model and exits 0; a second one aborts.

Under ``torchrun`` every process trains on its share of each batch and only rank 0 prints and
saves. torchrun passes one Ctrl-C on to each process: they all stop after the same batch and
rank 0 saves (torchrun itself then reports the interrupt and kills what is left after 30 s).
"""
from __future__ import annotations

import argparse
import dataclasses
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ..core.base.errors import InputError
from ..core.model.config import ARCHITECTURES, SCHEDULES, TRAINED_POSITIONALS, TrainConfig

if TYPE_CHECKING:
    from ..core.training.distributed import World

MODEL_FLAGS = {  # flag dest -> ModelConfig field(s)
    "layers": ("n_encoder_layers", "n_decoder_layers"), "heads": ("n_heads",), "d_model": ("d_model",),
    "d_ff": ("d_ff",), "dropout": ("dropout",), "norm": ("norm",), "activation": ("activation",),
    "share_embeddings": ("share_embeddings",), "tie_output": ("tie_output",), "window": ("attention_window",),
    "layer_norm": ("layer_norm",), "kv_heads": ("n_kv_heads",), "positions": ("positional",),
    "architecture": ("architecture",),
}
TRAIN_FLAGS = {  # flag dest -> TrainConfig field
    "steps": "steps", "batch_size": "batch_size", "lr": "lr", "schedule": "schedule", "warmup": "warmup_steps",
    "label_smoothing": "label_smoothing", "clip": "clip_norm", "init": "init", "seed": "seed", "device": "device",
    "eval_every": "eval_every", "eval_limit": "eval_limit", "snapshot_every": "snapshot_every",
    "checkpoint_every": "checkpoint_every", "probe": "probe", "max_output_len": "max_output_len",
}


def register(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser("train", help="train a model on a task or a TSV file and save it",
                            description="Train a Transformer and save it as one .safetensors file. "
                                        "Settings not given come from --recipe, else from the defaults.")
    data = p.add_argument_group("data")
    data.add_argument("--task", help="built-in task (toy-de-en, dates, copy, reverse, sort)")
    data.add_argument("--data", metavar="FILE.tsv", help="your corpus: source<TAB>target per line")
    data.add_argument("--recipe", help="a tested recipe (e.g. toy-de-en): task, model and training settings")
    model = p.add_argument_group("model")
    model.add_argument("--layers", type=int, help="encoder and decoder layers each (default 2)")
    model.add_argument("--heads", type=int, help="attention heads (default 4)")
    model.add_argument("--kv-heads", type=int, metavar="N",
                       help="key/value heads shared by the query heads: 1 = multi-query, fewer than --heads = "
                            "grouped-query (default: one per head)")
    model.add_argument("--d-model", type=int, help="model width (default 128)")
    model.add_argument("--d-ff", type=int, help="feed-forward width (default 512)")
    model.add_argument("--dropout", type=float, help="dropout (default 0.1)")
    model.add_argument("--norm", choices=("post", "pre"), help="LayerNorm after (paper) or before sublayers")
    model.add_argument("--layer-norm", choices=("standard", "rms"),
                       help="LayerNorm (the paper's, default) or RMSNorm (no mean taken away, no bias)")
    model.add_argument("--activation", choices=("relu", "gelu"))
    model.add_argument("--share-embeddings", action="store_true", default=None, help="one joint vocabulary and table")
    model.add_argument("--tie-output", action="store_true", default=None, help="output layer = target embedding")
    model.add_argument("--positions", choices=TRAINED_POSITIONALS,
                       help="sine table added to the embeddings (the paper's, default), a learned table, rotary "
                            "queries and keys (RoPE), ALiBi's distance bias on the scores, T5's learned bias per "
                            "bucket of offsets, or none")
    model.add_argument("--architecture", choices=ARCHITECTURES,
                       help="encoder and decoder (the paper, default), or one decoder-only stack reading source, "
                            "start token and target as one stream: prefix-lm sees the whole source from every "
                            "source position, decoder-only only what came before")
    model.add_argument("--window", type=int, metavar="W",
                       help="sliding-window self-attention: keys fewer than W positions away (default 0: all)")
    train = p.add_argument_group("training")
    train.add_argument("--steps", type=int, help="optimiser updates (default 4000)")
    train.add_argument("--batch-size", "--batch", type=int, help="sentences per batch (default 64)")
    train.add_argument("--lr", type=float, help="peak learning rate; the scale factor for noam (default 1e-3)")
    train.add_argument("--schedule", choices=SCHEDULES, help="learning-rate schedule (default warmup)")
    train.add_argument("--warmup", type=int, help="warm-up steps (default 400)")
    train.add_argument("--label-smoothing", type=float, help="default 0.1")
    train.add_argument("--clip", type=float, help="gradient norm limit, 0 = off (default 1.0)")
    train.add_argument("--init", help="default, xavier_uniform, xavier_normal, kaiming_uniform, kaiming_normal, "
                                      "normal:STD, uniform:A")
    train.add_argument("--seed", type=int)
    train.add_argument("--device", help="auto (CUDA, else MPS, else CPU), cpu, cuda, cuda:N, mps")
    train.add_argument("--eval-every", type=int, help="validate every N steps (default 500; 0 = at the end)")
    train.add_argument("--eval-limit", type=int, help="validation sentences decoded each time (default 500)")
    train.add_argument("--snapshot-every", type=int, help="attention snapshot of the probe every N steps (default 100)")
    train.add_argument("--checkpoint-every", type=int,
                       help="also save every N steps, so a crash keeps the last save "
                            "(default 200; 0 = only at the end)")
    train.add_argument("--probe", help="sentence whose attention is snapshotted (default: the task's first example)")
    train.add_argument("--max-output-len", type=int, help="decoding limit in evaluation")
    p.add_argument("--out", default="model.safetensors", help="where to save (default model.safetensors)")
    p.add_argument("--half", action="store_true",
                   help="store the weights in float16: half the file; the model still computes in float32, and the "
                        "final test is the stored model's")
    p.add_argument("--force", action="store_true",
                   help="let --out replace an existing file that is not a transviz checkpoint")
    p.set_defaults(func=run)


def _settings(args: argparse.Namespace) -> tuple[Any, dict[str, Any], TrainConfig]:
    """The dataset, the model settings and the training config the flags ask for."""
    from ..core.training.recipes import Recipe, recipe

    base = recipe(args.recipe) if args.recipe else Recipe(task="")
    model = dict(base.model)
    for flag, names in MODEL_FLAGS.items():
        if getattr(args, flag) is not None:
            model.update({name: getattr(args, flag) for name in names})
    changes = {field: getattr(args, flag) for flag, field in TRAIN_FLAGS.items() if getattr(args, flag) is not None}
    config = dataclasses.replace(base.train, **changes)
    return _dataset(args, base.task), model, config


def _dataset(args: argparse.Namespace, recipe_task: str) -> Any:
    from ..core.data import tasks

    if args.task and args.data:
        raise InputError("give --task or --data, not both")
    if args.data:
        load_tsv = getattr(tasks, "load_tsv", None)
        if load_tsv is None:
            raise InputError("this build cannot read TSV corpora yet; use --task")
        return load_tsv(args.data, seed=0)
    name = args.task or recipe_task
    if not name:
        raise InputError(f"say what to train on: --task NAME ({', '.join(tasks.TASKS)}) or --data FILE.tsv")
    return tasks.load_task(name)


@contextmanager
def _ctrl_c_stops(trainer: Any) -> Iterator[None]:
    """First Ctrl-C: stop after this batch and save. Second: abort."""

    def first(signum: int, frame: object) -> None:
        print("\ntransviz: stopping after this batch and saving (Ctrl-C again to abort)", file=sys.stderr, flush=True)
        trainer.stop()
        signal.signal(signal.SIGINT, signal.default_int_handler)

    previous = signal.signal(signal.SIGINT, first)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def run(args: argparse.Namespace) -> int:
    from ..core.training import distributed

    world = distributed.from_environment()
    if world.leader:  # before anything is read or built
        from ..core.io.outputs import CHECKPOINT, check_output

        check_output(args.out, CHECKPOINT, inputs=[args.data], force=args.force)
    dataset, model_settings, config = _settings(args)
    world = distributed.start(config.device)
    try:
        return _train(args, dataset, model_settings, config, world)
    finally:
        distributed.stop(world)


def _train(args: argparse.Namespace, dataset: Any, model_settings: dict[str, Any], config: TrainConfig,
           world: World) -> int:
    from ..core.training.train import Trainer, build_model

    model = build_model(dataset, config, **model_settings)  # the same seed, so the same weights, everywhere
    progress = _Progress(config.steps) if world.leader else None  # only rank 0 prints
    trainer = Trainer(model, dataset, config, progress, checkpoint_path=args.out,  # type: ignore[arg-type]  # see _Progress
                      world=world, half=args.half)
    try:
        with _ctrl_c_stops(trainer):
            if world.leader:
                processes = f" x {world.size} processes" if world.distributed else ""
                print(f"training on {trainer.device}{processes}: {dataset.summary()}; "
                      f"{model.net.parameter_count():,} parameters, {config.steps} steps", flush=True)
            result = trainer.run()
    finally:
        if progress is not None:
            progress.close()
    if world.leader:
        print(_summary(result))
    return 1 if result.status == "diverged" else 0


class _Progress:
    """tqdm bar fed by the trainer's step metrics: a TrainObserver by its methods (subclassing it
    here would import torch whenever the command line starts; the Trainer's signature asks for
    the class itself, hence the type: ignore where it is passed)."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.bar: Any = None  # made at the first step, so that setting up does not distort the ETA

    def on_step(self, metrics: Any) -> None:
        if self.bar is None:
            from tqdm import tqdm

            self.bar = tqdm(total=self.total, initial=metrics.step - 1, unit="step", desc="training",
                            file=sys.stderr, dynamic_ncols=True)
        self.bar.set_postfix(loss=f"{metrics.loss:.3f}", lr=f"{metrics.lr:.2g}", refresh=False)
        self.bar.update(1)

    def on_validation(self, step: int, evaluation: Any) -> None:
        from tqdm import tqdm

        bleu = f", BLEU {evaluation.bleu:.1f}" if evaluation.bleu is not None else ""
        tqdm.write(f"step {step}: valid loss {evaluation.loss:.3f}, exact match {evaluation.exact_match:.1%}{bleu}",
                   file=sys.stderr)

    def on_snapshot(self, snapshot: Any) -> None:
        pass

    def on_paused(self, step: int) -> None:
        pass  # the command line never pauses

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _summary(result: Any) -> str:
    lines = [f"{result.status}: {result.message}",
             f"device {result.device}, {result.steps} steps in {result.seconds:.1f} s"]
    if result.test is not None:
        test = result.test
        lines.append(f"test exact match: {test.exact_match:.1%} of {test.count} pairs")
        lines += [f"  {group}: {score:.1%}" for group, score in test.groups.items()]
        if test.bleu is not None:
            lines.append(f"test BLEU: {test.bleu:.1f}")
    elif result.validation is not None:
        lines.append(f"validation exact match: {result.validation.exact_match:.1%}")
    lines.append(f"saved: {result.checkpoint}" if result.checkpoint else "nothing saved")
    return "\n".join(lines)
