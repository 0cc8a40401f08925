"""Every file transviz writes goes through core.base.files.write_atomically: a fresh temporary file made
exclusively beside the target, renamed onto it; nothing planted is followed, nothing is left behind."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
import torch

import transviz
from transviz.core.base import files
from transviz.core.decoding import trace_files
from transviz.core.decoding.session import DecodingSession
from transviz.core.io import checkpoint
from transviz.core.model.transformer import Transformer
from transviz.core.model.vocab import Vocab
from transviz.selftest import Report

ROOT = Path(__file__).resolve().parents[3]
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
    allowed = {ROOT / "transviz/core/base/files.py", ROOT / "transviz/gui/services/settings.py"}
    offenders = [str(p.relative_to(ROOT)) for p in sorted((ROOT / "transviz").rglob("*.py"))
                 if p not in allowed and re.search(r"mkstemp|os\.replace|os\.rename|save_file\(|\.tmp\b",
                                                   p.read_text(encoding="utf-8"))]
    assert offenders == []


# -- issue 15, item 11: what a killed writer left behind ---------------------------------------

def _leftover(folder: Path, name: str, age_s: float, contents: bytes = b"") -> Path:
    """A temporary file as a writer killed (kill -9) in the middle of a save leaves it: made by the
    same mkstemp call as write_atomically's, last written ``age_s`` seconds ago."""
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=".tmp")
    os.write(fd, contents)
    os.close(fd)
    then = time.time() - age_s
    os.utime(tmp, (then, then))
    return Path(tmp)


@pytest.mark.parametrize("writer", WRITERS)
def test_a_stale_leftover_of_the_same_target_is_removed_by_the_next_write(tmp_path, writer):
    name, write = WRITERS[writer]
    stale = _leftover(tmp_path, name, files.STALE_AFTER_S + 60)
    young = _leftover(tmp_path, name, 5, b"a writer at work")  # maybe another process's save in progress
    other = _leftover(tmp_path, "other" + name, files.STALE_AFTER_S + 60)  # another target's: not this write's
    write(tmp_path / name)
    assert not stale.exists()
    assert young.read_bytes() == b"a writer at work" and other.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([name, young.name, other.name])


def test_a_stale_looking_symlink_or_folder_is_never_removed_or_followed(tmp_path):
    victim = tmp_path / "victim"
    victim.write_bytes(OLD)
    old = time.time() - files.STALE_AFTER_S - 60
    link, folder = tmp_path / ".m.safetensors.abcd1234.tmp", tmp_path / ".m.safetensors.efgh5678.tmp"
    link.symlink_to(victim)
    folder.mkdir()
    for path in (link, folder, victim):
        os.utime(path, (old, old), follow_symlinks=False)
    (tmp_path / ".tmpAbC123").symlink_to(victim)
    files.write_atomically(tmp_path / "m.safetensors", b"new")
    assert link.is_symlink() and folder.is_dir() and victim.read_bytes() == OLD
    assert (tmp_path / ".tmpAbC123").is_symlink()


def test_only_leftovers_of_the_exact_pattern_are_touched(tmp_path):
    old = time.time() - files.STALE_AFTER_S - 60
    names = [".m.safetensors.tmp", ".m.safetensors.abc.tmp", ".m.safetensors.ABCDEFGH.tmp",
             "m.safetensors.abcdefgh.tmp", ".m.safetensors.abcdefgh.tmp.keep", ".xm.safetensors.abcdefgh.tmp",
             "notes.txt"]
    for name in names:
        (tmp_path / name).write_bytes(OLD)
        os.utime(tmp_path / name, (old, old))
    assert files.remove_stale_temporaries(tmp_path / "m.safetensors") == []
    assert all((tmp_path / name).read_bytes() == OLD for name in names)


def test_safetensors_own_stale_temporaries_go_only_when_they_hold_a_transviz_checkpoint(tmp_path):
    """safetensors' save_file once wrote its own .tmpXXXXXX beside the checkpoint; kill -9 left it.
    Such a name could be anyone's, so one is removed only when its header names transviz."""
    checkpoint.save(small_model(), tmp_path / "source.safetensors")
    data = (tmp_path / "source.safetensors").read_bytes()
    header_end = 8 + int.from_bytes(data[:8], "little")
    old = time.time() - files.STALE_AFTER_S - 60
    cases = {".tmpAbC123": (data[: header_end + 10], True),  # killed while the data was written
             ".tmpZz9Yy8": (b"another program's temporary file", False),
             ".tmpQq1Ww2": (data[:100], False)}  # not even a whole header: whose it is cannot be told
    for name, (contents, _) in cases.items():
        (tmp_path / name).write_bytes(contents)
        os.utime(tmp_path / name, (old, old))
    (tmp_path / ".tmpNnNnNn").write_bytes(data)  # a young one: perhaps a save in progress
    checkpoint.save(small_model(), tmp_path / "m.safetensors")
    for name, (_, removed) in cases.items():
        assert (tmp_path / name).exists() != removed, name
    assert (tmp_path / ".tmpNnNnNn").exists()
    files.write_atomically(tmp_path / "notes.txt", b"text")  # beside a file that is no checkpoint: never
    assert (tmp_path / ".tmpZz9Yy8").exists()


def test_the_self_test_report_is_written_through_the_one_helper(tmp_path, names):
    """The report was once written through a fixed .report.txt.tmp: a symlink planted there (or at
    any name the helper may try) made it overwrite the link's target."""
    victim = tmp_path / "victim"
    victim.write_bytes(OLD)
    for link in [".report.txt.tmp", *(f".report.txt.{n}.tmp" for n in names[:2])]:
        (tmp_path / link).symlink_to(victim)
    _report(tmp_path / "report.txt")
    assert victim.read_bytes() == OLD
    assert (tmp_path / "report.txt").read_text(encoding="utf-8") == "ok    something: fine\n"


@pytest.mark.process
def test_what_kill_9_leaves_in_the_middle_of_a_save_goes_with_the_next_save(tmp_path):
    """A real writer killed by SIGKILL half-way through its write: its temporary file stays behind
    (nothing can remove it then); the next save there, once the leftover is stale, removes it."""
    script = ("import sys, time\nfrom transviz.core.base import files\n"
              "def slow(f):\n    f.write(b'half'); f.flush(); print('writing', flush=True); time.sleep(60)\n"
              "files.write_atomically(sys.argv[1], slow)\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", script, str(tmp_path / "m.safetensors")], env=env,
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline() == "writing\n"
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        proc.kill()
    [leftover] = tmp_path.iterdir()
    assert re.fullmatch(r"\.m\.safetensors\.[a-z0-9_]{8}\.tmp", leftover.name)
    checkpoint.save(small_model(), tmp_path / "m.safetensors")
    assert leftover.exists()  # young: it could still be a live writer's
    old = time.time() - files.STALE_AFTER_S - 1
    os.utime(leftover, (old, old))
    checkpoint.save(small_model(), tmp_path / "m.safetensors")
    assert [p.name for p in tmp_path.iterdir()] == ["m.safetensors"]
