"""A real class server on the loopback address (port 0: any free port), its events, and the raw
clients of tests/class_clients.py closed after each test."""
from __future__ import annotations

import pytest

from class_clients import close_all
from transviz.live.server import ClassServer


@pytest.fixture
def events():
    return []


@pytest.fixture
def server(events):
    server = ClassServer("127.0.0.1", 0, on_event=events.append)
    server.start()
    yield server
    server.stop()


@pytest.fixture(autouse=True)
def close_clients():
    """Every connection a test opened is closed after it."""
    yield
    close_all()
