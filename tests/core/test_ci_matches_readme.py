"""CI tests the torch that the README's test command resolves on a fresh machine, and the lowest
torch that pyproject.toml admits: a setup the README does not give cannot turn CI green alone."""
from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

from packaging.requirements import Requirement

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]


def readme_test_command() -> list[str]:
    """The Quick start's test command, as words: ``pip install '.[test]' && pytest``."""
    quick_start = (ROOT / "README.md").read_text(encoding="utf-8").split("## Quick start", 1)[1]
    block = re.search(r"```bash\n(.*?)```", quick_start, re.S)
    assert block is not None, "the Quick start has a bash block"
    line = next(line for line in block.group(1).splitlines() if "pytest" in line)
    return shlex.split(line.split("#")[0])


def ci_configurations() -> list[list[list[str]]]:
    """.ci/run's commands as words, one list per virtual environment it makes."""
    configurations: list[list[list[str]]] = []
    for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines():
        try:
            words = shlex.split(line, comments=True)
        except ValueError:  # a quoted value that spans lines (the list of X11 libraries)
            continue
        if words[:3] == ["python3", "-m", "venv"]:
            configurations.append([])
        elif words and configurations:
            configurations[-1].append(words)
    return configurations


def without_quiet(words: list[str]) -> list[str]:
    return [w for w in words if w != "-q"]


def test_the_first_ci_configuration_is_the_readmes_test_command_on_a_fresh_environment():
    install, pytest_words = (part.split() if isinstance(part, str) else part
                             for part in " ".join(readme_test_command()).split(" && "))
    first = ci_configurations()[0]
    pip = [words for words in first if words[:2] == ["pip", "install"]]
    assert [without_quiet(words) for words in pip] == [install], \
        "the README's configuration installs what the README says, and nothing before it (no torch of its own)"
    assert any(without_quiet(words) == pytest_words for words in first), "and runs the whole suite as the README does"


def test_the_second_ci_configuration_installs_the_lowest_supported_torch():
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    torch = next(Requirement(d) for d in dependencies if Requirement(d).name == "torch")
    operators = sorted(spec.operator for spec in torch.specifier)
    assert operators == ["<", ">="], f"the supported range has both ends, each tested: {torch}"
    second = ci_configurations()[1]
    assert ["pip", "install", "-q", "torch==$lowest"] in second
    assert ["python", ".ci/torch_range.py", "check", "lowest"] in second
