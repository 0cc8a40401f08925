"""One Chinese term per concept (issue 34, item 16): the catalogue's translations, the Chinese
lessons and the Chinese manual use the glossary's term and none of the words it forbids. English
words are found as whole words outside quotes and code (an option's value stays as written)."""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib


ROOT = Path(__file__).resolve().parents[2]
GLOSSARY = tomllib.loads((ROOT / "resources" / "i18n" / "glossary.toml").read_text(encoding="utf-8"))
# code, quoted values, placeholders and a link's target (a file's name)
QUOTED = re.compile(r"`[^`]*`|'[^']*'|\"[^\"]*\"|\{[^}]*\}|\]\([^)]*\)")


def offences(text: str) -> list[str]:
    """The forbidden words in ``text``, each with its term's word."""
    plain = QUOTED.sub(" ", text)
    found = []
    for term in GLOSSARY["term"]:
        for word in term["forbidden"]:
            pattern = rf"(?<![A-Za-z]){re.escape(word)}(?![A-Za-z])" if word.isascii() else re.escape(word)
            if re.search(pattern, plain, re.IGNORECASE):
                found.append(f"{word} (use {term['zh']})")
    return found


def catalogue() -> list[tuple[str, str]]:
    quotes = tuple(GLOSSARY["quotes"]["sources"])
    root = ET.parse(ROOT / "resources" / "i18n" / "transviz_zh_CN.ts").getroot()
    return [(m.findtext("source") or "", m.findtext("translation") or "") for m in root.iter("message")
            if not (m.findtext("source") or "").startswith(quotes)]


def test_the_catalogue_uses_one_term_per_concept():
    wrong = {source[:60]: offences(text) for source, text in catalogue() if offences(text)}
    assert not wrong, wrong


def test_the_chinese_lessons_and_manual_use_one_term_per_concept():
    texts = {}
    for path in sorted((ROOT / "resources" / "lessons").glob("*.toml")):
        lesson = tomllib.loads(path.read_text(encoding="utf-8"))
        texts[f"{path.name} title"] = lesson.get("title_zh", "")
        for number, slide in enumerate(lesson.get("slide", []), 1):
            texts[f"{path.name} slide {number}"] = slide.get("caption_zh", "")
    for path in sorted((ROOT / "docs" / "zh").rglob("*.md")):
        texts[str(path.relative_to(ROOT))] = path.read_text(encoding="utf-8")
    wrong = {name: offences(text) for name, text in texts.items() if offences(text)}
    assert not wrong, wrong


def test_a_forbidden_word_is_caught_and_code_is_not():
    assert offences("请切换到贪心搜索") == ["贪心搜索 (use 贪心解码)"]
    assert offences("Decoder 的输出") == ["decoder (use 解码器)"]
    assert offences("取值为 `decoder` 或 'encoder'") == []
    assert offences("键值（keyboard）") == []  # a whole word only


def test_no_translation_shows_raw_latex():
    """A translation is plain text: "$W_Z$" was shown as written (issue 34, item 17)."""
    latex = {source[:60]: text for source, text in catalogue() if re.search(r"\$[^$\s][^$]*\$", text)}
    assert not latex, latex


def test_the_chinese_lessons_name_tabs_as_the_window_does():
    """Lessons 3 and 4 sent the class to the "原因" tab, which the window calls 为什么."""
    from transviz.gui.panels.registry import PANELS

    translated = dict(catalogue())
    names = {translated.get(spec.title, spec.title) for spec in PANELS}
    for path in sorted((ROOT / "resources" / "lessons").glob("*.toml")):
        for slide in tomllib.loads(path.read_text(encoding="utf-8")).get("slide", []):
            for named in re.findall(r"“([^”]+)”标签页", slide.get("caption_zh", "")):
                assert named in names, (path.name, named, names)
