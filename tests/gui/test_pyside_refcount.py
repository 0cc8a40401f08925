"""Regression: PySide6 6.12.0 drops a reference to True on every Python signal emit and aborts
Python 3.11 after about a thousand emits. The pinned release must keep the count steady."""
import sys

import pytest

QtCore = pytest.importorskip("PySide6.QtCore")


class Emitter(QtCore.QObject):
    fired = QtCore.Signal(object)


def test_signal_emits_do_not_leak_true(qapp):
    emitter, received = Emitter(), []
    emitter.fired.connect(received.append)
    before = sys.getrefcount(True)
    for i in range(3000):
        emitter.fired.emit(i)
    assert len(received) == 3000
    assert abs(sys.getrefcount(True) - before) < 50
