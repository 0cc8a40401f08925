"""``transviz lesson FILE --export DIR``: one picture per slide, each the window at that slide."""
from __future__ import annotations

import argparse
from pathlib import Path

from PySide6.QtGui import QImage

from transviz.cli import main
from transviz.commands.lesson import register
from transviz.core.io.resources import shipped_lessons
from transviz.core.teaching import lesson
from transviz.gui.render import export_lesson
from transviz.gui.services.language import ENGLISH, LANGUAGES, current_language


def test_every_slide_becomes_a_picture(tmp_path: Path) -> None:
    path = shipped_lessons()["01-data-flow"]
    read = lesson.read(path)
    written = export_lesson(read, tmp_path, 1366, 768)
    assert [p.name for p in written] == [f"slide-{i + 1:02d}.png" for i in range(len(read.slides))]
    images = [QImage(str(p)) for p in written]
    assert all((image.width(), image.height()) == (1366, 768) for image in images)
    assert all(a != b for a, b in zip(images, images[1:], strict=False))  # each slide shows something else


TWO_SLIDES = """format = "transviz-lesson"
version = 1
title_en = "Two slides"
title_zh = "两张幻灯片"
[[slide]]
model = "default"
sentence = "ich mochte ein bier"
steps = 1
caption_en = "one"
caption_zh = "一"
[[slide]]
model = "default"
sentence = "ich mochte ein bier"
steps = 2
caption_en = "two"
caption_zh = "二"
"""


def test_export_replaces_only_its_own_pictures_unless_forced(tmp_path: Path, capsys) -> None:
    """A user's file named deck/slide-02.png was replaced whatever it held (issue 41)."""
    (tmp_path / "two.toml").write_text(TWO_SLIDES, encoding="utf-8")
    deck = tmp_path / "deck"
    deck.mkdir()
    notes = b"my notes, named like a slide\n"
    (deck / "slide-02.png").write_bytes(notes)
    assert main(["lesson", str(tmp_path / "two.toml"), "--export", str(deck), "--size", "1366x768"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "slide-02.png already exists and is not a PNG picture" in err
    assert sorted(p.name for p in deck.iterdir()) == ["slide-02.png"]  # nothing drawn: checked first
    assert (deck / "slide-02.png").read_bytes() == notes

    assert main(["lesson", str(tmp_path / "two.toml"), "--export", str(deck), "--size", "1366x768", "--force"]) == 0
    assert QImage(str(deck / "slide-02.png")).width() == 1366
    assert main(["lesson", str(tmp_path / "two.toml"), "--export", str(deck), "--size", "1366x768"]) == 0  # PNGs


def test_export_into_a_file_is_refused_in_one_line(tmp_path: Path, capsys) -> None:
    (tmp_path / "two.toml").write_text(TWO_SLIDES, encoding="utf-8")
    (tmp_path / "deck").write_bytes(b"a file, not a folder")
    assert main(["lesson", str(tmp_path / "two.toml"), "--export", str(tmp_path / "deck")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "it is a file, not a folder" in err


def test_an_empty_export_folder_is_refused_not_a_window(tmp_path: Path, capsys, monkeypatch) -> None:
    (tmp_path / "two.toml").write_text(TWO_SLIDES, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["lesson", "two.toml", "--export", ""]) == 1
    err = capsys.readouterr().err
    assert err == "transviz: --export needs the name of a folder for the slides, e.g. --export slides\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["two.toml"]


def test_export_speaks_the_settings_files_language_unless_told(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "two.toml").write_text(TWO_SLIDES, encoding="utf-8")
    settings = tmp_path / "transviz.ini"
    settings.write_text("[General]\nlanguage=zh_CN\n", encoding="utf-8")
    monkeypatch.setenv("TRANSVIZ_SETTINGS", str(settings))

    def first_slide(*options: str) -> QImage:
        deck = tmp_path / "-".join(("deck", *options))
        assert main(["lesson", str(tmp_path / "two.toml"), "--export", str(deck), "--size", "1366x768",
                     *options]) == 0
        return QImage(str(deck / "slide-01.png"))

    saved, chinese, english = first_slide(), first_slide("--language", "zh_CN"), first_slide("--language", "en")
    assert saved == chinese and saved != english
    assert current_language() == ENGLISH  # the language the tests run in is given back


def test_the_export_languages_are_the_windows() -> None:
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    choices = next(a.choices for a in parser._subparsers._group_actions[0].choices["lesson"]._actions
                   if a.dest == "language")
    assert tuple(choices) == tuple(LANGUAGES)
