"""Settings files made to hurt (issue 15, item 9): a value Qt would decode with QDataStream, in
any disguise Qt's INI reading allows, is found in the raw bytes and the file set aside before Qt
reads it; a FIFO is never opened; what Qt itself writes always passes the check.

The crafted files that crash or hang Qt are only ever given to the app in a process of its own;
in this process a variant holds a harmless int, and Qt is shown to decode it."""
from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from PySide6.QtCore import QSettings

from transviz.gui.services.ini_scan import DECODED_BY_QT, MAX_FILE_BYTES, problem, unescaped
from transviz.gui.services.language import CHINESE, ENGLISH, system_language
from transviz.gui.services.settings import (
    BROKEN_SUFFIX,
    MAX_SET_ASIDE,
    SETTINGS_VARIABLE,
    Preferences,
    SettingsStore,
    WindowLayout,
    user_settings_path,
)

ROOT = Path(__file__).resolve().parents[2]
# 54 bytes: a QStringList claiming 2^31 - 1 strings; Qt aborts the process with std::bad_alloc
HOSTILE = b"[session]\nsentence=@Variant(\\0\\0\\0\\v\\x7f\\xff\\xff\\xff)\n"
# QDataStream's QVariant of type int (2) holding 5: harmless to decode, and plainly not a string
FIVE = rb"\0\0\0\x2\0\0\0\x5"
ESCAPED = rb"\x40\x56\x61\x72\x69\x61\x6e\x74\x28" + FIVE + rb"\x29"  # "@Variant(...)" all in escapes
DISGUISES = {  # the line, and the key Qt reads it as
    "plain": (b"[session]\nsentence=@Variant(" + FIVE + b")", "session/sentence"),
    "hex escape": (b"[session]\nsentence=\\x40Variant(" + FIVE + b")", "session/sentence"),
    "octal escape": (b"[session]\nsentence=\\100Variant(" + FIVE + b")", "session/sentence"),
    "hex escape past 16 bits": (b"[session]\nsentence=\\x10040Variant(" + FIVE + b")", "session/sentence"),
    "quoted": (b'[session]\nsentence="@Variant(' + FIVE + b')"', "session/sentence"),
    "split by quotes": (b'[session]\nsentence=@Var""iant(' + FIVE + b")", "session/sentence"),
    "an item of a list": (b"[session]\nsentence=a, @Variant(" + FIVE + b")", "session/sentence"),
    "continued line": (b"[session]\nsentence=@Var\\\niant(" + FIVE + b")", "session/sentence"),
    "behind a pending UTF-8 byte": (b"[session]\nsentence=\xc3" + ESCAPED, "session/sentence"),
    "DateTime": (rb"[window]" + b"\ntab=@DateTime(" + rb"\0\0\0\x2\0\0\0\0\x5" + b")", "window/tab"),
    "%General section": (b"[%General]\nlanguage=@Variant(" + FIVE + b")", "General/language"),
    "a key transviz never reads": (b"[elsewhere]\nanything=@Variant(" + FIVE + b")", "elsewhere/anything"),
}


def qt_reads(data: bytes, key: str) -> object:
    """What a bare QSettings makes of ``data`` (in a file of its own: Qt caches files by name)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "probe.ini"
        path.write_bytes(data)
        return QSettings(str(path), QSettings.Format.IniFormat).value(key)


@pytest.mark.parametrize("disguise", DISGUISES)
def test_a_value_qt_would_decode_as_binary_data_is_set_aside_unread(tmp_path, disguise):
    data, key = DISGUISES[disguise]
    read = qt_reads(data, key)
    assert read == 5 or (isinstance(read, list) and 5 in read)  # Qt does decode it
    ini = tmp_path / "transviz.ini"
    ini.write_bytes(data)
    stored = SettingsStore(ini).load()
    assert stored.preferences == Preferences(system_language()) and stored.layout == WindowLayout()
    assert len(stored.warnings) == 1 and str(ini) + BROKEN_SUFFIX in stored.warnings[0]
    assert not ini.exists() and (tmp_path / ("transviz.ini" + BROKEN_SUFFIX)).read_bytes() == data


def test_an_oversized_file_or_byte_array_is_set_aside(tmp_path):
    cases = {"file": b"[General]\n" + b"language=en\n" * (MAX_FILE_BYTES // 12 + 1),
             "byte array": b"[window]\ngeometry=@ByteArray(" + b"x" * 70_000 + b")\n"}
    for name, data in cases.items():
        ini = tmp_path / name / "transviz.ini"
        ini.parent.mkdir()
        ini.write_bytes(data)
        stored = SettingsStore(ini).load()
        assert stored.layout == WindowLayout() and BROKEN_SUFFIX in stored.warnings[0], name
        assert (ini.parent / ("transviz.ini" + BROKEN_SUFFIX)).exists(), name


def test_a_damaged_file_that_cannot_be_set_aside_is_left_as_it_is(tmp_path):
    ini = tmp_path / "transviz.ini"
    data = DISGUISES["plain"][0]
    ini.write_bytes(data)
    taken = tmp_path / ("transviz.ini" + BROKEN_SUFFIX)
    taken.mkdir()  # a folder in the way is kept, as is every file set aside before
    (taken / "something").write_text("kept")
    for number in range(2, MAX_SET_ASIDE + 1):  # every name a damaged file could be set aside as is taken
        (tmp_path / f"transviz.ini{BROKEN_SUFFIX}-{number}").touch()
    store = SettingsStore(ini)
    stored = store.load()
    assert stored.preferences == Preferences(system_language())
    assert len(stored.warnings) == 1 and "could not be set aside" in stored.warnings[0]
    store.save_preferences(Preferences(CHINESE))
    store.save_layout(WindowLayout(b"geometry", {"a": b"state"}, 1))
    assert ini.read_bytes() == data  # neither read by Qt nor written


@pytest.mark.process
def test_the_user_settings_file_is_where_qt_keeps_it(tmp_path):
    """Found without a QSettings of the user scope, which would read the file (and fallbacks) at once."""
    script = ("from PySide6.QtCore import QSettings; from transviz.gui.services.settings import user_settings_path;"
              "print(QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, 'transviz', 'transviz')"
              ".fileName()); print(user_settings_path())")
    for config in ("", str(tmp_path / "config")):
        env = {**os.environ, "HOME": str(tmp_path), "XDG_CONFIG_HOME": config, "PYTHONPATH": str(ROOT)}
        result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)
        qt, ours = result.stdout.split()
        assert Path(qt) == Path(ours) and Path(ours).is_relative_to(tmp_path), config
    assert user_settings_path().name == "transviz.ini"


TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=40)


@settings(max_examples=150, deadline=None)
@given(TEXT, st.binary(max_size=80))
def test_what_qt_writes_passes_the_check_and_reads_as_qt_reads_it(text, data):
    """Every sentence, model path and byte array transviz may write: the file Qt writes is never
    taken for a damaged one, and the check reads each value as Qt does."""
    assume(not any(marker in re.sub('[" \t]', "", text) for marker in DECODED_BY_QT))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "transviz.ini"
        store = SettingsStore(path)
        store.save_preferences(Preferences(ENGLISH, last_model=text or None, last_sentence=text))
        store.save_layout(WindowLayout(data, {"splitter": data}, 1))
        written = path.read_bytes()
        assert problem(written) is None
        value = next(line for line in written.splitlines() if line.startswith(b"sentence="))[len("sentence="):]
        qt_wrote = f"@String({text})" if "\0" in text else "@" + text if text.startswith("@") else text
        assert unescaped(value) == qt_wrote
        stored = SettingsStore(path).load()
        assert stored.warnings == () and stored.preferences.last_sentence == text
        assert stored.layout == WindowLayout(data, {"splitter": data} if data else {}, 1)


# The real app, in its own process: `transviz` with TRANSVIZ_SETTINGS naming the file.
REAL_APP = r"""
import json, sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
from transviz import cli
from transviz.gui.app import application
from transviz.gui.main_window import MainWindow

application()


def when_ready():
    windows = [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()]
    if not windows or windows[0].files.runner.is_busy():
        QTimer.singleShot(50, when_ready)
        return
    print(json.dumps([windows[0].notice.text(), windows[0].workspace.model_source]), flush=True)
    windows[0].close()

QTimer.singleShot(100, when_ready)
sys.exit(cli.main([]))
"""


def run_app(ini: Path) -> list[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen", SETTINGS_VARIABLE: str(ini),
           "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
    result = subprocess.run([sys.executable, "-c", REAL_APP], env=env, capture_output=True, text=True, timeout=90)
    assert result.returncode == 0, (result.returncode, result.stderr[-2000:])
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.process
def test_the_54_byte_file_that_aborted_every_start_is_set_aside(tmp_path):
    ini = tmp_path / "transviz.ini"
    ini.write_bytes(HOSTILE)
    assert len(HOSTILE) == 54
    notice, model = run_app(ini)  # it used to end in std::bad_alloc, exit status 134, at every start
    assert str(ini) + BROKEN_SUFFIX in notice and model == "default"
    assert (tmp_path / ("transviz.ini" + BROKEN_SUFFIX)).read_bytes() == HOSTILE
    assert problem(ini.read_bytes()) is None  # written afresh when the window closed
    assert run_app(ini) == ["", "default"]  # and the next start has nothing to say


@pytest.mark.process
def test_a_settings_path_that_is_a_fifo_is_never_opened_nor_written(tmp_path):
    fifo = tmp_path / "transviz.ini"
    os.mkfifo(fifo)
    notice, model = run_app(fifo)  # the window used to wait forever for a writer before it appeared
    assert "not a plain file" in notice and str(fifo) in notice and model == "default"
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and [p.name for p in tmp_path.iterdir()] == ["transviz.ini"]
