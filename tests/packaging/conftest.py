"""Tests of the classroom bundle. Those marked ``packaging`` build it with PyInstaller (minutes):
plain ``pytest`` skips them; ``pytest -m packaging`` (what .ci/run does) or TRANSVIZ_PACKAGING=1 runs them."""
from __future__ import annotations

import os

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if "packaging" in (config.getoption("markexpr") or "") or os.environ.get("TRANSVIZ_PACKAGING") == "1":
        return
    skip = pytest.mark.skip(reason="builds the PyInstaller bundle (minutes): run `pytest -m packaging`")
    for item in items:
        if item.get_closest_marker("packaging"):
            item.add_marker(skip)


@pytest.fixture
def tab_names(qapp) -> list[str]:
    """The tabs a fresh main window has, as the self-test should list them."""
    from transviz.gui.app import dispose
    from transviz.gui.main_window import MainWindow

    window = MainWindow()
    names = [window.tabs.tabText(i).replace("&", "") for i in range(window.tabs.count())]
    window.shutdown()
    dispose(window)
    return names
