"""Every visible string can be translated later without touching widgets: Qt's lupdate must find
each one, in a named context (a string lupdate cannot see, or files under no context, would stay
English in the Chinese edition)."""
from __future__ import annotations

import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

GUI = Path(__file__).resolve().parents[2] / "transviz" / "gui"


def lupdate() -> str:
    candidates = [Path(sys.executable).parent / "pyside6-lupdate", shutil.which("pyside6-lupdate")]
    found = next((str(c) for c in candidates if c and Path(c).exists()), None)
    if found is None:
        pytest.skip("pyside6-lupdate is not installed")
    return found


@pytest.mark.process
def test_lupdate_finds_the_strings_in_named_contexts(tmp_path):
    ts = tmp_path / "transviz_zh_CN.ts"
    sources = sorted(str(p) for p in GUI.rglob("*.py"))
    result = subprocess.run([lupdate(), *sources, "-ts", str(ts)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    contexts = {}
    for context in ET.parse(ts).getroot().iter("context"):
        name = context.findtext("name") or ""
        contexts[name] = [m.findtext("source") for m in context.iter("message")]
    assert "" not in contexts, f"strings without a translation context: {contexts.get('')}"
    found = {text for texts in contexts.values() for text in texts}
    for text in ("No model loaded: Model > Open", "query", "keys (columns)", "Export failed",
                 "{row_name} '{row}' -> {column_name} '{column}': {value}", "Positional encoding", "Masks",
                 "dimensions must be whole numbers separated by commas", "layer {0}, head {1}", "Explorer",
                 "Step (Space)", "queries: decoder input -> token written (rows)", "Teacher forcing with the reference",
                 "Beam search tree: choose beam search as the strategy to see it grow."):
        assert text in found
    assert {"MainWindow", "HeatmapWidget", "MasksPanel", "PositionalPanel", "AttentionGrid", "export", "ExplorerPanel",
            "AttentionView", "DecodingControls", "StrategyEditor", "SourceBox", "CandidatesChart", "BeamTree",
            "SessionController"} <= set(contexts)
