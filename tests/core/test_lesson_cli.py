"""``transviz lesson --check``: a good lesson passes, a bad one gets one line naming its line."""
from __future__ import annotations

from pathlib import Path

import pytest

from transviz.cli import main

GOOD = '''format = "transviz-lesson"
version = 1

[[slide]]
model = "default"
sentence = "ich möchte ein bier"
steps = 2

[[slide]]
model = "default"
sentence = "ein bier bitte"
strategy = "beam"
settings = { width = 3 }
steps = 1
'''


def test_a_good_lesson_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "good.toml"
    path.write_text(GOOD, encoding="utf-8")
    assert main(["lesson", "--check", str(path)]) == 0
    assert capsys.readouterr().out == f"{path}: 2 slides, 3 decoder steps, all fine\n"


@pytest.mark.parametrize(("change", "expected"), [
    (("steps = 1\n", "steps = 1\ncolour = \"red\"\n"), "good.toml, line 15: unknown key 'colour'"),
    (("sentence = \"ein bier bitte\"", "sentence = \"ein bier bitte"), "good.toml, line 11: not valid TOML"),
    (("model = \"default\"\nsentence = \"ein", "model = \"nothere\"\nsentence = \"ein"),
     "good.toml, line 9: the model 'nothere' is neither a shipped model nor a file"),
    (("steps = 1\n", "steps = 900\n"), "good.toml, line 9: the slide asks for 900 steps"),
])
def test_a_bad_lesson_gets_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                    change: tuple[str, str], expected: str) -> None:
    path = tmp_path / "good.toml"
    path.write_text(GOOD.replace(*change), encoding="utf-8")
    assert main(["lesson", "--check", str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(f"transviz: {expected}"), captured.err
    assert captured.err.count("\n") == 1


def test_an_unreadable_file_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lesson", "--check", str(tmp_path / "none.toml")]) == 1
    assert capsys.readouterr().err.startswith(f"transviz: cannot read {tmp_path / 'none.toml'}: ")
