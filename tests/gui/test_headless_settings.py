"""Headless commands never touch the user's settings: `transviz bench` (its window figure),
`transviz render --view window` and a pytest session run as real processes in an empty home
folder, with TRANSVIZ_SETTINGS unset, and leave nothing there; so does `transviz --self-test`,
checked by its one process run (tests/packaging/test_selftest.py).

A window nobody can see has no layout worth remembering: once, the bench's cold start saved an
offscreen window's geometry to ~/.config/transviz/transviz.ini, and the next real start said
"The saved window size could not be used."
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import transviz
from transviz.core.model.transformer import Transformer
from transviz.core.model.vocab import Vocab
from transviz.gui.services import settings
from transviz.gui.services.settings import SETTINGS_VARIABLE, platform, user_settings

ROOT = Path(__file__).resolve().parents[2]


def tiny_checkpoint(folder: Path) -> Path:
    torch.manual_seed(0)
    src, tgt = Vocab("ich mochte ein bier".split()), Vocab("i want a beer".split())
    config = transviz.ModelConfig(len(src), len(tgt), d_model=16, n_heads=2, n_encoder_layers=1,
                                  n_decoder_layers=1, d_ff=32, dropout=0.0, max_len=16)
    return transviz.save_model(transviz.Model(Transformer(config).eval(), src, tgt, {}), folder / "tiny.safetensors")


def commands(work: Path) -> dict[str, list[str]]:
    python = [sys.executable, "-m"]
    return {
        # the one figure that starts `transviz gui`; quick: one launch
        "bench": [*python, "transviz", "bench", "gui_cold_start_s", "--quick"],
        "render": [*python, "transviz", "render", "ich mochte ein bier", "--view", "window", "--size", "900x600",
                   "--model", str(tiny_checkpoint(work)), "--out", str(work / "window.png")],
        # one test that opens, restores and closes windows, with the suite's conftest
        "pytest": [*python, "pytest", "-q", "-p", "no:cacheprovider", str(ROOT / "tests/gui/test_settings.py"),
                   "-k", "test_the_window_remembers"],
    }


@pytest.mark.process
@pytest.mark.parametrize("command", ["bench", "render", "pytest"])
def test_a_headless_command_leaves_the_home_folder_empty(empty_home, command):
    home, work, env = empty_home
    result = subprocess.run(commands(work)[command], cwd=work, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, (result.stdout[-2000:], result.stderr[-2000:])
    assert sorted(str(p.relative_to(home)) for p in home.rglob("*")) == []


def test_a_headless_platform_gets_no_settings_store_unless_a_file_is_named(monkeypatch, tmp_path):
    monkeypatch.setattr(settings, "SettingsStore", lambda path=None: ("store", path))  # never the user's file here
    monkeypatch.delenv(SETTINGS_VARIABLE, raising=False)
    assert platform() == "offscreen"
    assert user_settings() is None
    monkeypatch.setattr(settings, "platform", lambda: "xcb")
    assert user_settings() == ("store", None)  # a window on a screen: the user's file
    for where in ("offscreen", "xcb"):
        monkeypatch.setattr(settings, "platform", lambda where=where: where)
        monkeypatch.setenv(SETTINGS_VARIABLE, str(tmp_path / "chosen.ini"))
        assert user_settings() == ("store", str(tmp_path / "chosen.ini"))  # named: used, even offscreen
        monkeypatch.setenv(SETTINGS_VARIABLE, "")
        assert user_settings() is None


def test_only_the_settings_module_makes_a_settings_store():
    """Every QSettings is a SettingsStore, and only `transviz gui` asks for the user's (gui.app.run):
    no default QSettings() that Qt would place by the organisation and application name."""
    sources = {p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8") for p in (ROOT / "transviz").rglob("*.py")}
    assert [name for name, text in sources.items() if "QSettings(" in text] == ["transviz/gui/services/settings.py"]
    callers = [name for name, text in sources.items() if re.search(r"(?<!def )user_settings\(", text)]
    assert callers == ["transviz/gui/app.py"]
    assert [name for name, text in sources.items() if "SettingsStore(" in text] == ["transviz/gui/services/settings.py"]
