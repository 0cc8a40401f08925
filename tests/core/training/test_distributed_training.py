"""``transviz train`` under torchrun: two processes on the CPU (gloo) against one process with the
same seed and the same batches.

The corpus is a tiny copy task whose 31 training pairs and batches of 15 give two processes unequal
shares (8 and 7 sentences of unequal lengths, so the token weighting of the loss matters) and, once
an epoch, a batch of one sentence that leaves the second process nothing to train on.
"""
from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

import transviz
from run_once import once_per_run
from transviz.cli import main
from transviz.core.base.errors import ConfigError
from transviz.core.io.checkpoint import read_metadata
from transviz.core.training.curves import load_curves
from transviz.core.training.distributed import ALONE, World, device_for, from_environment
from transviz.core.training.snapshots import load_snapshots

ROOT = Path(__file__).resolve().parents[3]
SYMBOLS = "0123456789abcdef"
PAIRS = 37  # load_tsv holds out 3 + 3: 31 training pairs, batches of 15, 15 and 1 per epoch
# Tolerance of the loss curves: the two runs add the same numbers in another order (per process
# then across processes, against all at once), float32 rounding near 1e-7 that training carries
# on and grows a little step by step (measured here: 2e-7 at most). Averaging the processes' own
# mean losses instead of weighting them by their tokens moves this curve by up to 0.5.
RELATIVE = 1e-4
STEPS = 24
ARGS = ["train", "--layers", "1", "--heads", "2", "--d-model", "16", "--d-ff", "32", "--dropout", "0",
        "--device", "cpu", "--steps", str(STEPS), "--batch-size", "15", "--lr", "3e-3", "--warmup", "4",
        "--seed", "3", "--eval-every", "12", "--snapshot-every", "12", "--checkpoint-every", "0"]


def copy_corpus(path: Path) -> Path:
    rng = random.Random(0)
    lines: list[str] = []
    while len(lines) < PAIRS:
        words = " ".join(rng.choice(SYMBOLS) for _ in range(rng.randint(3, 12)))
        if f"{words}\t{words}" not in lines:
            lines.append(f"{words}\t{words}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def torchrun(args: list[str], cwd: Path, **popen: object) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    for name in ("WORLD_SIZE", "RANK", "LOCAL_RANK"):
        env.pop(name, None)
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2",
               "-m", "transviz", *args]
    return subprocess.Popen(command, cwd=cwd, env=env, text=True, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, **popen)  # type: ignore[call-overload]  # popen: Popen's options


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """(single-process checkpoint, two-process checkpoint, the two-process run's stdout, its folder),
    trained once per test run."""

    def train(base: Path) -> None:
        corpus = copy_corpus(base / "copy.tsv")
        alone, together = base / "alone", base / "together"
        alone.mkdir()
        together.mkdir()
        proc = torchrun([*ARGS, "--data", str(corpus), "--out", "m.safetensors"], together)
        assert main([*ARGS, "--data", str(corpus), "--out", str(alone / "m.safetensors")]) == 0
        stdout, stderr = proc.communicate(timeout=180)
        assert proc.returncode == 0, stderr
        (base / "stdout.txt").write_text(stdout, encoding="utf-8")

    base = once_per_run(tmp_path_factory, "ddp", train)
    together = base / "together"
    stdout = (base / "stdout.txt").read_text(encoding="utf-8")
    return base / "alone" / "m.safetensors", together / "m.safetensors", stdout, together


@pytest.mark.process
@pytest.mark.training
def test_two_processes_follow_the_single_process_loss_curve(runs):
    alone, together, _, _ = runs
    one, two = load_curves(alone), load_curves(together)
    assert one is not None and two is not None
    assert one.steps == two.steps == list(range(1, STEPS + 1))
    assert one.lr == two.lr
    loss_one, loss_two = torch.tensor(one.loss), torch.tensor(two.loss)
    assert loss_one[-1] < 0.9 * loss_one[0]  # it learned something, so the curve is worth matching
    worst = ((loss_two - loss_one).abs() / loss_one).max().item()
    print(f"largest relative difference of the loss curves: {worst:.2e}")
    assert worst < RELATIVE
    torch.testing.assert_close(torch.tensor(two.token_accuracy), torch.tensor(one.token_accuracy), atol=0.02, rtol=0)
    assert two.valid_steps == one.valid_steps == [12, STEPS]  # rank 0 validated


@pytest.mark.process
@pytest.mark.training
def test_the_weights_match_and_the_checkpoint_loads_and_decodes(runs):
    alone, together, _, _ = runs
    model_one, model_two = transviz.load_model(str(alone)), transviz.load_model(str(together))
    d_model = model_one.config.d_model
    for (name, a), (_, b) in zip(model_one.net.state_dict().items(), model_two.net.state_dict().items(), strict=True):
        if name.endswith("in_proj_bias"):
            # The key bias adds the same score to every key, which softmax ignores: its gradient is
            # rounding noise that Adam scales up to full steps, so it differs between any two runs.
            a, b = torch.cat([a[:d_model], a[2 * d_model :]]), torch.cat([b[:d_model], b[2 * d_model :]])
        torch.testing.assert_close(b, a, atol=1e-4, rtol=1e-4, msg=name)
    facts = model_two.facts
    assert facts["status"] == "finished" and facts["steps"] == STEPS and facts["processes"] == 2
    assert facts["test"] is not None and facts["test"]["count"] == 3
    source = model_two.facts["probe"]
    trace = transviz.decode(model_two, source)
    assert trace.predicted_tokens and trace.cross_attention.shape[-1] == len(trace.source_tokens)
    assert [s.step for s in load_snapshots(together)] == [0, 12, STEPS]  # rank 0 snapshotted


@pytest.mark.process
@pytest.mark.training
def test_only_rank_0_prints_and_writes(runs):
    _, _, stdout, folder = runs
    assert stdout.count("training on cpu x 2 processes") == 1
    assert stdout.count("finished: finished") == 1 and stdout.count("saved: m.safetensors") == 1
    assert sorted(p.name for p in folder.iterdir()) == ["m.safetensors"]


def recorded_facts(path):
    """A checkpoint's training facts, read from its header: on a loaded machine the reader may meet a
    checkpoint thousands of steps in, whose weights a long run at this learning rate has blown up
    (loading it would refuse them), and the facts are what this test is about."""
    return json.loads(read_metadata(path)["facts"])


@pytest.mark.process
@pytest.mark.training
def test_ctrl_c_stops_every_process_at_the_same_step_and_rank_0_saves(tmp_path):
    corpus = copy_corpus(tmp_path / "copy.tsv")
    out = tmp_path / "m.safetensors"
    args = [*ARGS, "--steps", "100000", "--eval-every", "0", "--snapshot-every", "0", "--checkpoint-every", "5"]
    proc = torchrun([*args, "--data", str(corpus), "--out", str(out)], tmp_path)
    try:
        # the checkpoint of step 5; two processes starting on a loaded 2-core machine take a while
        deadline = time.monotonic() + 240
        while not out.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert out.exists(), "no checkpoint of step 5 within 240 s"
        assert recorded_facts(out)["status"] == "running"
        proc.send_signal(signal.SIGINT)  # what a terminal's Ctrl-C sends torchrun
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert "stopping after this batch" in stderr and "stopped: stopped after" in stdout, stderr
    facts = recorded_facts(out)
    assert facts["status"] == "stopped" and 5 <= facts["steps"] < 100000
    assert sorted(p.name for p in tmp_path.iterdir()) == ["copy.tsv", "m.safetensors"]


@pytest.mark.process
@pytest.mark.training
def test_a_diverging_run_ends_every_process(tmp_path):
    """All processes see the same summed loss and rank 0's probe verdict, so all stop at one step
    (a process left behind would wait in the next all-reduce until torchrun's timeout)."""
    corpus = copy_corpus(tmp_path / "copy.tsv")
    args = [*ARGS, "--steps", "60", "--lr", "1e6", "--warmup", "0", "--schedule", "constant", "--clip", "0",
            "--snapshot-every", "1", "--eval-every", "0"]
    proc = torchrun([*args, "--data", str(corpus), "--out", "m.safetensors"], tmp_path)
    try:
        stdout, stderr = proc.communicate(timeout=90)
    finally:
        proc.kill()
    assert proc.returncode != 0 and stdout.count("diverged: training diverged at step") == 1, stderr
    assert "saved: m.safetensors" in stdout  # rank 0 saved the last finite weights before any process ended
    assert transviz.load_model(str(tmp_path / "m.safetensors")).facts["status"] == "diverged"

# Every sibling recipe's change (transviz.core.training.recipes.SIBLING_CHANGES), in two runs: rotary and
# ALiBi exclude each other. Heads 2 of 8 dimensions: rotary needs an even width per head. The decoder-only
# run turns each sentence by its own positions (its target's follow its source's).
VARIANTS = {"rotary-gqa-decoder-only": ["--heads", "2", "--kv-heads", "1", "--positions", "rotary",
                                        "--architecture", "prefix-lm"],
            "alibi-window-pre-norm": ["--kv-heads", "1", "--positions", "alibi", "--window", "3", "--norm", "pre",
                                      "--layer-norm", "rms", "--schedule", "constant", "--warmup", "0"]}


@pytest.mark.process
@pytest.mark.training
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_the_variants_train_under_torchrun_as_in_one_process(tmp_path, variant):
    corpus = copy_corpus(tmp_path / "copy.tsv")
    (tmp_path / "together").mkdir()
    args = [*ARGS, *VARIANTS[variant], "--eval-every", "0", "--snapshot-every", "0", "--data", str(corpus)]
    proc = torchrun([*args, "--out", "m.safetensors"], tmp_path / "together")
    assert main([*args, "--out", str(tmp_path / "alone.safetensors")]) == 0
    _, stderr = proc.communicate(timeout=180)
    assert proc.returncode == 0, stderr
    one, two = load_curves(tmp_path / "alone.safetensors"), load_curves(tmp_path / "together" / "m.safetensors")
    assert one is not None and two is not None and one.steps == two.steps
    loss_one, loss_two = torch.tensor(one.loss), torch.tensor(two.loss)
    assert loss_one[-1] < 0.9 * loss_one[0]
    assert ((loss_two - loss_one).abs() / loss_one).max().item() < RELATIVE
    config = transviz.load_model(str(tmp_path / "together" / "m.safetensors")).config
    assert config.n_kv_heads == 1 and config.positional == VARIANTS[variant][VARIANTS[variant].index("--positions") + 1]


def test_torchrun_environment_names_the_process():
    assert from_environment({}) is ALONE and from_environment({"WORLD_SIZE": "1", "RANK": "0"}) is ALONE
    world = from_environment({"WORLD_SIZE": "4", "RANK": "5", "LOCAL_RANK": "1"})
    assert (world.rank, world.size, world.local_rank, world.leader, world.distributed) == (5, 4, 1, False, True)
    assert ALONE.leader and not ALONE.distributed


def test_the_shares_of_a_batch_make_up_the_batch():
    for size in (1, 2, 3, 5):
        for batch in ([7], list(range(10, 25)), [3, 1, 4, 1, 5, 9, 2, 6]):
            shares = [World(rank, size).share(batch) for rank in range(size)]
            assert sorted(i for share in shares for i in share) == sorted(batch)
            assert max(map(len, shares)) - min(map(len, shares)) <= 1  # as even as rows allow


def test_each_process_gets_its_own_device():
    assert device_for("cpu", 3) == torch.device("cpu")
    if not torch.cuda.is_available():
        assert device_for("auto", 1) == torch.device("cpu")
    for spec in ("cuda:1", "mps"):
        with pytest.raises(ConfigError, match="local rank"):
            device_for(spec, 0)
