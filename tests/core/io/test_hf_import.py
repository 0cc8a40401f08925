"""Hugging Face MarianMT and BART folders as transviz models, checked against transformers itself
on tiny random models built and saved here (nothing is downloaded)."""
from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import torch

pytest.importorskip("transformers")
pytest.importorskip("sentencepiece")

import transviz
from hf_folders import bart_folder, marian_folder, t5_folder
from transviz.core.decoding.strategies import Beam
from transviz.core.io.hf_vocab import TokenizerVocab
from transviz.core.model.bundle import Model

SOURCES = ["ich trinkt das buch.", "der hund ist sehr klein und rot.", "wir lesen heute xq."]
TARGETS = ["die katze isst.", "er schreibt nicht mit dem blauen buch."]
ATOL = 1e-5


pytestmark = pytest.mark.hf


@pytest.fixture(scope="module", params=["marian", "bart"])
def folder(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    build = marian_folder if request.param == "marian" else bart_folder
    return build(tmp_path_factory.mktemp(request.param), seed=3, layers=3, heads=4)


@pytest.fixture(scope="module")
def pair(folder: Path) -> tuple[Model, torch.nn.Module]:
    from transformers import AutoModelForSeq2SeqLM

    reference = AutoModelForSeq2SeqLM.from_pretrained(folder, local_files_only=True, attn_implementation="eager")
    return transviz.load_model(str(folder)), reference.eval()


def _hf_ids(model: Model, tokens: list[str]) -> list[int]:
    vocab = model.tgt_vocab
    assert isinstance(vocab, TokenizerVocab)
    return [vocab.theirs[vocab.stoi[t]] for t in tokens]


def _reference(reference: torch.nn.Module, source_ids: list[int], decoder_ids: list[int]) -> object:
    with torch.no_grad():
        return reference(input_ids=torch.tensor([source_ids]), decoder_input_ids=torch.tensor([decoder_ids]),
                         output_attentions=True)


def _stacked(maps: tuple[torch.Tensor, ...]) -> np.ndarray:
    return torch.stack([m[0] for m in maps]).numpy()  # (layers, heads, query, key)


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("target", TARGETS)
def test_teacher_forced_maps_and_logits_equal_transformers(pair: tuple[Model, torch.nn.Module], source: str,
                                                           target: str) -> None:
    model, reference = pair
    tokenizer = model.src_vocab.tokenizer  # type: ignore[attr-defined]
    source_ids = tokenizer(source)["input_ids"]
    target_ids = tokenizer(text_target=target)["input_ids"][:-1]  # without the end token: transviz adds it
    start = reference.config.decoder_start_token_id
    out = _reference(reference, source_ids, [start, *target_ids])
    trace = transviz.teacher_force(model, source, target)
    np.testing.assert_allclose(trace.encoder_self_attention, _stacked(out.encoder_attentions), atol=ATOL, rtol=0)
    np.testing.assert_allclose(trace.decoder_self_attention, _stacked(out.decoder_attentions), atol=ATOL, rtol=0)
    np.testing.assert_allclose(trace.cross_attention, _stacked(out.cross_attentions), atol=ATOL, rtol=0)
    # the probability transviz shows of each gold token is transformers' softmax at that token
    gold = [*target_ids, reference.config.eos_token_id]
    probabilities = torch.softmax(out.logits[0], -1)[torch.arange(len(gold)), gold].numpy()
    np.testing.assert_allclose(trace.output_probabilities, probabilities, atol=ATOL, rtol=0)
    # and every logit: transviz's rows of each transformers token (the copied start row is never a choice)
    encoding = model.encode_source(source)
    with torch.no_grad():
        ours = model.net(model.source_tensor(encoding), torch.tensor([[1, *(model.tgt_vocab.ours[i]  # type: ignore[attr-defined]
                                                                             for i in target_ids)]])).logits[0]
    columns = [model.tgt_vocab.ours[i] for i in range(reference.config.vocab_size)]  # type: ignore[attr-defined]
    np.testing.assert_allclose(ours[:, columns].numpy(), out.logits[0].numpy(), atol=1e-4, rtol=1e-5)


@pytest.mark.parametrize("source", SOURCES)
def test_greedy_and_its_step_maps_equal_generate(pair: tuple[Model, torch.nn.Module], source: str) -> None:
    model, reference = pair
    tokenizer = model.src_vocab.tokenizer  # type: ignore[attr-defined]
    source_ids = tokenizer(source)["input_ids"]
    with torch.no_grad():
        generated = reference.generate(torch.tensor([source_ids]), num_beams=1, do_sample=False, max_new_tokens=12,
                                       forced_eos_token_id=None)[0].tolist()
    trace = transviz.decode(model, source, "greedy", max_len=12)
    assert [reference.config.decoder_start_token_id, *_hf_ids(model, trace.output_tokens)] == generated
    # the maps the explorer drew step by step equal one teacher-forced pass over what it wrote
    out = _reference(reference, source_ids, generated[:-1] if len(generated) > 1 else generated)
    np.testing.assert_allclose(trace.decoder_self_attention, _stacked(out.decoder_attentions), atol=ATOL, rtol=0)
    np.testing.assert_allclose(trace.cross_attention, _stacked(out.cross_attentions), atol=ATOL, rtol=0)


def test_tokens_are_the_tokenizers_pieces_and_unknown_pieces_are_flagged(tmp_path: Path) -> None:
    model = transviz.load_model(str(marian_folder(tmp_path / "m")))
    encoding = model.encode_source("ich trinkt xq.")
    assert encoding.tokens[0] == "▁ich" and encoding.tokens[-1] == "</s>"
    assert encoding.unknown == [(encoding.tokens.index("xq"), "xq")]
    assert encoding.ids[-1] == model.src_vocab.eos_id and model.src_vocab.unk_id in encoding.ids
    assert model.tgt_vocab.detokenize(["▁ich", "▁trinkt", "."]) == "ich trinkt."


@pytest.mark.parametrize("missing", ["config.json", "model.safetensors", "source.spm", "vocab.json"])
def test_a_missing_file_is_named(tmp_path: Path, missing: str) -> None:
    folder = marian_folder(tmp_path / "m")
    (folder / missing).unlink()
    with pytest.raises(transviz.CheckpointError, match=missing.replace(".", r"\.")):
        transviz.load_model(str(folder))


def test_bart_without_merges_names_it(tmp_path: Path) -> None:
    folder = bart_folder(tmp_path / "b")
    (folder / "merges.txt").unlink()
    (folder / "tokenizer.json").unlink()
    with pytest.raises(transviz.CheckpointError, match=r"merges\.txt"):
        transviz.load_model(str(folder))


def test_pickled_weights_are_refused_with_the_way_out(tmp_path: Path) -> None:
    folder = marian_folder(tmp_path / "m")
    (folder / "model.safetensors").rename(folder / "pytorch_model.bin")
    with pytest.raises(transviz.CheckpointError, match="safe_serialization=True"):
        transviz.load_model(str(folder))


def test_a_t5_whose_heads_do_not_split_its_width_is_refused_saying_so(tmp_path: Path) -> None:
    folder = t5_folder(tmp_path / "t5", d_model=32, heads=4)
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    (folder / "config.json").write_text(json.dumps(config | {"d_kv": 4}), encoding="utf-8")
    with pytest.raises(transviz.CheckpointError, match="its 4 heads of 4 dimensions make 16, not its width 32"):
        transviz.load_model(str(folder))


def test_without_transformers_the_message_says_how_to_install(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    folder = marian_folder(tmp_path / "m")
    monkeypatch.setitem(__import__("sys").modules, "transformers", None)  # import transformers fails
    with pytest.raises(transviz.CheckpointError, match=r"pip install 'transviz\[hf\]'"):
        transviz.load_model(str(folder))


def test_an_unsupported_model_type_lists_what_transviz_reads(tmp_path: Path) -> None:
    folder = marian_folder(tmp_path / "m")
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    (folder / "config.json").write_text(json.dumps(config | {"model_type": "plbart"}), encoding="utf-8")
    with pytest.raises(transviz.CheckpointError, match="marian, bart"):
        transviz.load_model(str(folder))
    shutil.rmtree(folder)


def test_the_new_switches_leave_transviz_checkpoints_as_they_were(pair: tuple[Model, torch.nn.Module]) -> None:
    model, _ = pair
    assert {"positional", "embedding_norm"}.isdisjoint(transviz.ModelConfig(10, 10).to_dict())
    assert model.config.to_dict()["positional"] in ("sinusoidal-halves", "learned")
    with pytest.raises(transviz.CheckpointError, match="stays in its folder"):
        transviz.save_model(model, Path("never-written.safetensors"))


@pytest.fixture(scope="module", params=[("marian", 1.0), ("bart", 6.0)])
def ending(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[Model, torch.nn.Module]:
    """A model whose outputs end at different lengths (</s> raised), so that beams hold ended hypotheses."""
    from transformers import AutoModelForSeq2SeqLM

    kind, eos_bias = request.param
    build = marian_folder if kind == "marian" else bart_folder
    folder = build(tmp_path_factory.mktemp(kind), seed=5, eos_bias=eos_bias)
    return transviz.load_model(str(folder)), AutoModelForSeq2SeqLM.from_pretrained(folder, local_files_only=True).eval()


BEAM_SOURCES = [*SOURCES, "sie ist gut.", "ein alt haus mit katze.", "er isst nicht morgen.", "wir und sie."]


@pytest.mark.parametrize("width", [2, 4])
@pytest.mark.parametrize("early_stopping", [False, "never"])
def test_beam_equals_generate_ranking_by_probability(ending: tuple[Model, torch.nn.Module], width: int,
                                                     early_stopping: bool | str) -> None:
    """With length_penalty 0 both searches return the most probable hypothesis they reach, and
    they reach the same ones: a live hypothesis transviz drops for an ended one in its beam ranks
    below it, and its continuations only lose probability. (With a length penalty above 0 the
    transviz rule differs; Beam(rule="hf") does not: tests/core/decoding/test_hf_beam.py.)"""
    model, reference = ending
    tokenizer = model.src_vocab.tokenizer  # type: ignore[attr-defined]
    lengths = set()
    for source in BEAM_SOURCES:
        with torch.no_grad():
            generated = reference.generate(torch.tensor([tokenizer(source)["input_ids"]]), num_beams=width,
                                           length_penalty=0.0, early_stopping=early_stopping, do_sample=False,
                                           max_new_tokens=10, forced_eos_token_id=None)[0].tolist()
        trace = transviz.decode(model, source, Beam(width, length_penalty=0.0), max_len=10)
        assert [reference.config.decoder_start_token_id, *_hf_ids(model, trace.output_tokens)] == generated
        lengths.add(len(generated))
    assert len(lengths) > 1  # some ended early, some ran to the limit


@pytest.fixture(scope="module", params=[(1, 2), (2, 1)], ids=["1-encoder-2-decoder", "2-encoder-1-decoder"])
def uneven(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[Model, torch.nn.Module]:
    """A BART folder whose encoder and decoder differ in depth."""
    from transformers import AutoModelForSeq2SeqLM

    encoder_layers, decoder_layers = request.param
    folder = bart_folder(tmp_path_factory.mktemp("uneven"), seed=3, layers=encoder_layers,
                         decoder_layers=decoder_layers)
    reference = AutoModelForSeq2SeqLM.from_pretrained(folder, local_files_only=True, attn_implementation="eager")
    return transviz.load_model(str(folder)), reference.eval()


@pytest.mark.parametrize("source", SOURCES[:2])
def test_an_encoder_and_a_decoder_of_different_depths_equal_transformers(uneven: tuple[Model, torch.nn.Module],
                                                                         source: str) -> None:
    """Each kind of attention has its own stack's layers, step by step and teacher forced; each map
    is transformers' own (output_attentions) on what transviz wrote."""
    from transviz.core.decoding.session import DecodingSession

    model, reference = uneven
    config = reference.config
    assert (model.config.n_encoder_layers, model.config.n_decoder_layers) == (config.encoder_layers,
                                                                              config.decoder_layers)
    tokenizer = model.src_vocab.tokenizer  # type: ignore[attr-defined]
    source_ids = tokenizer(source)["input_ids"]
    with torch.no_grad():
        generated = reference.generate(torch.tensor([source_ids]), num_beams=1, do_sample=False, max_new_tokens=8,
                                       forced_eos_token_id=None)[0].tolist()
    assert len(generated) > 3  # rows enough for the maps to mean something
    trace = transviz.decode(model, source, "greedy", max_len=8)
    assert [config.decoder_start_token_id, *_hf_ids(model, trace.output_tokens)] == generated
    out = _reference(reference, source_ids, generated[:-1])
    expected = {"encoder_self": _stacked(out.encoder_attentions), "decoder_self": _stacked(out.decoder_attentions),
                "cross": _stacked(out.cross_attentions)}
    assert expected["encoder_self"].shape[0] == config.encoder_layers
    assert expected["decoder_self"].shape[0] == expected["cross"].shape[0] == config.decoder_layers
    for kind, shown in (("encoder_self", trace.encoder_self_attention), ("decoder_self", trace.decoder_self_attention),
                        ("cross", trace.cross_attention)):
        np.testing.assert_allclose(shown, expected[kind], atol=ATOL, rtol=0, err_msg=kind)
    # teacher forcing, in the explorer's session and in one pass
    target_ids = tokenizer(text_target=TARGETS[1])["input_ids"][:-1]  # without the end token: transviz adds it
    reading = _reference(reference, source_ids, [config.decoder_start_token_id, *target_ids])
    forced = DecodingSession(model, source, reference=TARGETS[1])
    forced.run_to_end()
    once = transviz.teacher_force(model, source, TARGETS[1])
    for kind, in_session, in_one_pass, theirs in (
            ("decoder_self", forced.decoder_self_attention(), once.decoder_self_attention, reading.decoder_attentions),
            ("cross", forced.cross_attention(), once.cross_attention, reading.cross_attentions)):
        assert in_session.shape[:3] == (config.decoder_layers, config.decoder_attention_heads, len(target_ids) + 1)
        np.testing.assert_allclose(in_session, _stacked(theirs), atol=ATOL, rtol=0, err_msg=kind)
        np.testing.assert_allclose(in_one_pass, in_session, atol=ATOL, rtol=0, err_msg=kind)


@pytest.fixture(scope="module")
def marian(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return marian_folder(tmp_path_factory.mktemp("marian") / "m")


def _edited_copy(marian: Path, tmp_path: Path, file: str, **changes: object) -> Path:
    folder = tmp_path / "copy"
    shutil.copytree(marian, folder)
    data = json.loads((folder / file).read_text(encoding="utf-8"))
    (folder / file).write_text(json.dumps({**data, **changes}), encoding="utf-8")
    return folder


@pytest.mark.parametrize("key, value", [("d_model", "32"), ("d_model", None), ("encoder_layers", 1.0),
                                        ("decoder_attention_heads", True), ("vocab_size", 100_000_000),
                                        ("max_position_embeddings", 0)])
def test_config_sizes_of_the_wrong_type_or_too_large_are_refused_before_reading(marian: Path, tmp_path: Path,
                                                                               key: str, value: object) -> None:
    folder = _edited_copy(marian, tmp_path, "config.json", **{key: value})
    with pytest.raises(transviz.CheckpointError, match=f"config.json: {key} must be a whole number from 1 to "):
        transviz.load_model(folder)


def test_the_tokenizer_config_cannot_point_sentencepiece_at_another_file(marian: Path, tmp_path: Path) -> None:
    """sp_model_kwargs naming any file (here the test's own config) is not followed: the folder's
    source.spm and target.spm are what Marian reads."""
    folder = _edited_copy(marian, tmp_path, "tokenizer_config.json",
                          sp_model_kwargs={"model_file": str(marian / "config.json")})
    model = transviz.load_model(folder)
    assert model.src_vocab.tokenize("ich mochte") == transviz.load_model(marian).src_vocab.tokenize("ich mochte")


def test_a_damaged_sentencepiece_file_is_refused_in_one_line(marian: Path, tmp_path: Path) -> None:
    folder = tmp_path / "copy"
    shutil.copytree(marian, folder)
    (folder / "source.spm").write_bytes(b"\x08\x99 not a sentencepiece model")
    with pytest.raises(transviz.CheckpointError, match=r"copy: transformers could not read it \("):
        transviz.load_model(folder)


def _weights_edited(marian: Path, tmp_path: Path, edit: Callable[[dict[str, torch.Tensor]], None],
                    **config: object) -> Path:
    """A copy of the Marian folder whose weights ``edit`` changed (and config.json ``config``)."""
    from safetensors.torch import load_file, save_file

    folder = _edited_copy(marian, tmp_path, "config.json", **config)
    tensors = load_file(folder / "model.safetensors")
    edit(tensors)
    save_file(tensors, folder / "model.safetensors", metadata={"format": "pt"})
    return folder


def _set(name: str, value: Callable[[torch.Tensor], torch.Tensor]) -> Callable[[dict[str, torch.Tensor]], None]:
    def edit(tensors: dict[str, torch.Tensor]) -> None:
        tensors[name] = value(tensors[name])
    return edit


def _drop(name: str) -> Callable[[dict[str, torch.Tensor]], None]:
    def edit(tensors: dict[str, torch.Tensor]) -> None:
        del tensors[name]
    return edit


K = "model.encoder.layers.1.self_attn.k_proj.weight"


@pytest.mark.parametrize("edit, match", [
    (_set(K, lambda t: t[:, :-1].contiguous()), rf"tensor {K} has shape \(32, 31\), the config needs \(32, 32\)"),
    (_set(K, lambda t: torch.cat([t, t[:4]])), rf"tensor {K} has shape \(36, 32\), the config needs \(32, 32\)"),
    (_set(K, lambda t: t.to(torch.int64)), f"tensor {K} holds int64, not floating-point weights"),
    (_set("model.shared.weight", lambda t: t[:-3].contiguous()),
     r"tensor model.shared.weight has shape \(\d+, 32\), the config needs \(\d+, 32\)"),
    (_set("final_logits_bias", lambda t: torch.cat([t, t], dim=1)), r"tensor final_logits_bias has shape \(1, \d+\)"),
    (_drop("model.decoder.layers.0.encoder_attn.v_proj.bias"),
     "has no tensor model.decoder.layers.0.encoder_attn.v_proj.bias"),
])
def test_weights_that_disagree_with_the_config_are_refused_naming_the_tensor(
        marian: Path, tmp_path: Path, edit: Callable[[dict[str, torch.Tensor]], None], match: str) -> None:
    folder = _weights_edited(marian, tmp_path, edit)
    with pytest.raises(transviz.CheckpointError, match=match):
        transviz.load_model(folder)


def test_a_config_with_fewer_layers_than_the_weights_is_refused(marian: Path, tmp_path: Path) -> None:
    """transformers itself would load the first layer and leave the second out with a warning."""
    folder = _edited_copy(marian, tmp_path, "config.json", encoder_layers=1)
    with pytest.raises(transviz.CheckpointError, match="holds encoder layer 1, but config.json gives the encoder 1 "
                                                       "layers"):
        transviz.load_model(folder)


def test_a_vocabulary_smaller_than_the_tokenizers_is_refused(marian: Path, tmp_path: Path) -> None:
    vocab_size = json.loads((marian / "config.json").read_text(encoding="utf-8"))["vocab_size"]
    smaller = vocab_size - 5

    def cut(tensors: dict[str, torch.Tensor]) -> None:
        for name in ("model.shared.weight", "model.encoder.embed_tokens.weight", "model.decoder.embed_tokens.weight",
                     "lm_head.weight"):
            if name in tensors:
                tensors[name] = tensors[name][:smaller].contiguous()
        tensors["final_logits_bias"] = tensors["final_logits_bias"][:, :smaller].contiguous()

    folder = _weights_edited(marian, tmp_path, cut, vocab_size=smaller, pad_token_id=smaller - 1,
                             decoder_start_token_id=smaller - 1)
    with pytest.raises(transviz.CheckpointError, match=f"the tokenizer gives ids up to {vocab_size - 1}, but the "
                                                       f"model's vocabulary holds {smaller}"):
        transviz.load_model(folder)


@pytest.mark.parametrize("model_type", [[], {"a": 1}, None, 7])
def test_a_model_type_that_is_not_text_is_named_as_the_file_has_it(marian: Path, tmp_path: Path,
                                                                   model_type: object) -> None:
    folder = _edited_copy(marian, tmp_path, "config.json", model_type=model_type)
    with pytest.raises(transviz.CheckpointError, match=f"model type {re.escape(json.dumps(model_type))} is not one "
                                                       "transviz reads"):
        transviz.load_model(folder)


@pytest.mark.parametrize("model_type, reason", [
    ("blenderbot-small", "normalises the token embeddings before it adds the positions"),
    ("led", "sliding window"), ("bigbird_pegasus", "random, window and global blocks"),
    ("pegasus_x", "staggered blocks"), ("prophetnet", "several future tokens"),
    ("nllb-moe", "one of several feed-forward networks"), ("switch_transformers", "one of several feed-forward"),
    ("umt5", "each of its layers learns its own relative-position buckets"), ("longt5", "local blocks"),
    ("encoder-decoder", "two separately built models"),
    ("gpt_neo", "alternate attention over every position with attention within a window"),
    ("gpt_neox", "run side by side on one input"), ("gptj", "rotary positions on interleaved pairs"),
    ("falcon", "run side by side on one input")])
def test_a_refused_family_says_why_in_one_line(tmp_path: Path, model_type: str, reason: str) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"model_type": model_type}), encoding="utf-8")
    with pytest.raises(transviz.CheckpointError, match=reason) as caught:
        transviz.load_model(str(tmp_path))
    assert "\n" not in str(caught.value)


def test_sharded_weights_load_and_a_shard_outside_the_folder_is_refused(tmp_path: Path) -> None:
    folder = bart_folder(tmp_path / "b", shards=True)
    index = json.loads((folder / "model.safetensors.index.json").read_text(encoding="utf-8"))
    assert len(set(index["weight_map"].values())) > 1 and not (folder / "model.safetensors").exists()
    whole = bart_folder(tmp_path / "whole")
    for name, tensor in transviz.load_model(str(folder)).net.state_dict().items():
        torch.testing.assert_close(tensor, transviz.load_model(str(whole)).net.state_dict()[name], atol=0, rtol=0)
    for shard in ("../whole/model.safetensors", "/etc/passwd", "shard.bin"):
        first = next(iter(index["weight_map"]))
        edited = index | {"weight_map": index["weight_map"] | {first: shard}}
        (folder / "model.safetensors.index.json").write_text(json.dumps(edited), encoding="utf-8")
        with pytest.raises(transviz.CheckpointError, match="must be a .safetensors file in the model's folder"):
            transviz.load_model(str(folder))
    (folder / "model.safetensors.index.json").write_text(json.dumps({"weight_map": {}}), encoding="utf-8")
    with pytest.raises(transviz.CheckpointError, match="weight_map"):
        transviz.load_model(str(folder))


def test_a_folder_without_weights_names_both_ways_to_save_them(tmp_path: Path) -> None:
    folder = bart_folder(tmp_path / "b")
    (folder / "model.safetensors").unlink()
    with pytest.raises(transviz.CheckpointError, match=r"neither model\.safetensors nor model\.safetensors\.index"):
        transviz.load_model(str(folder))


def test_the_walkthrough_and_the_mask_batch_name_the_decoders_first_input_as_the_model_does(tmp_path: Path) -> None:
    from transviz.core.analysis.mask_batch import mask_batch, translated_inputs
    from transviz.core.analysis.walkthrough import walkthrough

    model = transviz.load_model(str(t5_folder(tmp_path / "t5")))  # T5's decoder starts with <pad>
    assert model.tgt_vocab.start_token == "<pad>"
    steps = walkthrough(model, "der hund ist klein.", "the", "decoder_self", 0, 0)
    assert steps.query_tokens[0] == steps.key_tokens[0] == "<pad>"
    tokens, ids = translated_inputs(model, "der hund ist klein.")
    assert tokens[0] == "<pad>" and ids[0] == model.tgt_vocab.bos_id != model.config.pad_id  # named, not padding
    batch = mask_batch(["der hund ist klein.", "wir lesen."], "the", model, {"wir lesen.": (tokens, ids)})
    assert batch.decoder.tokens[0][0] == "<pad>" and bool(batch.decoder.combined[0, 0, 0, 0])  # it sees itself
