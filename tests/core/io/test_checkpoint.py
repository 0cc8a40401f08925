import json
import os
import pickle

import pytest
import torch
from safetensors.torch import save_file

import transviz
from transviz.core.io import checkpoint
from transviz.core.model.transformer import Transformer
from transviz.core.model.vocab import Vocab


def small(shared=False):
    torch.manual_seed(0)
    src = Vocab("a b c d".split())
    tgt = src if shared else Vocab("x y z".split())
    cfg = transviz.ModelConfig(len(src), len(tgt), d_model=16, n_heads=2, n_encoder_layers=1,
                               n_decoder_layers=1, d_ff=32, share_embeddings=shared, tie_output=shared)
    return transviz.Model(Transformer(cfg).eval(), src, tgt, {"task": "unit", "steps": 3})


@pytest.mark.parametrize("shared", [False, True])
def test_round_trip_keeps_weights_vocab_facts_and_ties(tmp_path, shared):
    model = small(shared)
    path = transviz.save_model(model, tmp_path / "m.safetensors")
    back = transviz.load_model(str(path))
    assert back.config == model.config and back.src_vocab == model.src_vocab and back.facts == model.facts
    src, tgt = torch.tensor([[4, 5, 6]]), torch.tensor([[1, 4, 5]])
    assert torch.equal(back.net(src, tgt).logits, model.net(src, tgt).logits)
    if shared:
        assert back.net.generator.weight is back.net.tgt_embed.weight
        assert back.net.src_embed is back.net.tgt_embed
    assert "parameters" in checkpoint.describe(back)
    assert list(tmp_path.iterdir()) == [path]  # no temporary file left behind
    assert path.stat().st_mode & 0o777 == 0o644  # not the temporary file's private mode


def test_bad_files_raise_checkpoint_error(tmp_path):
    good = transviz.save_model(small(), tmp_path / "good.safetensors").read_bytes()
    cases = {"truncated": good[: len(good) // 2], "random": bytes(range(256)) * 10, "empty": b""}
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(transviz.CheckpointError):
            transviz.load_model(str(tmp_path / name))
    save_file({"w": torch.zeros(2)}, str(tmp_path / "foreign.safetensors"))
    with pytest.raises(transviz.CheckpointError, match="another program"):
        transviz.load_model(str(tmp_path / "foreign.safetensors"))


class Boom:
    def __reduce__(self):
        return (open, ("/tmp/transviz-pickle-ran", "w"))


def test_a_pickle_is_never_unpickled(tmp_path):
    path = tmp_path / "evil.safetensors"
    path.write_bytes(pickle.dumps(Boom()))
    with pytest.raises(transviz.CheckpointError):
        transviz.load_model(str(path))
    assert not os.path.exists("/tmp/transviz-pickle-ran")


def test_info_command_prints_the_summary(tmp_path, capsys):
    from transviz.cli import main

    path = transviz.save_model(small(), tmp_path / "m.safetensors")
    assert main(["info", str(path)]) == 0
    assert "target vocabulary: 7 tokens" in capsys.readouterr().out
    assert main(["info", str(tmp_path / "missing.safetensors")]) == 1


def _rewrite(tmp_path, model, edit_tensors=None, edit_metadata=None):
    """Save ``model``, then write a copy whose tensors or metadata were changed."""
    from safetensors import safe_open

    path = transviz.save_model(model, tmp_path / "good.safetensors")
    with safe_open(str(path), framework="pt") as f:
        tensors = {k: f.get_tensor(k) for k in f.keys()}
        metadata = f.metadata()
    if edit_tensors:
        edit_tensors(tensors)
    if edit_metadata:
        edit_metadata(metadata)
    bad = tmp_path / "bad.safetensors"
    save_file(tensors, str(bad), metadata=metadata)
    return bad


@pytest.mark.parametrize("edit, message", [
    (lambda t: t.update({"generator.bias": torch.zeros(99)}), "shape"),
    (lambda t: t.pop("encoder_layers.0.ffn.linear1.weight"), "missing tensor encoder_layers.0.ffn.linear1.weight"),
    (lambda t: t["generator.bias"].fill_(float("nan")), "NaN"),
    (lambda t: t.update({"sneaky.weight": torch.zeros(2)}), "unexpected tensors sneaky.weight"),
    (lambda t: t.update({"generator.bias": torch.zeros(7, dtype=torch.int64)}), "not floating-point"),
])
def test_tensors_that_do_not_fit_the_config_are_named(tmp_path, edit, message):
    bad = _rewrite(tmp_path, small(), edit_tensors=edit)
    with pytest.raises(transviz.CheckpointError, match=message):
        transviz.load_model(str(bad))


@pytest.mark.parametrize("edit, message", [
    (lambda m: m.update({"config": "{not json"}), "broken metadata"),
    (lambda m: m.update({"config": '{"d_model": 16}'}), "broken metadata"),
    (lambda m: m.update({"config": m["config"].replace('"n_heads": 2', '"n_heads": 3')}), "divisible"),
    (lambda m: m.pop("src_vocab"), "broken metadata"),
    (lambda m: m.update({"tgt_vocab": '{"level": "word", "tokens": ["x"]}'}), "broken metadata"),
    (lambda m: m.update({"facts": "[1, 2]"}), "broken metadata"),
    (lambda m: m.update({"format_version": "99"}), "format '99'"),
])
def test_bad_metadata_is_a_clear_error(tmp_path, edit, message):
    bad = _rewrite(tmp_path, small(), edit_metadata=edit)
    with pytest.raises(transviz.CheckpointError, match=message):
        transviz.load_model(str(bad))


def test_a_huge_file_is_refused_before_reading(tmp_path, monkeypatch):
    path = transviz.save_model(small(), tmp_path / "m.safetensors")
    monkeypatch.setattr(checkpoint, "MAX_BYTES", path.stat().st_size - 1)
    with pytest.raises(transviz.CheckpointError, match="GB"):
        transviz.load_model(str(path))


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path, monkeypatch):
    path = transviz.save_model(small(), tmp_path / "m.safetensors")
    before = path.read_bytes()

    def crash(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", crash)
    changed = small()
    changed.facts["steps"] = 999
    with pytest.raises(transviz.CheckpointError, match=f"cannot save the model to {path}: disk full"):
        transviz.save_model(changed, path)
    assert path.read_bytes() == before
    assert list(tmp_path.iterdir()) == [path]


def test_extra_tensors_round_trip_beside_the_weights(tmp_path):
    model = small(shared=True)
    snapshots = {"snapshot.100.cross": torch.rand(1, 2, 3, 4), "snapshot.steps": torch.tensor([100, 200])}
    path = checkpoint.save(model, tmp_path / "m.safetensors", extras=snapshots)
    back = checkpoint.load(path)  # the extras do not disturb the weights
    src, tgt = torch.tensor([[4, 5, 6]]), torch.tensor([[1, 4, 5]])
    assert torch.equal(back.net(src, tgt).logits, model.net(src, tgt).logits)
    extras = checkpoint.load_extras(path)
    assert extras.keys() == snapshots.keys()
    assert all(torch.equal(extras[k], v) for k, v in snapshots.items())


@pytest.mark.parametrize("path", ["/proc/x/m.safetensors", "/proc/m.safetensors"])  # even root cannot write /proc
def test_an_unwritable_folder_is_a_checkpoint_error(path):
    for write in (lambda: checkpoint.save(small(), path), lambda: checkpoint.check_writable(path)):
        with pytest.raises(transviz.CheckpointError, match=f"^cannot save the model to {path}: No such file"):
            write()


def test_check_writable_leaves_nothing_behind(tmp_path):
    checkpoint.check_writable(tmp_path / "new" / "m.safetensors")
    assert list((tmp_path / "new").iterdir()) == []
    with pytest.raises(transviz.CheckpointError, match="it is a folder"):
        checkpoint.check_writable(tmp_path)


def safetensors_sizes(data: bytes) -> tuple[int, int]:
    """(where the header ends, how long the whole file is) read from safetensors' published layout:
    8 bytes little-endian header length, the JSON header, then each tensor at its data_offsets."""
    header_end = 8 + int.from_bytes(data[:8], "little")
    header = json.loads(data[8:header_end])
    data_bytes = max(entry["data_offsets"][1] for name, entry in header.items() if name != "__metadata__")
    return header_end, header_end + data_bytes


def cut_checkpoint(tmp_path, where):
    """A checkpoint cut inside its header ("header") or after it, inside the tensors ("data")."""
    good = transviz.save_model(small(), tmp_path / "good.safetensors").read_bytes()
    header_end, complete = safetensors_sizes(good)
    assert complete == len(good)
    size = header_end // 2 if where == "header" else (header_end + complete) // 2
    cut = tmp_path / "cut.safetensors"
    cut.write_bytes(good[:size])
    return cut, size, header_end, complete


def test_a_file_cut_inside_its_header_says_so_with_the_headers_size(tmp_path):
    cut, size, header_end, _ = cut_checkpoint(tmp_path, "header")
    with pytest.raises(transviz.CheckpointError) as error:
        transviz.load_model(cut)
    assert str(error.value) == (f"cut.safetensors: the file is truncated or damaged: it ends after {size:,} bytes, "
                                f"inside its {header_end:,}-byte header")


def test_a_file_cut_inside_its_tensors_says_how_long_a_complete_file_is(tmp_path):
    cut, size, header_end, complete = cut_checkpoint(tmp_path, "data")
    assert header_end < size < complete
    with pytest.raises(transviz.CheckpointError) as error:
        transviz.load_model(cut)
    assert str(error.value) == (f"cut.safetensors: the file is truncated or damaged: it ends after {size:,} bytes; "
                                f"a complete file holds {complete:,} bytes")


def test_info_on_a_folder_says_it_is_a_folder(tmp_path, capsys):
    from transviz.cli import main

    assert main(["info", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert f"{tmp_path} is a folder, not a checkpoint file" in err and "no such file" not in err
