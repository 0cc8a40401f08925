"""Issue 15, item 8: a terminal that is not UTF-8 (PYTHONIOENCODING=ascii) or a strict UTF-8 one
given a sentence with an undecodable byte (a surrogate escape from the command line) gets what it
can show, replacement characters for the rest, and never a traceback. Real processes: the
encoding of a process's streams is set when Python starts."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import transviz
from transviz.core.model.transformer import Transformer
from transviz.core.model.vocab import Vocab

ROOT = Path(__file__).resolve().parents[2]
ENCODINGS = ["ascii", "utf-8:strict"]
SENTENCE = "ich m\u00f6chte ein bier"
BYTE_FF = "ich \udcff bier"  # what Python makes of the byte 0xff on a UTF-8 command line


pytestmark = pytest.mark.process


@pytest.fixture(scope="module")
def model_file(tmp_path_factory) -> Path:
    """A tiny untrained model whose vocabularies and facts are not ASCII, under a non-ASCII name."""
    torch.manual_seed(0)
    src, tgt = Vocab(["ich", "m\u00f6chte", "ein", "bier"]), Vocab(["i", "want", "a", "beer", "\u00fcber", "\u4e00"])
    config = transviz.ModelConfig(len(src), len(tgt), d_model=16, n_heads=2, n_encoder_layers=1, n_decoder_layers=1,
                                  d_ff=32, max_len=8)
    model = transviz.Model(Transformer(config).eval(), src, tgt, {"task": "b\u00fccher \u2192 books"})
    path = tmp_path_factory.mktemp("models") / "m\u00fc.safetensors"
    transviz.save_model(model, path)
    return path


def transviz_cli(encoding: str, *args: str, cwd: Path | None = None, stdin: bytes = b"") -> tuple[int, bytes, bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": encoding, "OMP_NUM_THREADS": "1"}
    env.pop("PYTHONUTF8", None)
    result = subprocess.run([sys.executable, "-m", "transviz", *args], input=stdin, capture_output=True, env=env,
                            cwd=cwd, timeout=300)
    return result.returncode, result.stdout, result.stderr


def shown(encoding: str, data: bytes) -> str:
    """What the stream holds, decoded as strictly as it was written (a failure here: a bad byte)."""
    return data.decode(encoding.split(":")[0])


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("args", [
    [SENTENCE], [BYTE_FF], [SENTENCE, "--show", "decoder", "--values"], [BYTE_FF, "--strategy", "beam"],
    [SENTENCE, "--json"],
], ids=["text", "byte-ff", "show", "beam-byte-ff", "json"])
def test_decode_writes_what_the_terminal_can_show(model_file, encoding, args):
    code, out, err = transviz_cli(encoding, "decode", *args, "--model", str(model_file), "--max-len", "4")
    assert code == 0 and err == b"", err.decode("utf-8", "replace")
    text = shown(encoding, out)
    assert text.startswith("{") if "--json" in args else text.startswith("translation: ") and "stopped: " in text
    if encoding == "ascii" and "--json" not in args and "beam" not in args:
        assert " | " in text and "\u00b7" not in text  # a plain separator, not a "?" that reads as a token
    if "--show" in args:
        assert "shades: " in text and ("x masked" if encoding == "ascii" else "\u00b7 masked") in text
    if args[0] == BYTE_FF and "--json" not in args:
        assert "not in the vocabulary (read as <unk>): ?" in text  # the byte, replaced


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_info_writes_what_the_terminal_can_show(model_file, encoding):
    code, out, err = transviz_cli(encoding, "info", str(model_file))
    assert code == 0 and err == b""
    text = shown(encoding, out)
    assert "training.task: b" in text and "books" in text
    assert ("m?.safetensors" if encoding == "ascii" else "m\u00fc.safetensors") in text


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("args, message", [
    (["decode", SENTENCE, "--model", "/no/such/m\udcff\u00fc.safetensors"], "no such file"),
    (["decode", "\udcff\u00e9", "--model", "MODEL"], "none of the words"),
    (["info", "/no/such/\u00e9\udcff.safetensors"], "no such file"),
    (["decode", SENTENCE, "--model", "MODEL", "--npz", "n\u00f6tes\udcff.txt"], "must end in .npz"),
])
def test_errors_are_one_line_whatever_the_terminal(model_file, encoding, args, message):
    args = [str(model_file) if a == "MODEL" else a for a in args]
    code, out, err = transviz_cli(encoding, *args)
    text = err.decode("ascii" if encoding == "ascii" else "utf-8")  # escapes, never a raw undecodable byte
    assert code == 1 and out == b""
    assert text.startswith("transviz: ") and message in text and text.count("\n") == 1, text


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_the_interactive_mode_reads_and_writes_bytes_the_terminal_cannot_show(model_file, encoding):
    code, out, err = transviz_cli(encoding, "decode", SENTENCE, "--model", str(model_file), "--interactive",
                                  stdin=b"f \xff\xc3\xbc\n\nq\n")
    text = shown(encoding, out)
    assert code == 0 and err == b"", err
    assert "is not in this model's vocabulary" in text and "translation: " in text


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_train_messages_write_what_the_terminal_can_show(tmp_path, encoding):
    corpus = tmp_path / "k\u00f6rpus.tsv"
    corpus.write_text("".join(f"gr\u00fc\u00df {w}\tgreet \u4e00 {w}\n" for w in "abcdefghijklmnop"),
                      encoding="utf-8")
    out = tmp_path / "m\u00fc\udcff.safetensors" if encoding == "ascii" else tmp_path / "m\u00fc.safetensors"
    code, stdout, stderr = transviz_cli(
        encoding, "train", "--data", str(corpus), "--layers", "1", "--heads", "2", "--d-model", "16", "--d-ff", "32",
        "--device", "cpu", "--steps", "3", "--batch-size", "4", "--eval-every", "2", "--eval-limit", "4",
        "--snapshot-every", "0", "--probe", "gr\u00fc\u00df a", "--out", str(out), cwd=tmp_path)
    text, log = shown(encoding, stdout), stderr.decode("ascii" if encoding == "ascii" else "utf-8")
    assert code == 0 and "Traceback" not in log, log
    assert text.startswith("training on cpu") and "saved: " in text and "step 2: valid loss" in log
    copy = tmp_path / "copy.safetensors"  # safetensors' reader takes only UTF-8 paths
    copy.write_bytes(out.read_bytes())
    assert transviz.load_model(str(copy)).facts["steps"] == 3
