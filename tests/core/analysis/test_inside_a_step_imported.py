"""The logit lens, activation patching and the heads that align (issue 39, part 5) on models made
elsewhere: Hugging Face folders (Marian, BART, mBART, T5, GPT-2, Llama; tiny random ones built by
tests/hf_folders.py, nothing is downloaded) and a plain PyTorch ``nn.Transformer`` read through its
sidecar, each checked against the library that made it.

The references never use transviz's model or its sites: a layer's output is captured with a forward
hook on the library's own decoder (or encoder) layer module, a head's output with a forward pre-hook
on the module that projects the heads side by side (``out_proj``, T5's ``o``, GPT-2's ``c_proj``,
Llama's ``o_proj``), and a patch writes A's value into B's run through the same hook. The lens
sends a captured layer output through the library's own final norm (where the model has one) and
its own output head (T5's rescale and Marian's and BART's ``final_logits_bias`` included). Token
ids are mapped with the vocabulary's tables (``ours`` / ``theirs``): transviz's vocabulary holds
every token of the library's once, plus rows the library lacks (a copy of the decoder's start
token; a decoder-only model's padding and start), whose probability is 0 -- so distributions are
compared on the library's ids, and the extra rows are checked to hold nothing.

Heads that align count words: the PyTorch model's word vocabularies score a user's corpus and
alignment file, each head's accuracy and AER against a count of nn.MultiheadAttention's own
weights; every Hugging Face model (subword pieces) scores the same file on its words, as
``transviz align`` prints (its words against transformers' own maps: test_alignment_subwords.py).
``transviz render`` draws the lens and patching of a folder and refuses its alignment view, which
needs a task's test split, in one line."""
from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from safetensors.torch import load_file, save_file
from torch import nn

import transviz
from decoding_models import one_thread  # noqa: F401  (a fixture: tiny models run single-threaded)
from transviz.core.analysis.alignment_heads import alignment_heads, gold_pairs
from transviz.core.analysis.concepts.forward import Sentence
from transviz.core.analysis.lens import logit_lens
from transviz.core.analysis.patching import activation_patching, patched_log_probs
from transviz.core.base.errors import InputError
from transviz.core.model.bundle import Model

HF = pytest.mark.hf
FAMILIES = [pytest.param(name, marks=HF) for name in ("marian", "bart", "mbart", "t5", "gpt2", "llama")]
FAMILIES.append(pytest.param("torch"))
DECODER_ONLY = ("gpt2", "llama")
PRE_NORM = ("mbart", "t5")  # nothing but the final norm follows a head on the residual path
GERMAN = "der hund ist sehr klein und rot."
ENGLISH = "the dog reads a"
K = 5
MAX_LEN = 12  # decoding: a few steps are enough

# -- a plain PyTorch nn.Transformer with word vocabularies -------------------------------------------
D, HEADS, LAYERS, D_FF, POSITIONS = 16, 4, 2, 32, 40
SPECIAL = ["<unk>", "<pad>", "<bos>", "<eos>"]  # the PyTorch tutorial's order
SOURCE_WORDS = "der die das ein hund katze haus buch ist war sehr klein gross rot blau und nicht liest".split()
TARGET_WORDS = "the a dog cat house book is was very small big red blue and not reads".split()
TORCH_NAMES = {"<pad>": "<pad>", "<bos>": "<s>", "<eos>": "</s>", "<unk>": "<unk>"}  # transviz's names


class CourseModel(nn.Module):
    """What a course's student writes: two embeddings, the paper's sine table, nn.Transformer
    (post-norm: its stacks still end with a LayerNorm each), a Linear output layer."""

    def __init__(self) -> None:
        super().__init__()
        self.src_tok_emb = nn.Embedding(len(SPECIAL) + len(SOURCE_WORDS), D)
        self.tgt_tok_emb = nn.Embedding(len(SPECIAL) + len(TARGET_WORDS), D)
        self.transformer = nn.Transformer(D, HEADS, LAYERS, LAYERS, D_FF, dropout=0.0, batch_first=True)
        self.generator = nn.Linear(D, len(SPECIAL) + len(TARGET_WORDS))
        position, column = np.arange(POSITIONS)[:, None], np.arange(D)[None, :]
        angle = position / np.power(10000.0, 2 * (column // 2) / D)
        self.pos_embedding: torch.Tensor
        self.register_buffer("pos_embedding", torch.tensor(np.where(column % 2 == 0, np.sin(angle), np.cos(angle)),
                                                           dtype=torch.float32))

    def embed(self, table: nn.Embedding, ids: torch.Tensor) -> torch.Tensor:
        return table(ids) * math.sqrt(D) + self.pos_embedding[: ids.shape[1]]

    def forward(self, src: torch.Tensor, tgt: torch.Tensor) -> torch.Tensor:
        causal = nn.Transformer.generate_square_subsequent_mask(tgt.shape[1])
        out = self.transformer(self.embed(self.src_tok_emb, src), self.embed(self.tgt_tok_emb, tgt), tgt_mask=causal)
        return self.generator(out)


def torch_folder(folder: Path, seed: int = 4) -> Path:
    """The course model with perturbed weights (LayerNorms away from 1 and 0) that never writes
    <unk>, <pad> or <bos>, saved as safetensors with its sidecar; the sidecar's path."""
    torch.manual_seed(seed)
    model = CourseModel()
    with torch.no_grad():
        for p in model.parameters():
            p.add_(0.3 * torch.randn_like(p))
        model.generator.bias[[SPECIAL.index(t) for t in ("<unk>", "<pad>", "<bos>")]] = -1e4
    folder.mkdir(parents=True, exist_ok=True)
    save_file({k: v.contiguous() for k, v in model.state_dict().items()}, folder / "course.safetensors")

    def vocab(words: list[str], **markers: bool) -> dict[str, Any]:
        return {"tokens": SPECIAL + words, "pad": 1, "start": 2, "end": 3, "unknown": 0, **markers}
    sidecar = {"format": "transviz-torch", "version": 1, "weights": "course.safetensors",
               "model": {"d_model": D, "nhead": HEADS, "num_encoder_layers": LAYERS, "num_decoder_layers": LAYERS,
                         "dim_feedforward": D_FF, "activation": "relu", "norm_first": False, "dropout": 0.0,
                         "max_len": POSITIONS, "scale_embeddings": True, "positional": "sinusoidal"},
               "modules": {"transformer": "transformer", "source_embedding": "src_tok_emb",
                           "target_embedding": "tgt_tok_emb", "output": "generator",
                           "positional_table": "pos_embedding"},
               # the PyTorch tutorial's sources: <bos> words <eos>
               "source_vocab": vocab(SOURCE_WORDS, add_start=True, add_end=True), "target_vocab": vocab(TARGET_WORDS)}
    (folder / "course.json").write_text(json.dumps(sidecar), encoding="utf-8")
    return folder / "course.json"


# -- the library's side ------------------------------------------------------------------------------
def _tensor_of(output: Any) -> torch.Tensor:
    """A layer's output stream: the tensor itself, or the first of a tuple (T5's block)."""
    return output if isinstance(output, torch.Tensor) else output[0]


def _with_tensor(output: Any, x: torch.Tensor) -> Any:
    return x if isinstance(output, torch.Tensor) else (x, *output[1:])


@dataclass
class Library:
    """One model as the library that made it runs it, and where it keeps what transviz shows."""

    name: str
    model: Model  # transviz's
    net: nn.Module  # the library's
    tokenizer: Any  # Hugging Face's; None for the PyTorch model (its vocabulary is a word list)
    decoder_layers: Sequence[nn.Module]
    encoder_layers: Sequence[nn.Module]  # a decoder-only model's: its one stack
    final_norm: nn.Module | None

    @property
    def decoder_only(self) -> bool:
        return self.name in DECODER_ONLY

    # ids ------------------------------------------------------------------------------------------
    def theirs(self, tokens: Sequence[str]) -> list[int]:
        """The library's ids of transviz's output tokens."""
        vocab = self.model.tgt_vocab
        if self.tokenizer is None:  # the PyTorch model's list: transviz renamed the specials only
            names = {TORCH_NAMES.get(w, w): i for i, w in enumerate(SPECIAL + TARGET_WORDS)}
            return [names[t] for t in tokens]
        return [vocab.theirs[vocab.stoi[t]] for t in tokens]  # type: ignore[attr-defined]

    def vocabulary(self) -> tuple[list[int], list[int]]:
        """The library's output ids in order, and transviz's id of each."""
        size = int(self.output(torch.zeros(self.model.config.d_model)).shape[-1])
        theirs = list(range(size))
        if self.tokenizer is None:
            words = SPECIAL + TARGET_WORDS
            return theirs, [self.model.tgt_vocab.stoi[TORCH_NAMES.get(w, w)] for w in words]
        ours = self.model.tgt_vocab.ours  # type: ignore[attr-defined]
        assert set(ours) == set(theirs)  # every id the library writes has its one row in transviz's
        return theirs, [ours[i] for i in theirs]

    def source_ids(self, sentence: str) -> list[int]:
        """The library's ids of the whole source: its tokenizer's (a decoder-only model's prompt)."""
        if self.tokenizer is None:  # the sidecar's add_start and add_end: <bos> ... <eos>
            return [2, *(len(SPECIAL) + SOURCE_WORDS.index(w) for w in sentence.split()), 3]
        return list(self.tokenizer(sentence)["input_ids"])

    def sequence(self, sentence: str, written: Sequence[str]) -> tuple[list[int], list[int]]:
        """What the library reads for ``sentence`` with ``written`` output tokens fed back: the
        encoder's and the decoder's ids (a decoder-only model: the prompt and the output, one
        sequence, and no decoder ids)."""
        source, output = self.source_ids(sentence), self.theirs(written)
        if self.decoder_only:
            return source + output, []
        start = SPECIAL.index("<bos>") if self.tokenizer is None else self.net.config.decoder_start_token_id
        return source, [start, *output]

    def row(self, sentence: str, step: int) -> int:
        """Where the decoder row of output ``step`` is in the library's sequence."""
        return len(self.source_ids(sentence)) - 1 + step if self.decoder_only else step

    # running --------------------------------------------------------------------------------------
    def logits(self, sentence: str, written: Sequence[str]) -> torch.Tensor:
        """The library's logits (L, V) over its decoder rows (a decoder-only model: every row)."""
        source, decoder = self.sequence(sentence, written)
        src = torch.tensor([source])
        with torch.enable_grad():  # nn.Transformer's fused fast path (which skips its layers' hooks) stays off
            if self.tokenizer is None:
                out = self.net(src, torch.tensor([decoder]))
            elif self.decoder_only:
                out = self.net(input_ids=src).logits
            else:
                out = self.net(input_ids=src, decoder_input_ids=torch.tensor([decoder])).logits
        return out[0].detach().double()

    def output(self, stream: torch.Tensor) -> torch.Tensor:
        """A decoder stream (..., d) through what follows the last layer: the library's final norm
        (where it has one), T5's rescale, its output layer and Marian's or BART's final bias."""
        with torch.no_grad():
            x = stream if self.final_norm is None else self.final_norm(stream)
            if self.tokenizer is None:
                return self.net.generator(x).double()
            if self.name == "t5" and self.net.config.scale_decoder_outputs:
                x = x * self.net.model_dim ** -0.5
            logits = self.net.get_output_embeddings()(x)
            bias = getattr(self.net, "final_logits_bias", None)
            return (logits if bias is None else logits + bias[0]).double()

    def heads_module(self, layer: int) -> nn.Module:
        """The module whose input is layer ``layer``'s cross-attention heads side by side (a
        decoder-only model's self-attention: its output rows read the source through it)."""
        block = self.decoder_layers[layer]
        if self.name == "t5":
            return block.layer[1].EncDecAttention.o
        if self.name == "gpt2":
            return block.attn.c_proj
        if self.name == "llama":
            return block.self_attn.o_proj
        if self.name == "torch":
            return block.multihead_attn
        return block.encoder_attn.out_proj

    @property
    def head_width(self) -> int:
        return self.model.config.d_model // self.model.config.n_heads


def library(name: str, path: Path) -> Library:
    """transviz's model of ``path`` (a folder, or the PyTorch model's sidecar) and the library's
    own, with its layers, final norm and head."""
    if name == "torch":
        net = CourseModel()
        net.load_state_dict(load_file(path.parent / "course.safetensors"))
        stack = net.eval().transformer
        return Library(name, transviz.load_model(str(path)), net, None, stack.decoder.layers, stack.encoder.layers,
                       stack.decoder.norm)
    from transformers import AutoModelForCausalLM, AutoModelForSeq2SeqLM, AutoTokenizer

    build = AutoModelForCausalLM if name in DECODER_ONLY else AutoModelForSeq2SeqLM
    net = build.from_pretrained(path, local_files_only=True, attn_implementation="eager").eval()
    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    model = transviz.load_model(str(path))
    if name == "t5":
        return Library(name, model, net, tokenizer, net.decoder.block, net.encoder.block, net.decoder.final_layer_norm)
    if name == "gpt2":
        return Library(name, model, net, tokenizer, net.transformer.h, net.transformer.h, net.transformer.ln_f)
    if name == "llama":
        return Library(name, model, net, tokenizer, net.model.layers, net.model.layers, net.model.norm)
    decoder = net.model.decoder  # Marian and BART end with no norm; mBART with its layer_norm
    return Library(name, model, net, tokenizer, decoder.layers, net.model.encoder.layers,
                   getattr(decoder, "layer_norm", None))


@pytest.fixture(scope="module", params=FAMILIES)
def lib(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Library:
    name = request.param
    folder = tmp_path_factory.mktemp(name)
    if name == "torch":
        return library(name, torch_folder(folder))
    pytest.importorskip("transformers")
    pytest.importorskip("sentencepiece")
    pytest.importorskip("tokenizers")
    import hf_folders

    builders: dict[str, Callable[..., Path]] = {
        "marian": hf_folders.marian_folder, "bart": hf_folders.bart_folder, "mbart": hf_folders.mbart_folder,
        "t5": hf_folders.t5_folder, "gpt2": hf_folders.gpt2_folder, "llama": hf_folders.llama_folder}
    return library(name, builders[name](folder, seed=3))


def source_of(lib: Library) -> str:
    if lib.name == "torch":
        return "der hund ist sehr klein und rot"
    return ENGLISH if lib.decoder_only else GERMAN


# -- 1. the lens -------------------------------------------------------------------------------------
@contextmanager
def captured(modules: Sequence[nn.Module]) -> Iterator[list[torch.Tensor]]:
    """Each module's output stream, in their order, as a forward hook sees it."""
    seen: list[torch.Tensor] = []
    handles = [m.register_forward_hook(lambda _m, _a, out: seen.append(_tensor_of(out).detach())) for m in modules]
    try:
        yield seen
    finally:
        for handle in handles:
            handle.remove()


@pytest.mark.parametrize("step", [0, 2])
def test_each_layers_guess_is_the_librarys_layer_output_through_its_norm_and_head(lib: Library, step: int) -> None:
    model, source = lib.model, source_of(lib)
    output = transviz.decode(model, source, max_len=MAX_LEN).output_tokens
    assert len(output) > step
    written = output[step]
    lens = logit_lens(model, Sentence(source, tuple(output[:step])), written, k=K)
    with captured(lib.decoder_layers) as outputs:
        logits = lib.logits(source, output[:step])
    _, ours = lib.vocabulary()
    row = lib.row(source, step)
    names = model.tgt_vocab.itos
    token = lib.theirs([written])[0]
    assert len(lens.layers) == len(outputs) == len(lib.decoder_layers)
    for layer, (guess, stream) in enumerate(zip(lens.layers, outputs, strict=True)):
        expected = torch.softmax(lib.output(stream[0, row]), -1)  # over the library's vocabulary
        np.testing.assert_allclose(guess.distribution[ours], expected.numpy(), atol=1e-6, rtol=0, err_msg=str(layer))
        assert guess.distribution[ours].sum() == pytest.approx(1.0, abs=1e-9)  # transviz's own rows hold nothing
        top = torch.topk(expected, K)
        assert guess.tokens == [names[ours[i]] for i in top.indices.tolist()]
        np.testing.assert_allclose(guess.probabilities, top.values.numpy(), atol=1e-6, rtol=0)
        assert guess.written == pytest.approx(float(expected[token]), abs=1e-6)
    # the last layer's guess is the model's own distribution, and the library's
    model_probabilities = torch.softmax(logits[row], -1).numpy()
    np.testing.assert_allclose(lens.probabilities[ours], model_probabilities, atol=1e-6, rtol=0)
    np.testing.assert_allclose(lens.layers[-1].distribution, lens.probabilities, atol=1e-6, rtol=0)
    assert lens.layers[-1].tokens[0] == written  # greedy decoding wrote the most probable token
    if lib.decoder_only:  # its cross-attention is part of its one self-attention: no split, as documented
        assert lens.direct is None
        return
    direct = lens.direct
    assert direct is not None and direct.heads.shape == (model.config.n_decoder_layers, model.config.n_heads)
    assert direct.total == pytest.approx(direct.logit, abs=1e-4)
    assert direct.logit == pytest.approx(float(logits[row, token]), abs=1e-4)
    if lib.name in PRE_NORM:
        np.testing.assert_allclose(direct.heads, closed_form(lib, source, output, step), atol=1e-5, rtol=0)


def closed_form(lib: Library, source: str, output: Sequence[str], step: int) -> np.ndarray:
    """(layers, heads): each cross-attention head's direct term in a pre-norm model, where nothing
    but the final norm follows a head on the residual path: u . (g * C(W_O,h o_h) / s), with the
    library's own head outputs (the input of its output projection), final norm weight g and scale
    s at the last layer's output (C centres a vector; T5's RMSNorm leaves it), and output row u."""
    heads_in: list[torch.Tensor] = []
    handles = [lib.heads_module(layer).register_forward_pre_hook(
        lambda _m, args: heads_in.append(args[0][0, step].detach().double()))
        for layer in range(len(lib.decoder_layers))]
    try:
        with captured(lib.decoder_layers[-1:]) as last:
            lib.logits(source, output[:step])
    finally:
        for handle in handles:
            handle.remove()
    x, norm = last[0][0, step].double(), lib.final_norm
    assert norm is not None
    if lib.name == "t5":
        scale, centre = torch.sqrt(x.pow(2).mean() + norm.variance_epsilon), (lambda v: v)
    else:
        scale, centre = torch.sqrt(x.var(unbiased=False) + norm.eps), (lambda v: v - v.mean())
    u = lib.net.get_output_embeddings().weight[lib.theirs([output[step]])[0]].detach().double()
    if lib.name == "t5" and lib.net.config.scale_decoder_outputs:
        u = u * lib.net.model_dim ** -0.5
    weight, width = norm.weight.detach().double(), lib.head_width
    expected = np.zeros((len(heads_in), lib.model.config.n_heads))
    for layer, mixed in enumerate(heads_in):
        w_o = lib.heads_module(layer).weight.detach().double()
        for head in range(expected.shape[1]):
            part = slice(head * width, (head + 1) * width)
            expected[layer, head] = float(u @ (weight * centre(w_o[:, part] @ mixed[part]) / scale))
    return expected


# -- 2. patching -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class MinimalPair:
    a: str
    b: str
    step: int  # an output step where B, after A's output so far, predicts another token than A
    output: tuple[str, ...]  # A's greedy output
    position: int  # the first source position where the two differ


def _words(lib: Library) -> list[str]:
    if lib.name == "torch":
        return SOURCE_WORDS
    import hf_folders

    return hf_folders.ENGLISH if lib.decoder_only else hf_folders.WORDS


def _edits(a: str, words: list[str], same_length: bool) -> Iterator[str]:
    """Sentences one word away from ``a``: a word replaced (or, not ``same_length``, one added),
    the last word changed last (a decoder-only model reads it as its first output input)."""
    tokens = a.split()
    for at in [*range(len(tokens) - 2, -1, -1), len(tokens) - 1]:
        for word in words:
            yield " ".join([*tokens[:at], word, *tokens[at + (1 if same_length else 0):]])


def minimal_pair(lib: Library, same_length: bool = True, a: str | None = None) -> MinimalPair:
    """A (default: :func:`source_of`) and B, B one word away from A (of one source length, or not),
    whose runs after A's output so far predict different tokens at a step after the first (the
    first step when no pair of this tiny random model differs later): the first found, searching
    the words in order."""
    model, a = lib.model, a or source_of(lib)
    output = tuple(transviz.decode(model, a, max_len=MAX_LEN).output_tokens)
    vocab = model.tgt_vocab
    prefix = torch.tensor([[vocab.bos_id, *(vocab.stoi[t] for t in output[:-1])]])
    encoding = model.encode_source(a)
    with torch.no_grad():
        choices_a = model.net(model.source_tensor(encoding), prefix).logits[0].argmax(-1)
    found: list[MinimalPair] = []
    for b in _edits(a, _words(lib), same_length):
        other = model.encode_source(b)
        if b == a or (len(other.ids) == len(encoding.ids)) != same_length:
            continue
        with torch.no_grad():
            choices_b = model.net(model.source_tensor(other), prefix).logits[0].argmax(-1)
        for step in torch.nonzero(choices_a != choices_b).flatten().tolist():
            try:
                activation_patching(model, a, b, step, "decoder")  # under the model's generation rules too
            except InputError as exc:
                if "give the same token" not in str(exc):
                    raise
                continue
            position = next((i for i, (x, y) in enumerate(zip(encoding.ids, other.ids, strict=False)) if x != y),
                            len(encoding.ids))  # B's source may be A's and one more token
            found.append(MinimalPair(a, b, step, output, position))
            if step > 0:
                return found[-1]
            break
    if not found:
        pytest.skip(f"no sentence one word away from {a!r} makes this tiny random {lib.name} model write another "
                    "token")
    return found[0]


@pytest.fixture(scope="module")
def pair(lib: Library) -> MinimalPair:
    return minimal_pair(lib)


def _heads_of(mha: nn.MultiheadAttention, args: tuple[Any, ...], kwargs: dict[str, Any]) -> torch.Tensor:
    """nn.MultiheadAttention's per-head outputs (B, H, T, d_k): its own per-head weights (asked of
    the module itself) times its values (its in-projection's last third)."""
    with torch.no_grad():
        _, weights = mha(*args[:3], attn_mask=kwargs.get("attn_mask"), key_padding_mask=kwargs.get("key_padding_mask"),
                         need_weights=True, average_attn_weights=False)  # (B, H, T, S)
        d, heads = mha.embed_dim, mha.num_heads
        values = nn.functional.linear(args[2], mha.in_proj_weight[2 * d:], mha.in_proj_bias[2 * d:])  # (B, S, d)
        values = values.view(*values.shape[:2], heads, d // heads).transpose(1, 2)  # (B, H, S, d_k)
    return weights @ values


@contextmanager
def hooked(lib: Library, kind: str, layer: int, column: int, at: int,
           clean: tuple[torch.Tensor, int] | None = None) -> Iterator[list[torch.Tensor]]:
    """The library's value of ``kind`` at ``layer`` seen in the run inside the block (the whole
    tensor); with ``clean`` (another run's such value, and the row of its step) the cell is
    replaced by that run's: an encoder layer's output at source position ``column``, a decoder
    layer's output at row ``at``, or head ``column``'s output at row ``at`` (its slice of the heads
    side by side, or nn.MultiheadAttention's head through its out-projection)."""
    seen: list[torch.Tensor] = []
    part = slice(column * lib.head_width, (column + 1) * lib.head_width)

    def layer_hook(_m: nn.Module, _args: Any, output: Any) -> Any:
        x = _tensor_of(output)
        seen.append(x.detach())
        if clean is None:
            return None
        value, row = clean
        x = x.clone()
        if kind == "encoder":
            x[:, column] = value[:, column]
        else:
            x[:, at] = value[:, row]
        return _with_tensor(output, x)

    def heads_hook(_m: nn.Module, args: tuple[Any, ...]) -> Any:
        seen.append(args[0].detach())
        if clean is None:
            return None
        value, row = clean
        mixed = args[0].clone()  # (B, T, d): the heads side by side
        mixed[:, at, part] = value[:, row, part]
        return (mixed, *args[1:])

    inside: list[bool] = []

    def mha_hook(mha: nn.Module, args: tuple[Any, ...], kwargs: dict[str, Any], output: Any) -> Any:
        if inside:  # the hook's own call of the module
            return None
        inside.append(True)
        try:
            heads = _heads_of(mha, args, kwargs)  # (B, H, T, d_k)
        finally:
            inside.clear()
        seen.append(heads)
        if clean is None:
            return None
        value, row = clean
        change = (value[:, column, row] - heads[:, column, at]) @ mha.out_proj.weight[:, part].T
        out = output[0].clone()
        out[:, at] = out[:, at] + change
        return (out, *output[1:])

    if kind == "encoder":
        handle = lib.encoder_layers[layer].register_forward_hook(layer_hook)
    elif kind == "decoder":
        handle = lib.decoder_layers[layer].register_forward_hook(layer_hook)
    elif lib.name == "torch":
        handle = lib.heads_module(layer).register_forward_hook(mha_hook, with_kwargs=True)
    else:
        handle = lib.heads_module(layer).register_forward_pre_hook(heads_hook)
    try:
        yield seen
    finally:
        handle.remove()


def library_patched(lib: Library, pair: MinimalPair, kind: str, cell: tuple[int, int] | None) -> torch.Tensor:
    """The library's log-probabilities (V,) of B's run at the step after A's output so far, with
    ``cell`` (layer, column) patched from A's run by plain torch hooks (None: B's own run)."""
    written = pair.output[: pair.step]
    row_a, row_b = lib.row(pair.a, pair.step), lib.row(pair.b, pair.step)
    if cell is None:
        return torch.log_softmax(lib.logits(pair.b, written)[row_b], -1)
    with hooked(lib, kind, *cell, row_a) as seen:
        lib.logits(pair.a, written)
    with hooked(lib, kind, *cell, row_b, clean=(seen[0], row_a)):
        logits = lib.logits(pair.b, written)
    return torch.log_softmax(logits[row_b], -1)


def cells(lib: Library, pair: MinimalPair, kind: str) -> list[tuple[int, int]]:
    """The first and the last layer's cell of ``kind``: where A and B differ (encoder), heads 1 and
    the last, or the step."""
    last = len(lib.decoder_layers) - 1
    if kind == "encoder":
        return [(0, pair.position), (len(lib.encoder_layers) - 1, pair.position)]
    if kind == "cross_head":
        return [(0, 1), (last, lib.model.config.n_heads - 1)]
    return [(0, 0), (last, 0)]


def check_cells(lib: Library, pair: MinimalPair, kind: str) -> None:
    """Two cells of ``kind`` (:func:`cells`), and nothing patched, against the library patched by
    hooks: B's log-probabilities, each cell's logit difference and score; and A's and B's own."""
    model = lib.model
    result = activation_patching(model, pair.a, pair.b, pair.step, kind)
    assert result.output_a[: len(pair.output)] == pair.output and result.step == pair.step
    _, ours = lib.vocabulary()
    a_token, b_token = lib.theirs([result.token_a, result.token_b])
    chosen = cells(lib, pair, kind)
    found = patched_log_probs(model, pair.a, pair.b, pair.step, kind, [[], *([cell] for cell in chosen)])
    expected = [library_patched(lib, pair, kind, cell) for cell in [None, *chosen]]

    def m(log_probs: torch.Tensor) -> float:
        return float(log_probs[a_token] - log_probs[b_token])
    a_run = torch.log_softmax(lib.logits(pair.a, pair.output[: pair.step])[lib.row(pair.a, pair.step)], -1)
    assert result.m_a == pytest.approx(m(a_run), abs=1e-4) and result.m_b == pytest.approx(m(expected[0]), abs=1e-4)
    assert result.m_a > result.m_b
    for cell, ours_row, theirs_row in zip([None, *chosen], found, expected, strict=True):
        np.testing.assert_allclose(ours_row[ours], theirs_row.numpy(), atol=2e-5, rtol=0, err_msg=str(cell))
        if cell is None:  # patching nothing is B's own run
            assert result.normalised(m(torch.from_numpy(ours_row[ours]))) == pytest.approx(0.0, abs=1e-6)
            continue
        assert result.differences[cell] == pytest.approx(m(theirs_row), abs=1e-4)
        score = (m(theirs_row) - m(expected[0])) / (m(a_run) - m(expected[0]))
        assert result.scores[cell] == pytest.approx(score, abs=1e-4)
    if kind == "decoder":  # the last layer's stream at the step is all the logits read: A's own
        assert result.scores[-1, 0] == pytest.approx(1.0, abs=1e-5)
    if kind == "encoder" and lib.decoder_only:  # after the source's last layer nothing reads it
        np.testing.assert_array_equal(result.scores[-1], 0.0)


@pytest.mark.parametrize("kind", ["encoder", "cross_head", "decoder"])
def test_a_patched_cell_equals_the_library_patched_by_a_torch_hook(lib: Library, pair: MinimalPair, kind: str) -> None:
    check_cells(lib, pair, kind)


@pytest.fixture(scope="module")
def uneven(lib: Library) -> MinimalPair:
    return minimal_pair(lib, same_length=False)


@pytest.mark.parametrize("kind", ["cross_head", "decoder"])
def test_sources_of_different_lengths_patch_a_head_and_the_decoder_as_the_library_does(
        lib: Library, uneven: MinimalPair, kind: str) -> None:
    """B one word longer: a head's output and the decoder's stream at the step still patch (a
    decoder-only model's step stands at another position of B's sequence than of A's); a source
    position does not, and is refused with the reason."""
    check_cells(lib, uneven, kind)
    lengths = [len(lib.model.encode_source(sentence).ids) for sentence in (uneven.a, uneven.b)]
    with pytest.raises(InputError, match=rf"A has {lengths[0]} source tokens and B {lengths[1]}: a position of one is "
                                         "not a position of the other"):
        activation_patching(lib.model, uneven.a, uneven.b, uneven.step, "encoder")


# a decoder-only prompt that leaves the model (64 positions) room for fewer than patching's 50 output tokens
LONG_PROMPTS = {"gpt2": "the dog reads a red book and the cat sees the house today and we see",
                "llama": "the dog reads a red book and the cat"}


@pytest.mark.parametrize("lib", [pytest.param(name, marks=HF) for name in DECODER_ONLY], indirect=True)
def test_a_long_prompt_patches_within_the_room_it_leaves_the_model(lib: Library) -> None:
    """A decoder-only model's prompt and output share its positions: A is decoded only as far as
    both prompts leave room for (it failed with "source and output together reach this model's
    limit"), and every cell still equals the library's."""
    a = LONG_PROMPTS[lib.name]
    room = lib.model.config.max_len - len(lib.model.encode_source(a).ids)
    assert room < 50
    pair = minimal_pair(lib, a=a)
    for kind in ("encoder", "cross_head", "decoder"):
        check_cells(lib, pair, kind)
    result = activation_patching(lib.model, pair.a, pair.b, pair.step, "decoder")
    assert len(result.output_a) == room  # these random models write to the limit
    with pytest.raises(InputError, match=rf"step {room} is beyond A's output"):
        activation_patching(lib.model, pair.a, pair.b, room, "decoder")
    # B one word longer leaves one position less: A's output, which every run is fed, stops there too
    longer = minimal_pair(lib, same_length=False, a=a)
    room_b = lib.model.config.max_len - len(lib.model.encode_source(longer.b).ids)
    assert room_b < room
    check_cells(lib, longer, "decoder")
    assert len(activation_patching(lib.model, longer.a, longer.b, longer.step, "decoder").output_a) == room_b


# -- 3. heads that align -------------------------------------------------------------------------------
GLOSSARY = dict(zip(SOURCE_WORDS, "the the the a dog cat house book is was very small big red blue and not "
                                  "reads".split(), strict=True))


@dataclass(frozen=True)
class GoldPair:
    source: list[str]
    target: list[str]
    sure: set[tuple[int, int]]
    possible: set[tuple[int, int]]  # sure ones included


def corpus(folder: Path, count: int = 12) -> tuple[Path, Path, list[GoldPair]]:
    """A user's corpus of word-for-word pairs (source<TAB>target) and its alignment file: links
    i-i, every third one only possible (ipi), a word of each fourth sentence left unaligned."""
    pairs, lines, links = [], [], []
    for n in range(count):
        source = random.Random(n).choices(list(GLOSSARY), k=3 + n % 4)
        target = [GLOSSARY[w] for w in source]
        written, sure, possible = [], set(), set()
        for i in range(len(source)):
            if n % 4 == 0 and i == 1:
                continue
            possible.add((i, i))
            if i % 3 == 2:
                written.append(f"{i}p{i}")
            else:
                written.append(f"{i}-{i}")
                sure.add((i, i))
        pairs.append(GoldPair(source, target, sure, possible))
        lines.append(f"{' '.join(source)}\t{' '.join(target)}")
        links.append(" ".join(written))
    tsv, alignments = folder / "corpus.tsv", folder / "corpus.align"
    tsv.write_text("\n".join(lines) + "\n", encoding="utf-8")
    alignments.write_text("\n".join(links) + "\n", encoding="utf-8")
    return tsv, alignments, pairs


def library_cross_maps(lib: Library, pair: GoldPair) -> list[torch.Tensor]:
    """Per decoder layer, nn.MultiheadAttention's own per-head cross-attention weights (H, T, S)
    of the library's teacher-forced run on the gold target, on the inputs the module received."""
    calls: dict[int, tuple[tuple[Any, ...], dict[str, Any]]] = {}
    modules = [lib.heads_module(layer) for layer in range(len(lib.decoder_layers))]
    handles = [m.register_forward_pre_hook(lambda m, args, kwargs, i=i: calls.__setitem__(i, (args, kwargs)),
                                           with_kwargs=True) for i, m in enumerate(modules)]
    try:
        lib.logits(" ".join(pair.source), pair.target)
    finally:
        for handle in handles:
            handle.remove()
    maps = []
    for i, mha in enumerate(modules):
        args, kwargs = calls[i]
        with torch.no_grad():
            _, weights = mha(*args[:3], attn_mask=kwargs.get("attn_mask"),
                             key_padding_mask=kwargs.get("key_padding_mask"), need_weights=True,
                             average_attn_weights=False)
        maps.append(weights[0])
    return maps


NO_TASK = "this model does not say which task it learned: give its sentence pairs as a TSV file"


def test_a_plain_pytorch_model_with_words_scores_its_heads_as_its_own_maps_count(
        lib: Library, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The sidecar's word vocabularies (sources wrapped in <bos> ... <eos>) are words alignments
    count: every head's accuracy and AER equal a count, written here, of the argmax of
    nn.MultiheadAttention's own weights, one sentence at a time (the core runs them in a padded
    batch), and ``transviz align`` prints them. A Hugging Face model's subword pieces score the same
    file on its words: every gold-linked target word is one step, and the command prints the core's
    numbers."""
    from transviz.cli import main

    tsv, alignments, gold = corpus(tmp_path)
    command = ["align", "--model", str(lib.model.path), "--corpus", str(tsv), "--alignments", str(alignments), "--json"]
    found = alignment_heads(lib.model, gold_pairs(lib.model, str(tsv), str(alignments)))
    assert main(command) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["accuracy"] == found.accuracy.tolist() and printed["aer"] == found.aer.tolist()
    if lib.name != "torch":
        linked = sum(len({t for _, t in pair.possible}) for pair in gold)
        assert (found.sentences, found.steps) == (len(gold), linked)
        assert found.sure_links == sum(len(pair.sure) for pair in gold)
        return
    layers, heads = len(lib.decoder_layers), lib.model.config.n_heads
    hits, a, a_sure, a_possible = (np.zeros((layers, heads)) for _ in range(4))
    steps = sure = 0
    for pair in gold:
        maps = library_cross_maps(lib, pair)
        sure += len(pair.sure)
        for j in range(len(pair.target)):  # the row that writes target word j (the end token's is not scored)
            linked = {i for i, t in pair.possible if t == j}
            steps += bool(linked)
            for layer in range(layers):
                for head in range(heads):
                    i = int(maps[layer][head, j].argmax()) - 1  # column 0 is <bos>
                    if not 0 <= i < len(pair.source):
                        continue  # <bos> or <eos>: no word
                    hits[layer, head] += i in linked
                    a[layer, head] += 1
                    a_sure[layer, head] += (i, j) in pair.sure
                    a_possible[layer, head] += (i, j) in pair.possible
    assert (found.sentences, found.steps, found.sure_links) == (len(gold), steps, sure)
    np.testing.assert_allclose(found.accuracy, hits / steps, atol=1e-12, rtol=0)
    np.testing.assert_allclose(found.aer, 1 - (a_sure + a_possible) / (a + sure), atol=1e-12, rtol=0)
    assert len({float(x) for x in found.accuracy.flat}) > 1  # the heads differ: nothing matched by luck


# -- 4. render --------------------------------------------------------------------------------------
@pytest.mark.parametrize("lib", [pytest.param("marian", marks=HF)], indirect=True)
def test_render_draws_the_lens_and_patching_of_a_folder_and_refuses_alignment_in_one_line(
        lib: Library, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("PySide6")
    from transviz.cli import main

    folder = lib.model.path
    pair = minimal_pair(lib)
    common = ["--model", str(folder), "--size", "800x500"]
    for view, extra in (("lens", ["--step", "2"]), ("patching", ["--compare", pair.b, "--step", str(pair.step)])):
        out = tmp_path / f"{view}.png"
        assert main(["render", pair.a, "--view", view, *extra, *common, "--out", str(out)]) == 0
        assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 5000
    capsys.readouterr()
    out = tmp_path / "alignment.png"
    assert main(["render", pair.a, "--view", "alignment", *common, "--out", str(out)]) == 1
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and not out.exists()
    assert err.endswith(NO_TASK)
