"""Pictures and the lab's CSV are written like every other file (core.base.files.write_atomically):
nothing planted beside the target is followed, a failure leaves the old file, the mode is ordinary."""
from __future__ import annotations

import os
import tempfile

import pytest
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QLabel

from transviz.core.training.lab import LabResult, LabSettings
from transviz.gui.services.export import save_picture
from transviz.gui.services.lab_runs import LabRow, write_csv

OLD = b"the old contents\n"


@pytest.fixture
def label(show):
    return show(QLabel("attention"), 120, 40)


def _csv(path):
    settings = LabSettings()
    result = LabResult(settings, status="ok", test_mse=0.5, train_losses=(1.0,), seconds=1.0)
    write_csv(path, [(LabRow("lr=1", settings, None), result)])


@pytest.fixture
def writers(label):
    return {
        "out.png": lambda path: save_picture(label, path),
        "out.svg": lambda path: save_picture(label, path),
        "lab.csv": _csv,
    }


@pytest.mark.parametrize("name", ["out.png", "out.svg", "lab.csv"])
def test_a_planted_symlink_is_never_followed(tmp_path, monkeypatch, writers, name):
    monkeypatch.setattr(tempfile, "_get_candidate_names", lambda: iter(["planted", "fresh"]))
    folder, victim = tmp_path / "out", tmp_path / "victim"
    folder.mkdir()
    victim.write_bytes(OLD)
    planted = [f".{name}.planted.tmp", f".{name}.tmp"]
    for link in planted:
        (folder / link).symlink_to(victim)
    writers[name](folder / name)
    assert victim.read_bytes() == OLD
    assert sorted(p.name for p in folder.iterdir()) == sorted([name, *planted])
    assert (folder / name).read_bytes() != OLD
    if name == "out.png":
        assert not QImage(str(folder / name)).isNull()
    elif name == "out.svg":
        assert (folder / name).read_text(encoding="utf-8").startswith("<?xml")


@pytest.mark.parametrize("name", ["out.png", "out.svg", "lab.csv"])
def test_a_failure_keeps_the_old_file_and_leaves_no_temporary(tmp_path, monkeypatch, writers, name):
    (tmp_path / name).write_bytes(OLD)

    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        writers[name](tmp_path / name)
    assert (tmp_path / name).read_bytes() == OLD
    assert [p.name for p in tmp_path.iterdir()] == [name]


@pytest.mark.parametrize("name", ["out.png", "out.svg", "lab.csv"])
def test_a_new_file_gets_the_users_usual_mode(tmp_path, writers, name):
    old = os.umask(0o022)
    try:
        writers[name](tmp_path / "new" / name)  # the folder is made
    finally:
        os.umask(old)
    assert (tmp_path / "new" / name).stat().st_mode & 0o777 == 0o644
    assert [p.name for p in (tmp_path / "new").iterdir()] == [name]
