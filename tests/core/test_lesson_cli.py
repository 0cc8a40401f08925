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


ONE = '''format = "transviz-lesson"
version = 1

[[slide]]
model = "default"
sentence = "ich möchte ein bier"
steps = 1
'''


def test_one_slide_and_one_step_are_counted_in_the_singular(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "one.toml"
    path.write_text(ONE, encoding="utf-8")
    assert main(["lesson", "--check", str(path)]) == 0
    assert capsys.readouterr().out == f"{path}: 1 slide, 1 decoder step, all fine\n"


@pytest.mark.parametrize(("added", "expected"), [
    ('quiz = { ask = "token", answer = "drinkk" }\n',
     "one.toml, line 8: the quiz's answer 'drinkk' is not a token the model can write"),
    ('quiz = { ask = "token", answer = "<pad>" }\n', "one.toml, line 8: the quiz's answer '<pad>' is not a token"),
    ('caption_en = "a"\nview = { kind = "cross", layer = 9 }\n',
     "one.toml, line 9: the view names layer 9, but the model's cross attention has layers 0 to 2"),
    ('view = { kind = "decoder_self", head = 7 }\n',
     "one.toml, line 8: the view names head 7, but the model has heads"),
    ('\nquiz = { ask = "where", kind = "cross", layer = 0, head = 12 }\n',
     "one.toml, line 9: the quiz names head 12, but the model has heads"),
])
def test_what_the_model_cannot_show_is_an_error_at_its_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                             added: str, expected: str) -> None:
    path = tmp_path / "one.toml"
    path.write_text(ONE + added, encoding="utf-8")
    assert main(["lesson", "--check", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"transviz: {expected}"), err


def test_an_answer_the_model_can_write_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "one.toml"
    path.write_text(ONE + 'quiz = { ask = "token", answer = "Beer" }\n', encoding="utf-8")  # the vocabulary's case
    assert main(["lesson", "--check", str(path)]) == 0
    assert capsys.readouterr().out.endswith("all fine\n")


def test_a_tab_that_gives_the_answer_away_is_a_warning_at_its_line(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "one.toml"
    path.write_text(ONE + 'tab = "masks"\nquiz = { ask = "token" }\n', encoding="utf-8")
    assert main(["lesson", "--check", str(path)]) == 0  # allowed: the slide still shows
    captured = capsys.readouterr()
    assert captured.err == ("transviz: warning: one.toml, line 8: tab = 'masks' gives the quiz's answer away: its "
                            "walkthrough draws the step the class is asked about\n")
    assert captured.out == f"{path}: 1 slide, 1 decoder step, 1 warning\n"
