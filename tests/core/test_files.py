"""Every file transviz writes goes through core.files.write_atomically: a fresh temporary file made
exclusively beside the target, renamed onto it; nothing planted is followed, nothing is left behind."""
from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

import pytest
import torch

import transviz
from transviz.core import checkpoint, files, trace_files
from transviz.core.decoding import DecodingSession
from transviz.core.model import Transformer
from transviz.core.vocab import Vocab
from transviz.selftest import Report

ROOT = Path(__file__).resolve().parents[2]
OLD = b"the old contents\n"


def small_model() -> transviz.Model:
    torch.manual_seed(0)
    src, tgt = Vocab("a b c d".split()), Vocab("x y z".split())
    cfg = transviz.ModelConfig(len(src), len(tgt), d_model=16, n_heads=2, n_encoder_layers=1,
                               n_decoder_layers=1, d_ff=32, max_len=8)
    return transviz.Model(Transformer(cfg).eval(), src, tgt, {"task": "unit"})


def _report(path: Path) -> None:
    report = Report()
    report.lines.append("ok    something: fine")
    report.write(path)


def _trace(path: Path) -> None:
    session = DecodingSession(small_model(), "a b", max_len=3)
    while not session.finished:
        session.step()
    trace_files.write_trace(session, path)


# every writer of the app that needs no Qt (the pictures and the lab's CSV: tests/gui/test_export.py)
WRITERS = {
    "helper": ("out.bin", lambda path: files.write_atomically(path, b"new contents")),
    "helper, a function": ("out.bin", lambda path: files.write_atomically(path, lambda f: f.write(b"new"))),
    "checkpoint": ("m.safetensors", lambda path: checkpoint.save(small_model(), path)),
    "trace json": ("t.json", _trace),
    "trace npz": ("t.npz", _trace),
    "self-test report": ("report.txt", _report),
}


@pytest.fixture
def names(monkeypatch):
    """mkstemp's random names made predictable, so that a test can plant something at the very
    name the writer will try first."""
    sequence = ["planted", "planted2", "fresh"]
    monkeypatch.setattr(tempfile, "_get_candidate_names", lambda: iter(list(sequence)))
    return sequence


@pytest.mark.parametrize("writer", WRITERS)
def test_a_planted_symlink_is_never_followed(tmp_path, names, writer):
    name, write = WRITERS[writer]
    folder, victim = tmp_path / "out", tmp_path / "victim"
    folder.mkdir()
    victim.write_bytes(OLD)
    planted = [f".{name}.{n}.tmp" for n in names[:2]] + [f".{name}.tmp"]
    for link in planted:
        (folder / link).symlink_to(victim)
    write(folder / name)
    assert victim.read_bytes() == OLD
    assert sorted(p.name for p in folder.iterdir()) == sorted([name, *planted])
    assert all((folder / link).is_symlink() for link in planted)
    assert not (folder / name).is_symlink() and (folder / name).stat().st_size > 0


@pytest.mark.parametrize("writer", WRITERS)
def test_the_temporary_name_is_not_predictable(tmp_path, monkeypatch, writer):
    name, write = WRITERS[writer]
    made = []
    mkstemp = tempfile.mkstemp

    def spy(*args, **kwargs):
        fd, tmp = mkstemp(*args, **kwargs)
        made.append(Path(tmp))
        return fd, tmp

    monkeypatch.setattr(tempfile, "mkstemp", spy)
    write(tmp_path / name)
    assert len(made) == 1  # one temporary file: no library beneath writes one of its own
    assert made[0].parent == tmp_path
    assert re.fullmatch(rf"\.{re.escape(name)}\.[a-z0-9_]{{8}}\.tmp", made[0].name)
    assert [p.name for p in tmp_path.iterdir()] == [name]


@pytest.mark.parametrize("failure", [OSError("disk full"), KeyboardInterrupt()])
@pytest.mark.parametrize("at", ["writing", "renaming"])
def test_a_failure_keeps_the_old_file_and_leaves_no_temporary(tmp_path, monkeypatch, failure, at):
    target = tmp_path / "out.bin"
    target.write_bytes(OLD)

    def half_then_fail(f):
        f.write(b"half of the new")
        raise failure

    def replace(*args):
        raise failure

    if at == "renaming":
        monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(type(failure)):
        files.write_atomically(target, half_then_fail if at == "writing" else b"all of the new")
    assert target.read_bytes() == OLD
    assert [p.name for p in tmp_path.iterdir()] == ["out.bin"]


@pytest.mark.parametrize("writer", [w for w in WRITERS if not w.startswith("helper")])
def test_a_writer_that_fails_leaves_the_old_file(tmp_path, monkeypatch, writer):
    name, write = WRITERS[writer]
    target = tmp_path / name
    target.write_bytes(OLD)

    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write(target)
    assert target.read_bytes() == OLD
    assert [p.name for p in tmp_path.iterdir()] == [name]


@pytest.fixture
def umask():
    def set_umask(mask):
        os.umask(mask)

    old = os.umask(0o022)
    yield set_umask
    os.umask(old)


@pytest.mark.parametrize("mask, mode", [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
@pytest.mark.parametrize("writer", WRITERS)
def test_a_new_file_gets_the_mode_open_would_give_it(tmp_path, umask, writer, mask, mode):
    """Not mkstemp's private 0600: a checkpoint or a picture is an ordinary file to share."""
    name, write = WRITERS[writer]
    umask(mask)
    write(tmp_path / name)
    assert (tmp_path / name).stat().st_mode & 0o777 == mode


def test_the_umask_is_respected_where_it_cannot_be_read_without_setting_it(tmp_path, umask, monkeypatch):
    def no_proc(*args, **kwargs):
        raise OSError("no /proc here")

    monkeypatch.setattr(files, "open", no_proc, raising=False)
    umask(0o027)
    files.write_atomically(tmp_path / "out.bin", b"new")
    assert (tmp_path / "out.bin").stat().st_mode & 0o777 == 0o640
    assert os.umask(0o027) == 0o027  # and it is left as it was


@pytest.mark.parametrize("writer", WRITERS)
def test_a_rewritten_file_keeps_its_mode(tmp_path, umask, writer):
    name, write = WRITERS[writer]
    umask(0o022)
    (tmp_path / name).write_bytes(OLD)
    os.chmod(tmp_path / name, 0o640)
    write(tmp_path / name)
    assert (tmp_path / name).stat().st_mode & 0o777 == 0o640
    assert (tmp_path / name).read_bytes() != OLD


def test_check_writable_makes_and_removes_one_temporary(tmp_path):
    files.check_writable(tmp_path / "m.safetensors")
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(OSError):
        files.check_writable(tmp_path / "missing" / "m.safetensors")


def test_no_module_writes_a_file_any_other_way():
    """One helper for every writer: no other module makes temporary files or renames onto a target.
    settings.py moves a broken settings file aside (a rename, no writing)."""
    allowed = {ROOT / "transviz/core/files.py", ROOT / "transviz/gui/settings.py"}
    offenders = [str(p.relative_to(ROOT)) for p in sorted((ROOT / "transviz").rglob("*.py"))
                 if p not in allowed and re.search(r"mkstemp|os\.replace|os\.rename|save_file\(|\.tmp\b",
                                                   p.read_text(encoding="utf-8"))]
    assert offenders == []
