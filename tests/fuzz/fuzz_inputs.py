"""Hostile inputs for the fuzzing, made from a seeded ``random.Random`` (no torch, no transviz).

Each ``make_*`` function draws one case of its class: it writes what the case needs (a mutated
checkpoint, a corpus, a settings file) into ``folder`` and returns a :class:`Case`, the job a
fuzz worker runs (``fuzz_worker.py``) plus a short description for the failure list. The same
functions feed the quick property tests (hypothesis hands them its ``Random``) and the big run.
"""
from __future__ import annotations

import json
import os
import random
import string
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

WORDS = "ich mochte möchte ein bier wasser trinken der die das hund katze ist gut".split()
SENTENCE = "ich mochte ein bier"
TARGETS = ["i want a beer", "the dog is good", "a", "</s>", "<pad> <s>"]


@dataclass
class Case:
    """One fuzz case: ``job`` goes to a worker as JSON; ``files`` are removed after it ran."""

    kind: str  # the class it counts under in the table
    describe: str  # what was done, short enough for one line
    job: dict[str, Any]
    files: list[Path] = field(default_factory=list)


def short(text: str, width: int = 70) -> str:
    text = ascii(text)[1:-1]
    return text if len(text) <= width else text[: width - 3] + "..."


# -- JSON values of every type and size ------------------------------------------------------------

def deep(rng: random.Random) -> str:
    n = rng.choice([100, 1000, 5000, 50_000])
    return rng.choice(["[" * n + "]" * n, '{"a":' * n + "1" + "}" * n])


def json_text(rng: random.Random) -> str:
    """One JSON value as text, strange ones included (NaN, 1e999, 400 digits, deep nesting)."""
    pools: list[Callable[[], str]] = [
        lambda: str(rng.choice([0, -1, 1, 2, 3, 4, 7, 128, 16384, 2**31, 2**63, 2**64, 10**7, 10**9, -(2**63)])),
        lambda: rng.choice(["0.5", "-0.0", "1e-320", "1e308", "1e999", "-1e999", "NaN", "Infinity", "-Infinity",
                            "3.0", "1e-5", "0.0"]),
        lambda: rng.choice(["true", "false", "null"]),
        lambda: json.dumps(rng.choice(["", "no", "yes", "128", "post", "pre", "relu", "gelu", "word", "char",
                                       "\u0000", "x" * 100_000, "<pad>", "\ud800"])),
        lambda: rng.choice(["[]", "[1]", "[1, [2, [3]]]", '["<pad>", "<s>"]', "{}", '{"a": 1}']),
        lambda: str(rng.choice([9, 1]) * 10 ** rng.choice([20, 400, 4000])),
        lambda: deep(rng),
    ]
    return rng.choice(pools)()


def object_text(items: dict[str, str]) -> str:
    """A JSON object from keys and values already written as JSON text."""
    return "{" + ", ".join(f"{json.dumps(k)}: {v}" for k, v in items.items()) + "}"


# -- checkpoints -----------------------------------------------------------------------------------

def split_checkpoint(data: bytes) -> tuple[dict[str, Any], bytes]:
    """A safetensors file -> its JSON header and the tensor bytes behind it."""
    n = int.from_bytes(data[:8], "little")
    return json.loads(data[8 : 8 + n]), data[8 + n :]


def join_checkpoint(header: dict[str, Any], body: bytes) -> bytes:
    raw = json.dumps(header).encode()
    raw += b" " * (-len(raw) % 8)  # safetensors aligns the data to 8 bytes
    return len(raw).to_bytes(8, "little") + raw + body


PLAUSIBLE = {  # config values a careful attacker picks: in range, but lying about the tensors
    "src_vocab_size": ["286", "510", "100000", str(2**63)], "tgt_vocab_size": ["509", "287", str(2**31)],
    "d_model": ["64", "256", "16384", "100000"], "n_heads": ["1", "2", "8", "128", "3"],
    "n_encoder_layers": ["2", "4", "10000", "1000000000"], "n_decoder_layers": ["2", "4", "10000", "1000000000"],
    "d_ff": ["256", "1024", "10000000"], "max_len": ["1", "2", "10000", "10000000", "1000000000"],
    "dropout": ["0.99", "-0.5", "NaN"], "layer_norm_eps": ["NaN", "-1", "0", "1e308", "1e-320"],
    "pad_id": ["1", "2", "3", "true", "false", "-1", "285"], "tie_output": ['"no"', '"128"', "NaN", "1", "0", "true"],
    "share_embeddings": ['"no"', "1", "true"], "norm": ['"POST"', '"pre"'], "activation": ['"gelu"', '"tanh"'],
}


def edit_config(rng: random.Random, metadata: dict[str, str]) -> str:
    config = {k: json.dumps(v) for k, v in json.loads(metadata["config"]).items()}
    name = rng.choice([*config, "unknown_setting"])
    action = rng.random()
    if action < 0.1 and name in config:
        del config[name]
        what = f"config.{name} removed"
    else:
        value = rng.choice(PLAUSIBLE[name]) if name in PLAUSIBLE and action < 0.55 else json_text(rng)
        config[name] = value
        what = f"config.{name} = {short(value, 30)}"
    metadata["config"] = object_text(config)
    return what


def edit_vocab(rng: random.Random, metadata: dict[str, str]) -> str:
    side = rng.choice(["src_vocab", "tgt_vocab"])
    vocab = json.loads(metadata[side])
    tokens: list[Any] = vocab["tokens"]
    choice = rng.randrange(7)
    if choice == 0:
        i = rng.randrange(len(tokens))
        tokens[i] = rng.choice([None, 7, "", tokens[(i + 1) % len(tokens)], ["x"], "\ud800", "a b"])
        what = f"{side}.tokens[{i}] = {short(repr(tokens[i]), 20)}"
    elif choice == 1:
        extra = rng.choice([10, 60_000, 200_000])
        tokens += [f"w{n}" for n in range(extra)]
        what = f"{side}: {extra} more tokens"
    elif choice == 2:
        del tokens[rng.randrange(len(tokens))]
        what = f"{side}: one token removed"
    elif choice == 3:
        vocab["level"] = rng.choice(["char", "byte", None, 1])
        what = f"{side}.level = {vocab['level']!r}"
    elif choice == 4:
        vocab["lowercase"] = rng.choice(["no", 1, None, [], "false"])
        what = f"{side}.lowercase = {vocab['lowercase']!r}"
    elif choice == 5:
        metadata[side] = object_text({"level": '"word"', "lowercase": "false", "tokens": json_text(rng)})
        return f"{side}.tokens = {short(metadata[side], 40)}"
    else:
        rng.shuffle(tokens)
        what = f"{side}: tokens shuffled"
    metadata[side] = json.dumps(vocab)
    return what


def edit_metadata(rng: random.Random, header: dict[str, Any]) -> str:
    metadata: dict[str, str] = header["__metadata__"]
    choice = rng.random()
    if choice < 0.45:
        return edit_config(rng, metadata)
    if choice < 0.75:
        return edit_vocab(rng, metadata)
    key = rng.choice(["facts", "format", "format_version", "config", "src_vocab", "new"])
    value = json_text(rng)
    if rng.random() < 0.2 and key in metadata:
        del metadata[key]
        return f"metadata {key} removed"
    metadata[key] = value
    return f"metadata {key} = {short(value, 30)}"


def edit_tensor_entry(rng: random.Random, header: dict[str, Any]) -> str:
    name = rng.choice([k for k in header if k != "__metadata__"])
    entry = header[name]
    field_ = rng.choice(["dtype", "shape", "data_offsets", "drop"])
    if field_ == "drop":
        del header[name]
        return f"tensor {name} removed"
    entry[field_] = {
        "dtype": lambda: rng.choice(["F16", "BF16", "F64", "I64", "BOOL", "U8", "X"]),
        "shape": lambda: rng.choice([[], [0], [2**40], [-1], [3, 5], list(reversed(entry["shape"]))]),
        "data_offsets": lambda: rng.choice([[0, 0], [0, 2**63], [5, 1], [-1, 3],
                                            [entry["data_offsets"][0] + 1, entry["data_offsets"][1] + 1]]),
    }[field_]()
    return f"tensor {name}.{field_} = {short(repr(entry[field_]), 25)}"


def mutate_checkpoint(rng: random.Random, kind: str, good: bytes) -> tuple[bytes, str]:
    """``good`` damaged the way ``kind`` says, and a description of the damage."""
    n = int.from_bytes(good[:8], "little")
    data = bytearray(good)
    if kind == "checkpoint: byte flips (header)":
        spots = sorted(rng.randrange(8, 8 + n) for _ in range(rng.choice([1, 1, 2, 4, 16])))
        for spot in spots:
            data[spot] = rng.randrange(256)
        return bytes(data), f"header bytes at {spots[:4]} changed"
    if kind == "checkpoint: byte flips (data)":
        spots = sorted(rng.randrange(8 + n, len(data)) for _ in range(rng.choice([1, 1, 2, 8])))
        for spot in spots:
            data[spot] = rng.randrange(256)
        return bytes(data), f"data bytes at {spots[:4]} changed"
    if kind == "checkpoint: bit flips":
        spot = rng.randrange(8 + n, len(data)) if rng.random() < 0.8 else rng.randrange(len(data))
        bit = rng.randrange(8)
        data[spot] ^= 1 << bit
        return bytes(data), f"bit {bit} of byte {spot} flipped"
    if kind == "checkpoint: truncation":
        cut = rng.choice([rng.randrange(len(data)), rng.randrange(8 + n), len(data) - rng.randrange(1, 64)])
        return bytes(data[:cut]), f"cut to {cut} bytes"
    if kind == "checkpoint: header length":
        value = rng.choice([0, 1, n - 1, n + 1, n + 8, len(data), len(data) + 1, 2**64 - 1, 2**63, 100 * 2**20,
                            rng.randrange(2**64)])
        return value.to_bytes(8, "little") + bytes(data[8:]), f"header length = {value}"
    header, body = split_checkpoint(good)
    if kind == "checkpoint: tensor entries":
        what = edit_tensor_entry(rng, header)
    else:
        what = edit_metadata(rng, header)  # one edit: a second could have to parse the first's deep nesting
    return join_checkpoint(header, body), what


def good_checkpoint(folder: Path) -> bytes:
    """The shipped default model, saved afresh by today's code, its header's keys sorted:
    safetensors writes the metadata in a random order, and one seed must give the same cases
    (the same bytes) in every process, or a replayed case would not be the one that failed."""
    import transviz

    folder.mkdir(parents=True, exist_ok=True)
    data = transviz.save_model(transviz.load_model("default"), folder / "good.safetensors").read_bytes()
    length = int.from_bytes(data[:8], "little")
    header = json.dumps(json.loads(data[8 : 8 + length]), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    sorted_header = header.encode("utf-8")
    assert len(sorted_header) == len(data[8 : 8 + length].rstrip()), "the header changed its length when sorted"
    return data[:8] + sorted_header.ljust(length) + data[8 + length :]


CHECKPOINT_KINDS = ("checkpoint: byte flips (header)", "checkpoint: byte flips (data)", "checkpoint: bit flips",
                    "checkpoint: truncation", "checkpoint: header length", "checkpoint: tensor entries",
                    "checkpoint: metadata edits")


def make_checkpoint(rng: random.Random, folder: Path, kind: str, good: bytes, index: int) -> Case:
    data, what = mutate_checkpoint(rng, kind, good)
    path = folder / f"mutated-{index}.safetensors"
    path.write_bytes(data)
    return Case(kind, what, {"do": "load", "path": str(path)}, [path])


def make_info(rng: random.Random, folder: Path, good: bytes, index: int) -> Case:
    kind = rng.choice(CHECKPOINT_KINDS)
    data, what = mutate_checkpoint(rng, kind, good)
    path = folder / f"info-{index}.safetensors"
    path.write_bytes(data)
    return Case("transviz info on mutated checkpoints", f"info: {what}", cli(["info", str(path)]), [path])


# -- sentences -------------------------------------------------------------------------------------

def character(rng: random.Random) -> str:
    return rng.choice([
        chr(rng.randrange(0x110000)), chr(rng.randrange(0xD800, 0xE000)), chr(rng.randrange(0x20)), "\x7f",
        chr(rng.randrange(0x80, 0xA0)), "\u200b", "\u00ad", "\u0301", "\u202e", "\ufeff", "\U0001f600", "\ufffd",
        "\u2028", "\t", "\n", " ", rng.choice(string.printable), "ö", "ß", "\ue000", "\U000e0001",
    ])


def sentence(rng: random.Random) -> str:
    """Words the model knows, and anything else a paste can bring."""
    style = rng.randrange(10)
    if style == 0:
        return rng.choice(["", " ", "\t\n", "\x00", "\ud800", "\udcff", "ich\x00bier", "ich \ud83d bier"])
    if style == 1:
        unit = rng.choice(["ich ", "x", "bier ", "\u0301", "é "])
        return unit * rng.choice([129, 1000, 50_000, 100_000])
    if style < 5:
        return "".join(character(rng) for _ in range(rng.randrange(1, 30)))
    parts = [rng.choice(WORDS) if rng.random() < 0.8 else character(rng) for _ in range(rng.randrange(1, 12))]
    return " ".join(parts)


def strategy(rng: random.Random) -> dict[str, Any]:
    name = rng.choice(["greedy", "sampling", "beam"])
    if name == "sampling":
        return {"name": name, "temperature": rng.choice([0.3, 1.0, 2.0]), "top_k": rng.choice([0, 1, 5]),
                "top_p": rng.choice([0.5, 1.0]), "seed": rng.randrange(1000)}
    if name == "beam":
        return {"name": name, "width": rng.choice([1, 2, 4, 8]), "length_penalty": rng.choice([0.0, 1.0, 2.0])}
    return {"name": name}


def make_sentence(rng: random.Random, folder: Path, index: int, text: str | None = None) -> Case:
    text = sentence(rng) if text is None else text
    target = rng.choice(TARGETS) if rng.random() < 0.6 else sentence(rng)
    chosen = strategy(rng)
    job = {"do": "sentence", "text": text, "target": target, "strategy": chosen,
           "max_len": rng.choice([1, 2, 10, 50, 127, 128, 129, 10_000])}
    return Case("sentences through the API", f"{short(text, 40)} -> {short(target, 15)} {chosen['name']}", job)


# -- command line ----------------------------------------------------------------------------------

def cli(argv: list[str], encoding: str = "utf-8", stdin: str = "", protect: list[str] | None = None) -> dict[str, Any]:
    """A job running ``transviz ARGV`` with stdout in ``encoding`` (strict, like PYTHONIOENCODING)."""
    return {"do": "cli", "argv": argv, "encoding": encoding, "stdin": stdin, "protect": protect or []}


EDGES = ["0", "-1", "1", "2", "0.5", "nan", "inf", "-inf", "1e-320", "1e308", "1e999", "-0", "1000", "64", "65",
         str(2**63), str(10**30), "1e3"]
DECODE_FLAGS = {  # flag -> the strategy it belongs to (None: any)
    "--temperature": "sample", "--top-k": "sample", "--top-p": "sample", "--seed": "sample",
    "--beam": "beam", "--length-penalty": "beam", "--max-len": None, "--candidates": None,
}


def make_cli_values(rng: random.Random, folder: Path, index: int) -> Case:
    flags = rng.sample(sorted(DECODE_FLAGS), rng.choice([1, 1, 2]))
    kinds = sorted({kind for f in flags if (kind := DECODE_FLAGS[f]) is not None})
    if len(kinds) > 1:  # one strategy's flags at a time: mixing them is refused before any value is read
        flags = [f for f in flags if DECODE_FLAGS[f] in (None, kinds[0])]
    argv = ["decode", rng.choice(["ich mochte ein bier", "der hund ist gut", "ich"])]
    if rng.random() < 0.3:
        flags.append("--show")
    for flag in flags:
        argv += [flag, "cross" if flag == "--show" else rng.choice(EDGES)]
    return Case("command-line values (decode)", " ".join(argv[2:]), cli(argv))


def make_terminal(rng: random.Random, folder: Path, index: int) -> Case:
    encoding = rng.choice(["ascii", "utf-8", "latin-1"])
    text = rng.choice(["ich mochte ein bier", "ich möchte ein bier", "ich \udcff bier", "\u00e9\u20ac bier",
                       "ich \U0001f600"])
    argv = ["decode", text] + rng.choice([[], ["--show", "cross"], ["--show", "encoder", "--values"], ["--json"],
                                          ["--beam", "3"], ["--reference", "i want a \u00e9 beer"],
                                          ["--interactive"]])
    stdin = "\n\nf bier\nb\nf \u00e9\n\nq\n" if "--interactive" in argv else ""
    return Case("decode on ascii / latin-1 / strict utf-8 terminals", f"{encoding}: {short(' '.join(argv[1:]))}",
                cli(argv, encoding, stdin))


TRAIN_SMALL = ["--steps", "1", "--layers", "1", "--d-model", "16", "--heads", "2", "--d-ff", "32",
               "--eval-every", "0", "--snapshot-every", "0", "--checkpoint-every", "0", "--eval-limit", "2",
               "--device", "cpu"]


def output_cases(folder: Path, good: bytes) -> list[Case]:
    """Outputs aimed at files that exist: only a file of the kind written may be replaced. Each case
    has its own folder of files; ``@NAME`` in an argument list is the file NAME there."""
    jobs = [
        ("decode --npz notes.txt", ["decode", SENTENCE, "--npz", "@notes.txt"], ["@notes.txt"]),
        ("decode --model m --npz m", ["decode", SENTENCE, "--model", "@m.safetensors", "--npz", "@m.safetensors"],
         ["@m.safetensors"]),
        ("decode --npz a folder", ["decode", SENTENCE, "--npz", "@d.npz"], []),
        ("decode --npz inside a file", ["decode", SENTENCE, "--npz", "@notes.txt/x.npz"], ["@notes.txt"]),
        ("decode --npz over an .npz", ["decode", SENTENCE, "--npz", "@old.npz"], []),
        ("train --data c.tsv --out c.tsv", ["train", "--data", "@c.tsv", "--out", "@c.tsv", *TRAIN_SMALL], ["@c.tsv"]),
        ("train --out notes.txt", ["train", "--data", "@c.tsv", "--out", "@notes.txt", *TRAIN_SMALL], ["@notes.txt"]),
        ("train --out over a checkpoint", ["train", "--data", "@c.tsv", "--out", "@m.safetensors", *TRAIN_SMALL], []),
    ]
    cases = []
    for i, (what, argv, protect) in enumerate(jobs):
        place = folder / f"outputs-{i}"
        place.mkdir(parents=True)
        (place / "notes.txt").write_text("my notes\n")
        (place / "m.safetensors").write_bytes(good)
        (place / "c.tsv").write_text("".join(f"w{n} w{n + 1}\tv{n} v{n + 1}\n" for n in range(30)))
        (place / "old.npz").write_bytes(b"PK\x05\x06" + bytes(18))  # an empty zip, as numpy writes
        (place / "d.npz").mkdir()
        argv = [str(place / a[1:]) if a.startswith("@") else a for a in argv]  # @NAME: a file in place
        cases.append(Case("outputs onto existing files", what,
                          cli(argv, protect=[str(place / p[1:]) for p in protect]), [place]))
    return cases


# -- corpora ---------------------------------------------------------------------------------------

def corpus_bytes(rng: random.Random) -> tuple[bytes, str]:
    style = rng.randrange(8)
    lines = [f"w{rng.randrange(60)} w{rng.randrange(60)}\tv{rng.randrange(60)} v{i}" for i in range(rng.randrange(
        5, 200))]
    if style == 0:
        n = rng.choice([60_000, 100_000])
        return "".join(f"a{i}\tb{i}\n" for i in range(n)).encode(), f"{n} distinct words"
    if style == 1:
        n = rng.choice([200, 5_000, 200_000, 2_000_000])
        lines.insert(rng.randrange(len(lines)), " ".join(["x"] * n) + "\t" + "y z")
        return "\n".join(lines).encode(), f"one line of {n} tokens"
    if style == 2:
        for _ in range(rng.randrange(1, 4)):
            i = rng.randrange(len(lines))
            lines[i] = lines[i][:3] + character(rng) + lines[i][3:]
        return "\n".join(lines).encode("utf-8", "surrogatepass"), "odd characters in lines"
    if style == 3:
        data = bytearray("\n".join(lines).encode())
        for _ in range(rng.randrange(1, 5)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        return bytes(data), "random bytes changed"
    if style == 4:
        return rng.choice([b"", b"\n\n\n", b"\xef\xbb\xbf", b"a\tb\n" * 20, b"a\tb\tc\n" * 20, b"\t\n" * 20,
                           b"a\tb\r\n" * 5 + b"\x00\tb\n", bytes(rng.randrange(256) for _ in range(3000))]), "odd file"
    if style == 5:
        return ("\n".join(lines) + "\n" + "q" * rng.choice([10_000, 1_000_000]) + "\tr\n").encode(), "a long word"
    if style == 6:
        chars = "".join(character(rng) for _ in range(400))
        rows = [f"{chars[i:i + 7]}\t{chars[i + 7:i + 13]}" for i in range(0, 380, 13)]
        return "\n".join(rows).encode("utf-8", "surrogatepass"), "random characters"
    return "\n".join(lines).encode(), f"{len(lines)} plain lines"


def make_corpus(rng: random.Random, folder: Path, index: int) -> Case:
    data, what = corpus_bytes(rng)
    path = folder / f"corpus-{index}.tsv"
    path.write_bytes(data)
    level = rng.choice(["word", "word", "char"])
    return Case("corpora (load, build, one step)", f"{what} ({level})", {"do": "corpus", "path": str(path),
                                                                          "level": level}, [path])


# -- settings files --------------------------------------------------------------------------------

INI = (b"[General]\nlanguage=en\n\n[appearance]\ntheme=light\ncolormap=viridis\npresentation=false\n\n"
       b"[session]\nmodel=default\nsentence=ich mochte ein bier\n\n[window]\ntab=1\n")
VARIANTS = [b"@Variant(\\0\\0\\0\\v\\x7f\\xff\\xff\\xff)", b"@Variant(\\0\\0\\0\\f\\xff\\xff\\xff\\xff)",
            b"@ByteArray(\\xff\\xff)", b"@Variant(\\0\\0\\0\\x7f\\0\\0\\0\\x10QSize)", b"@Variant(", b"@Invalid()",
            b"@Variant(\\0\\0\\0\\n\\x7f\\xff\\xff\\xff)", b"@Variant(\\0\\0\\0\\b\\x7f\\xff\\xff\\xff)"]


def settings_bytes(rng: random.Random) -> tuple[bytes, str]:
    lines = INI.split(b"\n")
    style = rng.randrange(6)
    if style < 3:
        variant = rng.choice(VARIANTS)
        value_lines = [i for i, line in enumerate(lines) if b"=" in line]
        i = rng.choice(value_lines)
        lines[i] = lines[i].split(b"=")[0] + b"=" + variant
        return b"\n".join(lines), f"{lines[i].decode('latin-1')}"
    if style == 3:
        data = bytearray(INI)
        for _ in range(rng.randrange(1, 8)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        return bytes(data), "random bytes changed"
    if style == 4:
        return INI + b"[window]\ntab=" + b"9" * rng.choice([30, 100_000]) + b"\n", "a huge number"
    return bytes(rng.randrange(256) for _ in range(rng.choice([10, 1000]))), "random bytes"


def make_settings(rng: random.Random, folder: Path, index: int) -> Case:
    path = folder / f"settings-{index}.ini"
    style = rng.random()
    if style < 0.1:
        os.mkfifo(path)
        what = "a FIFO"
    elif style < 0.15:
        path.mkdir()
        what = "a folder"
    else:
        data, what = settings_bytes(rng)
        path.write_bytes(data)
    broken = path.with_name(path.name + ".broken")
    return Case("settings files (read at GUI start)", what, {"do": "settings", "path": str(path)}, [path, broken])


# -- lesson files ----------------------------------------------------------------------------------

LESSONS = Path(__file__).resolve().parents[2] / "resources" / "lessons"
LESSON_VALUES = ["-1", "0", "1e999", "nan", "-inf", str(10**30), "true", "[]", "{}", '""', '"x"', '"\\u0000"',
                 '"/dev/zero"', '"/proc/self/mem"', '"../../../../../../etc/passwd"', '"default\\u202e"',
                 '"' + "ich " * 50_000 + '"', "[" * 3000 + "]" * 3000, "{ a = { b = { c = 1 } } }", "2026-12-06",
                 '"beam"', '"summary"', '"cross"', '"decoder_self"', "[1, 2, 3]", '{ width = 1e9 }',
                 '{ temperature = 0, top_k = -5 }', '[{ name = "AblateHead", kind = "cross", layer = 99, head = 0 }]']


# a session as the window saves it (File > Save session): a lesson of one slide, with forced tokens
# and interventions, each on one line (the backslash joins two) so that it can be replaced whole
SESSION = """format = "transviz-lesson"
version = 1
title_en = "session"
title_zh = "session"

[[slide]]
model = "default"
sentence = "ich mochte ein bier"
reference = "i want a beer"
strategy = "beam"
steps = 3
forced = [{ step = 1, token = "a" }]
tab = "explorer"
interventions = [{ name = "AblateHead", kind = "cross", layer = 0, head = 1, mode = "zero" }, \
{ name = "ScaleHead", kind = "cross", layer = 1, head = 0, factor = 2.0 }, { name = "NoPositions", side = "encoder" }]
caption_en = ""
caption_zh = ""

[slide.settings]
width = 3
length_penalty = 1.0

[slide.view]
kind = "cross"
head = 0
summary = "mean"
scale = "fixed"
"""
SESSION_VALUES = ['[{ step = 99999, token = "a" }]', '[{ step = -1, token = "</s>" }]',
                  '[{ step = 0, token = "<pad>" }]', '[{ step = 0, token = "' + "x" * 10_000 + '" }]',
                  '[{ step = 1, token = "a" }] ' * 2,
                  '[{ name = "EditAttention", kind = "cross", layer = 0, head = 0, query = 0, weights = [1e999] }]',
                  '[{ name = "ScaleHead", kind = "cross", layer = 0, head = 0, factor = nan }]',
                  '[{ name = "TieQueryKey", kind = "encoder_self", layer = 5, head = 0 }]',
                  '[{ name = "eval" }]', '[{ name = "AblateHead" }]']


def lesson_text(rng: random.Random, folder: Path, index: int) -> tuple[str, str]:
    """A shipped lesson, changed in one of several ways (:func:`changed`)."""
    base = rng.choice(sorted(LESSONS.glob("*.toml")))
    return changed(rng, folder, index, base.stem, base.read_text(encoding="utf-8"), LESSON_VALUES)


def changed(rng: random.Random, folder: Path, index: int, name: str, text: str, values: list[str]) -> tuple[str, str]:
    """``text`` changed in one of several ways; the files a change points at are made in ``folder``."""
    lines = text.splitlines()
    style = rng.randrange(8)
    settings = [i for i, line in enumerate(lines) if " = " in line and not line.lstrip().startswith("#")]
    if style < 3:
        i = rng.choice(settings)
        key, value = lines[i].split(" = ", 1)[0], rng.choice(values)
        lines[i] = f"{key} = {value}"
        return "\n".join(lines), f"{name}: {key} = {short(value, 40)}"
    if style == 3:
        data = bytearray("\n".join(lines).encode())
        for _ in range(rng.randrange(1, 6)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        return data.decode("utf-8", "replace"), f"{name}: random bytes changed"
    if style == 4:
        text = "\n".join(lines)
        slide = text[text.index("[[slide]]"):].split("\n[[slide]]")[0]
        copies = rng.choice([20, 999, 1001])
        return text + ("\n" + slide) * copies, f"{name}: one slide {copies} times more"
    if style == 5:
        text = "\n".join(lines)
        cut = rng.randrange(len(text))
        return text[:cut], f"{name}: cut after {cut} characters"
    if style == 6:
        del lines[rng.choice(settings)]
        return "\n".join(lines), f"{name}: a line left out"
    target = folder / f"lesson-model-{index}"
    kind = rng.choice(["fifo", "folder", "text", "loop"])
    models = [i for i in settings if lines[i].startswith("model = ")]
    lines[rng.choice(models)] = f"model = {json.dumps(str(target))}"  # drawn before any file is made
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "folder":
        target.mkdir()
    elif kind == "text":
        target.write_text("format = 1\n" * 100)
    else:
        target.symlink_to(target)
    return "\n".join(lines), f"{name}: the model is a {kind}"


def make_lesson(rng: random.Random, folder: Path, index: int) -> Case:
    text, what = lesson_text(rng, folder, index)
    path = folder / f"lesson-{index}.toml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    model = folder / f"lesson-model-{index}"
    return Case("lesson files (lesson --check)", what, cli(["lesson", str(path), "--check"]), [path, model])


def make_session(rng: random.Random, folder: Path, index: int) -> Case:
    text, what = changed(rng, folder, index, "session", SESSION, LESSON_VALUES + SESSION_VALUES)
    path = folder / f"session-{index}.transviz"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    model = folder / f"lesson-model-{index}"
    return Case("session files (lesson --check)", what, cli(["lesson", str(path), "--check"]), [path, model])


# -- Hugging Face folders --------------------------------------------------------------------------

HF_VALUES: list[Any] = [None, "32", -1, 0, 1.5, True, 10**9, [], {}, "", "bogus", [1, 2], {"a": 1}, 2**63]
HF_TOKENIZER_FILES = ("source.spm", "target.spm", "vocab.json", "tokenizer_config.json", "special_tokens_map.json",
                      "generation_config.json")
# the damage a checkpoint gets, but not transviz's own metadata, which a Hugging Face file does not hold
HF_WEIGHT_KINDS = tuple(kind for kind in CHECKPOINT_KINDS if kind != "checkpoint: metadata edits")


def damaged_bytes(rng: random.Random, data: bytes) -> tuple[bytes, str]:
    style = rng.randrange(3)
    if style == 0 and data:
        changed_ = bytearray(data)
        for _ in range(rng.randrange(1, 8)):
            changed_[rng.randrange(len(changed_))] = rng.randrange(256)
        return bytes(changed_), "bytes changed"
    if style == 1:
        cut = rng.randrange(len(data) + 1)
        return data[:cut], f"cut to {cut} bytes"
    return bytes(rng.randrange(256) for _ in range(rng.choice([0, 10, 1000]))), "random bytes"


def good_hf(folder: Path) -> Path:
    """``folder``/hf-good: a random Marian folder with its tokenizer (trained here: seconds), built by
    the first call; needs the hf extra and tests/ on the path (hf_folders)."""
    from hf_folders import marian_folder

    good = folder / "hf-good"
    return good if (good / "config.json").exists() else marian_folder(good)


def copy_with(good: Path, target: Path, name: str, data: bytes) -> Path:
    """A copy of the folder ``good`` at ``target`` whose file ``name`` holds ``data``. Cases call it
    once every random choice is drawn: hypothesis may stop a case at any draw, and files made
    before it would stay for the next case."""
    import shutil

    shutil.copytree(good, target)
    (target / name).write_bytes(data)
    return target


def make_hf_folder(rng: random.Random, folder: Path, index: int, good: Path) -> Case:
    """A copy of the Marian folder ``good`` with its config, a tokenizer file or its weights damaged."""
    style = rng.randrange(3)
    if style == 0:
        name, config = "config.json", json.loads((good / "config.json").read_text(encoding="utf-8"))
        key, value = rng.choice(sorted(config)), rng.choice(HF_VALUES)
        config[key] = value
        data, what = json.dumps(config).encode(), f"config.json: {key} = {short(json.dumps(value), 30)}"
    elif style == 1:
        name = rng.choice([name for name in HF_TOKENIZER_FILES if (good / name).exists()])
        data, damage = damaged_bytes(rng, (good / name).read_bytes())
        what = f"{name}: {damage}"
    else:
        name = "model.safetensors"
        data, damage = mutate_checkpoint(rng, rng.choice(HF_WEIGHT_KINDS), (good / name).read_bytes())
        what = f"{name}: {damage}"
    target = copy_with(good, folder / f"hf-{index}", name, data)
    return Case("Hugging Face folders (load, decode)", what, {"do": "load", "path": str(target)}, [target])


# -- plain-PyTorch models (sidecar format transviz-torch) ----------------------------------------------

SIDECAR_TOKENS = ["<unk>", "<pad>", "<bos>", "<eos>", *WORDS]


def good_sidecar(folder: Path) -> Path:
    """``folder``/sidecar-good: a course's model as PyTorch's translation tutorial builds it
    (embeddings, nn.Transformer, a Linear output layer), saved with safetensors beside its sidecar
    ``course.json``; built by the first call."""
    import torch
    from safetensors.torch import save_file

    folder = folder / "sidecar-good"
    if (folder / "course.json").exists():
        return folder
    torch.manual_seed(0)
    d, heads, layers, d_ff, size = 16, 2, 2, 32, len(SIDECAR_TOKENS)
    transformer = torch.nn.Transformer(d, heads, layers, layers, d_ff, batch_first=True)
    modules = torch.nn.ModuleDict({"src": torch.nn.Embedding(size, d), "tgt": torch.nn.Embedding(size, d),
                                   "transformer": transformer, "generator": torch.nn.Linear(d, size)})
    folder.mkdir(parents=True, exist_ok=True)
    save_file({k: v.contiguous() for k, v in modules.state_dict().items()}, str(folder / "course.safetensors"))
    vocab = {"tokens": SIDECAR_TOKENS, "pad": 1, "start": 2, "end": 3, "unknown": 0}
    sidecar = {"format": "transviz-torch", "version": 1, "weights": "course.safetensors",
               "model": {"d_model": d, "nhead": heads, "num_encoder_layers": layers, "num_decoder_layers": layers,
                         "dim_feedforward": d_ff, "activation": "relu", "norm_first": False, "max_len": 64,
                         "scale_embeddings": True, "positional": "sinusoidal"},
               "modules": {"transformer": "transformer", "source_embedding": "src", "target_embedding": "tgt",
                           "output": "generator"},
               "source_vocab": vocab, "target_vocab": vocab}
    (folder / "course.json").write_text(json.dumps(sidecar), encoding="utf-8")
    return folder


SIDECAR_VALUES: list[Any] = [*HF_VALUES, "../../../../etc/passwd", "/dev/zero", "course.pt", "x" * 5000,
                             ["<pad>"] * 3, 1e308, -0.0, "gelu", "learned"]


def sidecar_edit(rng: random.Random, data: dict[str, Any]) -> str:
    """One value of the sidecar, at any depth, replaced by a hostile one."""
    path: list[str] = []
    node: Any = data
    while isinstance(node, dict) and node and (not path or rng.random() < 0.7):
        key = rng.choice(sorted(node))
        path.append(key)
        parent, node = node, node[key]
    value = rng.choice(SIDECAR_VALUES)
    parent[path[-1]] = value
    return f"{'.'.join(path)} = {short(json.dumps(value), 30)}"


def make_sidecar(rng: random.Random, folder: Path, index: int, good: Path) -> Case:
    """A copy of the sidecar model ``good`` with its JSON or its weights damaged."""
    if rng.random() < 0.6:
        name, sidecar = "course.json", json.loads((good / "course.json").read_text(encoding="utf-8"))
        what = sidecar_edit(rng, sidecar)
        data = json.dumps(sidecar).encode()
    else:
        name = "course.safetensors"
        data, damage = mutate_checkpoint(rng, rng.choice(HF_WEIGHT_KINDS), (good / name).read_bytes())
        what = f"{name}: {damage}"
    target = copy_with(good, folder / f"sidecar-{index}", name, data)
    return Case("PyTorch models with a sidecar (load, decode)", what,
                {"do": "load", "path": str(target / "course.json")}, [target])


# -- the other commands' values ----------------------------------------------------------------------

SIZES = ["0x0", "1x1", "20000x20000", "2147483648x100", "-5x10", "axb", "1600x900x3", "300x200", "99999999999x1"]
RENDER_VIEWS = ["grid", "head", "positional", "masks", "window", "compare", "lookup", "cost", "hull"]


def command_values(rng: random.Random, folder: Path, index: int) -> tuple[list[str], str]:
    """A render, lesson --export, train or heads command with one or two values at their edges."""
    command = rng.choice(["render", "render", "lesson", "train", "heads", "convert"])
    if command == "convert":
        return convert_values(rng, folder, index)
    if command == "render":
        view = rng.choice(RENDER_VIEWS)
        out = folder / f"render-{index}.{rng.choice(['png', 'svg', 'gif'])}"
        argv = ["render", SENTENCE, "--view", view, "--out", str(out), "--size", "300x200"]
        flags = rng.sample(["--size", "--layer", "--head", "--step", "--snapshots", "--frame-ms", "--hold-ms"],
                           rng.choice([1, 2]))
        for flag in flags:
            value = rng.choice(SIZES) if flag == "--size" else rng.choice(EDGES + ["mean", "rollout", "x"])
            argv += [flag, value] + ([rng.choice(EDGES)] if flag == "--snapshots" else [])
        if out.suffix == ".gif":
            argv.append("--animate")
        return argv, f"render --view {view} {' '.join(argv[8:])}"
    if command == "lesson":
        lesson = str(rng.choice(sorted(LESSONS.glob("*.toml"))))
        size = rng.choice(SIZES)
        return ["lesson", lesson, "--export", str(folder / f"export-{index}"), "--size", size], f"lesson --size {size}"
    if command == "train":
        argv = ["train", "--task", rng.choice(["copy", "reverse", "dates"]), "--out",
                str(folder / f"train-{index}.safetensors"), *TRAIN_SMALL]
        flag = rng.choice(["--layers", "--heads", "--d-model", "--d-ff", "--dropout", "--batch-size", "--lr",
                           "--warmup", "--label-smoothing", "--clip", "--seed", "--eval-limit", "--recipe", "--init"])
        value = rng.choice(EDGES + ["toy-de-en", "nothing", "xavier_uniform", "normal:0.02", "uniform:-1"])
        if flag in argv:
            argv[argv.index(flag) + 1] = value
        else:
            argv += [flag, value]
        return argv, f"train {flag} {value}"
    data = rng.choice(["test", "valid", "train", "nothing", str(folder), "/dev/zero"])
    return ["heads", "--data", data, "--kind", "cross"], f"heads --data {short(data, 30)}"


def convert_values(rng: random.Random, folder: Path, index: int) -> tuple[list[str], str]:
    """convert of a sound sidecar model to an output of any kind: only a transviz checkpoint, or
    anything with --force, may be replaced (the worker checks the files it is given to protect)."""
    good = good_sidecar(folder)
    place = folder / f"convert-{index}"
    out = rng.choice(["new.safetensors", "other.safetensors", "notes.txt", ".", "notes.txt/x.safetensors",
                      "y" * 300 + ".safetensors", "/proc/self/x.safetensors", "", "new.txt"])
    argv = ["convert", str(good / rng.choice(["course.json", "course.safetensors"])),
            out if out.startswith("/") or not out else str(place / out)]
    if rng.random() < 0.3:
        argv.append("--force")
    place.mkdir()  # once every choice is drawn (copy_with says why)
    (place / "notes.txt").write_text("my notes\n")
    (place / "other.safetensors").write_bytes((good / "course.safetensors").read_bytes())  # another program's
    return argv, f"convert to {short(out, 30)}{' --force' if '--force' in argv else ''}"


def make_command_values(rng: random.Random, folder: Path, index: int) -> Case:
    argv, what = command_values(rng, folder, index)
    outputs = [folder / f"{name}-{index}{suffix}" for name, suffix in
               (("render", ".png"), ("render", ".svg"), ("render", ".gif"), ("export", ""), ("train", ".safetensors"),
                ("convert", ""))]
    protect = [] if "--force" in argv or argv[0] != "convert" else \
        [str(folder / f"convert-{index}" / name) for name in ("notes.txt", "other.safetensors")]
    return Case("command-line values (render, lesson --export, train, heads, convert)", short(what),
                cli(argv, protect=protect), outputs)
