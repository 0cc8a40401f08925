"""The cold-start figure: skipped with a reason when there is no bundle, measured when there is."""
from __future__ import annotations

import json

from transviz.bench.packaging import BUNDLE_VARIABLE
from transviz.cli import main


def test_without_a_bundle_the_figure_is_skipped_with_the_reason(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(BUNDLE_VARIABLE, str(tmp_path))
    assert main(["bench", "frozen_cold_start_s", "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out) == []
    assert err.startswith("frozen_cold_start_s") and f"skipped: no bundle at {tmp_path}: build it with" in err
