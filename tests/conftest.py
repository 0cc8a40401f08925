import os
import sys
from pathlib import Path

import pytest

# Qt needs no display in tests (set before pytest-qt creates the QApplication).
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# Tests never read or write the user's transviz settings, here or in the processes they start
# (gui.services.settings: set but empty = remember nothing); settings tests give their own files.
os.environ["TRANSVIZ_SETTINGS"] = ""


SLOW_TIERS = ("process", "hf", "timing", "training")


def pytest_addoption(parser):
    parser.addoption("--fast", action="store_true",
                     help="leave out the slow tiers (" + ", ".join(SLOW_TIERS) + "): the run for development")


def pytest_collection_modifyitems(config, items):
    if not config.getoption("--fast"):
        return
    slow = {item for item in items if any(item.get_closest_marker(tier) for tier in SLOW_TIERS)}
    if slow:
        config.hook.pytest_deselected(items=[item for item in items if item in slow])
        items[:] = [item for item in items if item not in slow]


# Events Python raises when a process starts (multiprocessing's spawn raises none: such tests are
# marked by hand); a test in which one fires must be marked process, or it fails.
PROCESS_EVENTS = frozenset({"subprocess.Popen", "os.fork", "os.forkpty", "os.posix_spawn", "os.system", "os.exec"})
PROCESS_MARKERS = ("process", "fuzz", "packaging")
RUNNING: dict[str, pytest.Item | None] = {"item": None}
UNMARKED: list[str] = []


def started_a_process(event, args):
    item = RUNNING["item"]
    if event in PROCESS_EVENTS and item is not None and not any(map(item.get_closest_marker, PROCESS_MARKERS)):
        UNMARKED.append(event)


sys.addaudithook(started_a_process)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    RUNNING["item"] = item
    UNMARKED.clear()
    try:
        return (yield)
    finally:
        RUNNING["item"] = None


@pytest.fixture(autouse=True)
def marked_process_if_it_starts_one(request):
    """The process tier holds every test that starts a process (pytest --fast leaves them out)."""
    yield
    if UNMARKED:
        pytest.fail(f"{request.node.nodeid} started a process ({UNMARKED[0]}): mark it @pytest.mark.process")


def pytest_configure(config):
    """Parallel workers (pytest -n) share the cores: each computes on its part of them, as two
    programs whose torch threads both spin would take turns for every product (core.base.cores)."""
    workers = os.environ.get("PYTEST_XDIST_WORKER_COUNT")
    if workers:
        import torch

        torch.set_num_threads(max(1, (os.cpu_count() or 1) // int(workers)))


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


@pytest.fixture
def empty_home(tmp_path):
    """(home, work, env) for a transviz process that must leave the user's files alone: an empty
    home folder, a working folder, and this environment without TRANSVIZ_SETTINGS (unset, not
    empty: the process itself must not write the user's settings), Qt's platform (it chooses one
    itself) or XDG folders."""
    from transviz.gui.services.settings import SETTINGS_VARIABLE

    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    env = {k: v for k, v in os.environ.items()
           if k not in (SETTINGS_VARIABLE, "QT_QPA_PLATFORM") and not k.startswith("XDG_")}
    env.update(HOME=str(home), PYTHONPATH=str(Path(__file__).resolve().parents[1]), XDG_RUNTIME_DIR=str(work))
    return home, work, env
