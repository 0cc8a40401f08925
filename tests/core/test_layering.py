"""The import contracts of pyproject.toml hold: the core stays importable without Qt, its
sub-packages import only downwards, without cycles and never from the package face; the GUI's
layers import only downwards, and no GUI module takes part in an import cycle."""
import subprocess
import sys
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.process
def test_every_import_contract_is_kept():
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    assert len(contracts) >= 6
    result = subprocess.run(
        [str(Path(sys.executable).parent / "lint-imports")],
        cwd=ROOT, capture_output=True, text=True,
    )
    assert f"Contracts: {len(contracts)} kept, 0 broken" in result.stdout, result.stdout + result.stderr
