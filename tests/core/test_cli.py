import subprocess
import sys

import pytest

from transviz.cli import main


@pytest.mark.process
def test_python_dash_m_runs_the_cli():
    result = subprocess.run([sys.executable, "-m", "transviz", "--version"], capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout.startswith("transviz ")


def test_the_report_is_refused_before_the_self_test_runs_over_a_file_that_is_not_text(tmp_path, capsys):
    """Issue 15, item 10: --self-test --report FILE replaced any file, a checkpoint included. Refused
    in this process before any check (a self-test that ran would print them here)."""
    target = tmp_path / "m.safetensors"
    target.write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{\"__metadata__\":{}}\x00\x01")
    code = main(["--self-test", "--report", str(target)])
    out, err = capsys.readouterr()
    assert code == 1 and out == ""  # no check ran
    assert err == (f"transviz: {target} already exists and is not a text file: it was left as it is; "
                   "choose another name, or give --force to replace it\n")
    assert target.read_bytes().endswith(b"\x00\x01")


def test_force_before_a_command_goes_with_a_report(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--force"])
    assert exit_.value.code == 2 and "--force (before any command) goes with --self-test --report FILE" in \
        capsys.readouterr().err
