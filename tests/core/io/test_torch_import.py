"""A plain PyTorch ``nn.Transformer`` model read through its sidecar (transviz.core.io.torch_import).

The reference is the PyTorch model itself: every map transviz shows equals
``nn.MultiheadAttention(need_weights=True, average_attn_weights=False)`` called on the same weights
with the inputs each attention module received in the reference's own forward pass (captured by
forward pre-hooks); logits and greedy output equal the reference's; ``transviz convert`` round-trips;
and every bad file or field gets a message naming it."""
import copy
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
import torch
from safetensors.torch import save_file
from torch import nn

import transviz
from transviz.cli import main
from transviz.core.decoding.session import DecodingSession
from transviz.core.model.config import ModelConfig
from transviz.core.model.layout import tensor_layout
from transviz.core.model.transformer import Transformer

D, HEADS, LAYERS, D_FF, MAX_LEN = 16, 4, 2, 32, 40
# the PyTorch translation tutorial's order of special tokens on the source side ...
SRC = ["<unk>", "<pad>", "<bos>", "<eos>"] + [f"s{i}" for i in range(12)]
# ... and special tokens scattered on the target side
TGT = ["t0", "t1", "<eos>", "t2", "<unk>", "<pad>", "t3", "t4", "<bos>"] + [f"t{i}" for i in range(5, 14)]
SPECIAL_NAMES = {"<pad>": "<pad>", "<bos>": "<s>", "<eos>": "</s>", "<unk>": "<unk>"}  # transviz's names
# nn.Transformer's own note that a pre-norm encoder takes no nested-tensor fast path
pytestmark = pytest.mark.filterwarnings("ignore:enable_nested_tensor is True:UserWarning")
CASES = [(False, "relu", True), (True, "gelu", True), (False, "gelu", False), (True, "relu", False)]


def sinusoid(length: int, d: int) -> np.ndarray:
    """The paper's table, written out: sin in even columns, cos in odd ones."""
    position, column = np.arange(length)[:, None], np.arange(d)[None, :]
    angle = position / np.power(10000.0, 2 * (column // 2) / d)
    return np.where(column % 2 == 0, np.sin(angle), np.cos(angle))


class CourseModel(nn.Module):
    """What a course's student writes: embeddings, nn.Transformer, a Linear output layer."""

    def __init__(self, norm_first: bool, activation: str, scale: bool, encoder_layers: int = LAYERS,
                 decoder_layers: int = LAYERS, bias: bool = True) -> None:
        super().__init__()
        self.src_tok_emb = nn.Embedding(len(SRC), D)
        self.tgt_tok_emb = nn.Embedding(len(TGT), D)
        self.transformer = nn.Transformer(D, HEADS, encoder_layers, decoder_layers, D_FF, dropout=0.0,
                                          activation=activation,
                                          batch_first=True, norm_first=norm_first, bias=bias)
        self.generator = nn.Linear(D, len(TGT))
        self.pos_embedding: torch.Tensor
        self.register_buffer("pos_embedding", torch.tensor(sinusoid(MAX_LEN, D), dtype=torch.float32))
        self.scale = math.sqrt(D) if scale else 1.0

    def embed(self, table: nn.Embedding, ids: torch.Tensor) -> torch.Tensor:
        return table(ids) * self.scale + self.pos_embedding[: ids.shape[1]]

    def forward(self, src: torch.Tensor, tgt: torch.Tensor) -> torch.Tensor:
        pad = src == SRC.index("<pad>")
        causal = nn.Transformer.generate_square_subsequent_mask(tgt.shape[1])
        out = self.transformer(self.embed(self.src_tok_emb, src), self.embed(self.tgt_tok_emb, tgt),
                               tgt_mask=causal, src_key_padding_mask=pad, memory_key_padding_mask=pad)
        return self.generator(out)


def course_model(norm_first: bool, activation: str, scale: bool, seed: int = 0, encoder_layers: int = LAYERS,
                 decoder_layers: int = LAYERS, bias: bool = True) -> CourseModel:
    torch.manual_seed(seed)
    model = CourseModel(norm_first, activation, scale, encoder_layers, decoder_layers, bias)
    with torch.no_grad():  # LayerNorms and biases away from 1 and 0, so that mixing them up shows
        for p in model.parameters():
            p.add_(0.2 * torch.randn_like(p))
    return model


def vocab_entry(tokens: list[str]) -> dict:
    return {"tokens": tokens, "pad": tokens.index("<pad>"), "start": tokens.index("<bos>"),
            "end": tokens.index("<eos>"), "unknown": tokens.index("<unk>")}


def sidecar_data(norm_first: bool = False, activation: str = "relu", scale: bool = True,
                 encoder_layers: int = LAYERS, decoder_layers: int = LAYERS) -> dict:
    return {
        "format": "transviz-torch", "version": 1, "weights": "course.safetensors",
        "model": {"d_model": D, "nhead": HEADS, "num_encoder_layers": encoder_layers,
                  "num_decoder_layers": decoder_layers,
                  "dim_feedforward": D_FF, "activation": activation, "norm_first": norm_first, "dropout": 0.1,
                  "max_len": MAX_LEN, "scale_embeddings": scale, "positional": "sinusoidal"},
        "modules": {"transformer": "transformer", "source_embedding": "src_tok_emb",
                    "target_embedding": "tgt_tok_emb", "output": "generator", "positional_table": "pos_embedding"},
        "source_vocab": vocab_entry(SRC), "target_vocab": vocab_entry(TGT)}


def write(folder, model: nn.Module, data: dict, name: str = "course") -> object:
    save_file({k: v.contiguous() for k, v in model.state_dict().items()}, folder / f"{name}.safetensors")
    (folder / f"{name}.json").write_text(json.dumps(data), encoding="utf-8")
    return folder / f"{name}.json"


def transviz_ids(tokens: list[str], ids: list[int], vocab: transviz.core.model.vocab.Vocab) -> list[int]:
    """The reference's ids as transviz numbers the same tokens (looked up by name)."""
    return [vocab.stoi[SPECIAL_NAMES.get(tokens[i], tokens[i])] for i in ids]


def reference_pass(model: CourseModel, src: torch.Tensor, tgt: torch.Tensor):
    """The reference's logits and, per kind, per layer, nn.MultiheadAttention's own per-head weights
    on the inputs each attention module received."""
    calls: dict[nn.Module, tuple[tuple, dict]] = {}
    attention = [m for m in model.modules() if isinstance(m, nn.MultiheadAttention)]
    hooks = [m.register_forward_pre_hook(lambda m, args, kwargs: calls.__setitem__(m, (args, kwargs)),
                                         with_kwargs=True) for m in attention]
    with torch.enable_grad():  # grad on: PyTorch's fused fast path (which skips the modules) stays off
        logits = model(src, tgt).detach()
    for hook in hooks:
        hook.remove()

    def weights(mha: nn.MultiheadAttention) -> torch.Tensor:
        args, kwargs = calls[mha]
        with torch.no_grad():
            _, w = mha(*args[:3], attn_mask=kwargs.get("attn_mask"), key_padding_mask=kwargs.get("key_padding_mask"),
                       need_weights=True, average_attn_weights=False)
        return w

    encoder, decoder = model.transformer.encoder.layers, model.transformer.decoder.layers
    maps = {"encoder_self": [weights(layer.self_attn) for layer in encoder],
            "decoder_self": [weights(layer.self_attn) for layer in decoder],
            "cross": [weights(layer.multihead_attn) for layer in decoder]}
    return logits, maps


def batch() -> tuple[list[list[int]], list[list[int]]]:
    """Two sentences, the second padded on the source side (the reference's ids)."""
    pad, bos = SRC.index("<pad>"), TGT.index("<bos>")
    src = [[4, 9, 5, 11, 7, 6], [8, 5, 13, 10, pad, pad]]
    tgt = [[bos, 0, 3, 12, 1], [bos, 7, 6, 14, 15]]
    return src, tgt


@pytest.mark.parametrize(("norm_first", "activation", "scale"), CASES)
def test_every_map_and_logit_equals_pytorch_on_the_same_weights(tmp_path, norm_first, activation, scale):
    ref = course_model(norm_first, activation, scale)
    assert_equals_reference(ref, transviz.load_model(write(tmp_path, ref, sidecar_data(norm_first, activation, scale))))


@pytest.mark.parametrize("norm_first", [False, True])
def test_a_bias_free_transformer_equals_pytorch_and_converts(tmp_path, capsys, norm_first):
    """nn.Transformer(bias=False): no bias in attention, feed-forward or LayerNorm, and none read as zero."""
    ref = course_model(norm_first, "relu", True, bias=False)
    assert not any(name.startswith("transformer.") and name.endswith("bias") for name in ref.state_dict())
    sidecar = write(tmp_path, ref, broken(sidecar_data(norm_first), "model.bias", False))
    model = transviz.load_model(sidecar)
    assert model.config.bias is False and model.config.to_dict()["bias"] is False
    assert_equals_reference(ref, model)
    assert main(["convert", str(sidecar), str(tmp_path / "converted.safetensors")]) == 0
    capsys.readouterr()
    assert_equals_reference(ref, transviz.load_model(tmp_path / "converted.safetensors"))
    with pytest.raises(transviz.CheckpointError, match="missing tensor transformer.encoder.layers.0.self_attn."
                                                       "in_proj_bias"):
        transviz.load_model(write(tmp_path, ref, sidecar_data(norm_first)))  # the sidecar forgot to say so


def assert_equals_reference(ref: CourseModel, model: transviz.Model) -> None:
    """Every map (nn.MultiheadAttention's own) and every logit of ``ref`` on :func:`batch`, 1e-5."""
    src, tgt = batch()
    logits, maps = reference_pass(ref, torch.tensor(src), torch.tensor(tgt))
    ours_src = torch.tensor([transviz_ids(SRC, row, model.src_vocab) for row in src])
    ours_tgt = torch.tensor([transviz_ids(TGT, row, model.tgt_vocab) for row in tgt])
    with torch.no_grad():
        out = model.net.eval()(ours_src, ours_tgt, return_attention=True)
    for kind in ("encoder_self", "decoder_self", "cross"):
        for layer, expected in enumerate(maps[kind]):
            got = getattr(out.attention, kind)[layer]
            assert got.shape == expected.shape == (2, HEADS, *expected.shape[2:])
            torch.testing.assert_close(got, expected, atol=1e-5, rtol=0, msg=f"{kind} layer {layer}")
    columns = transviz_ids(TGT, list(range(len(TGT))), model.tgt_vocab)  # reference column j is ours columns[j]
    torch.testing.assert_close(out.logits[:, :, columns], logits, atol=1e-5, rtol=1e-5)


def test_teacher_forcing_and_the_explorers_maps_match_the_reference(tmp_path):
    ref = course_model(True, "gelu", True, seed=1)
    model = transviz.load_model(write(tmp_path, ref, sidecar_data(True, "gelu", True)))
    trace = transviz.teacher_force(model, "s3 s0 s7 s2", "t5 t0 t9")
    src = [[SRC.index(w) for w in "s3 s0 s7 s2".split()]]
    tgt = [[TGT.index("<bos>")] + [TGT.index(w) for w in "t5 t0 t9".split()]]
    _, maps = reference_pass(ref, torch.tensor(src), torch.tensor(tgt))
    for kind, shown in (("encoder_self", trace.encoder_self_attention), ("decoder_self", trace.decoder_self_attention),
                        ("cross", trace.cross_attention)):
        expected = torch.stack([m[0] for m in maps[kind]]).numpy()  # (layers, heads, Q, K)
        np.testing.assert_allclose(shown, expected, atol=1e-5, rtol=0)


# seeds whose random models write varied tokens (7, 2; 2 writes <s> and <pad> too) and stop at </s> (4)
@pytest.mark.parametrize(("norm_first", "activation", "scale", "seed"), [
    (False, "relu", True, 7), (True, "gelu", True, 2), (True, "gelu", True, 4), (False, "gelu", False, 3)])
def test_greedy_decoding_equals_a_greedy_loop_on_the_reference(tmp_path, norm_first, activation, scale, seed):
    ref = course_model(norm_first, activation, scale, seed)
    model = transviz.load_model(write(tmp_path, ref, sidecar_data(norm_first, activation, scale)))
    words = "s1 s4 s4 s9 s2"
    src = torch.tensor([[SRC.index(w) for w in words.split()]])
    ys = [TGT.index("<bos>")]
    with torch.no_grad():
        for _ in range(8):
            logits = ref(src, torch.tensor([ys]))[0, -1]
            ys.append(int(logits.argmax()))
            if ys[-1] == TGT.index("<eos>"):
                break
    trace = transviz.decode(model, words, "greedy", max_len=8)
    assert trace.output_tokens == [SPECIAL_NAMES.get(TGT[i], TGT[i]) for i in ys[1:]]
    _, maps = reference_pass(ref, src, torch.tensor([ys[:-1]]))  # the decoder's inputs: all but the last output
    expected = torch.stack([m[0] for m in maps["cross"]]).numpy()
    np.testing.assert_allclose(trace.cross_attention, expected, atol=1e-5, rtol=0)  # step by step, KV cache


def test_convert_writes_a_checkpoint_that_loads_with_the_same_maps(tmp_path, capsys):
    ref = course_model(False, "relu", True, seed=3)
    sidecar = write(tmp_path, ref, sidecar_data())
    out = tmp_path / "converted.safetensors"
    assert main(["convert", str(sidecar), str(out)]) == 0
    assert str(out) in capsys.readouterr().out
    imported, converted = transviz.load_model(sidecar), transviz.load_model(str(out))
    beside = transviz.load_model(tmp_path / "course.safetensors")  # the weights, the sidecar beside them
    assert converted.config == imported.config == beside.config
    assert converted.src_vocab == imported.src_vocab and converted.tgt_vocab == imported.tgt_vocab
    assert converted.config.final_norm is True and converted.config.norm == "post"
    first = transviz.teacher_force(imported, "s1 s2 s3", "t7 t8")
    for other in (converted, beside):
        again = transviz.teacher_force(other, "s1 s2 s3", "t7 t8")
        for kind in ("encoder_self_attention", "decoder_self_attention", "cross_attention"):
            np.testing.assert_array_equal(getattr(again, kind), getattr(first, kind))


@pytest.mark.parametrize(("encoder_layers", "decoder_layers"), [(1, 2), (2, 1)])
def test_a_converted_model_whose_encoder_and_decoder_differ_in_depth_shows_each_stack(tmp_path, capsys,
                                                                                      encoder_layers, decoder_layers):
    """nn.Transformer(num_encoder_layers=1, num_decoder_layers=2) and the reverse, converted: decoding
    step by step, the session's teacher forcing and one teacher-forced pass each show the decoder's
    own layers, every map nn.MultiheadAttention's on the inputs it received."""
    ref = course_model(False, "relu", True, seed=7, encoder_layers=encoder_layers, decoder_layers=decoder_layers)
    sidecar = write(tmp_path, ref, sidecar_data(encoder_layers=encoder_layers, decoder_layers=decoder_layers))
    out = tmp_path / "converted.safetensors"
    assert main(["convert", str(sidecar), str(out)]) == 0
    capsys.readouterr()
    model = transviz.load_model(str(out))
    assert (model.config.n_encoder_layers, model.config.n_decoder_layers) == (encoder_layers, decoder_layers)
    words = "s1 s4 s4 s9 s2"
    src = torch.tensor([[SRC.index(w) for w in words.split()]])
    ys = [TGT.index("<bos>")]
    with torch.no_grad():  # greedy on the reference itself, the whole prefix each step
        for _ in range(6):
            ys.append(int(ref(src, torch.tensor([ys]))[0, -1].argmax()))
            if ys[-1] == TGT.index("<eos>"):
                break
    assert len(ys) > 3  # rows enough for the maps to mean something
    trace = transviz.decode(model, words, "greedy", max_len=6)
    assert trace.output_tokens == [SPECIAL_NAMES.get(TGT[i], TGT[i]) for i in ys[1:]]
    _, maps = reference_pass(ref, src, torch.tensor([ys[:-1]]))  # the decoder's inputs: all but the last output
    expected = {kind: torch.stack([m[0] for m in maps[kind]]).numpy() for kind in maps}  # (layers, heads, Q, K)
    assert expected["cross"].shape[0] == expected["decoder_self"].shape[0] == decoder_layers
    assert expected["encoder_self"].shape[0] == encoder_layers
    for kind, shown in (("encoder_self", trace.encoder_self_attention), ("decoder_self", trace.decoder_self_attention),
                        ("cross", trace.cross_attention)):
        np.testing.assert_allclose(shown, expected[kind], atol=1e-5, rtol=0, err_msg=kind)
    # teacher forcing on the same outputs: in a session (the explorer's) and in one pass; both feed
    # the decoder inputs above (and, without an end token written, one more row, left out here)
    gold = " ".join(trace.output_tokens[:-1] if trace.output_tokens[-1] == "</s>" else trace.output_tokens)
    session = DecodingSession(model, words, reference=gold)
    session.run_to_end()
    once = transviz.teacher_force(model, words, gold)
    rows = len(ys) - 1
    assert session.target_tokens[:rows] == trace.target_tokens
    for kind, in_session, in_one_pass in (("decoder_self", session.decoder_self_attention(),
                                           once.decoder_self_attention),
                                          ("cross", session.cross_attention(), once.cross_attention)):
        assert in_session.shape[0] == in_one_pass.shape[0] == decoder_layers
        keys = rows if kind == "decoder_self" else None
        for shown in (in_session, in_one_pass):
            np.testing.assert_allclose(shown[:, :, :rows, :keys], expected[kind], atol=1e-5, rtol=0, err_msg=kind)


def test_a_bias_free_output_layer_reads_as_a_zero_bias(tmp_path):
    ref = course_model(False, "relu", True)
    ref.generator = nn.Linear(D, len(TGT), bias=False)
    model = transviz.load_model(write(tmp_path, ref, sidecar_data()))
    src, tgt = batch()
    logits, _ = reference_pass(ref, torch.tensor(src), torch.tensor(tgt))
    ours = model.net(torch.tensor([transviz_ids(SRC, r, model.src_vocab) for r in src]),
                     torch.tensor([transviz_ids(TGT, r, model.tgt_vocab) for r in tgt])).logits
    torch.testing.assert_close(ours[:, :, transviz_ids(TGT, list(range(len(TGT))), model.tgt_vocab)], logits,
                               atol=1e-5, rtol=1e-5)


def test_new_config_switches_keep_transviz_models_and_their_files_as_they_were():
    plain = ModelConfig(10, 12)
    assert "final_norm" not in plain.to_dict() and "scale_embeddings" not in plain.to_dict()
    assert not plain.has_final_norm and ModelConfig(10, 12, norm="pre").has_final_norm
    assert plain.embedding_scale == math.sqrt(plain.d_model)
    assert not {"bias", "layer_norm"} & set(plain.to_dict())
    for imported in (ModelConfig(10, 12, final_norm=True, scale_embeddings=False),
                     ModelConfig(10, 12, final_norm=True, bias=False, layer_norm="unbiased-std", embedding_norm=True)):
        assert ModelConfig.from_dict(imported.to_dict()) == imported
        names = [name for names, _ in tensor_layout(imported) for name in names]
        assert names == list(Transformer(imported).state_dict())  # the final norms of a post-norm model
    with pytest.raises(transviz.ConfigError, match="final_norm must be true or false"):
        ModelConfig(10, 12, final_norm="yes")
    refused = "layer_norm must be one of standard, unbiased-std, rms, got 'batch'"
    with pytest.raises(transviz.ConfigError, match=refused):
        ModelConfig(10, 12, layer_norm="batch")


def broken(data: dict, path: str, value: object = None, delete: bool = False) -> dict:
    data = copy.deepcopy(data)
    *parents, last = path.split(".")
    target = data
    for key in parents:
        target = target[key]
    if delete:
        del target[last]
    else:
        target[last] = value
    return data


@pytest.mark.parametrize(("change", "message"), [
    (("model.nhead", None, True), r"course\.json: the sidecar lacks the field model\.nhead"),
    (("target_vocab.end", None, True), "lacks the field target_vocab.end"),
    (("version", 2), "course.json is a sidecar of version 2; this transviz reads version 1"),
    (("format", "transviz"), "not a transviz-torch sidecar: its format is \"transviz\""),
    (("model.heads", 4), "unknown sidecar fields model.heads"),
    (("model.norm_first", "no"), "the field model.norm_first must be true or false, got \"no\""),
    (("model.d_model", 16.0), "the field model.d_model must be a whole number, got 16.0"),
    (("model.positional", "learned"), "positional encoding \"learned\" is not supported"),
    (("model.activation", "tanh"), "activation must be 'relu' or 'gelu'"),
    (("model.nhead", 3), r"d_model \(16\) must be divisible by n_heads \(3\)"),
    (("source_vocab.pad", 99), "source_vocab.pad is 99, outside the vocabulary's 16 tokens"),
    (("source_vocab.start", 1), "source_vocab gives the same id to two of pad, start, end and unknown"),
    (("model.dim_feedforward", 64), r"linear1\.weight has shape \(32, 16\), the sidecar's sizes need \(64, 16\)"),
    (("model.num_decoder_layers", 1), "unexpected tensor transformer.decoder.layers.1"),
    (("modules.output", "out"), "missing tensor out.weight"),
    (("source_vocab.tokens", [*SRC, "extra"]), r"src_tok_emb\.weight has shape \(16, 16\), the sidecar's sizes "
                                               r"need \(17, 16\)"),
    (("weights", "nothing.safetensors"), "nothing.safetensors: no such file"),
    (("weights", "x" * 5000), "cannot read .*/xxxx.*: File name too long"),
    (("modules.positional_table", "pe"), "course.safetensors does not match its sidecar: missing tensor pe"),
    (("modules.output", 3), "the field modules.output must be text, got 3"),
])
def test_a_bad_sidecar_gets_a_message_naming_what_is_wrong(tmp_path, change, message):
    sidecar = write(tmp_path, course_model(False, "relu", True), broken(sidecar_data(), *change))
    with pytest.raises(transviz.CheckpointError, match=message):
        transviz.load_model(sidecar)


def test_a_missing_tensor_is_named(tmp_path):
    ref = course_model(False, "relu", True)
    state = {k: v for k, v in ref.state_dict().items() if k != "transformer.decoder.layers.1.norm3.bias"}
    sidecar = write(tmp_path, ref, sidecar_data())
    save_file(state, tmp_path / "course.safetensors")
    with pytest.raises(transviz.CheckpointError, match="course.safetensors does not match its sidecar: missing "
                                                       "tensor transformer.decoder.layers.1.norm3.bias"):
        transviz.load_model(sidecar)


def test_a_pickle_is_never_unpickled(tmp_path):
    ref = course_model(False, "relu", True)
    torch.save(ref.state_dict(), tmp_path / "course.pt")
    with pytest.raises(transviz.CheckpointError, match="course.pt is a pickle .* transviz never unpickles"):
        transviz.load_model(tmp_path / "course.pt")
    sidecar = write(tmp_path, ref, broken(sidecar_data(), "weights", "course.pt"))
    with pytest.raises(transviz.CheckpointError, match="course.pt is a pickle"):
        transviz.load_model(sidecar)
    torch.save(ref.state_dict(), tmp_path / "course.safetensors")  # a pickle by another name
    with pytest.raises(transviz.CheckpointError, match="course.safetensors is a pickle"):
        transviz.load_model(tmp_path / "course.safetensors")


def test_convert_refuses_on_one_line_and_never_overwrites_the_weights(tmp_path, capsys):
    sidecar = write(tmp_path, course_model(False, "relu", True), broken(sidecar_data(), "version", "1"))
    assert main(["convert", str(sidecar), str(tmp_path / "out.safetensors")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "version \"1\"; this transviz reads version 1" in err
    sidecar = write(tmp_path, course_model(False, "relu", True), sidecar_data())
    before = (tmp_path / "course.safetensors").read_bytes()
    assert main(["convert", str(sidecar), str(tmp_path / "course.safetensors")]) == 1
    assert "holds the PyTorch weights" in capsys.readouterr().err
    assert (tmp_path / "course.safetensors").read_bytes() == before


def test_convert_replaces_another_programs_weights_only_with_force(tmp_path, capsys):
    """``convert model.json opus-mt/model.safetensors`` replaced another program's weights (issue 41)."""
    sidecar = write(tmp_path, course_model(False, "relu", True), sidecar_data())
    theirs = tmp_path / "theirs.safetensors"
    save_file({"model.shared.weight": torch.ones(3, 2)}, theirs, metadata={"format": "pt"})
    before = theirs.read_bytes()
    assert main(["convert", str(sidecar), str(theirs)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "theirs.safetensors already exists and is not a transviz checkpoint" in err
    assert theirs.read_bytes() == before
    assert main(["convert", str(sidecar), str(theirs), "--force"]) == 0
    assert main(["convert", str(sidecar), str(theirs)]) == 0  # now a transviz checkpoint: replaced as before
    assert transviz.load_model(theirs).config == transviz.load_model(sidecar).config


def test_a_transviz_checkpoint_with_a_json_file_beside_it_stays_a_checkpoint(tmp_path):
    ref = course_model(False, "relu", True)
    sidecar = write(tmp_path, ref, sidecar_data())
    saved = transviz.save_model(transviz.load_model(sidecar), tmp_path / "mine.safetensors")
    (tmp_path / "mine.json").write_text("{}", encoding="utf-8")  # an exported trace, say
    assert transviz.load_model(saved).facts["imported"].startswith("torch.nn.Transformer")


def test_a_saved_positional_table_is_checked_against_the_one_transviz_adds(tmp_path):
    ref = course_model(False, "relu", True)
    data = broken(sidecar_data(), "modules.positional_table", "pos_embedding")
    assert transviz.load_model(write(tmp_path, ref, data)).config.max_len == MAX_LEN
    table = torch.tensor(sinusoid(MAX_LEN, D), dtype=torch.float32)
    ref.pos_embedding = table[:, None, :]  # the tutorial's (positions, 1, d_model) buffer
    assert transviz.load_model(write(tmp_path, ref, data)).config.d_model == D
    ref.pos_embedding = torch.cat([table[:, 0::2], table[:, 1::2]], dim=-1)  # "sin half | cos half"
    with pytest.raises(transviz.CheckpointError, match=r"pos_embedding is not the sinusoidal table \(sin in even "
                                                       r"columns, cos in odd ones\) that transviz adds"):
        transviz.load_model(write(tmp_path, ref, data))


def test_a_safetensors_file_whose_length_field_starts_like_a_pickle_is_no_pickle(tmp_path):
    path = tmp_path / "other.safetensors"
    for pad in range(600):  # a header of 640 bytes: its length field starts 0x80 0x02, as a pickle does
        save_file({"x": torch.zeros(2)}, path, metadata={"pad": "a" * pad})
        if path.read_bytes()[:2] == b"\x80\x02":
            break
    assert path.read_bytes()[:2] == b"\x80\x02"
    with pytest.raises(transviz.CheckpointError, match="a safetensors file from another program"):
        transviz.load_model(path)


def greedy_on_reference(ref: CourseModel, src: list[int], steps: int = 8) -> list[int]:
    """A plain greedy loop on the reference itself, the whole prefix each step."""
    ys = [TGT.index("<bos>")]
    with torch.no_grad():
        for _ in range(steps):
            ys.append(int(ref(torch.tensor([src]), torch.tensor([ys]))[0, -1].argmax()))
            if ys[-1] == TGT.index("<eos>"):
                break
    return ys


@pytest.mark.parametrize(("add_start", "add_end"), [(True, True), (False, True)])
def test_a_source_the_model_reads_wrapped_in_markers_is_wrapped_when_typed(tmp_path, capsys, add_start, add_end):
    """Sources trained as <bos> ... <eos> (the Annotated Transformer's Multi30k code, PyTorch's
    tutorial): the sidecar says so, and typed words get the markers the reference reads."""
    ref = course_model(True, "gelu", True, seed=2)
    data = sidecar_data(True, "gelu", True)
    data["source_vocab"] |= {"add_start": add_start, "add_end": add_end}
    sidecar = write(tmp_path, ref, data)
    assert main(["convert", str(sidecar), str(tmp_path / "converted.safetensors")]) == 0
    capsys.readouterr()
    words = "s3 s0 s7 s2"
    src = [SRC.index("<bos>")] * add_start + [SRC.index(w) for w in words.split()] + [SRC.index("<eos>")] * add_end
    ys = greedy_on_reference(ref, src)
    _, maps = reference_pass(ref, torch.tensor([src]), torch.tensor([ys[:-1]]))
    for model in (transviz.load_model(sidecar), transviz.load_model(tmp_path / "converted.safetensors")):
        trace = transviz.decode(model, words, "greedy", max_len=8)
        assert trace.source_tokens == ["<s>"] * add_start + words.split() + ["</s>"] * add_end
        assert trace.output_tokens == [SPECIAL_NAMES.get(TGT[i], TGT[i]) for i in ys[1:]]
        for kind, shown in (("encoder_self", trace.encoder_self_attention),
                            ("decoder_self", trace.decoder_self_attention), ("cross", trace.cross_attention)):
            expected = torch.stack([m[0] for m in maps[kind]]).numpy()  # (layers, heads, Q, K)
            np.testing.assert_allclose(shown, expected, atol=1e-5, rtol=0, err_msg=kind)
    assert transviz.load_model(tmp_path / "converted.safetensors").src_vocab.add_start is add_start
    plain = transviz.load_model(write(tmp_path, ref, sidecar_data(True, "gelu", True)))
    assert plain.src_vocab.encode(words).tokens == words.split()  # no field, no markers
    assert "add_start" not in plain.src_vocab.to_dict()  # a vocabulary without them is written as before


def test_a_weight_the_sidecar_does_not_explain_is_refused_on_one_line(tmp_path, capsys):
    """A learned position table the sidecar does not declare would be left out of every map."""
    ref = course_model(False, "relu", True)
    ref.learned_positions = nn.Parameter(torch.randn(MAX_LEN, D))
    sidecar = write(tmp_path, ref, sidecar_data())
    with pytest.raises(transviz.CheckpointError, match=r"unexpected tensor learned_positions: the sidecar does not "
                                                       r"say what it is \(.*declare it in modules\)"):
        transviz.load_model(sidecar)
    assert main(["convert", str(sidecar), str(tmp_path / "out.safetensors")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "learned_positions" in err
    declared = broken(sidecar_data(), "modules.positional_table", ["pos_embedding", "learned_positions"])
    with pytest.raises(transviz.CheckpointError, match="learned_positions is not the sinusoidal table"):
        transviz.load_model(write(tmp_path, ref, declared))
    del ref.learned_positions
    undeclared = broken(sidecar_data(), "modules.positional_table", delete=True)
    with pytest.raises(transviz.CheckpointError, match="unexpected tensor pos_embedding: the sidecar"):
        transviz.load_model(write(tmp_path, ref, undeclared))
    with pytest.raises(transviz.CheckpointError, match=r"unexpected tensor transformer\.\S+\.bias: the sidecar"):
        transviz.load_model(write(tmp_path, ref, broken(sidecar_data(), "model.bias", False)))


def test_names_map_weights_that_a_model_names_otherwise(tmp_path):
    """The feed-forward's linear1 saved as mlp.fc1, and W_Q, W_K, W_V of the first encoder layer's
    self-attention as three tensors: the sidecar's names say where they are, and nothing is repacked by hand."""
    ref = course_model(False, "relu", True, seed=5)
    state = {}
    for name, tensor in ref.state_dict().items():
        if name.startswith("transformer.encoder.layers.") and ".self_attn.in_proj_" in name:
            for part, piece in zip("qkv", tensor.chunk(3), strict=True):
                state[name.replace("in_proj_", f"{part}_proj.")] = piece.clone()
        else:
            state[name.replace(".linear1.", ".mlp.fc1.")] = tensor.clone()
    names = {f"{stack}_layers.{{i}}.ffn.linear1.{p}": f"{stack}.layers.{{i}}.mlp.fc1.{p}"
             for stack in ("encoder", "decoder") for p in ("weight", "bias")}
    names |= {f"encoder_layers.{{i}}.self_attn.in_proj_{p}": [f"encoder.layers.{{i}}.self_attn.{q}_proj.{p}"
                                                               for q in "qkv"] for p in ("weight", "bias")}
    sidecar = write(tmp_path, ref, sidecar_data() | {"names": names})
    save_file(state, tmp_path / "course.safetensors")
    assert_equals_reference(ref, transviz.load_model(sidecar))
    renamed = dict(names)
    del renamed["decoder_layers.{i}.ffn.linear1.weight"]
    (tmp_path / "course.json").write_text(json.dumps(sidecar_data() | {"names": renamed}), encoding="utf-8")
    with pytest.raises(transviz.CheckpointError, match=r"missing tensor transformer\.decoder\.layers\.0\.linear1\."
                                                       r"weight.*unexpected tensor transformer\.decoder\.layers\.0\."
                                                       r"mlp\.fc1\.weight"):
        transviz.load_model(sidecar)


@pytest.mark.parametrize(("change", "message"), [
    ({"layout": "fairseq"}, r"layout \"fairseq\" is not one transviz knows \(nn\.Transformer, annotated-transformer\)"),
    ({"names": {"encoder_layers.{i}.ffn.w_1.weight": "x.{i}"}}, r"names\.encoder_layers\.\{i\}\.ffn\.w_1\.weight is "
                                                                r"none of transviz's weights"),
    ({"names": {"encoder_layers.{i}.ffn.linear1.weight": "fc1"}}, r"every name in names\.encoder_layers\.\{i\}\.ffn"
                                                                  r"\.linear1\.weight must hold \{i\}"),
    ({"names": {"encoder_norm.weight": 3}}, "the field names.encoder_norm.weight must be a tensor's name or a list"),
    ({"names": {"encoder_norm.weight": []}}, "the field names.encoder_norm.weight must be a tensor's name or a list"),
])
def test_a_bad_layout_or_name_gets_a_message_naming_it(tmp_path, change, message):
    sidecar = write(tmp_path, course_model(False, "relu", True), sidecar_data() | change)
    with pytest.raises(transviz.CheckpointError, match=message):
        transviz.load_model(sidecar)


def test_the_manuals_save_snippet_saves_a_model_whose_output_shares_the_embedding(tmp_path, monkeypatch):
    """The paper ties the output layer to the target embedding; safetensors refuses shared tensors."""
    page = (Path(__file__).resolve().parents[3] / "docs" / "models" / "pytorch.md").read_text(encoding="utf-8")
    snippet = re.search(r"^```python\n(.*?)^```$", page, re.M | re.S)
    assert snippet is not None and "save_file(" in snippet[1]
    ref = course_model(False, "relu", True, seed=4)
    ref.generator.weight = ref.tgt_tok_emb.weight
    with pytest.raises(RuntimeError, match="share memory"):  # what the snippet did before it copied
        save_file({k: v.contiguous() for k, v in ref.state_dict().items()}, tmp_path / "course.safetensors")
    monkeypatch.chdir(tmp_path)
    exec(snippet[1], {"model": ref})  # the manual's own lines
    (tmp_path / "course.json").write_text(json.dumps(sidecar_data()), encoding="utf-8")
    assert_equals_reference(ref, transviz.load_model(tmp_path / "course.json"))
