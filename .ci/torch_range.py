"""The torch versions transviz supports, read from pyproject.toml, for .ci/run.

``lowest`` prints the lower bound (CI's second configuration installs exactly that release);
``check lowest|resolved`` prints the installed torch and its build, and fails when it lies outside
the supported range, or, for ``lowest``, is not the lower bound itself.
"""
from __future__ import annotations

import sys
from importlib.metadata import version
from pathlib import Path

import tomllib
from packaging.requirements import Requirement
from packaging.version import Version

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def torch_requirement() -> Requirement:
    dependencies = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["dependencies"]
    return next(Requirement(d) for d in dependencies if Requirement(d).name == "torch")


def lowest(requirement: Requirement) -> str:
    bounds = [spec.version for spec in requirement.specifier if spec.operator == ">="]
    if len(bounds) != 1:
        sys.exit(f"pyproject.toml's {requirement} needs one lower bound (>=)")
    return bounds[0]


def check(which: str) -> None:
    requirement = torch_requirement()
    installed = Version(version("torch"))
    import torch

    print(f"torch {installed} ({'CUDA ' + str(torch.version.cuda) if torch.version.cuda else 'CPU'} build)")
    if installed.public not in requirement.specifier:
        sys.exit(f"torch {installed} is outside the supported range {requirement.specifier}")
    if which == "lowest" and Version(installed.public) != Version(lowest(requirement)):
        sys.exit(f"torch {installed} is not the lowest supported release {lowest(requirement)}")


if __name__ == "__main__":
    if sys.argv[1:] == ["lowest"]:
        print(lowest(torch_requirement()))
    elif len(sys.argv) == 3 and sys.argv[1] == "check" and sys.argv[2] in ("lowest", "resolved"):
        check(sys.argv[2])
    else:
        sys.exit("usage: torch_range.py lowest | check lowest|resolved")
