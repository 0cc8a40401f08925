"""Hugging Face decoder-only folders (GPT-2, Llama with grouped- and multi-query attention, Mistral
with a sliding window) against transformers itself, on tiny random models built here (nothing is
downloaded): every attention map, the logits, greedy decoding, the key/value cache, the first
input of the output named as the prompt's last token everywhere, and the refusals.

transviz's stream is the prompt less its last token (the source), then that token and the output:
the library's own sequence, so each of transviz's three views is a block of the one map
``output_attentions`` gives over it."""
from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

pytest.importorskip("transformers")
pytest.importorskip("tokenizers")

import transviz
from hf_folders import gpt2_folder, llama_folder
from transviz.core.analysis.mask_batch import mask_batch, translate
from transviz.core.analysis.walkthrough import walkthrough
from transviz.core.base.errors import CheckpointError, InputError
from transviz.core.decoding.interventions import AblateHead
from transviz.core.decoding.session import DecodingSession
from transviz.core.io.hf_vocab import TokenizerVocab
from transviz.core.model.bundle import Model
from transviz.core.teaching.quiz import QuizSpec, question_keys

pytestmark = pytest.mark.hf

PROMPTS = ["the dog reads a", "we see the small cat and", "they drink"]
CONTINUATION = " red book today."
ATOL = 1e-5
MAX_NEW = 8

CONFIGURATIONS: dict[str, tuple[Callable[..., Path], dict[str, Any]]] = {
    "gpt2": (gpt2_folder, {"eos_bias": 0.5}),
    "gpt2-untied-gelu-unscaled": (gpt2_folder, {"tied": False, "activation_function": "gelu",
                                                "scale_attn_weights": False, "layers": 3}),
    "llama-gqa": (llama_folder, {"heads": 4, "kv_heads": 2, "eos_bias": 0.5}),
    "llama-mqa-tied-theta": (llama_folder, {"heads": 4, "kv_heads": 1, "tied": True, "rope_theta": 500.0}),
    "llama-biases": (llama_folder, {"kv_heads": 4, "attention_bias": True, "mlp_bias": False}),
    "mistral-window": (llama_folder, {"kind": "mistral", "sliding_window": 4}),
}


@pytest.fixture(scope="module", params=list(CONFIGURATIONS))
def pair(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[Model, Any, Any]:
    """transviz's model, transformers' model and tokenizer, of one folder."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    build, options = CONFIGURATIONS[request.param]
    folder = build(tmp_path_factory.mktemp(request.param), seed=5, **options)
    reference = AutoModelForCausalLM.from_pretrained(folder, local_files_only=True, attn_implementation="eager")
    tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    return transviz.load_model(str(folder)), reference.eval(), tokenizer


def _vocab(model: Model) -> TokenizerVocab:
    vocab = model.tgt_vocab
    assert isinstance(vocab, TokenizerVocab)
    return vocab


def _theirs(model: Model, tokens: list[str] | tuple[str, ...]) -> list[int]:
    vocab = _vocab(model)
    return [vocab.theirs[vocab.stoi[t]] for t in tokens]


def _maps(reference: Any, ids: list[int]) -> tuple[np.ndarray, torch.Tensor]:
    """transformers' maps over the whole sequence, (layers, heads, n, n), and its logits (n, V)."""
    with torch.no_grad():
        out = reference(torch.tensor([ids]), output_attentions=True)
    return torch.stack([a[0] for a in out.attentions]).numpy(), out.logits[0]


def _generate(reference: Any, ids: list[int]) -> list[int]:
    with torch.no_grad():
        out = reference.generate(torch.tensor([ids]), do_sample=False, num_beams=1, max_new_tokens=MAX_NEW,
                                 pad_token_id=reference.config.eos_token_id, repetition_penalty=1.0)
    return list(out[0].tolist())


@pytest.mark.parametrize("prompt", PROMPTS[:2])
def test_teacher_forced_maps_and_logits_equal_transformers(pair: tuple[Model, Any, Any], prompt: str) -> None:
    model, reference, tokenizer = pair
    prompt_ids = list(tokenizer(prompt)["input_ids"])
    continuation = list(tokenizer(CONTINUATION, add_special_tokens=False)["input_ids"])
    maps, logits = _maps(reference, prompt_ids + continuation)
    trace = transviz.teacher_force(model, prompt, CONTINUATION)
    source = len(prompt_ids) - 1  # the prompt less its last token
    assert _theirs(model, trace.output_tokens[:-1]) == continuation
    assert trace.source_tokens == tokenizer.convert_ids_to_tokens(prompt_ids[:-1])
    assert trace.target_tokens[0] == tokenizer.convert_ids_to_tokens(prompt_ids[-1])
    np.testing.assert_allclose(trace.encoder_self_attention, maps[:, :, :source, :source], atol=ATOL, rtol=0)
    np.testing.assert_allclose(trace.cross_attention, maps[:, :, source:, :source], atol=ATOL, rtol=0)
    np.testing.assert_allclose(trace.decoder_self_attention, maps[:, :, source:, source:], atol=ATOL, rtol=0)
    # every logit of every token the tokenizer has, at every position of the output
    encoding = model.encode_source(prompt)
    inputs = torch.tensor([[_vocab(model).bos_id, *(_vocab(model).ours[i] for i in continuation)]])
    with torch.no_grad():
        ours = model.net(model.source_tensor(encoding), inputs).logits[0]
    vocab = _vocab(model)
    theirs = sorted(vocab.ours)
    np.testing.assert_allclose(ours[:, [vocab.ours[i] for i in theirs]].numpy(), logits[source:, theirs].numpy(),
                               atol=ATOL, rtol=0)
    gold = [*continuation, reference.config.eos_token_id]
    probabilities = torch.softmax(logits[source:], -1)[torch.arange(len(gold)), gold].numpy()
    np.testing.assert_allclose(trace.output_probabilities, probabilities, atol=ATOL, rtol=0)


@pytest.mark.parametrize("prompt", PROMPTS)
def test_greedy_equals_generate_and_draws_its_maps(pair: tuple[Model, Any, Any], prompt: str) -> None:
    model, reference, tokenizer = pair
    prompt_ids = list(tokenizer(prompt)["input_ids"])
    generated = _generate(reference, prompt_ids)
    trace = transviz.decode(model, prompt, "greedy", max_len=MAX_NEW)
    assert _theirs(model, trace.output_tokens) == generated[len(prompt_ids):]
    # the maps drawn step by step, each from the cache, are transformers' over what it wrote
    fed = generated[:-1] if len(generated) - len(prompt_ids) == len(trace.output_tokens) else generated
    maps, _ = _maps(reference, fed)
    source, rows = len(prompt_ids) - 1, len(trace.output_tokens)
    np.testing.assert_allclose(trace.cross_attention, maps[:, :, source:source + rows, :source], atol=ATOL, rtol=0)
    np.testing.assert_allclose(trace.decoder_self_attention, maps[:, :, source:source + rows, source:source + rows],
                               atol=ATOL, rtol=0)


def test_a_long_prompt_decodes_to_the_positions_it_leaves_as_generate_does(pair: tuple[Model, Any, Any]) -> None:
    """Prompt and output share the model's 64 positions: decoding stops at the length limit where
    they are used up (it raised "source and output together reach this model's limit" there),
    writing what generate() writes with max_length at those positions."""
    model, reference, tokenizer = pair
    prompt = "the dog reads a red book and the cat sees the"
    prompt_ids = list(tokenizer(prompt)["input_ids"])
    room = reference.config.max_position_embeddings - (len(prompt_ids) - 1)  # the prompt's last token is output row 0
    assert 0 < room < 50
    session = DecodingSession(model, prompt, max_len=50)
    records = session.run_to_end()
    assert session.max_len == room and len(records) <= room
    with torch.no_grad():  # max_length counts the last token written too, which no position reads
        generated = reference.generate(torch.tensor([prompt_ids]), do_sample=False, num_beams=1,
                                       max_length=reference.config.max_position_embeddings + 1,
                                       pad_token_id=reference.config.eos_token_id, repetition_penalty=1.0)[0]
    assert _theirs(model, session.output_tokens) == generated[len(prompt_ids):].tolist()
    assert session.stop_reason == ("max_len" if len(records) == room else "end")


def test_the_cached_steps_equal_the_full_recomputation(pair: tuple[Model, Any, Any]) -> None:
    model, _, _ = pair
    net, vocab = model.net, _vocab(model)
    src = model.source_tensor(model.encode_source(PROMPTS[1]))
    tgt = torch.tensor([[vocab.bos_id, *vocab.encode(CONTINUATION).ids]])
    with torch.no_grad():
        encoded = net.encode(src)
        full = net.decode(tgt, encoded, return_attention=True)
        state = net.start(encoded)
        for t in range(tgt.shape[1]):
            out = net.step(tgt[:, t], state)
            state = out.state
            torch.testing.assert_close(out.logits[0], full.logits[0, t], atol=ATOL, rtol=1e-5)
            assert out.self_attention is not None and full.self_attention is not None
            for row, whole in zip(out.self_attention, full.self_attention, strict=True):
                torch.testing.assert_close(row[0, :, 0], whole[0, :, t, : t + 1], atol=ATOL, rtol=0)


def test_the_first_input_is_the_prompts_last_token_in_every_view(pair: tuple[Model, Any, Any]) -> None:
    """The explorer's first chip, the decoder-input axis, the walkthrough, the masks tab and the
    quiz name the prompt's last token, and each map's axes are as long as their labels."""
    model, _, tokenizer = pair
    prompt = PROMPTS[0]
    pieces = tokenizer.convert_ids_to_tokens(tokenizer(prompt)["input_ids"])
    session = DecodingSession(model, prompt)
    record = session.step()
    session.step()
    assert session.start_token == pieces[-1] and session.source_tokens == pieces[:-1]
    assert session.target_tokens[0] == pieces[-1] and session.trace().target_tokens[0] == pieces[-1]
    assert session.encoder_attention.shape[-1] == len(session.source_tokens)
    assert session.cross_attention().shape[-2:] == (2, len(session.source_tokens))
    assert question_keys(session, QuizSpec("where", "decoder_self"), record) == [pieces[-1]]
    steps = walkthrough(model, prompt, "", "decoder_self", 0, 0)
    assert steps.query_tokens == [pieces[-1]] and steps.key_tokens == [*pieces[:-1], pieces[-1]]
    batch = mask_batch([prompt, PROMPTS[2]], "", model, translate(model, [PROMPTS[2]]))
    last = tokenizer.convert_ids_to_tokens(tokenizer(PROMPTS[2])["input_ids"])[-1]
    assert batch.decoder.tokens[0][0] == pieces[-1] and batch.decoder.tokens[1][0] == last
    assert batch.source.tokens[0][: len(pieces) - 1] == pieces[:-1]


@contextmanager
def _silenced(reference: Any, layer: int, head: int) -> Iterator[None]:
    """transformers with one head's output zeroed: its slice of the output projection's input."""
    attention = reference.transformer.h[layer].attn if hasattr(reference, "transformer") else \
        reference.model.layers[layer].self_attn
    projection = attention.c_proj if hasattr(attention, "c_proj") else attention.o_proj
    width = reference.config.hidden_size // reference.config.num_attention_heads

    def zero(_: torch.nn.Module, args: tuple[torch.Tensor, ...]) -> tuple[torch.Tensor, ...]:
        heads = args[0].clone()
        heads[..., head * width:(head + 1) * width] = 0.0
        return (heads,)

    handle = projection.register_forward_pre_hook(zero)
    try:
        yield
    finally:
        handle.remove()


def test_a_silenced_head_is_silenced_over_the_whole_stream(pair: tuple[Model, Any, Any]) -> None:
    """AblateHead on the source's pass and the output's is transformers' head zeroed in its one pass."""
    model, reference, tokenizer = pair
    prompt_ids = list(tokenizer(PROMPTS[1])["input_ids"])
    with _silenced(reference, 1, 2):
        generated = _generate(reference, prompt_ids)
    ablations = [AblateHead("encoder_self", 1, 2), AblateHead("decoder_self", 1, 2)]
    trace = transviz.decode(model, PROMPTS[1], "greedy", max_len=MAX_NEW, interventions=ablations)
    assert _theirs(model, trace.output_tokens) == generated[len(prompt_ids):]


def test_a_prompt_of_one_token_is_refused_in_a_sentence(tmp_path: Path) -> None:
    model = transviz.load_model(str(gpt2_folder(tmp_path / "gpt2", seed=1)))
    with pytest.raises(InputError, match="is 1 token: this model continues a prompt"):
        DecodingSession(model, "a")
    with pytest.raises(InputError, match="at least two tokens"):
        model.net.encode(torch.tensor([[5]]))


def _edited(folder: Path, **changes: object) -> Path:
    path = folder / "config.json"
    path.write_text(json.dumps(json.loads(path.read_text(encoding="utf-8")) | changes), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("decoders")
    return {"gpt2": gpt2_folder(root / "gpt2", seed=2), "llama": llama_folder(root / "llama", seed=2)}


def _copy(folders: dict[str, Path], kind: str, tmp_path: Path) -> Path:
    import shutil

    return Path(shutil.copytree(folders[kind], tmp_path / kind))


@pytest.mark.parametrize(("kind", "changes", "message"), [
    ("gpt2", {"scale_attn_by_inverse_layer_idx": True}, "scale_attn_by_inverse_layer_idx divides each layer's"),
    ("gpt2", {"reorder_and_upcast_attn": True}, "reorder_and_upcast_attn computes the scores in another order"),
    ("llama", {"rope_parameters": {"rope_type": "linear", "factor": 2.0, "rope_theta": 10000.0}},
     r"its rotary positions are scaled \(linear\)"),
    ("llama", {"rope_scaling": {"type": "dynamic", "factor": 2.0}}, r"rotary positions are scaled \(dynamic\)"),
    ("gpt2", {"model_type": "gpt_neo"}, "is a GPT-Neo model: its layers alternate"),
    ("gpt2", {"model_type": "gpt_neox"}, "is a GPT-NeoX model: its attention and feed-forward layers run side"),
    ("gpt2", {"model_type": "gptj"}, "is a GPT-J model"),
    ("gpt2", {"model_type": "falcon"}, "is a Falcon model"),
    ("gpt2", {"model_type": "opt"}, r"model type \"opt\" is not one transviz reads \(it reads .*gpt2, llama"),
])
def test_refused_settings_and_families_say_why(folders: dict[str, Path], tmp_path: Path, kind: str,
                                               changes: dict[str, object], message: str) -> None:
    folder = _edited(_copy(folders, kind, tmp_path), **changes)
    with pytest.raises(CheckpointError, match=message):
        transviz.load_model(str(folder))


@pytest.mark.parametrize(("kind", "changes", "message"), [
    ("gpt2", {"n_embd": "32"}, r"n_embd must be a whole number from 1 to 4,096, got \"32\""),
    ("gpt2", {"n_layer": 10**9}, "n_layer must be a whole number from 1 to 48"),
    ("gpt2", {"vocab_size": -3}, "vocab_size must be a whole number"),
    ("gpt2", {"n_positions": 10**6}, "n_positions must be a whole number from 1 to 8,192"),
    ("gpt2", {"activation_function": "mish"}, "activation 'mish' is not one transviz has"),
    ("gpt2", {"n_layer": 1}, "holds layer 1, but config.json gives 1 layers"),
    ("gpt2", {"n_inner": 40}, r"tensor transformer.h.0.mlp.c_fc.weight has shape \(32, 128\), the config needs "
                              r"\(32, 40\)"),
    ("llama", {"num_key_value_heads": 3}, "n_kv_heads .* must divide n_heads"),
    ("llama", {"head_dim": 4}, "its 4 heads of 4 dimensions make 16, not its width 32"),
    ("llama", {"eos_token_id": [2, 1]}, r"eos_token_id names several end tokens \(\[2, 1\]\)"),
    ("llama", {"eos_token_id": 5000}, "the eos token id is 5000, outside the vocabulary"),
    ("llama", {"attention_bias": "yes"}, "attention_bias is \"yes\"; transviz reads it as true or false"),
    ("llama", {"rms_norm_eps": 5.0}, "layer_norm_eps must be at most 1"),
])
def test_hostile_config_values_are_named(folders: dict[str, Path], tmp_path: Path, kind: str,
                                         changes: dict[str, object], message: str) -> None:
    folder = _edited(_copy(folders, kind, tmp_path), **changes)
    with pytest.raises(CheckpointError, match=message):
        transviz.load_model(str(folder))


def test_only_pickled_weights_are_refused(folders: dict[str, Path], tmp_path: Path) -> None:
    folder = _copy(folders, "llama", tmp_path)
    (folder / "model.safetensors").rename(folder / "pytorch_model.bin")
    with pytest.raises(CheckpointError, match="a pickle, which transviz never loads"):
        transviz.load_model(str(folder))


def test_the_config_fields_stay_out_of_checkpoints_that_do_not_use_them() -> None:
    from transviz.core.model.config import ModelConfig

    plain = ModelConfig(10, 10).to_dict()
    assert "rotary_base" not in plain and "start_from_prompt" not in plain
    used = ModelConfig(10, 10, positional="rotary", rotary_base=500.0, architecture="decoder-only",
                       start_from_prompt=True).to_dict()
    assert used["rotary_base"] == 500.0 and used["start_from_prompt"] is True
