"""``transviz decode`` on a real checkpoint file: text report, heatmaps, JSON, .npz, REPL, errors."""
import json
import re
import subprocess
import sys

import numpy as np
import pytest

import transviz
from decoding_models import SOURCE, forward, one_thread, tiny_model  # noqa: F401 (autouse)
from transviz.cli import main
from transviz.core.decoding.session import DecodingSession
from transviz.core.decoding.strategies import Beam, Sampling
from transviz.core.io import resources
from transviz.core.io.resources import shipped_models
from transviz.textplot import SHADES, display_width, heatmap


@pytest.fixture(scope="module")
def model_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("models") / "tiny.safetensors"
    transviz.save_model(tiny_model(), path)
    return str(path)


@pytest.fixture(scope="module")
def model(model_file):
    return transviz.load_model(model_file)


def run_cli(capsys, *args):
    code = main(["decode", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_prints_the_translation_then_each_step_with_candidates(capsys, model_file, model):
    code, out, err = run_cli(capsys, SOURCE, "--model", model_file, "--max-len", "9")
    assert code == 0 and err == ""
    session = DecodingSession(model, SOURCE, top_k=3, max_len=9)
    records = session.run_to_end()
    lines = out.splitlines()
    assert lines[0] == f"translation: {session.trace().translation}"
    step_lines = [line for line in lines if re.match(r"^\s+\d+  ", line)]
    assert len(step_lines) == len(records)
    for line, record in zip(step_lines, records, strict=True):
        fields = line.split()
        assert fields[:3] == [str(record.index + 1), record.token, f"{record.probability:.3f}"]
        listed = " ".join(f"{c.token} {c.probability:.3f}" for c in record.candidates)
        assert line.split("   ")[-1].replace(" \u00b7 ", " ") == listed
    assert lines[-1] == "stopped: " + ("end token" if session.stop_reason == "end" else "length limit (9 tokens)")
    assert all(display_width(line) <= 80 for line in lines)


def heatmap_values(out: str) -> dict[str, list[float]]:
    """Row label -> the values printed in that row of a --values heatmap."""
    rows = {}
    for line in out.splitlines():
        cells = re.findall(r"[ \u2591\u2592\u2593\u2588](1\.0|\.\d\d)", line)
        if cells and not line.startswith(("shades", "translation", "strategy", "step")):
            rows.setdefault(line.split()[0], []).extend(float(v) for v in cells)
    return rows


@pytest.mark.parametrize("show, head", [("cross", "mean"), ("decoder", "2"), ("encoder", "mean")])
def test_show_prints_the_chosen_matrix(capsys, model_file, model, show, head):
    code, out, _ = run_cli(capsys, SOURCE, "--model", model_file, "--max-len", "6", "--show", show,
                           "--layer", "0", "--head", head, "--values")
    assert code == 0
    session = DecodingSession(model, SOURCE, max_len=6)
    session.run_to_end()
    array = {"cross": session.cross_attention(), "decoder": session.decoder_self_attention(),
             "encoder": session.encoder_attention}[show][0]
    matrix = array.mean(0) if head == "mean" else array[int(head)]
    rows = session.source_tokens if show == "encoder" else session.target_tokens
    assert f"{show} attention, layer 0 of 0-1, " + ("mean of 4 heads" if head == "mean" else "head 2 of 0-3") in out
    printed = heatmap_values(out)
    for r, label in enumerate(dict.fromkeys(rows)):  # the first row with each label
        expected = matrix[r, : r + 1] if show == "decoder" else matrix[r]  # masked cells print no value
        np.testing.assert_allclose(printed[label][: len(expected)], expected, atol=0.0051)
    if show == "decoder":
        assert "\u00b7 masked" in out
    if show != "encoder":  # each query row names the token fed and the token written
        second = f"{session.target_tokens[1]} -> {session.output_tokens[1]}"
        assert any(line.split()[:3] == second.split() for line in out.splitlines())


@pytest.mark.parametrize(("encoder_layers", "decoder_layers"), [(1, 2), (2, 1)])
def test_show_counts_each_stacks_own_layers(capsys, tmp_path, encoder_layers, decoder_layers):
    """An encoder and a decoder of different depths: --show prints the decoder's last layer (a full
    forward pass's rows), the encoder's, and names a layer only the other stack has."""
    model = tiny_model(layers=encoder_layers, eos_bias=-4.0, decoder_layers=decoder_layers)
    path = str(transviz.save_model(model, tmp_path / "uneven.safetensors"))
    code, out, err = run_cli(capsys, SOURCE, "--model", path, "--max-len", "4", "--show", "cross", "--values")
    assert code == 0 and err == ""
    assert f"cross attention, layer {decoder_layers - 1} of 0-{decoder_layers - 1}, mean of 4 heads" in out
    session = DecodingSession(transviz.load_model(path), SOURCE, max_len=4)
    session.run_to_end()
    ids = [model.tgt_vocab.stoi[t] for t in session.output_tokens]
    expected = forward(model, SOURCE, ids[:-1]).cross[-1].mean(0)  # (T, S): the last decoder layer
    printed = heatmap_values(out)
    for r, label in enumerate(dict.fromkeys(session.target_tokens)):  # the first row with each label
        np.testing.assert_allclose(printed[label][: expected.shape[1]], expected[r], atol=0.0051)
    for show, layers in (("decoder", decoder_layers), ("encoder", encoder_layers)):
        code, out, _ = run_cli(capsys, SOURCE, "--model", path, "--max-len", "4", "--show", show)
        assert code == 0 and f"{show} attention, layer {layers - 1} of 0-{layers - 1}," in out
    deeper, shallower = ("decoder", "encoder") if decoder_layers > encoder_layers else ("encoder", "decoder")
    code, _, err = run_cli(capsys, SOURCE, "--model", path, "--show", shallower, "--layer", "1")
    assert code != 0 and f"no layer 1: the {shallower} attention has layers 0 to 0" in err
    code, out, _ = run_cli(capsys, SOURCE, "--model", path, "--max-len", "4", "--show", deeper, "--layer", "1")
    assert code == 0 and f"{deeper} attention, layer 1 of 0-1," in out


def test_heatmap_shades_follow_the_values():
    matrix = np.array([[0.0, 0.1, 0.25, 0.45], [0.65, 0.85, 1.0, 0.5]])
    text = heatmap(matrix, ["a", "b"], ["w", "x", "y", "z"])
    grid = [line for line in text.splitlines() if line[:2] in ("a ", "b ")]
    for line, row in zip(grid, matrix, strict=True):
        expected = "".join(2 * SHADES[min(4, int(v * 5))] for v in row)  # levels are fifths of the largest (1.0)
        assert line == ("a " if line[0] == "a" else "b ") + expected.rstrip()
    assert "of the largest value 1.000" in text


def test_heatmap_masks_cells_and_labels_both_axes():
    allowed = np.tril(np.ones((3, 3), dtype=bool))
    text = heatmap(np.eye(3), ["<s>", "ein", "bier"], ["<s>", "ein", "bier"], allowed=allowed)
    lines = text.splitlines()
    header = lines[:4]  # the longest column label ("bier") is four characters, written downwards
    assert [line[5::2] for line in header] == ["<eb", "sii", ">ne", "  r"]  # after the 4-wide row labels and a space
    assert lines[4].startswith("<s>  " + SHADES[4] * 2 + "\u00b7 \u00b7")


def test_wide_matrices_are_split_to_fit_80_columns_and_long_labels_abbreviated():
    columns = [f"word{i}" for i in range(60)]
    rows = ["averyveryverylongtokenname", "\U0001F37A\U0001F37A", "x"]
    text = heatmap(np.random.default_rng(0).random((3, 60)), rows, columns, values=True)
    assert all(display_width(line) <= 80 for line in text.splitlines())
    assert "columns 1-13 of 60" in text and "columns 53-60 of 60" in text
    assert "averyveryve\u2026" in text
    grid = [line for line in text.splitlines() if line.startswith(("avery", "\U0001F37A"))][:2]
    assert display_width(grid[0].split(" ", 1)[0]) == 12 and grid[1].startswith("\U0001F37A\U0001F37A" + " " * 9)


def test_beam_prints_the_final_beam_with_scores(capsys, model_file, model):
    code, out, _ = run_cli(capsys, SOURCE, "--model", model_file, "--strategy", "beam", "--beam", "3",
                           "--max-len", "7")
    assert code == 0
    session = DecodingSession(model, SOURCE, strategy=Beam(3), max_len=7)
    session.run_to_end()
    assert f"translation: {session.trace().translation}" in out
    for i, h in enumerate(session.beam.hypotheses, 1):
        assert f"{i:4}  {h.score:9.3f}  {h.normalized_score:8.3f}  {' '.join(h.tokens)}" in out


def test_sampling_options_and_seed(capsys, model_file, model):
    code, out, _ = run_cli(capsys, SOURCE, "--model", model_file, "--strategy", "sample", "--temperature", "0.8",
                           "--seed", "1", "--max-len", "6")
    assert code == 0 and "sampling (temperature 0.8, top k 0, top p 1.0, seed 1)" in out
    expected = transviz.decode(model, SOURCE, strategy=Sampling(temperature=0.8, seed=1), max_len=6)
    assert f"translation: {expected.translation}" in out


def test_json_holds_the_whole_trace(capsys, model_file, model):
    code, out, _ = run_cli(capsys, SOURCE, "--model", model_file, "--max-len", "6", "--json", "--candidates", "4")
    assert code == 0
    data = json.loads(out)
    trace = transviz.decode(model, SOURCE, max_len=6)
    assert data["output_tokens"] == trace.output_tokens and data["translation"] == trace.translation
    assert data["strategy"] == {"name": "greedy"} and data["model"]["config"]["d_model"] == 32
    for name in ("encoder_self_attention", "decoder_self_attention", "cross_attention"):
        np.testing.assert_allclose(np.array(data[name]), getattr(trace, name), atol=1e-7)
    assert len(data["steps"]) == len(trace.output_tokens)
    assert all(len(step["candidates"]) == 4 for step in data["steps"])
    assert data["steps"][0]["token"] == trace.output_tokens[0]
    # row t of the decoder's maps is fed input t and writes output t: its label names both
    assert data["query_labels"] == [f"{fed} -> {written}" for fed, written in
                                    zip(["<s>", *trace.output_tokens[:-1]], trace.output_tokens, strict=True)]
    assert data["target_tokens"] == trace.target_tokens  # kept for readers of the earlier files


def test_npz_holds_the_arrays(capsys, model_file, model, tmp_path):
    path = tmp_path / "trace.npz"
    code, out, _ = run_cli(capsys, SOURCE, "--model", model_file, "--max-len", "6", "--npz", str(path))
    assert code == 0 and out.startswith("translation:")
    trace = transviz.decode(model, SOURCE, max_len=6)
    with np.load(path, allow_pickle=False) as data:
        np.testing.assert_array_equal(data["cross_attention"], trace.cross_attention)
        np.testing.assert_array_equal(data["decoder_self_attention"], trace.decoder_self_attention)
        np.testing.assert_array_equal(data["encoder_self_attention"], trace.encoder_self_attention)
        assert data["output_tokens"].tolist() == trace.output_tokens
        assert data["source_tokens"].tolist() == trace.source_tokens
        assert data["query_labels"].tolist() == [f"{fed} -> {written}" for fed, written in
                                                 zip(trace.target_tokens, trace.output_tokens, strict=True)]
    assert [p.name for p in tmp_path.iterdir()] == ["trace.npz"]  # no temporary file left


@pytest.mark.process
def test_interactive_repl_steps_backs_forces_and_quits(model_file, model):
    commands = "\n\nb\nf beer\nf wasser\nhello\nq\n"
    result = subprocess.run([sys.executable, "-m", "transviz", "decode", SOURCE, "--model", model_file,
                             "--interactive"], input=commands, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    session = DecodingSession(model, SOURCE, top_k=3)
    first, second = session.step(), session.step()
    session.back()
    forced = session.force("beer")
    replies = re.split(r"(?m)^> ", result.stdout)[1:]
    assert replies[0].split()[:3] == ["1", first.token, f"{first.probability:.3f}"]
    assert replies[1].split()[:3] == ["2", second.token, f"{second.probability:.3f}"]
    assert replies[2].startswith(f"back to step 1: {first.token}")
    assert replies[3].split()[:3] == ["2", "beer*", f"{forced.probability:.3f}"]
    assert replies[4].startswith("! 'wasser' is not in this model's vocabulary")
    assert replies[5].startswith("! unknown command 'hello'")
    assert replies[6].strip() == f"translation: {first.token} beer"


@pytest.mark.process
def test_interactive_ends_at_end_of_input(model_file):
    result = subprocess.run([sys.executable, "-m", "transviz", "decode", SOURCE, "--model", model_file,
                             "--interactive"], input="\n", capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and result.stdout.rstrip().splitlines()[-1].startswith("translation: ")


def test_without_a_shipped_model_the_default_is_a_clear_error(capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(resources, "resource_dir", lambda: tmp_path)  # an installation without models
    assert shipped_models() == {}
    code, out, err = run_cli(capsys, SOURCE, "--max-len", "3")
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and "no shipped default model" in err and "pass --model FILE" in err


def test_with_the_shipped_default_model_no_model_is_needed(capsys):
    if "default" not in shipped_models():
        pytest.skip("this checkout ships no default model")
    code, out, _ = run_cli(capsys, SOURCE, "--max-len", "3")
    assert code == 0 and out.startswith("translation: ")


@pytest.mark.parametrize("args, message", [
    (["--show", "cross", "--layer", "2"], "no layer 2: the cross attention has layers 0 to 1"),
    (["--show", "cross", "--head", "4"], "no head 4: this model has heads 0 to 3"),
    (["--show", "cross", "--head", "-1"], "no head -1: this model has heads 0 to 3"),
    (["--show", "cross", "--head", "first"], "--head takes a number"),
    (["--beam", "2", "--strategy", "greedy"], "apply to --strategy beam"),
    (["--seed", "2", "--strategy", "beam"], "apply to --strategy sample"),
    (["--beam", "0"], "beam width"),
    (["--npz", "/no/such/folder/x.npz"], "does not exist"),
    (["--npz", "/proc/x.npz"], "cannot write /proc/x.npz"),  # a folder no one can write, root included
    (["--max-len", "0"], "max_len"),
    (["--reference", "i want", "--beam", "2"], "strategy options do not apply"),
    (["--reference", ""], "the reference is empty"),
    (["--reference", "  "], "the reference is empty"),
    (["--layer", "1"], "--layer goes with --show (cross, decoder, encoder)"),
    (["--head", "2", "--values"], "--head, --values go with --show"),
    (["--show", "encoder", "--layer", "-1"], "no layer -1: the encoder attention has layers 0 to 1"),
])
def test_bad_options_are_one_line_errors(capsys, model_file, args, message):
    code, out, err = run_cli(capsys, SOURCE, "--model", model_file, *args)
    assert code == 1 and message in err and err.count("\n") == 1 and err.startswith("transviz: ")
    assert out == ""  # refused before any of the report was printed


@pytest.mark.process
def test_a_reader_that_leaves_early_ends_the_command_quietly(model_file):
    """`transviz decode ... | head -1`: the pipe closes before (most of) the report is written."""
    proc = subprocess.Popen([sys.executable, "-m", "transviz", "decode", SOURCE, "--model", model_file],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # closed before the command has printed anything: every write fails
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141 and err == ""  # no traceback, no "Exception ignored"


@pytest.mark.parametrize("sentence, message", [("   ", "empty"), ("wasser milch", "none of the words"),
                                               ("ich\x07bier", "control characters")])
def test_bad_sentences_are_one_line_errors(capsys, model_file, sentence, message):
    code, _, err = run_cli(capsys, sentence, "--model", model_file)
    assert code == 1 and message in err and err.count("\n") == 1


def test_a_missing_model_file_is_a_one_line_error(capsys, tmp_path):
    code, _, err = run_cli(capsys, SOURCE, "--model", str(tmp_path / "nope.safetensors"))
    assert code == 1 and "no such file" in err and err.count("\n") == 1


@pytest.mark.parametrize("args, message", [
    (["--length-penalty", "1000"], "length_penalty must be from 0 to 10, got 1000.0"),
    (["--length-penalty", "nan"], "length_penalty must be from 0 to 10, got nan"),
    (["--temperature", "1e-320"], "temperature must be from 0.001 to 1000, got 1e-320"),
    (["--temperature", "inf"], "temperature must be from 0.001 to 1000, got inf"),
    (["--top-p", "nan"], "top_p must be in (0, 1], got nan"),
    (["--top-k", "-2"], "top_k must be 0 (no limit) or a positive whole number, got -2"),
    (["--candidates", "-5"], "--candidates must be 0 or more, not -5"),
])
def test_strategy_settings_at_their_edges_are_one_line_errors(capsys, model_file, args, message):
    """Issue 15, item 7: --length-penalty 1000 was an OverflowError traceback (exit 1 by accident);
    --temperature 1e-320 sampled p = 0.000 tokens 50 times; --candidates -5 listed nothing."""
    code, out, err = run_cli(capsys, SOURCE, "--model", model_file, *args)
    assert code == 1 and err.startswith("transviz: ") and message in err
    assert err.count("\n") == 1 and "Traceback" not in err and out == ""
