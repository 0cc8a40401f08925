import subprocess
import sys


def test_python_dash_m_runs_the_cli():
    result = subprocess.run([sys.executable, "-m", "transviz", "--version"], capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout.startswith("transviz ")
