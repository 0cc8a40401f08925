"""``transviz --self-test`` from the source tree: what it checks, that it fails when something is
broken, and that its process exits 0 and leaves the user's settings alone (the frozen bundle runs
the same code: test_bundle.py)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import torch
from PySide6.QtCore import QRect
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QWidget

import transviz
from packaging_models import always_saying, tiny_model
from transviz.selftest import SEED_SENTENCE, Report, check_tabs, ink_share, run


@pytest.fixture(autouse=True)
def torch_threads(qapp):
    """The self-test leaves a core to Qt (torch.set_num_threads); other tests keep their setting."""
    threads = torch.get_num_threads()
    yield
    torch.set_num_threads(threads)


def saved(model: transviz.Model, folder: Path, name: str) -> Path:
    return transviz.save_model(model, folder / f"{name}.safetensors")


def run_in_process(tmp_path: Path, models: dict[str, Path], capsys) -> tuple[int, list[str]]:
    report = tmp_path / "report.txt"
    code = run(report, models)
    printed = capsys.readouterr().out
    assert report.read_text(encoding="utf-8") == printed  # the file holds exactly what was printed
    return code, printed.splitlines()


# -- the blank-picture measure -------------------------------------------------------------------

def test_ink_share_is_the_share_of_pixels_off_the_most_common_colour():
    image = QImage(33, 20, QImage.Format.Format_RGB888)  # 99-byte scan lines, padded to 100
    image.fill(QColor("white"))
    assert ink_share(image) == 0.0
    painter = QPainter(image)
    painter.fillRect(QRect(0, 0, 3, 20), QColor("black"))  # 3 of 33 columns
    painter.fillRect(QRect(10, 0, 1, 10), QColor("red"))  # half a column more
    painter.end()
    assert ink_share(image) == pytest.approx((3 * 20 + 10) / (33 * 20))


def test_an_empty_image_has_no_ink():
    assert ink_share(QImage()) == 0.0


# -- in process ----------------------------------------------------------------------------------

def test_checks_every_model_decodes_the_seed_with_the_default_and_renders_every_tab(tmp_path, capsys, tab_names):
    models = {"default": saved(always_saying("beer"), tmp_path, "default"),
              "other": saved(tiny_model(seed=3), tmp_path, "other")}
    code, lines = run_in_process(tmp_path, models, capsys)
    assert code == 0, lines
    parameters = sum(p.numel() for p in tiny_model().net.parameters())
    assert f"ok    model default: {parameters:,} parameters, packaging-test" in lines
    assert any(line.startswith("ok    model other: ") for line in lines)
    [decoded] = [line for line in lines if line.startswith("ok    decode: ")]
    translation = decoded.split(" -> ")[1].split('"')[1]
    assert decoded.startswith(f'ok    decode: "{SEED_SENTENCE}" -> ')
    assert set(translation.split()) == {"beer"} and "stopped: max_len" in decoded  # it never says </s>
    assert "ok    window icon: 64x64 pixels" in lines
    assert any(line.startswith("ok    attention grid: 3 steps of the seed sentence; ") for line in lines), lines
    tabs = [line.split(": ")[0].removeprefix("ok    tab ") for line in lines if line.startswith("ok    tab ")]
    assert tabs == tab_names and len(tabs) >= 2
    assert lines[0].startswith("ok    window shown: ") and lines[-1].startswith("self-test passed")


def test_a_default_model_that_says_nothing_fails_the_decode_check(tmp_path, capsys):
    code, lines = run_in_process(tmp_path, {"default": saved(always_saying("</s>"), tmp_path, "default")}, capsys)
    assert code == 1
    assert any(line.startswith(f'FAIL  decode: "{SEED_SENTENCE}" -> "" (1 tokens') for line in lines), lines
    assert lines[-1].startswith("self-test FAILED (1 checks)")


def test_an_unreadable_model_fails_its_check_and_the_rest_still_runs(tmp_path, capsys, tab_names):
    broken = tmp_path / "broken.safetensors"
    broken.write_bytes(b"not a checkpoint")
    models = {"broken": broken, "default": saved(always_saying("beer"), tmp_path, "default")}
    code, lines = run_in_process(tmp_path, models, capsys)
    assert code == 1
    assert any(line.startswith("FAIL  model broken: CheckpointError: ") for line in lines), lines
    assert any(line.startswith("ok    decode: ") for line in lines)
    assert sum(line.startswith("ok    tab ") for line in lines) == len(tab_names)


def test_without_models_it_says_so_and_checks_the_rest(tmp_path, capsys, tab_names):
    code, lines = run_in_process(tmp_path, {}, capsys)
    assert code == 0
    assert "ok    shipped models: none installed; model checks skipped" in lines
    assert sum(line.startswith("ok    tab ") for line in lines) == len(tab_names)


def test_models_without_a_default_fail(tmp_path, capsys):
    code, lines = run_in_process(tmp_path, {"dates": saved(tiny_model(), tmp_path, "dates")}, capsys)
    assert code == 1
    assert "FAIL  default model: no model called 'default' among dates" in lines


def test_a_tab_that_draws_nothing_fails(qtbot):
    from transviz.gui.app import application
    from transviz.gui.main_window import MainWindow

    window = MainWindow()
    qtbot.addWidget(window)
    blank = QWidget()
    blank.setAutoFillBackground(True)
    window.tabs.addTab(blank, "Blank")
    window.show()
    qtbot.waitExposed(window)
    report = Report()
    check_tabs(report, application(), window)
    assert report.failures == 1
    assert [line[:4] for line in report.lines] == ["ok  "] * (window.tabs.count() - 1) + ["FAIL"]
    assert report.lines[-1].startswith("FAIL  tab Blank: ") and "0% differ" in report.lines[-1]
    window.shutdown()


# -- as a process --------------------------------------------------------------------------------

@pytest.mark.process
def test_the_process_passes_exits_0_and_leaves_the_home_folder_empty(empty_home):
    """The one self-test process from the source tree: exit code 0 (Qt torn down in order, no crash
    at interpreter exit; the frozen test runs it three times), and in an empty home folder with
    TRANSVIZ_SETTINGS unset it leaves nothing there (tests/gui/test_headless_settings.py: why)."""
    home, work, env = empty_home
    report = work / "report.txt"
    result = subprocess.run([sys.executable, "-m", "transviz", "--self-test", "--report", str(report)],
                            env=env, capture_output=True, text=True, timeout=300, cwd=work)
    assert result.returncode == 0, result.stdout + result.stderr
    assert report.read_text(encoding="utf-8") == result.stdout
    assert "platform offscreen" in result.stdout and "self-test passed" in result.stdout
    assert sorted(str(p.relative_to(home)) for p in home.rglob("*")) == []


def test_a_report_that_cannot_be_written_is_a_user_error(tmp_path, capsys):
    with pytest.raises(transviz.InputError, match="cannot write the report .*missing"):
        run(tmp_path / "missing" / "report.txt", {})


def test_report_needs_self_test(capsys):
    from transviz.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(["--report", "report.txt"])
    assert exit_.value.code == 2 and "--report goes with --self-test" in capsys.readouterr().err
