"""``transviz train`` end to end on a tiny run, its errors, and Ctrl-C in a real subprocess."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch

import transviz
from transviz.cli import main
from transviz.core.training.snapshots import load_snapshots

ROOT = Path(__file__).resolve().parents[2]
TINY = ["--layers", "1", "--heads", "2", "--d-model", "16", "--d-ff", "32", "--device", "cpu"]


def test_train_command_trains_saves_and_summarises(tmp_path, capsys):
    out = tmp_path / "m.safetensors"
    code = main(["train", "--task", "copy", *TINY, "--steps", "12", "--batch-size", "16", "--warmup", "4",
                 "--eval-every", "6", "--eval-limit", "20", "--snapshot-every", "4", "--out", str(out)])
    printed = capsys.readouterr()
    assert code == 0
    assert "training on cpu: copy" in printed.out
    assert "finished: finished 12 steps" in printed.out
    assert "test exact match:" in printed.out and "seen-patterns:" in printed.out
    assert f"saved: {out}" in printed.out
    assert "step 6: valid loss" in printed.err  # validation lines beside the progress bar
    model = transviz.load_model(str(out))
    assert model.facts["steps"] == 12 and model.facts["train_config"]["warmup_steps"] == 4
    assert model.config.n_encoder_layers == model.config.n_decoder_layers == 1 and model.config.d_model == 16
    assert [s.step for s in load_snapshots(out)] == [0, 4, 8, 12]


def test_a_windowed_model_trains_saves_and_decodes_as_saved(tmp_path, capsys):
    out = tmp_path / "w.safetensors"
    assert main(["train", "--task", "copy", *TINY, "--window", "2", "--steps", "6", "--batch-size", "8",
                 "--eval-every", "0", "--eval-limit", "5", "--snapshot-every", "0", "--out", str(out)]) == 0
    model = transviz.load_model(str(out))
    assert model.config.attention_window == 2
    trace = transviz.teacher_force(model, "a b c d", "a b c d")
    for maps in (trace.encoder_self_attention, trace.decoder_self_attention):  # (layers, heads, L, L)
        far = np.array([[abs(i - j) >= 2 for j in range(maps.shape[-1])] for i in range(maps.shape[-2])])
        assert (maps[..., far] == 0).all()


def test_an_rms_norm_model_trains_and_saves(tmp_path):
    out = tmp_path / "r.safetensors"
    assert main(["train", "--task", "copy", *TINY, "--norm", "pre", "--layer-norm", "rms", "--steps", "4",
                 "--batch-size", "8", "--eval-every", "0", "--eval-limit", "5", "--snapshot-every", "0",
                 "--out", str(out)]) == 0
    config = transviz.load_model(str(out)).config
    assert (config.layer_norm, config.norm) == ("rms", "pre")


def test_a_grouped_query_model_trains_and_caches_its_shared_heads(tmp_path):
    out = tmp_path / "g.safetensors"
    assert main(["train", "--task", "copy", *TINY, "--kv-heads", "1", "--steps", "4", "--batch-size", "8",
                 "--eval-every", "0", "--eval-limit", "5", "--snapshot-every", "0", "--out", str(out)]) == 0
    model = transviz.load_model(str(out))
    assert model.config.n_kv_heads == 1
    layer = model.net.decoder_layers[0].self_attn
    assert layer.in_proj_weight.shape == (model.config.d_model + 2 * model.config.d_k, model.config.d_model)
    trace = transviz.decode(model, "a b c")
    assert trace.decoder_self_attention.shape[1] == trace.cross_attention.shape[1] == 2  # a map per query head


@pytest.mark.parametrize("positions", ["rotary", "alibi", "none"])
def test_a_model_with_positions_in_attention_trains_and_saves(tmp_path, positions):
    out = tmp_path / "p.safetensors"
    assert main(["train", "--task", "copy", *TINY, "--positions", positions, "--steps", "3", "--batch-size", "8",
                 "--eval-every", "0", "--eval-limit", "5", "--snapshot-every", "0", "--out", str(out)]) == 0
    assert transviz.load_model(str(out)).config.positional == positions


def test_half_stores_float16_weights_and_tests_the_stored_model(tmp_path, capsys):
    from safetensors import safe_open

    from transviz.core.data.tasks import load_task
    from transviz.core.training.evaluate import evaluate

    args = ["train", "--task", "copy", *TINY, "--steps", "30", "--batch-size", "16", "--lr", "3e-3",
            "--eval-every", "0", "--snapshot-every", "0", "--checkpoint-every", "0"]
    assert main([*args, "--out", str(tmp_path / "full.safetensors")]) == 0
    capsys.readouterr()
    assert main([*args, "--half", "--out", str(tmp_path / "half.safetensors")]) == 0
    printed = capsys.readouterr().out
    full, half = transviz.load_model(str(tmp_path / "full.safetensors")), transviz.load_model(
        str(tmp_path / "half.safetensors"))
    with safe_open(str(tmp_path / "half.safetensors"), framework="pt") as f:
        assert {f.get_slice(name).get_dtype() for name in f.keys() if not name.startswith("extra.")} == {"F16"}
    for (name, a), b in zip(full.net.state_dict().items(), half.net.state_dict().values(), strict=True):
        assert b.dtype == torch.float32, name  # computing in float32
        torch.testing.assert_close(b, a.half().float(), atol=0, rtol=0, msg=name)  # the same run, rounded
    assert (tmp_path / "half.safetensors").stat().st_size < 0.6 * (tmp_path / "full.safetensors").stat().st_size
    task = load_task("copy")
    longest = max(len(half.tgt_vocab.tokenize(p.target)) for p in task.train) + 10  # the trainer's limit
    test = evaluate(half, task.test, longest)  # what was stored, tested here again
    assert f"test exact match: {100 * test.exact_match:.1f}%" in printed
    assert half.facts["test"]["exact_match"] == pytest.approx(test.exact_match)


def test_convert_half_stores_a_checkpoint_again_and_tests_it_as_stored(tmp_path, capsys):
    from transviz.core.data.tasks import load_task
    from transviz.core.training.evaluate import evaluate
    from transviz.core.training.snapshots import load_snapshots

    full = tmp_path / "full.safetensors"
    assert main(["train", "--task", "copy", *TINY, "--steps", "20", "--batch-size", "16", "--lr", "3e-3",
                 "--eval-every", "0", "--snapshot-every", "10", "--out", str(full)]) == 0
    capsys.readouterr()
    assert main(["convert", str(full), str(tmp_path / "half.safetensors"), "--half"]) == 0
    printed = capsys.readouterr().out
    before, after = transviz.load_model(str(full)), transviz.load_model(str(tmp_path / "half.safetensors"))
    for a, b in zip(before.net.state_dict().values(), after.net.state_dict().values(), strict=True):
        torch.testing.assert_close(b, a.half().float(), atol=0, rtol=0)
    task = load_task("copy")
    longest = max(len(after.tgt_vocab.tokenize(p.target)) for p in task.train) + 10
    test = evaluate(after, task.test, longest)
    assert after.facts["test"]["exact_match"] == pytest.approx(test.exact_match)
    assert f"test exact match as stored: {test.exact_match:.1%}" in printed
    assert [s.step for s in load_snapshots(tmp_path / "half.safetensors")] == [0, 10, 20]  # the timeline kept
    assert after.facts["train_config"] == before.facts["train_config"]
    (tmp_path / "other.safetensors").write_bytes(b"not a checkpoint")
    assert main(["convert", str(tmp_path / "other.safetensors"), str(tmp_path / "x.safetensors"), "--half"]) == 1
    assert "x.safetensors" not in {p.name for p in tmp_path.iterdir()}


def test_train_command_errors_are_one_line(tmp_path, capsys):
    for argv, words in [
        (["train", "--task", "nope"], "no task called 'nope'"),
        (["train"], "--task NAME"),
        (["train", "--task", "copy", "--device", "cuda:63"], "not available"),
        (["train", "--task", "copy", "--heads", "3", "--d-model", "16"], "divisible"),
        (["train", "--task", "copy", "--heads", "4", "--kv-heads", "3"], "must divide"),
        (["train", "--task", "copy", "--lr", "0"], "lr must be positive"),
        (["train", "--task", "copy", "--data", "x.tsv"], "not both"),
    ]:
        assert main([*argv, "--out", str(tmp_path / "m.safetensors")]) == 1
        err = capsys.readouterr().err
        assert words in err and err.count("\n") == 1, err
    assert not (tmp_path / "m.safetensors").exists()


@pytest.mark.process
def test_ctrl_c_saves_a_loadable_checkpoint_and_exits_0(tmp_path):
    out = tmp_path / "m.safetensors"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "transviz", "train", "--task", "copy", *TINY, "--steps", "100000",
         "--eval-every", "0", "--snapshot-every", "0", "--checkpoint-every", "2", "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path,
    )
    try:
        assert proc.stdout.readline().startswith("training on cpu")
        deadline = time.monotonic() + 60
        while not out.exists() and time.monotonic() < deadline:  # the checkpoint of step 2
            time.sleep(0.05)
        assert transviz.load_model(str(out)).facts["status"] == "running"
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 0, stderr
    assert "stopped: stopped after" in stdout and "stopping after this batch" in stderr
    model = transviz.load_model(str(out))
    assert model.facts["status"] == "stopped" and 2 <= model.facts["steps"] < 100000
    assert [p.name for p in tmp_path.iterdir()] == ["m.safetensors"]  # no temporary file left


def test_an_unwritable_out_fails_before_training(capsys):
    code = main(["train", "--task", "copy", *TINY, "--steps", "3", "--out", "/proc/x/m.safetensors"])
    printed = capsys.readouterr()
    assert code == 1 and "training on" not in printed.out  # refused before the first step
    assert printed.err.startswith("transviz: cannot save the model to /proc/x/m.safetensors")
    assert printed.err.count("\n") == 1


def test_a_folder_as_out_fails_before_training(tmp_path, capsys):
    assert main(["train", "--task", "copy", *TINY, "--steps", "3", "--out", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "it is a folder" in err and err.count("\n") == 1
