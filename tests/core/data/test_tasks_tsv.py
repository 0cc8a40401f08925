"""User corpora: real TSV files, each malformed case named by its line number."""
import os
import threading
import tracemalloc

import pytest

from transviz.core.base.errors import InputError
from transviz.core.data import corpus
from transviz.core.data.tasks import load_tsv


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


def test_a_huge_file_is_refused_before_it_is_read(tmp_path, monkeypatch):
    path = tmp_path / "huge.tsv"
    with path.open("wb") as stream:  # sparse: 200 MB on paper, nothing on disk
        stream.truncate(200 * 1024 * 1024)

    def read(*args):
        raise AssertionError("the file was read")

    monkeypatch.setattr(corpus, "_read_pairs", read)
    with pytest.raises(InputError, match="huge.tsv is 200 MB; transviz reads corpora up to 100 MB"):
        load_tsv(path)


def test_too_many_lines_are_refused_while_reading(tmp_path, monkeypatch):
    monkeypatch.setattr(corpus, "MAX_LINES", 50)  # the real limit is a million; the check is the same
    with pytest.raises(InputError, match="more than 50 lines"):
        load_tsv(write(tmp_path / "long.tsv", "\n".join(lines(60))))
    assert len(load_tsv(write(tmp_path / "ok.tsv", "\n".join(lines(50)))).train) == 40


@pytest.mark.parametrize("bad, codes", [("satz\x00 kaputt\tbroken", r"U\+0000"),
                                        ("satz kaputt\tbro\x07ken\x1b", r"U\+0007, U\+001B")])
def test_control_characters_are_refused_with_the_file_and_line(tmp_path, bad, codes):
    text = "\n".join(lines(6) + [bad] + lines(20, start=6))
    with pytest.raises(InputError, match=rf"line 7 of c.tsv holds control characters \({codes}\); remove them"):
        load_tsv(write(tmp_path / "c.tsv", text))


@pytest.mark.parametrize("level", ["word", "char"])
def test_a_side_longer_than_a_sentence_is_refused_with_its_count(tmp_path, level):
    most = corpus.MAX_SENTENCE_TOKENS
    longest = " ".join(["x"] * most) if level == "word" else "x" * most
    ok = write(tmp_path / "ok.tsv", "\n".join(lines(20) + [f"{longest}\t{longest}"]))
    assert len(load_tsv(ok, level=level).train) == 17  # exactly the limit is fine
    for side, pair in (("source", f"{longest} y\tkurz"), ("target", f"kurz\t{longest} y")):
        text = "\n".join(lines(4) + [pair] + lines(20, start=4))
        count = most + 1 if level == "word" else most + 2  # at character level the space is a token too
        with pytest.raises(InputError, match=rf"line 5 of c.tsv: the {side} has {count} tokens; transviz learns "
                                             rf"from sentences of at most {most} \(split the line or remove it\)"):
            load_tsv(write(tmp_path / "c.tsv", text), level=level)


def test_a_side_of_a_million_tokens_is_counted_without_listing_them(tmp_path):
    text = "\n".join(lines(6) + ["a " * 500_000 + "\tb"] + lines(20, start=6))
    path = write(tmp_path / "c.tsv", text)
    tracemalloc.start()
    try:
        with pytest.raises(InputError, match="line 7 of c.tsv: the source has 500,000 tokens"):
            load_tsv(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20 * 2**20  # the file's megabyte a few times over, not half a million strings


def test_a_line_of_ten_megabytes_is_refused_before_it_is_read_whole(tmp_path):
    text = "\n".join(lines(6) + ["a " * 5_000_000 + "\tb"] + lines(20, start=6))
    path = write(tmp_path / "c.tsv", text)
    tracemalloc.start()
    try:
        with pytest.raises(InputError, match="line 7 of c.tsv is longer than 1 MB, far longer than a sentence pair"):
            load_tsv(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * 2**20


def test_a_line_of_exactly_the_byte_limit_keeps_the_line_numbers(tmp_path, monkeypatch):
    monkeypatch.setattr(corpus, "MAX_LINE_BYTES", 40)  # the real limit is a megabyte; the reading is the same
    text = "\r\n".join(lines(3) + ["x" * 30 + "\t" + "y" * 9] + lines(20, start=3) + ["no tab"])
    with pytest.raises(InputError, match="line 25: no tab"):  # the line of 40 bytes and its \r\n are one line
        load_tsv(write(tmp_path / "c.tsv", text))
    with pytest.raises(InputError, match="line 4 of c.tsv is longer than"):
        load_tsv(write(tmp_path / "c.tsv", text.replace("y" * 9, "y" * 10)))


def refused_in_time(path):
    """The message load_tsv gives for ``path``, failing (not hanging) if it takes over 5 s."""
    found = []

    def load():
        try:
            load_tsv(path)
        except InputError as exc:
            found.append(str(exc))

    reader = threading.Thread(target=load, daemon=True)  # a thread stuck opening a FIFO must not hang the run
    reader.start()
    reader.join(5)
    assert not reader.is_alive(), f"load_tsv({path}) hangs"
    return found[0]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_named_pipe_is_named_and_never_opened(tmp_path):
    pipe = tmp_path / "c.tsv"
    os.mkfifo(pipe)
    assert refused_in_time(pipe) == f"{pipe} is not a file: it is a named pipe (FIFO)"


def test_a_folder_a_device_and_a_symlink_loop_are_named(tmp_path):
    assert refused_in_time(tmp_path) == f"{tmp_path} is not a file: it is a folder"
    if os.path.exists("/dev/zero"):
        assert refused_in_time("/dev/zero") == "/dev/zero is not a file: it is a device"
    loop = tmp_path / "loop.tsv"
    loop.symlink_to(loop)
    assert refused_in_time(loop).startswith(f"cannot read {loop}: ")
