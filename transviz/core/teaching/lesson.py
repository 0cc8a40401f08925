"""Lesson files: a sequence of slides, each a state of the window (model, sentence, strategy,
steps, tab and view, interventions) with a caption in English and Chinese. A saved session is a
one-slide lesson.

The format is TOML (the manual: Lesson format reference), read with the standard library's ``tomllib`` (whose
errors carry a line and column) and written with ``tomli_w``. TOML rather than YAML: a
lesson is a flat list of small tables a teacher edits by hand, TOML has one way to write each
value (no implicit ``no`` -> false, no indentation rules), and reading it needs no third-party
parser. Every error names the file and the line of the slide or key at fault, and a lesson is
either read whole or not at all.
"""
from __future__ import annotations

import re
import sys
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from ..analysis.walkthrough import KINDS, Kind
from ..base.errors import TransvizError
from ..base.files import NotARegularFile, kind_of, open_regular, write_atomically
from ..base.messages import Arg, Message, translate_noop
from ..decoding.interventions import Intervention
from ..decoding.strategies import Greedy, Strategy, strategy_named, strategy_settings
from .tabs import TAB_PAGES, TABS, Tab

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the same parser, before it joined the standard library
    import tomli as tomllib  # type: ignore[import-not-found]  # installed only on Python 3.10

FORMAT, VERSION = "transviz-lesson", 1
SUFFIX, SESSION_SUFFIX = ".toml", ".transviz"
# what the window offers (transviz.gui keeps its own copies; tests/core/teaching/test_lesson.py checks they agree)
MAX_SLIDES = 1000  # a term of lessons in one file: more is a generated file gone wrong
MAX_FILE_MB = 16  # a lesson of a hundred slides is tens of KB; a session file is about as small
SUMMARIES = ("mean", "max", "rollout")
SCALES = ("fixed", "map", "row")
COLORMAPS = ("viridis", "cividis", "magma")
ASKS = ("token", "where", "layer", "sums", "aligns", "queries", "mask")
INTERVENTIONS = Intervention.TYPES  # by class name
SUMMARY_HEAD = "summary"  # a view's head: the layer's summary shown large instead of one head


class LessonError(TransvizError):
    """A lesson or session file that cannot be read or does not fit its model."""


@dataclass(frozen=True)
class View:
    """How attention is shown: the ``kind``, the tile shown large (``layer`` None: the last
    layer; ``head`` :data:`SUMMARY_HEAD`: the layer's summary), the grid's summary column, the
    colour ``scale`` and the ``colormap`` (None: the one the user chose)."""

    kind: Kind = "cross"
    layer: int | None = None
    head: int | str = 0
    summary: str = "mean"
    scale: str = "fixed"
    colormap: str | None = None


@dataclass(frozen=True)
class Forced:
    """Output token ``step`` (0: the first) is ``token``, forced instead of chosen."""

    step: int
    token: str


@dataclass(frozen=True)
class Quiz:
    """Before the slide's state is shown the class predicts: the next ``token`` (``answer``, when
    given, is the token the teacher expects), or ``where`` head (``kind``, ``layer``, ``head``)
    will look, or something of the model's inside (``layer``, ``sums``, ``aligns``, ``queries``,
    ``mask``: :mod:`transviz.core.teaching.quiz`). The truth is always the model's own."""

    ask: str
    kind: Kind | None = None
    layer: int | None = None
    head: int | None = None
    answer: str | None = None


# Tabs that draw the current step's attention without hiding a quiz's question (the explorer,
# concepts and compare hide it while it is open)
ANSWERING_TABS = ("masks",)


@dataclass(frozen=True)
class Slide:
    """One state of the window. ``model`` is a shipped model's name or a checkpoint's path
    (relative to the lesson file); ``steps`` decoder steps are taken, ``forced`` among them."""

    model: str
    sentence: str
    reference: str | None = None
    teacher_forcing: bool = False
    strategy: Strategy = field(default_factory=Greedy)
    steps: int = 0
    forced: tuple[Forced, ...] = ()
    tab: Tab = "explorer"
    page: str | None = None  # a page of the tab (:data:`~transviz.core.teaching.tabs.TAB_PAGES`), or its first
    view: View = field(default_factory=View)
    interventions: tuple[Intervention, ...] = ()
    caption_en: str = ""
    caption_zh: str = ""
    quiz: Quiz | None = None
    line: int = field(default=1, compare=False)  # where the slide starts in its file, for later errors
    # (key, line) of each key the file sets: a later error points at the key, not only the slide
    lines: tuple[tuple[str, int], ...] = field(default=(), compare=False)

    def line_of(self, key: str) -> int:
        """The line where the file sets ``key`` (the slide's own line when it does not)."""
        return dict(self.lines).get(key, self.line)

    def caption(self, language: str) -> str:
        """The caption in ``language`` (``zh...``: Chinese, when there is one), else the English."""
        return self.caption_zh if language.startswith("zh") and self.caption_zh else self.caption_en


@dataclass(frozen=True)
class Lesson:
    """Slides and a title; ``folder`` is where relative model paths start (the file's folder)."""

    slides: tuple[Slide, ...]
    title_en: str = ""
    title_zh: str = ""
    folder: Path = field(default=Path("."), compare=False)
    name: str = field(default="<lesson>", compare=False)  # the file's name, for errors
    # what is allowed but not what the teacher meant, each naming its file and line (``lesson --check`` prints them)
    warnings: tuple[Message, ...] = field(default=(), compare=False)

    def title(self, language: str) -> str:
        return self.title_zh if language.startswith("zh") and self.title_zh else self.title_en


# -- reading ---------------------------------------------------------------------------------------
class _Lines:
    """Where things are in the source text: tomllib returns plain dicts, so the line of a slide or
    a key is found again in the text (the n-th ``[[slide]]`` header, a key's first line after it)."""

    HEADER = re.compile(r"^\s*\[\[\s*slide\s*\]\]")
    TABLE = re.compile(r"^\s*\[")

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()
        self.headers = [i for i, line in enumerate(self.lines) if self.HEADER.match(line)]

    def slide(self, index: int | None) -> int:
        """The 1-based line of slide ``index``'s header (None: the top of the file)."""
        return 1 if index is None or index >= len(self.headers) else self.headers[index] + 1

    def key(self, index: int | None, key: str) -> int:
        """The 1-based line where ``key`` is set in slide ``index`` (None: before the first slide)."""
        start = 0 if index is None else self.slide(index)
        # ``key = ...``, or a sub-table ``[slide.key]`` (as tomli_w writes the view)
        pattern = re.compile(rf"^\s*((\"?){re.escape(key)}\2\s*=|\[\s*slide\.{re.escape(key)}\s*\])")
        for i in range(start, len(self.lines)):
            if i > start and self.HEADER.match(self.lines[i]) or index is None and self.TABLE.match(self.lines[i]):
                break
            if pattern.match(self.lines[i]):
                return i + 1
        return self.slide(index)


class _Reader:
    """Turns the parsed tables into a :class:`Lesson`, stopping at the first fault with its line."""

    def __init__(self, text: str, name: str) -> None:
        self.where = _Lines(text)
        self.name = name
        self.slide: int | None = None
        self.warnings: list[Message] = []

    def fail(self, key: str | None, template: str, *args: Arg) -> LessonError:
        line = self.where.key(self.slide, key) if key else self.where.slide(self.slide)
        return LessonError(translate_noop("CoreMessages", "{0}, line {1}: {2}"), self.name, line,
                           Message(template, *args))

    def warn(self, key: str, template: str, *args: Arg) -> None:
        self.warnings.append(Message(translate_noop("CoreMessages", "{0}, line {1}: {2}"), self.name,
                                     self.where.key(self.slide, key), Message(template, *args)))

    def table(self, data: Any, key: str | None, allowed: tuple[str, ...], required: tuple[str, ...] = ()) -> None:
        if not isinstance(data, dict):
            raise self.fail(key, translate_noop("CoreMessages", "{0} must be a table, {1}"), key or "slide", "{ ... }")
        for name in data:
            if name not in allowed:
                raise self.fail(name if key is None else key,
                                translate_noop("CoreMessages", "unknown key {0} (known: {1})"),
                                repr(name), ", ".join(allowed))
        for name in required:
            if name not in data:
                raise self.fail(key, translate_noop("CoreMessages", "{0} is missing"), name)

    def typed(self, data: dict[str, Any], key: str, kind: type | tuple[type, ...], default: Any = None,
              where: str | None = None) -> Any:
        """``data[key]`` when it is of ``kind`` (bool is never an int here), else an error at ``where``."""
        if key not in data:
            return default
        value = data[key]
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
            names = " or ".join(_TYPE_NAMES.get(k, k.__name__) for k in kinds)
            raise self.fail(where or key, translate_noop("CoreMessages", "{0} must be {1}, got {2}"),
                            key, names, repr(value))
        return value

    def whole(self, data: dict[str, Any], key: str, default: Any = None, where: str | None = None) -> Any:
        value = self.typed(data, key, int, default, where)
        if value is not None and value < 0:
            raise self.fail(where or key, translate_noop("CoreMessages", "{0} must be 0 or more, got {1}"),
                            key, value)
        return value

    def one_of(self, data: dict[str, Any], key: str, choices: tuple[str, ...], default: Any = None,
               where: str | None = None) -> Any:
        value = self.typed(data, key, str, default, where)
        if value is not None and value not in choices:
            raise self.fail(where or key, translate_noop("CoreMessages", "{0} must be one of {1}, got {2}"),
                            key, ", ".join(choices), repr(value))
        return value

    def lesson(self, data: dict[str, Any], folder: Path) -> Lesson:
        self.table(data, None, ("format", "version", "title_en", "title_zh", "slide"), ("format", "version"))
        if data["format"] != FORMAT:
            raise self.fail("format", translate_noop("CoreMessages", "format must be {0}, got {1}"),
                            repr(FORMAT), repr(data["format"]))
        if type(data["version"]) is not int or data["version"] != VERSION:  # true and 1.0 equal 1 too
            raise self.fail("version", translate_noop("CoreMessages", "this transviz reads lesson version {0}, "
                                                                      "got {1}"), VERSION, repr(data["version"]))
        titles = self.typed(data, "title_en", str, ""), self.typed(data, "title_zh", str, "")
        slides = data.get("slide")
        if not isinstance(slides, list) or not slides:
            raise self.fail("slide", translate_noop("CoreMessages", "a lesson needs at least one [[slide]]"))
        if len(slides) > MAX_SLIDES:  # each is decoded to be shown or checked
            raise self.fail("slide", translate_noop("CoreMessages", "the lesson has {0} slides; a lesson has at most "
                                                                    "{1}"), f"{len(slides):,}", f"{MAX_SLIDES:,}")
        read = []
        for index, slide in enumerate(slides):
            self.slide = index
            read.append(self.read_slide(slide))
        return Lesson(tuple(read), *titles, folder=folder, name=self.name, warnings=tuple(self.warnings))

    def read_slide(self, data: Any) -> Slide:
        keys = tuple(f.name for f in fields(Slide) if f.name not in ("line", "lines")) + ("settings",)
        self.table(data, None, keys, ("model", "sentence"))
        steps = self.whole(data, "steps", 0)
        forced = self.read_forced(data.get("forced", []), steps)
        tab = self.one_of(data, "tab", TABS, "explorer")
        quiz = data.get("quiz")
        # the slide's tab stays in front, and this one shows the step; a mask question is answered there (its
        # masks and walkthrough are hidden until the answer is revealed)
        if quiz is not None and tab in ANSWERING_TABS and not (isinstance(quiz, dict) and quiz.get("ask") == "mask"):
            self.warn("tab", translate_noop("CoreMessages", "tab = {0} gives the quiz's answer away: its walkthrough "
                                                            "draws the step the class is asked about"), repr(tab))
        return Slide(
            model=self.typed(data, "model", str), sentence=self.typed(data, "sentence", str),
            reference=self.typed(data, "reference", str),
            teacher_forcing=self.typed(data, "teacher_forcing", bool, False),
            strategy=self.read_strategy(data), steps=steps, forced=forced,
            tab=tab, page=self.read_page(data, tab), view=self.read_view(data.get("view", {})),
            interventions=self.read_interventions(data.get("interventions", [])),
            caption_en=self.typed(data, "caption_en", str, ""), caption_zh=self.typed(data, "caption_zh", str, ""),
            quiz=None if "quiz" not in data else self.read_quiz(data["quiz"]), line=self.where.slide(self.slide),
            lines=tuple((key, self.where.key(self.slide, key)) for key in data))

    def read_strategy(self, data: dict[str, Any]) -> Strategy:
        name = self.one_of(data, "strategy", ("greedy", "sampling", "beam"), "greedy")
        settings = data.get("settings", {})
        cls = type(strategy_named(name))
        self.table(settings, "settings", tuple(f.name for f in fields(cls)))
        try:
            return cls(**settings)
        except TransvizError as exc:
            raise self.fail("settings", translate_noop("CoreMessages", "{0}"), exc.message) from None

    def read_forced(self, data: Any, steps: int) -> tuple[Forced, ...]:
        if not isinstance(data, list):
            raise self.fail("forced", translate_noop("CoreMessages", "{0} must be a list of {1}"), "forced",
                            '{ step = N, token = "word" }')
        found: list[Forced] = []
        for item in data:
            self.table(item, "forced", ("step", "token"), ("step", "token"))
            step = self.whole(item, "step", where="forced")
            token = self.typed(item, "token", str, where="forced")
            if step >= steps or any(f.step == step for f in found):
                raise self.fail("forced", translate_noop("CoreMessages", "a forced step must be one of the slide's "
                                                                         "{0} steps, once, got {1}"), steps, step)
            found.append(Forced(step, token))
        return tuple(sorted(found, key=lambda f: f.step))

    def read_page(self, data: dict[str, Any], tab: str) -> str | None:
        """The page of ``tab`` the slide opens; an error for a tab without pages."""
        if "page" in data and tab not in TAB_PAGES:
            raise self.fail("page", translate_noop("CoreMessages", "tab = {0} has no pages; the tabs with pages: {1}"),
                            repr(tab), ", ".join(TAB_PAGES))
        page: str | None = self.one_of(data, "page", TAB_PAGES.get(tab, ()), None)
        return page

    def read_view(self, data: Any) -> View:
        self.table(data, "view", tuple(f.name for f in fields(View)))
        head = self.typed(data, "head", (int, str), 0, "view")
        if isinstance(head, str) and head != SUMMARY_HEAD or isinstance(head, int) and head < 0:
            raise self.fail("view", translate_noop("CoreMessages", "a view's head is a number from 0 or {0}, got {1}"),
                            repr(SUMMARY_HEAD), repr(head))
        return View(kind=self.one_of(data, "kind", KINDS, "cross", "view"),
                    layer=self.whole(data, "layer", None, "view"), head=head,
                    summary=self.one_of(data, "summary", SUMMARIES, "mean", "view"),
                    scale=self.one_of(data, "scale", SCALES, "fixed", "view"),
                    colormap=self.one_of(data, "colormap", COLORMAPS, None, "view"))

    def read_interventions(self, data: Any) -> tuple[Intervention, ...]:
        if not isinstance(data, list):
            raise self.fail("interventions", translate_noop("CoreMessages", "{0} must be a list of {1}"),
                            "interventions", '{ name = "AblateHead", ... }')
        found = []
        for item in data:
            self.table(item, "interventions", ("name",) + tuple({f.name for c in INTERVENTIONS.values()
                                                                 for f in fields(c)}), ("name",))
            cls = INTERVENTIONS.get(item["name"]) if isinstance(item["name"], str) else None
            if cls is None:
                raise self.fail("interventions", translate_noop("CoreMessages", "unknown intervention {0} (known: "
                                                                                "{1})"), repr(item["name"]),
                                ", ".join(INTERVENTIONS))
            settings = {k: v for k, v in item.items() if k != "name"}
            unknown = sorted(set(settings) - {f.name for f in fields(cls)})
            if unknown:
                raise self.fail("interventions", translate_noop("CoreMessages", "{0} has no setting {1}"),
                                cls.__name__, repr(unknown[0]))
            try:
                found.append(cls(**settings))
            except TypeError:  # a required setting left out
                raise self.fail("interventions", translate_noop("CoreMessages", "{0} needs {1}"), cls.__name__,
                                ", ".join(f.name for f in fields(cls) if f.default is f.default_factory)) from None
            except TransvizError as exc:
                raise self.fail("interventions", translate_noop("CoreMessages", "{0}"), exc.message) from None
        return tuple(found)

    def read_quiz(self, data: Any) -> Quiz:
        self.table(data, "quiz", tuple(f.name for f in fields(Quiz)), ("ask",))
        ask = self.one_of(data, "ask", ASKS, where="quiz")
        kind, layer = self.one_of(data, "kind", KINDS, None, "quiz"), self.whole(data, "layer", None, "quiz")
        head = self.whole(data, "head", None, "quiz")
        if ask in ("where", "sums") and None in (kind, layer, head):
            raise self.fail("quiz", translate_noop("CoreMessages", "a \"{0}\" question names the head: kind, layer "
                                                                   "and head"), ask)
        if ask == "aligns" and layer is None:
            raise self.fail("quiz", translate_noop("CoreMessages", "an \"aligns\" question names the layer"))
        if ask == "queries" and kind is None:
            raise self.fail("quiz", translate_noop("CoreMessages", "a \"queries\" question names the attention "
                                                                   "kind"))
        return Quiz(ask, kind, layer, head, self.typed(data, "answer", str, None, "quiz"))


_TYPE_NAMES = {str: "text in quotes", int: "a whole number", bool: "true or false", float: "a number"}


def loads(text: str, name: str = "<lesson>", folder: Path = Path(".")) -> Lesson:
    """The lesson in ``text`` (from a file called ``name``); LessonError with the line at fault."""
    try:
        data = tomllib.loads(text)
    except RecursionError:  # arrays or tables nested thousands deep
        raise LessonError(translate_noop("CoreMessages", "{0}: its values are nested too deeply to read"),
                          name) from None
    except tomllib.TOMLDecodeError as exc:
        line = getattr(exc, "lineno", None) or _line_of(str(exc))
        reason = getattr(exc, "msg", None) or re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        raise LessonError(translate_noop("CoreMessages", "{0}, line {1}: not valid TOML: {2}"), name, line,
                          reason) from None
    return _Reader(text, name).lesson(data, folder)


def _line_of(text: str) -> int:
    found = re.search(r"line (\d+)", text)
    return int(found.group(1)) if found else 1


def read(path: str | Path) -> Lesson:
    """The lesson (or session) in the file at ``path``."""
    path = Path(path)
    limit = MAX_FILE_MB * 2**20
    try:
        with open_regular(path) as f:  # a named pipe is never opened: reading one would wait for a writer
            raw = f.read(limit + 1)
        text = raw.decode("utf-8")
    except NotARegularFile as exc:
        raise LessonError(translate_noop("CoreMessages", "{0} is not a file: it is {1}"), str(path),
                          kind_of(exc.mode)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise LessonError(translate_noop("CoreMessages", "cannot read {0}: {1}"), str(path),
                          getattr(exc, "strerror", None) or str(exc)) from None
    if len(raw) > limit:
        raise LessonError(translate_noop("CoreMessages", "{0} is more than {1} MB: not a lesson or session file, "
                                                         "which are far smaller"), path.name, MAX_FILE_MB)
    return loads(text, path.name, path.resolve().parent)


# -- writing ---------------------------------------------------------------------------------------
def _plain(value: Any) -> Any:
    """``value`` as TOML can hold it: no None (a left-out key means the default), lists for tuples."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def slide_table(slide: Slide) -> dict[str, Any]:
    """``slide`` as the table a file holds (settings at their defaults left out)."""
    table: dict[str, Any] = {"model": slide.model, "sentence": slide.sentence, "reference": slide.reference}
    if slide.teacher_forcing:
        table["teacher_forcing"] = True
    table["strategy"] = slide.strategy.name
    if not isinstance(slide.strategy, Greedy):
        table["settings"] = strategy_settings(slide.strategy)
    table["steps"] = slide.steps
    if slide.forced:
        table["forced"] = [asdict(f) for f in slide.forced]
    table["tab"] = slide.tab
    if slide.page is not None:
        table["page"] = slide.page
    table["view"] = asdict(slide.view)
    if slide.interventions:
        table["interventions"] = [{"name": type(i).__name__, **asdict(i)} for i in slide.interventions]
    table["caption_en"], table["caption_zh"] = slide.caption_en, slide.caption_zh
    if slide.quiz is not None:
        table["quiz"] = asdict(slide.quiz)
    return _plain(table)  # type: ignore[no-any-return]  # a dict in, a dict out


def dumps(lesson: Lesson) -> str:
    """``lesson`` as TOML text that :func:`loads` reads back to an equal lesson."""
    import tomli_w  # only writing needs it

    data = {"format": FORMAT, "version": VERSION, "title_en": lesson.title_en, "title_zh": lesson.title_zh,
            "slide": [slide_table(s) for s in lesson.slides]}
    return tomli_w.dumps(data)


def slide_files(folder: str | Path, count: int) -> list[Path]:
    """Where ``transviz lesson --export FOLDER`` draws ``count`` slides: slide-01.png, slide-02.png, ..."""
    return [Path(folder) / f"slide-{index + 1:02d}.png" for index in range(count)]


def write(lesson: Lesson, path: str | Path) -> Path:
    """Write ``lesson`` to ``path`` atomically; LessonError when it cannot be written."""
    try:
        return write_atomically(path, dumps(lesson).encode("utf-8"))
    except OSError as exc:
        raise LessonError(translate_noop("CoreMessages", "cannot write {0}: {1}"), str(path),
                          exc.strerror or str(exc)) from None



def append(path: str | Path, slide: Slide, title_en: str = "") -> Lesson:
    """Add ``slide`` at the end of the lesson at ``path`` (a new lesson titled ``title_en`` when there is
    no file yet), atomically; the lesson as it is now. The file's own text is kept as the teacher wrote
    it (comments, order, layout) and the slide's table is added after it. LessonError, and the file is
    as it was, when it is not a lesson that can be read, or cannot be written."""
    path = Path(path)
    new = not path.exists()
    old = Lesson((), title_en) if new else read(path)  # a file that is no lesson is refused, never replaced
    import tomli_w  # only writing needs it

    if new:
        text = dumps(Lesson((slide,), title_en))
    else:
        with open_regular(path) as f:  # read already: what was read is what is kept
            before = f.read().decode("utf-8")
        text = before + ("" if before.endswith("\n") or not before else "\n") + "\n" + tomli_w.dumps(
            {"slide": [slide_table(slide)]})
    try:
        after = loads(text, path.name, path.resolve().parent)
    except LessonError:  # slides written as an inline array (slide = [...]) take no [[slide]] after them
        raise LessonError(translate_noop("CoreMessages", "cannot add a slide to {0}: its slides are not written as "
                                                         "[[slide]] tables; it was not changed"), path.name) from None
    if after.slides != (*old.slides, slide):
        raise LessonError(translate_noop("CoreMessages", "cannot add a slide to {0}: the slide would not read back "
                                                         "as it is; it was not changed"), path.name)
    try:
        write_atomically(path, text.encode("utf-8"))
    except OSError as exc:
        raise LessonError(translate_noop("CoreMessages", "cannot write {0}: {1}"), str(path),
                          exc.strerror or str(exc)) from None
    return after
