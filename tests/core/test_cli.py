import subprocess
import sys

import pytest

from transviz.cli import main


@pytest.mark.process
def test_python_dash_m_runs_the_cli():
    result = subprocess.run([sys.executable, "-m", "transviz", "--version"], capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout.startswith("transviz ")


@pytest.mark.process
def test_the_report_is_refused_before_the_self_test_runs_over_a_file_that_is_not_text(tmp_path):
    """Issue 15, item 10: --self-test --report FILE replaced any file, a checkpoint included."""
    target = tmp_path / "m.safetensors"
    target.write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{\"__metadata__\":{}}\x00\x01")
    result = subprocess.run([sys.executable, "-m", "transviz", "--self-test", "--report", str(target)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 1 and result.stdout == ""  # no check ran
    assert result.stderr == (f"transviz: {target} already exists and is not a text file: it was left as it is; "
                             "choose another name, or give --force to replace it\n")
    assert target.read_bytes().endswith(b"\x00\x01")


def test_force_before_a_command_goes_with_a_report(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--force"])
    assert exit_.value.code == 2 and "--force (before any command) goes with --self-test --report FILE" in \
        capsys.readouterr().err
