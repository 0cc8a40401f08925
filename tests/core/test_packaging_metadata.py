"""pyproject.toml lists packages by hand (resources/ maps to transviz.resources): every package
directory must be listed, or an installed transviz would miss it."""
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]


def test_every_package_directory_is_listed_in_pyproject():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "transviz").rglob("__init__.py")}
    assert found - listed == set(), "add these packages to [tool.setuptools] packages"
    assert "transviz.resources" in listed


def test_an_installed_transviz_carries_its_manual():
    """Building the wheel builds the manual into it (setup.py), so Help > Manual needs no source."""
    from transviz.core.io.resources import resource_dir

    folder = resource_dir()
    if folder.resolve() == (ROOT / "resources").resolve():
        pytest.skip("transviz is imported from the source tree here, not installed")
    for page in ("index.html", "zh/index.html", "tabs/explorer.html", "cli.html"):
        assert (folder / "manual" / page).is_file(), page
