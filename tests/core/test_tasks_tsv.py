"""User corpora: real TSV files, each malformed case named by its line number."""
import time

import pytest

from transviz.core import corpus
from transviz.core.errors import InputError
from transviz.core.tasks import load_tsv


def lines(count, start=0):
    return [f"satz nummer {i}\tsentence number {i}" for i in range(start, start + count)]


def write(path, text, encoding="utf-8"):
    path.write_bytes(text.encode(encoding) if isinstance(text, str) else text)
    return path


def test_bom_crlf_and_blank_lines_are_fine(tmp_path):
    text = "\ufeff" + "\r\n".join(lines(30)[:15] + ["", "   ", ""] + lines(30)[15:]) + "\r\n\r\n"
    data = load_tsv(write(tmp_path / "c.tsv", text))
    everything = data.train + data.valid + data.test
    assert sorted(p.source for p in everything) == sorted(f"satz nummer {i}" for i in range(30))
    assert all(p.target == "sentence number " + p.source.split()[-1] for p in everything)
    assert (len(data.valid), len(data.test)) == (3, 3) and len(data.train) == 24
    assert not {p.source for p in data.train} & {p.source for p in data.valid + data.test}
    assert data.name == "c.tsv" and data.examples and set(data.examples) <= {p.source for p in data.train}
    assert "30 sentence pairs" in data.description


def test_same_seed_same_split_and_levels(tmp_path):
    path = write(tmp_path / "c.tsv", "\n".join(lines(40)))
    assert load_tsv(path, seed=4) == load_tsv(path, seed=4)
    assert load_tsv(path, seed=4).test != load_tsv(path, seed=5).test
    chars = load_tsv(path, level="char")
    source_vocab, _ = chars.build_vocabs()
    assert chars.source_level == "char" and "z" in source_vocab
    with pytest.raises(InputError, match="level must be"):
        load_tsv(path, level="sentence")


def test_a_repeated_pair_counts_once(tmp_path):
    data = load_tsv(write(tmp_path / "c.tsv", "\n".join(lines(20) + lines(5))))
    assert len(data.train + data.valid + data.test) == 20


@pytest.mark.parametrize("bad, message", [
    ("just one column", r"line 4: no tab; expected one tab between source and target"),
    ("a\tb\tc", r"line 4: 2 tabs; expected one tab"),
    ("\tonly a target", r"line 4: the source is empty"),
    ("only a source\t   ", r"line 4: the target is empty"),
])
def test_malformed_lines_name_their_number(tmp_path, bad, message):
    text = "\n".join(lines(3) + [bad] + lines(20, start=3))
    with pytest.raises(InputError, match=message):
        load_tsv(write(tmp_path / "c.tsv", text))


def test_undecodable_bytes_name_their_line(tmp_path):
    data = "\n".join(lines(5)).encode() + b"\nkaputt \xff\xfe\tbroken\n" + "\n".join(lines(20, 5)).encode()
    with pytest.raises(InputError, match=r"line 6: byte 8 is not UTF-8 text \(0xff\)"):
        load_tsv(write(tmp_path / "c.tsv", data))
    with pytest.raises(InputError, match="line 1: .* not UTF-8"):
        load_tsv(write(tmp_path / "latin.tsv", "straße\tstreet\n" * 20, encoding="latin-1"))


def test_one_source_with_two_targets_names_both_lines(tmp_path):
    text = "\n".join(lines(6) + ["Hallo Welt\thello world"] + lines(6, 6) + ["Hallo  Welt\thi world"])
    with pytest.raises(InputError, match=r"lines 7 and 14 give the same source 'Hallo Welt' two different targets"):
        load_tsv(write(tmp_path / "c.tsv", text))


def test_empty_and_too_small_files(tmp_path):
    for name, text in (("empty.tsv", ""), ("blank.tsv", "\n\r\n  \n"), ("bom.tsv", "\ufeff")):
        with pytest.raises(InputError, match=f"{name} holds no sentence pairs"):
            load_tsv(write(tmp_path / name, text))
    with pytest.raises(InputError, match="only 4 distinct pairs; a corpus needs at least 10"):
        load_tsv(write(tmp_path / "small.tsv", "\n".join(lines(4))))
    with pytest.raises(InputError, match="cannot read"):
        load_tsv(tmp_path / "missing.tsv")
    with pytest.raises(InputError, match="is not a file"):
        load_tsv(tmp_path)


def test_a_huge_file_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "huge.tsv"
    with path.open("wb") as stream:  # sparse: 200 MB on paper, nothing on disk
        stream.truncate(200 * 1024 * 1024)
    start = time.perf_counter()
    with pytest.raises(InputError, match="huge.tsv is 200 MB; transviz reads corpora up to 100 MB"):
        load_tsv(path)
    assert time.perf_counter() - start < 0.5


def test_too_many_lines_are_refused_while_reading(tmp_path, monkeypatch):
    monkeypatch.setattr(corpus, "MAX_LINES", 50)  # the real limit is a million; the check is the same
    with pytest.raises(InputError, match="more than 50 lines"):
        load_tsv(write(tmp_path / "long.tsv", "\n".join(lines(60))))
    assert len(load_tsv(write(tmp_path / "ok.tsv", "\n".join(lines(50)))).train) == 40
