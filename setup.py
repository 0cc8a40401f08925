"""Everything but one step is in pyproject.toml: building the wheel also builds the HTML manual
(docs/) into the package's resources, so Help > Manual works offline in every installation."""
import importlib.util
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


class BuildWithManual(build_py):
    def run(self) -> None:
        super().run()
        if self.dry_run or getattr(self, "editable_mode", False):
            return  # an editable install reads resources/ in place: `python docs/build_manual.py`
        spec = importlib.util.spec_from_file_location("build_manual", ROOT / "docs" / "build_manual.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        module.build(Path(self.build_lib) / "transviz" / "resources" / "manual")  # over any copied from resources/


setup(cmdclass={"build_py": BuildWithManual})
