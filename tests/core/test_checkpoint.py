import pickle

import pytest
import torch
from safetensors.torch import save_file

import transviz
from transviz.core import checkpoint
from transviz.core.model import Transformer
from transviz.core.vocab import Vocab


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
    assert "parameters" in checkpoint.describe(path)
    assert list(tmp_path.iterdir()) == [path]  # no temporary file left behind


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
    import os
    assert not os.path.exists("/tmp/transviz-pickle-ran")


def test_info_command_prints_the_summary(tmp_path, capsys):
    from transviz.cli import main

    path = transviz.save_model(small(), tmp_path / "m.safetensors")
    assert main(["info", str(path)]) == 0
    assert "target vocabulary: 7 tokens" in capsys.readouterr().out
    assert main(["info", str(tmp_path / "missing.safetensors")]) == 1
