"""Issue 15, item 10: nothing is overwritten by surprise. Every command that writes a file refuses
one of its own inputs, a name of the wrong kind, a folder, and an existing file of another kind
(unless --force), before it does any work; what was there is left byte for byte."""
from __future__ import annotations

import json
import os
import struct
import threading
from pathlib import Path

import numpy as np
import pytest
import torch
from safetensors.torch import save_file

import transviz
from decoding_models import SOURCE, one_thread, tiny_model  # noqa: F401 (autouse)
from transviz.cli import main
from transviz.core.base.errors import InputError
from transviz.core.io import outputs

TINY = ["--layers", "1", "--heads", "2", "--d-model", "16", "--d-ff", "32", "--device", "cpu", "--steps", "2",
        "--batch-size", "4", "--eval-every", "0", "--eval-limit", "4", "--snapshot-every", "0"]
NOTES = b"my notes: not to be lost\n"


@pytest.fixture(scope="module")
def model_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("models") / "m.safetensors"
    transviz.save_model(tiny_model(), path)
    return path


@pytest.fixture
def work(tmp_path, model_file, monkeypatch):
    """A folder with a copy of the model, a notes file and a corpus, as the current folder."""
    (tmp_path / "m.safetensors").write_bytes(model_file.read_bytes())
    (tmp_path / "notes.txt").write_bytes(NOTES)
    (tmp_path / "c.tsv").write_text("".join(f"{w} {w}\t{w}\n" for w in "ab cd ef gh ij kl mn op".split()))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def refused(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 1, err
    assert err.startswith("transviz: ") and message in err and err.count("\n") == 1, err
    return out


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file() and not p.is_symlink()}


@pytest.mark.parametrize("argv, message", [
    (["decode", SOURCE, "--model", "m.safetensors", "--npz", "notes.txt"],
     "cannot write a NumPy .npz archive to notes.txt: the file name must end in .npz"),
    (["decode", SOURCE, "--model", "m.safetensors", "--npz", "m.safetensors"],
     "cannot write m.safetensors: that file is this command's input (m.safetensors)"),
    (["decode", SOURCE, "--model", "m.safetensors", "--npz", "m.safetensors", "--force"],
     "that file is this command's input"),
    (["train", "--task", "copy", *TINY, "--out", "notes.txt"],
     "cannot write a transviz checkpoint to notes.txt: the file name must end in .safetensors"),
    (["train", "--data", "c.tsv", *TINY, "--out", "c.tsv"], "cannot write c.tsv: that file is this command's input"),
    (["train", "--data", "c.tsv", *TINY, "--out", "c.tsv", "--force"], "that file is this command's input"),
    (["render", SOURCE, "--view", "positional", "--out", "notes.txt"],
     "cannot write a PNG or SVG picture to notes.txt: the file name must end in .png or .svg"),
    (["render", SOURCE, "--view", "positional", "--out", "c.tsv/picture.png"],
     "cannot write c.tsv/picture.png: c.tsv is a file, not a folder"),
    (["decode", SOURCE, "--model", "m.safetensors", "--npz", "c.tsv/deeper/run.npz"],
     "cannot write c.tsv/deeper/run.npz: c.tsv is a file, not a folder"),
    (["render", SOURCE, "--view", "positional", "--out", "a" * 300 + ".png"], ".png: File name too long"),
    (["--self-test", "--report", "m.safetensors"],
     "m.safetensors already exists and is not a text file: it was left as it is; choose another name, or give "
     "--force to replace it"),
])
def test_the_commands_of_the_issue_are_refused_and_nothing_changes(capsys, work, argv, message):
    """Each of these replaced the file and exited 0 before."""
    before = snapshot(work)
    out = refused(capsys, argv, message)
    assert "training on" not in out and "translation" not in out  # refused before any work
    assert snapshot(work) == before


def test_an_input_reached_by_another_name_is_refused(capsys, work):
    (work / "sub").mkdir()
    (work / "alias.npz").symlink_to(work / "m.safetensors")
    before = snapshot(work)
    for output in ("sub/../m.safetensors", str(work / "m.safetensors"), "alias.npz"):
        refused(capsys, ["decode", SOURCE, "--model", "m.safetensors", "--npz", output, "--force"],
                "that file is this command's input")
    refused(capsys, ["train", "--data", "./c.tsv", *TINY, "--out", str(work / "c.tsv")], "this command's input")
    assert snapshot(work) == before and (work / "alias.npz").is_symlink()


def test_an_npz_replaces_an_npz_or_nothing_and_anything_else_only_with_force(capsys, work):
    decode = ["decode", SOURCE, "--model", "m.safetensors", "--max-len", "3", "--npz"]
    (work / "t.npz").write_bytes(NOTES)
    refused(capsys, [*decode, "t.npz"], "t.npz already exists and is not a NumPy .npz archive")
    assert (work / "t.npz").read_bytes() == NOTES
    assert run(capsys, *decode, "t.npz", "--force")[0] == 0  # said so: replaced
    assert np.load(work / "t.npz")["source_tokens"].tolist() == SOURCE.split()
    assert run(capsys, *decode, "t.npz")[0] == 0  # an .npz over an .npz: as before
    (work / "empty.npz").touch()
    assert run(capsys, *decode, "empty.npz")[0] == 0  # an empty file holds nothing to lose
    assert "cross_attention" in np.load(work / "empty.npz")


def test_a_checkpoint_replaces_only_a_transviz_checkpoint(capsys, work):
    save_file({"w": torch.zeros(2)}, work / "other.safetensors", metadata={"format": "pt"})
    (work / "fake.safetensors").write_bytes(NOTES)
    for name in ("other.safetensors", "fake.safetensors"):
        before = (work / name).read_bytes()
        refused(capsys, ["train", "--task", "copy", *TINY, "--out", name],
                f"{name} already exists and is not a transviz checkpoint")
        assert (work / name).read_bytes() == before
    assert run(capsys, "train", "--task", "copy", *TINY, "--out", "m.safetensors")[0] == 0  # over a checkpoint
    assert run(capsys, "train", "--task", "copy", *TINY, "--out", "other.safetensors", "--force")[0] == 0
    assert transviz.load_model("other.safetensors").facts["steps"] == 2


def test_render_refuses_a_folder_and_a_picture_of_the_other_kind(capsys, work):
    """``render --out d.png`` with d.png a folder was an IsADirectoryError traceback."""
    (work / "d.png").mkdir()
    refused(capsys, ["render", SOURCE, "--view", "positional", "--out", "d.png"],
            "cannot write d.png: it is a folder; give a file name such as d.png/output.png")
    (work / "p.svg").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(100))
    refused(capsys, ["render", SOURCE, "--view", "positional", "--out", "p.svg"], "p.svg already exists and is not "
                                                                                   "an SVG picture")
    assert (work / "p.svg").read_bytes().startswith(b"\x89PNG")


def test_render_refuses_an_html_page_that_holds_a_drawing(capsys, work):
    """An HTML document with an inline <svg> was taken for an SVG picture and replaced (issue 41)."""
    page = b'<!DOCTYPE html>\n<html><body><p>notes</p><svg width="10"><circle r="4"/></svg></body></html>\n'
    (work / "page.svg").write_bytes(page)
    refused(capsys, ["render", SOURCE, "--view", "positional", "--out", "page.svg"],
            "page.svg already exists and is not an SVG picture")
    assert (work / "page.svg").read_bytes() == page
    assert run(capsys, "render", SOURCE, "--view", "positional", "--out", "own.svg")[0] == 0
    assert run(capsys, "render", SOURCE, "--view", "positional", "--out", "own.svg")[0] == 0  # its own SVG: replaced


@pytest.mark.parametrize("kind, contents", [
    (outputs.NPZ, b"PK\x03\x04\x14\x00\x00\x00\x00\x00rest of a zip"),
    (outputs.PNG, b"\x89PNG\r\n\x1a\nrest"),
    (outputs.SVG, b'\xef\xbb\xbf<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"></svg>'),
    (outputs.JSON, b'  {"translation": "i want a beer"}'),
    (outputs.TEXT, "ok    decode: ich m\u00f6chte\n".encode()),
])
def test_each_kind_is_told_by_its_contents(tmp_path, kind, contents):
    name = "out" + (kind.suffixes[0] if kind.suffixes else ".txt")
    (tmp_path / name).write_bytes(contents)
    assert outputs.check_output(tmp_path / name, kind) == tmp_path / name
    others = [k for k in (outputs.NPZ, outputs.PNG, outputs.SVG, outputs.JSON, outputs.TEXT) if k is not kind]
    for other in others:
        target = tmp_path / ("x" + (other.suffixes[0] if other.suffixes else ".txt"))
        target.write_bytes(contents)
        if other is outputs.TEXT and kind in (outputs.SVG, outputs.JSON):
            continue  # SVG and JSON are text
        with pytest.raises(InputError, match="already exists and is not"):
            outputs.check_output(target, other)


def test_a_checkpoint_is_told_by_its_header(tmp_path, model_file):
    def header(metadata) -> bytes:
        text = json.dumps({"__metadata__": metadata}).encode()
        return struct.pack("<Q", len(text)) + text

    length = struct.unpack("<Q", model_file.read_bytes()[:8])[0]
    cases = {
        "real.safetensors": (model_file.read_bytes(), True),
        "cut.safetensors": (model_file.read_bytes()[:8 + length + 100], True),  # a whole header, the data cut
        "other.safetensors": (header({"format": "pt"}), False),
        "deep.safetensors": (struct.pack("<Q", 10_000) + b"[" * 5000 + b"]" * 5000, False),  # RecursionError
        "huge.safetensors": (struct.pack("<Q", 2**63) + b"{}", False),
        "short.safetensors": (b"\x01\x02", False),
    }
    for name, (contents, ok) in cases.items():
        (tmp_path / name).write_bytes(contents)
        if ok:
            outputs.check_output(tmp_path / name, outputs.CHECKPOINT)
        else:
            with pytest.raises(InputError, match="is not a transviz checkpoint"):
                outputs.check_output(tmp_path / name, outputs.CHECKPOINT)
            outputs.check_output(tmp_path / name, outputs.CHECKPOINT, force=True)


def test_a_fifo_is_refused_without_being_opened(tmp_path):
    fifo = tmp_path / "pipe.npz"
    os.mkfifo(fifo)
    result: list[BaseException | None] = []
    thread = threading.Thread(target=lambda: result.append(_error(fifo)), daemon=True)
    thread.start()
    thread.join(10)
    assert not thread.is_alive(), "check_output blocked on a FIFO"
    assert isinstance(result[0], InputError) and "is not a NumPy .npz archive" in str(result[0])


def _error(path: Path) -> BaseException | None:
    try:
        outputs.check_output(path, outputs.NPZ)
    except InputError as exc:
        return exc
    return None


def test_a_dangling_symlink_or_a_missing_file_may_be_written(tmp_path):
    (tmp_path / "gone.npz").symlink_to(tmp_path / "nowhere")
    assert outputs.check_output(tmp_path / "gone.npz", outputs.NPZ) == tmp_path / "gone.npz"
    assert outputs.check_output(tmp_path / "new.safetensors", outputs.CHECKPOINT, inputs=[None, "c.tsv"])


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")
def test_a_picture_into_a_pseudo_filesystem_is_refused_in_one_line(capsys, work):
    refused(capsys, ["render", SOURCE, "--view", "positional", "--out", "/proc/self/picture.png"],
            "transviz: /proc/self/picture.png: ")
