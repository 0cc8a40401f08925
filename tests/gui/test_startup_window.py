"""The window's start: full garbage collections are held back from the program's entry until the
window is up, and run from then on with the start's objects frozen out of their reach (a fresh
process, offscreen, started as `transviz` starts)."""
import os
import subprocess
import sys
import textwrap

import pytest

PROBE = textwrap.dedent("""
    import gc, json
    from PySide6.QtCore import QTimer
    from transviz import cli

    before, full, marks = gc.get_threshold(), [], {}
    gc.callbacks.append(lambda phase, info: phase == "start" and info["generation"] == 2 and full.append(1))

    def poll():
        from transviz.gui.app import application
        from transviz.gui.main_window import MainWindow
        shown = [w for w in application().topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()]
        if shown and "shown" not in marks:
            marks["shown"] = [gc.get_threshold() == before, len(full)]
        if shown and shown[0].workspace.model is not None:
            marks["ready"] = [gc.get_threshold() == before, gc.get_freeze_count() > 0]
            shown[0].close()
            return
        QTimer.singleShot(5, poll)

    QTimer.singleShot(0, poll)
    code = cli.launch(["gui", "default"])
    print(json.dumps({"code": code, **marks, "enabled": gc.isenabled() and gc.get_threshold() == before}))
    """)


@pytest.mark.process
def test_full_collections_are_held_back_until_the_window_is_up():
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "TRANSVIZ_SETTINGS": ""}  # remember nothing
    result = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stderr
    marks = result.stdout.strip().splitlines()[-1]
    # shown: held back, and not one full collection since the entry; ready: back, the start frozen
    assert marks == '{"code": 0, "shown": [false, 0], "ready": [true, true], "enabled": true}'
