"""pyproject.toml lists packages by hand (resources/ maps to transviz.resources): every package
directory must be listed, or an installed transviz would miss it."""
import sys
from pathlib import Path

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
