"""Hostile checkpoints (issue 15): crafted metadata, sizes, weights and file kinds end in one clear
CheckpointError, fast and within a memory cap, never a crash, a hang or a silently wrong model."""
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
from safetensors import safe_open
from safetensors.torch import save_file
from test_checkpoint import small

import transviz
from transviz.core.io import checkpoint
from transviz.core.model.config import ModelConfig, TrainConfig
from transviz.core.model.transformer import Transformer

SHIPPED = Path(__file__).resolve().parents[3] / "resources" / "models" / "default.safetensors"


def rewrite(tmp_path, source=SHIPPED, config=None, metadata=None, tensors=None):
    """A copy of ``source`` with config settings, metadata entries or tensors changed."""
    with safe_open(str(source), framework="pt") as f:
        state = {k: f.get_tensor(k) for k in f.keys()}
        meta = f.metadata()
    if config:
        meta["config"] = json.dumps({**json.loads(meta["config"]), **config})
    meta.update(metadata or {})
    if tensors:
        tensors(state)
    bad = tmp_path / "bad.safetensors"
    save_file(state, str(bad), metadata=meta)
    return bad


def as_float32(state):
    """The shipped file's weights (float16) as float32: a file that can hold a huge finite weight."""
    state.update({name: tensor.float() for name, tensor in state.items()})


def refused(path, match):
    start = time.perf_counter()
    with pytest.raises(transviz.CheckpointError, match=match):
        transviz.load_model(str(path))
    return time.perf_counter() - start


@pytest.mark.parametrize("key", ["facts", "config", "src_vocab"])
def test_metadata_nested_thousands_deep_is_refused(tmp_path, key):
    bad = rewrite(tmp_path, metadata={key: "[" * 5000 + "]" * 5000})
    refused(bad, "nests 5000 levels deep")


def test_metadata_with_millions_of_arrays_is_refused(tmp_path):
    bad = rewrite(tmp_path, metadata={"facts": "[" + "[]," * 200_000 + "[]]"})
    refused(bad, "more than 100,000 JSON arrays")


def test_info_and_render_on_deep_metadata_say_one_line(tmp_path, capsys):
    from transviz.cli import main

    bad = rewrite(tmp_path, metadata={"facts": "{\"a\":" * 3000 + "1" + "}" * 3000})
    assert main(["info", str(bad)]) == 1
    assert main(["render", "ein bier", "--view", "grid", "--model", str(bad), "--out", str(tmp_path / "g.png")]) == 1
    err = capsys.readouterr().err
    assert err.count("nests 3000 levels deep") == 2 and "Traceback" not in err


@pytest.mark.parametrize("config, match", [
    ({"n_encoder_layers": 10**9}, "n_encoder_layers must be at most 48"),
    ({"src_vocab_size": 2**63}, "src_vocab_size must be at most 250004"),
    ({"d_model": 16384}, "d_model must be at most 4096"),
    ({"max_len": 10**7}, "max_len must be at most 8192"),
    ({"d_model": 2048, "n_heads": 8}, "src_embed.weight has shape \\(509, 128\\), the config needs \\(509, 2048\\)"),
    ({"n_encoder_layers": 48, "n_decoder_layers": 48}, "missing tensor encoder_layers.3"),
    ({"src_vocab_size": 200_000}, "vocabularies hold 509 and 286 tokens"),
])
@pytest.mark.timing
def test_sizes_the_file_does_not_hold_are_refused_before_building(tmp_path, config, match):
    bad = rewrite(tmp_path, config=config)
    assert refused(bad, match) < 1.0


@pytest.mark.parametrize("config, match", [
    ({"layer_norm_eps": float("nan")}, "layer_norm_eps must be a number"),
    ({"layer_norm_eps": 0}, "layer_norm_eps must be positive"),
    ({"layer_norm_eps": -1e-5}, "layer_norm_eps must be positive"),
    ({"dropout": float("nan")}, "dropout must be a number"),
    ({"dropout": "0.1"}, "dropout must be a number"),
    ({"pad_id": True}, "pad_id must be a whole number"),
    ({"pad_id": 1}, "pad_id is 1, but the vocabularies pad with id 0"),
    ({"pad_id": 3}, "pad_id is 3"),
    ({"tie_output": "no"}, "tie_output must be true or false, got 'no'"),
    ({"tie_output": "128"}, "tie_output must be true or false"),
    ({"tie_output": float("nan")}, "tie_output must be true or false"),
    ({"share_embeddings": 1}, "share_embeddings must be true or false"),
    ({"norm": ["post"]}, "norm must be 'post' or 'pre'"),
    ({"n_heads": 4.0}, "n_heads must be a positive integer"),
])
def test_metadata_that_parses_but_lies_is_refused(tmp_path, config, match):
    refused(rewrite(tmp_path, config=config), match)


def test_facts_must_be_a_small_object(tmp_path):
    refused(rewrite(tmp_path, metadata={"facts": json.dumps({"x": "a" * 2_000_000})}), "more than 1,048,576 bytes")


def test_a_tied_output_with_its_own_weights_in_the_file_is_refused(tmp_path):
    model = small(shared=True)  # share_embeddings and tie_output: one table under three names
    good = transviz.save_model(model, tmp_path / "good.safetensors")

    def add_output(state):
        state["generator.weight"] = torch.ones_like(state["src_embed.weight"])

    bad = rewrite(tmp_path, source=good, tensors=add_output)
    refused(bad, "holds both src_embed.weight and generator.weight")


@pytest.mark.parametrize("name", ["generator.bias", "encoder_layers.0.norm1.bias", "decoder_layers.2.norm3.bias",
                                  "decoder_layers.2.ffn.linear2.bias"])
def test_huge_but_finite_weights_are_refused_naming_them(tmp_path, name):
    def flip(state):
        as_float32(state)
        state[name][0] = 5e36

    with pytest.raises(transviz.CheckpointError, match="NaN, infinite or absurdly large") as error:
        transviz.load_model(str(rewrite(tmp_path, tensors=flip)))
    assert f"largest weights: {name} (5e+36)" in str(error.value)


def test_a_huge_embedding_row_no_probe_reads_is_refused(tmp_path):
    def flip(state):
        as_float32(state)
        state["tgt_embed.weight"][200, 0] = 5e36

    refused(rewrite(tmp_path, tensors=flip), "largest weights: tgt_embed.weight")


def test_a_huge_weight_the_probe_leaves_closed_is_refused(tmp_path):
    """An FFN unit whose weights turn hugely negative on the probe: ReLU closes it there, so the
    probe computes finite values, while a sentence that opens it overflows."""
    def flip(state):
        as_float32(state)
        state["decoder_layers.0.ffn.linear1.weight"][7] *= 2.0**100

    refused(rewrite(tmp_path, tensors=flip), "largest weights: decoder_layers.0.ffn.linear1.weight")


def test_a_model_that_computes_nan_mid_decoding_says_so_instead_of_decoding_nonsense():
    """The last guard, for a model that never went through the loader's checks."""
    model = transviz.load_model("default")
    with torch.no_grad():
        model.net.generator.bias[5] = float("nan")
    for run in (lambda: transviz.decode(model, "ich mochte ein bier"),
                lambda: transviz.teacher_force(model, "ich mochte ein bier", "i want a beer")):
        with pytest.raises(transviz.InputError, match="NaN or infinite scores for this input: its weights are damaged"):
            run()


@pytest.mark.timing
def test_special_files_are_named_and_never_opened(tmp_path):
    fifo = tmp_path / "fifo.safetensors"
    os.mkfifo(fifo)
    loop = tmp_path / "loop.safetensors"
    os.symlink(loop, loop)
    dangling = tmp_path / "gone.safetensors"
    os.symlink(tmp_path / "nowhere.safetensors", dangling)
    assert refused(fifo, r"is not a regular file \(a FIFO\)") < 1.0  # opening it would wait for a writer
    refused("/dev/zero", r"/dev/zero is not a regular file \(a character device\)")
    refused(loop, "is a symbolic link loop")
    refused(dangling, "is a symbolic link to .*nowhere.safetensors, which does not exist")


def test_a_symlink_loop_without_the_suffix_is_named_too(tmp_path):
    loop = tmp_path / "loop"
    os.symlink(loop, loop)
    refused(str(loop), "is a symbolic link loop")


# Capped after the imports, at 1 GiB above what torch and transviz map (which differs by gigabytes
# between torch's builds): reading the 1.5 GiB file whole could not fit.
BIG = """
import resource, sys
from transviz import CheckpointError, load_model  # the package face imports torch with the loader
with open("/proc/self/statm") as statm:
    cap = int(statm.read().split()[0]) * resource.getpagesize() + 1024**3
resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
try:
    load_model(sys.argv[1])
except CheckpointError as exc:
    print(exc)
"""


@pytest.mark.process
@pytest.mark.timing
def test_a_header_length_covering_a_huge_file_is_refused_from_its_first_bytes(tmp_path):
    big = tmp_path / "big.safetensors"
    size = 1536 * 1024**2  # sparse: costs no disk
    with big.open("wb") as f:
        f.write((size - 8).to_bytes(8, "little") + b'{"a":')
        f.truncate(size)
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", BIG, str(big)], capture_output=True, text=True, timeout=120)
    assert "its first 8 bytes give a header of 1,610,612,728 bytes" in out.stdout, out.stderr[-2000:]
    assert time.perf_counter() - start < 60


def test_the_layout_is_the_networks():
    from transviz.core.model.layout import tensor_layout

    for share, tie, norm in [(False, False, "post"), (True, True, "pre"), (False, True, "pre"), (True, False, "post")]:
        cfg = ModelConfig(7, 7 if share else 9, d_model=8, n_heads=2, n_encoder_layers=2, n_decoder_layers=3,
                          d_ff=12, norm=norm, share_embeddings=share, tie_output=tie)
        net = Transformer(cfg)
        state = net.state_dict()
        real = sorted((tuple(g), tuple(state[g[0]].shape)) for g in checkpoint._tied_groups(net))
        assert real == sorted(tensor_layout(cfg))
        assert cfg.parameter_count() == net.parameter_count()


@pytest.mark.parametrize("settings, match", [
    ({"d_model": 4096, "n_heads": 64, "n_encoder_layers": 48, "n_decoder_layers": 48, "d_ff": 16384},
     "would have .* parameters; transviz builds at most 500,000,000"),
    ({"src_vocab_size": 2**63}, "at most 250004"),
    ({"dropout": 10**27}, "dropout must be in"), ({"dropout": 10**400}, "dropout must be a number"),
])
def test_model_config_bounds(settings, match):
    with pytest.raises(transviz.ConfigError, match=match):
        ModelConfig(**{"src_vocab_size": 10, "tgt_vocab_size": 10, **settings})


@pytest.mark.parametrize("settings, match", [
    ({"steps": 10**12}, "steps must be at most 10000000"), ({"batch_size": 10**6}, "batch_size must be at most"),
    ({"seed": 2**64}, "seed must be at most"), ({"lr": float("inf")}, "lr must be a number"),
    ({"lr": True}, "lr must be a number"), ({"lr": 10**400}, "lr must be a number"),
    ({"clip_norm": float("nan")}, "clip_norm must be a number"),
    ({"probe": 5}, "probe must be text"), ({"max_output_len": 10**9}, "max_output_len must be at most"),
])
def test_train_config_bounds(settings, match):
    with pytest.raises(transviz.ConfigError, match=match):
        TrainConfig(**settings)


def test_the_largest_checkpoint_read_fits_the_parameter_bound():
    from transviz.core.model.config import MAX_PARAMETERS

    assert MAX_PARAMETERS * 4 <= checkpoint.MAX_BYTES


def test_a_text_file_is_refused_without_showing_its_first_bytes(tmp_path):
    """Its first 8 bytes read as a length would spell them out (of a password file: a user name)."""
    text = tmp_path / "passwd.safetensors"
    text.write_text("root:x:0:0:root:/root:/bin/bash\n")
    with pytest.raises(transviz.CheckpointError) as caught:
        transviz.load_model(text)
    message = str(caught.value)
    assert message == ("passwd.safetensors is not a safetensors file: such a file begins with the length of its "
                       "header, and this one's first bytes are not a length that fits in its 32 bytes")
    assert str(int.from_bytes(b"root:x:0", "little")) not in message.replace(",", "")


@pytest.mark.skipif(not Path("/proc/self/mem").exists(), reason="needs Linux's /proc")
def test_a_system_file_that_refuses_reading_is_named_in_one_line():
    """A process's memory file is a regular file of size 0 whose reading fails."""
    with pytest.raises(transviz.CheckpointError, match="^cannot read /proc/self/mem: Input/output error$"):
        transviz.load_model("/proc/self/mem")
