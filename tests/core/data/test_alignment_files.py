"""Files of word alignments beside a corpus (issue 39, item 3): the common ``0-0 1-2`` format,
possible links, and hostile files refused naming the file and the line, never a crash."""
from __future__ import annotations

import pytest

from transviz.core.base.errors import InputError
from transviz.core.data import corpus
from transviz.core.data.alignments import Alignment, aligned_corpus, parse_line, read_alignments
from transviz.core.model.vocab import Vocab

WORDS = Vocab((), "word")
CORPUS = "ich trinke bier\ti drink beer\nich möchte ein bier trinken\ti want to drink a beer\n"


def write(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


def test_sure_and_possible_links_as_fast_align_and_awesome_align_write_them():
    found = parse_line("0-0 1p2\t2?1 3-3 3p3", 1, "a.txt")
    assert found.sure == {(0, 0), (3, 3)}
    assert found.possible == {(0, 0), (1, 2), (2, 1), (3, 3)}  # sure links are possible too
    assert parse_line("   ", 1, "a.txt") == Alignment()


def test_a_corpus_and_its_alignments_line_by_line(tmp_path):
    text = write(tmp_path, "c.tsv", CORPUS)
    links = write(tmp_path, "c.align", "\ufeff0-0 1-1 2-2\r\n0-0 1-1 4-3 2-4 3-5\r\n")
    found = aligned_corpus(text, links, WORDS, WORDS)
    assert [p.source for p, _ in found] == ["ich trinke bier", "ich möchte ein bier trinken"]
    assert found[1][1].sure == {(0, 0), (1, 1), (4, 3), (2, 4), (3, 5)}


def test_blank_corpus_lines_skip_their_alignment_lines(tmp_path):
    text = write(tmp_path, "c.tsv", "a b\tx y\n\nc\tz\n")
    found = aligned_corpus(text, write(tmp_path, "c.align", "0-0 1-1\n\n0-0\n"), WORDS, WORDS)
    assert [(p.source, a.sure) for p, a in found] == [("a b", {(0, 0), (1, 1)}), ("c", {(0, 0)})]


@pytest.mark.parametrize(("line", "says"), [
    ("0-0 1--2", "line 1 of bad.align: '1--2' is not a link"),
    ("-1-2", "'-1-2' is not a link"),
    ("0-0 a-b", "'a-b' is not a link"),
    ("1.5-2", "'1.5-2' is not a link"),
    ("0-0,1-1", "'0-0,1-1' is not a link"),
    ("3-99999999999", "is not a link"),  # more digits than any sentence: not read as a number
    ("0-700", "the link 0-700 names token 700; a sentence holds at most 500 tokens"),
])
def test_what_is_not_a_link_is_refused_with_file_and_line(tmp_path, line, says):
    with pytest.raises(InputError, match=says.replace("?", r"\?").replace(".", r"\.")):
        read_alignments(write(tmp_path, "bad.align", f"0-0\n{line}\n" if "line 1" not in says else line))


def test_the_line_is_named(tmp_path):
    with pytest.raises(InputError, match="line 3 of x.align"):
        read_alignments(write(tmp_path, "x.align", "0-0\n1-1\n0x0\n"))


@pytest.mark.parametrize(("data", "says"), [
    (b"0-0\n\xff\xfe\x00\x01junk\n", "line 2 of junk.align: byte 1 is not text"),
    (b"0-0\x00 1-1\n", "line 1 of junk.align holds control characters"),
    (b"\x7fELF\x02\x01\x01\x00", "line 1 of junk.align holds control characters"),
])
def test_binary_junk_is_refused(tmp_path, data, says):
    with pytest.raises(InputError, match=says):
        read_alignments(write(tmp_path, "junk.align", data))


def test_a_huge_line_is_refused_before_it_is_read_whole(tmp_path):
    path = write(tmp_path, "long.align", "0-0 " * 300_000)  # 1.2 MB on one line
    with pytest.raises(InputError, match="line 1 of long.align is longer than 1 MB"):
        read_alignments(path)


def test_files_over_the_size_or_line_limit_are_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(corpus, "MAX_BYTES", 100)
    with pytest.raises(InputError, match="big.align is 0 MB; transviz reads corpora up to 0 MB"):
        read_alignments(write(tmp_path, "big.align", "0-0\n" * 40))
    monkeypatch.setattr(corpus, "MAX_BYTES", 10**6)
    monkeypatch.setattr("transviz.core.data.alignments.MAX_LINES", 5)
    with pytest.raises(InputError, match="many.align has more than 5 lines"):
        read_alignments(write(tmp_path, "many.align", "0-0\n" * 6))


def test_a_folder_is_not_a_file_of_alignments(tmp_path):
    with pytest.raises(InputError, match="is not a file"):
        read_alignments(tmp_path)
    with pytest.raises(InputError, match="cannot read"):
        read_alignments(tmp_path / "missing.align")


@pytest.mark.parametrize("links", ["0-0\n", "0-0\n0-0\n0-0\n"])
def test_a_line_count_other_than_the_corpus_is_refused(tmp_path, links):
    text = write(tmp_path, "c.tsv", CORPUS)
    count = links.count("\n")
    with pytest.raises(InputError, match=f"c.align has {count} lines but c.tsv has 2"):
        aligned_corpus(text, write(tmp_path, "c.align", links), WORDS, WORDS)


@pytest.mark.parametrize(("links", "says"), [
    ("0-0\n5-0\n", "line 2 of c.align: the link 5-0 is past its sentence, whose source has 5 tokens and target 6"),
    ("0-3\n0-0\n", "line 1 of c.align: the link 0-3 is past its sentence, whose source has 3 tokens and target 3"),
    ("0p3\n0-0\n", "the link 0-3 is past its sentence"),
])
def test_a_link_past_its_sentence_is_refused(tmp_path, links, says):
    text = write(tmp_path, "c.tsv", CORPUS)
    with pytest.raises(InputError, match=says):
        aligned_corpus(text, write(tmp_path, "c.align", links), WORDS, WORDS)


def test_character_level_sources_count_characters(tmp_path):
    text = write(tmp_path, "zh.tsv", "我爱中国\ti love china\n")
    found = aligned_corpus(text, write(tmp_path, "zh.align", "0-0 1-1 2-2 3-2\n"), Vocab((), "char"), WORDS)
    assert found[0][1].sure == {(0, 0), (1, 1), (2, 2), (3, 2)}
    with pytest.raises(InputError, match="source has 4 tokens"):
        aligned_corpus(text, write(tmp_path, "zh.align", "4-2\n"), Vocab((), "char"), WORDS)
