import os

import pytest

# Qt needs no display in tests (set before pytest-qt creates the QApplication).
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# Tests never read or write the user's transviz settings, here or in the processes they start
# (gui.services.settings: set but empty = remember nothing); settings tests give their own files.
os.environ["TRANSVIZ_SETTINGS"] = ""


@pytest.fixture(autouse=True)
def torch_threads_as_they_were():
    """A test that runs `transviz.cli.main` in this process (which sets torch's threads as the app
    uses them, core.base.cores.run_as_app) leaves the next test torch's threads as they were."""
    import torch

    from transviz.core.base.cores import CORES

    threads, ceiling = torch.get_num_threads(), CORES.ceiling
    yield
    CORES.ceiling = ceiling
    torch.set_num_threads(threads)
