"""Lesson files: they round-trip, and a bad one gets one message that names its line."""
from __future__ import annotations

import ast
import os
from pathlib import Path

import numpy as np
import pytest

from transviz.core.decoding.interventions import AblateHead, EditAttention, NoPositions, ScaleScores, TieQueryKey
from transviz.core.decoding.session import DecodingSession
from transviz.core.decoding.strategies import Beam, Greedy, Sampling
from transviz.core.teaching import lesson
from transviz.core.teaching.lesson import Forced, Lesson, LessonError, Quiz, Slide, View
from transviz.core.teaching.lesson_run import Models, check, model_source
from transviz.core.teaching.tabs import TABS

HEAD = 'format = "transviz-lesson"\nversion = 1\ntitle_en = "T"\n'
SLIDE = '\n[[slide]]\nmodel = "default"\nsentence = "ich möchte ein bier"\n'


def every_field() -> Lesson:
    """A lesson that sets every field to something other than its default."""
    rich = Slide(model="default", sentence="ich möchte ein bier", reference="i would like a beer",
                 teacher_forcing=True, strategy=Sampling(0.7, 5, 0.9, 42), steps=3,
                 forced=(Forced(0, "i"), Forced(2, "a")), tab="masks",
                 view=View("decoder_self", 1, "summary", "max", "row", "magma"),
                 interventions=(AblateHead("cross", 1, 2, "copy", (0, 1)), ScaleScores(0.5, "cross", 1),
                                TieQueryKey("encoder_self", 0), NoPositions("encoder"),
                                EditAttention("cross", 0, 1, 2, (0.25, 0.75))),
                 caption_en="Look: \"quoted\"\nand a second line", caption_zh="看：第二行",
                 quiz=Quiz("where", "cross", 0, 1))
    plain = Slide(model="models/other.safetensors", sentence="ein bier", strategy=Beam(3, 0.0),
                  quiz=Quiz("token", answer="beer"))
    paged = Slide("default", "bitte", tab="why", page="positions")
    return Lesson((rich, plain, paged, Slide("default", "bitte")), "Title", "标题")


def test_a_lesson_round_trips_through_its_text() -> None:
    original = every_field()
    again = lesson.loads(lesson.dumps(original))
    assert again == original
    assert again.slides[0].strategy == Sampling(0.7, 5, 0.9, 42)
    assert again.slides[0].interventions[0].source == (0, 1)  # a TOML list read back as the tuple it was


def test_a_lesson_round_trips_through_a_file(tmp_path: Path) -> None:
    path = lesson.write(every_field(), tmp_path / "l.toml")
    assert lesson.read(path) == every_field()
    assert lesson.read(path).folder == tmp_path.resolve()


def test_defaults_of_a_minimal_slide() -> None:
    read = lesson.loads(HEAD + SLIDE)
    slide = read.slides[0]
    assert (slide.strategy, slide.steps, slide.tab, slide.view, slide.quiz) == (Greedy(), 0, "explorer", View(), None)
    assert slide.line == 5  # the [[slide]] header


def error_of(text: str) -> str:
    with pytest.raises(LessonError) as caught:
        lesson.loads(text, "bad.toml")
    return str(caught.value)


@pytest.mark.parametrize(("text", "line", "words"), [
    (HEAD + SLIDE + "steps = = 3\n", 8, "not valid TOML"),                       # a syntax error
    (HEAD + SLIDE + "stepz = 3\n", 8, "unknown key 'stepz'"),                    # an unknown key
    (HEAD + SLIDE + "\nsteps = \"three\"\n", 9, "steps must be a whole number"),  # a wrong type
    (HEAD + SLIDE + "steps = -1\n", 8, "steps must be 0 or more"),
    (HEAD + SLIDE + "steps = true\n", 8, "steps must be a whole number"),         # a bool is not a number
    (HEAD + SLIDE + SLIDE + 'view = { kind = "crosss" }\n', 12, "kind must be one of"),
    (HEAD + SLIDE + 'strategy = "beam"\nsettings = { width = 0 }\n', 9, "beam width"),
    (HEAD + SLIDE + 'settings = { width = 2 }\n', 8, "unknown key 'width'"),      # greedy has no settings
    (HEAD + SLIDE + 'steps = 2\nforced = [{ step = 2, token = "a" }]\n', 9, "forced step"),
    (HEAD + SLIDE + 'interventions = [{ name = "Ablate" }]\n', 8, "unknown intervention 'Ablate'"),
    (HEAD + SLIDE + 'interventions = [{ name = "AblateHead", kind = "cross" }]\n', 8, "AblateHead needs"),
    (HEAD + SLIDE + 'interventions = [{ name = "AblateHead", kind = "cross", layer = 0, head = 0, mode = "x" }]\n',
     8, "mode must be"),
    (HEAD + SLIDE + 'quiz = { ask = "where" }\n', 8, "names the head"),
    (HEAD + SLIDE + 'tab = "why"\npage = "scales"\n', 9, "page must be one of scale, positions"),
    (HEAD + SLIDE + 'tab = "masks"\npage = "scale"\n', 9, "tab = 'masks' has no pages"),
    (HEAD + '\n[[slide]]\nsentence = "x"\n', 5, "model is missing"),
    (HEAD.replace("version = 1", "version = 2"), 2, "lesson version 1"),
    (HEAD, 1, "at least one [[slide]]"),
])
def test_a_bad_file_gets_one_message_with_its_line(text: str, line: int, words: str) -> None:
    message = error_of(text)
    assert message.startswith(f"bad.toml, line {line}: "), message
    assert words in message
    assert "\n" not in message


def test_a_missing_model_is_named_with_its_slides_line(tmp_path: Path) -> None:
    path = tmp_path / "l.toml"
    path.write_text(HEAD + SLIDE + SLIDE.replace('"default"', '"gone/model.safetensors"'), encoding="utf-8")
    read = lesson.read(path)
    assert model_source(read.slides[0], read.folder) == "default"
    with pytest.raises(LessonError) as caught:
        check(read)
    assert str(caught.value).startswith("l.toml, line 9: the model 'gone/model.safetensors' is neither")
    assert str(tmp_path / "gone" / "model.safetensors") in str(caught.value)


def test_a_relative_model_path_starts_at_the_lesson_file(tmp_path: Path) -> None:
    from transviz.core.io.resources import shipped_models

    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "x.safetensors").write_bytes(shipped_models()["default"].read_bytes())
    read = lesson.loads(HEAD + SLIDE.replace('"default"', '"m/x.safetensors"'), folder=tmp_path)
    assert model_source(read.slides[0], read.folder) == str(tmp_path / "m" / "x.safetensors")


def test_check_decodes_each_slide_as_a_session_by_hand_would() -> None:
    """The checked session equals one built by hand from the slide's description."""
    text = HEAD + SLIDE + 'steps = 3\nforced = [{ step = 1, token = "a" }]\n' + SLIDE + \
        'strategy = "beam"\nsettings = { width = 3 }\nsteps = 2\n' \
        'interventions = [{ name = "AblateHead", kind = "cross", layer = 0, head = 1 }]\n'
    models = Models()
    sessions = check(lesson.loads(text, "t.toml"), models)
    _, decoding = models.get("default")
    by_hand = DecodingSession(decoding, "ich möchte ein bier")
    by_hand.step()
    by_hand.force("a")
    by_hand.step()
    assert sessions[0].output_tokens == by_hand.output_tokens
    np.testing.assert_array_equal(sessions[0].cross_attention(), by_hand.cross_attention())
    beam = DecodingSession(decoding, "ich möchte ein bier", strategy=Beam(3),
                           interventions=(AblateHead("cross", 0, 1),))
    beam.step()
    beam.step()
    assert sessions[1].output_tokens == beam.output_tokens
    np.testing.assert_array_equal(sessions[1].cross_attention(), beam.cross_attention())


def test_check_names_the_line_of_a_slide_that_cannot_run() -> None:
    text = HEAD + SLIDE + SLIDE + 'steps = 500\n'
    with pytest.raises(LessonError) as caught:
        check(lesson.loads(text, "t.toml"))
    assert str(caught.value).startswith("t.toml, line 9: the slide asks for 500 steps")


def assigned(path: Path, name: str) -> object:
    """The value ``name = (...)`` is given at the top of the module at ``path``."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return ast.literal_eval(node.value)
    raise AssertionError(f"{name} not found in {path}")


def test_the_core_names_the_windows_choices() -> None:
    """The core validates lessons without Qt: its lists must be the window's (read from source)."""
    from transviz.core.decoding.interventions import KINDS
    from transviz.core.teaching.lesson import COLORMAPS, SCALES, SUMMARIES

    root = Path(__file__).resolve().parents[3] / "transviz" / "gui"
    assert assigned(root / "widgets" / "attention_view.py", "SUMMARIES") == SUMMARIES
    assert assigned(root / "widgets" / "attention_view.py", "SCALES") == SCALES
    assert assigned(root / "style.py", "COLORMAPS") == COLORMAPS
    assert lesson.KINDS == KINDS  # the tabs are not copied: tests/gui/test_tabs.py checks the registry


def test_a_slide_names_any_tab_of_the_one_list_and_no_other() -> None:
    for tab in TABS:
        assert lesson.loads(HEAD + SLIDE + f'tab = "{tab}"\n').slides[0].tab == tab
    with pytest.raises(LessonError, match="tab must be one of " + ", ".join(TABS) + ", got 'Lab'"):
        lesson.loads(HEAD + SLIDE + 'tab = "Lab"\n')
    page = (Path(__file__).resolve().parents[3] / "docs" / "teaching" / "lesson-format.md").read_text(encoding="utf-8")
    assert f'tab = "explorer"                # {", ".join(TABS)}\n' in page  # the lesson format's documentation


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_named_pipe_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    pipe = tmp_path / "lesson.toml"
    os.mkfifo(pipe)
    with pytest.raises(lesson.LessonError, match=r"lesson\.toml is not a file: it is a named pipe \(FIFO\)$"):
        lesson.read(pipe)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_a_device_is_refused_unread() -> None:
    with pytest.raises(lesson.LessonError, match="^/dev/zero is not a file: it is a device$"):
        lesson.read("/dev/zero")


def test_a_file_far_larger_than_any_lesson_is_refused(tmp_path: Path) -> None:
    big = tmp_path / "big.toml"
    with big.open("wb") as f:
        f.truncate(lesson.MAX_FILE_MB * 2**20 + 1)  # sparse: costs no disk
    with pytest.raises(lesson.LessonError, match="^big.toml is more than 16 MB: not a lesson or session file"):
        lesson.read(big)


def test_values_nested_thousands_deep_are_refused_in_one_line(tmp_path: Path) -> None:
    deep = tmp_path / "deep.toml"
    deep.write_text("a = " + "[" * 5000 + "]" * 5000 + "\n", encoding="utf-8")
    with pytest.raises(lesson.LessonError, match="^deep.toml: its values are nested too deeply to read$"):
        lesson.read(deep)


@pytest.mark.parametrize("model, shown", [
    ("loop.safetensors", "loop.safetensors"),  # a symbolic link to itself
    ("nul\\u0000byte.safetensors", "nul\\x00byte.safetensors"),
    ("x" * 5000 + ".safetensors", "x" * 5000),
])
def test_a_model_path_that_cannot_be_a_file_is_named_at_its_line(tmp_path: Path, model: str, shown: str) -> None:
    (tmp_path / "loop.safetensors").symlink_to(tmp_path / "loop.safetensors")
    path = tmp_path / "l.toml"
    path.write_text(HEAD + SLIDE.replace('"default"', f'"{model}"'), encoding="utf-8")
    with pytest.raises(LessonError) as caught:
        check(lesson.read(path))
    message = str(caught.value)
    assert message.startswith("l.toml, line 5: the model ") and "is neither a shipped model nor a file" in message
    assert shown in message and "\0" not in message


@pytest.mark.parametrize("version", ["1.0", "true", '"1"'])
def test_a_version_that_only_equals_1_is_refused(tmp_path: Path, version: str) -> None:
    path = tmp_path / "l.toml"
    path.write_text((HEAD + SLIDE).replace("version = 1", f"version = {version}"), encoding="utf-8")
    with pytest.raises(LessonError, match="^l.toml, line 2: this transviz reads lesson version 1, got "):
        lesson.read(path)


@pytest.mark.parametrize("table, message", [
    ('view = { kind = "cross", layer = 9 }', "line 8: the view names layer 9, but the model's cross attention has "
                                             "layers 0 to 2"),
    ('view = { kind = "encoder_self", head = 4 }', "line 8: the view names head 4, but the model has heads 0 to 3"),
    ('quiz = { ask = "where", kind = "decoder_self", layer = 3, head = 0 }',
     "line 8: the quiz names layer 3, but the model's decoder_self attention has layers 0 to 2"),
    ('quiz = { ask = "where", kind = "cross", layer = 0, head = 5 }',
     "line 8: the quiz names head 5, but the model has heads 0 to 3"),
])
def test_check_names_a_layer_or_head_the_model_lacks(tmp_path: Path, table: str, message: str) -> None:
    """The shipped default model: 3 layers on each side, 4 heads. The line is the key's (the slide starts at 5)."""
    path = tmp_path / "l.toml"
    path.write_text(HEAD + SLIDE + table + "\n", encoding="utf-8")
    with pytest.raises(LessonError, match=f"^l.toml, {message}$"):
        check(lesson.read(path))


def test_a_lesson_of_more_slides_than_a_term_holds_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "l.toml"
    path.write_text(HEAD + SLIDE * (lesson.MAX_SLIDES + 1), encoding="utf-8")
    too_many = r"^l.toml, line \d+: the lesson has 1,001 slides; a lesson has at most 1,000$"
    with pytest.raises(LessonError, match=too_many):
        lesson.read(path)
    path.write_text(HEAD + SLIDE * lesson.MAX_SLIDES, encoding="utf-8")
    assert len(lesson.read(path).slides) == lesson.MAX_SLIDES


@pytest.mark.hf
def test_a_slide_names_a_hugging_face_folder_beside_the_lesson(tmp_path: Path) -> None:
    """A session saved with a Hugging Face model names its folder; reopened, it is found again."""
    pytest.importorskip("transformers")
    from hf_folders import marian_folder

    marian_folder(tmp_path / "marian")
    path = tmp_path / "l.toml"
    path.write_text(HEAD + SLIDE.replace('"default"', '"marian"') + "steps = 2\n", encoding="utf-8")
    read = lesson.read(path)
    assert model_source(read.slides[0], read.folder) == str(tmp_path / "marian")
    [session] = check(read)
    assert session.position == 2


def test_append_keeps_the_files_text_and_adds_the_slide(tmp_path: Path) -> None:
    path = tmp_path / "l.toml"
    text = HEAD + "# a note of the teacher's\n" + SLIDE + 'view = { kind = "cross" }  # inline, as written\n'
    path.write_text(text, encoding="utf-8")
    added = Slide("default", "ein bier", steps=2, tab="masks", caption_en="Added")
    after = lesson.append(path, added)
    assert after.slides[1] == added and lesson.read(path) == after
    assert path.read_text(encoding="utf-8").startswith(text)


def test_append_makes_a_new_lesson_with_its_title(tmp_path: Path) -> None:
    path = tmp_path / "new.toml"
    lesson.append(path, Slide("default", "ein bier"), "New")
    assert lesson.read(path) == Lesson((Slide("default", "ein bier"),), "New")


@pytest.mark.parametrize("text", ["not a lesson\n", HEAD + 'slide = [{ model = "default", sentence = "bier" }]\n'])
def test_append_never_changes_a_file_it_cannot_add_to(tmp_path: Path, text: str) -> None:
    path = tmp_path / "l.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(LessonError, match="l.toml"):
        lesson.append(path, Slide("default", "ein bier"))
    assert path.read_text(encoding="utf-8") == text


def test_the_known_keys_of_a_slide_are_the_files_keys_only() -> None:
    with pytest.raises(LessonError) as raised:
        lesson.loads(HEAD + SLIDE + "stepz = 1\n", "l.toml")
    known = str(raised.value).split("known: ")[1]
    assert "steps" in known and "lines" not in known and "line," not in known
