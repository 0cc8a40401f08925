"""The core must stay importable without Qt: checked with import-linter's contract."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_core_never_imports_qt():
    result = subprocess.run(
        [str(Path(sys.executable).parent / "lint-imports")],
        cwd=ROOT, capture_output=True, text=True,
    )
    assert "Contracts: 1 kept, 0 broken" in result.stdout, result.stdout + result.stderr
