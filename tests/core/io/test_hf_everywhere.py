"""A Hugging Face MarianMT / BART folder works everywhere a transviz model does (issue 19): the
interventions, teacher forcing, force / back / rewind, sampling, the masks tab's masks, the
walkthrough, render and decode -- each checked against transformers itself, run on the same
tiny random folder (tests/hf_folders.py; nothing is downloaded).

transformers 5 has no head_mask any more, so a silenced head is silenced in the reference by a
pre-hook on its attention's out_proj that zeroes that head's slice of the concatenated heads:
exactly "the head's output is zero"."""
from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

pytest.importorskip("transformers")
pytest.importorskip("sentencepiece")

import transviz
from hf_folders import bart_folder, marian_folder
from transviz.cli import main
from transviz.core.analysis.mask_batch import mask_batch, translate
from transviz.core.analysis.walkthrough import walkthrough
from transviz.core.decoding.interventions import AblateHead, NoPositions, ScaleScores, intervening
from transviz.core.decoding.session import DecodingSession, TeacherForcingSummary
from transviz.core.decoding.strategies import Sampling
from transviz.core.io.hf_vocab import TokenizerVocab
from transviz.core.model.bundle import Model

SOURCE, TARGET = "der hund ist sehr klein und rot.", "er schreibt nicht mit dem buch."
OTHERS = ["ich trinkt das buch.", "wir lesen heute."]
ATOL = 1e-5
MAX_LEN = 10


pytestmark = pytest.mark.hf


@pytest.fixture(scope="module", params=["marian", "bart"])
def pair(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[Model, Any]:
    from transformers import AutoModelForSeq2SeqLM

    build = marian_folder if request.param == "marian" else bart_folder
    folder = build(tmp_path_factory.mktemp(request.param), seed=7, layers=2, heads=4)
    reference = AutoModelForSeq2SeqLM.from_pretrained(folder, local_files_only=True, attn_implementation="eager")
    return transviz.load_model(str(folder)), reference.eval()


# -- helpers: transformers' side, in its own token ids ------------------------------------------
def _vocab(model: Model) -> TokenizerVocab:
    vocab = model.tgt_vocab
    assert isinstance(vocab, TokenizerVocab)
    return vocab


def _theirs(model: Model, tokens: list[str]) -> list[int]:
    vocab = _vocab(model)
    return [vocab.theirs[vocab.stoi[t]] for t in tokens]


def _source_ids(model: Model, source: str) -> torch.Tensor:
    return torch.tensor([_vocab(model).tokenizer(source)["input_ids"]])


def _target_ids(model: Model, target: str) -> list[int]:
    """The gold tokens as transformers' labels: the target's pieces and the end token."""
    tokenizer = model.src_vocab.tokenizer  # type: ignore[attr-defined]
    return list(tokenizer(text_target=target)["input_ids"])


def _forward(reference: Any, source: torch.Tensor, decoder: list[int], **kw: Any) -> Any:
    with torch.no_grad():
        return reference(input_ids=source, decoder_input_ids=torch.tensor([decoder]), output_attentions=True, **kw)


def _generate(reference: Any, source: torch.Tensor, max_new: int, **kw: Any) -> list[int]:
    with torch.no_grad():
        out = reference.generate(source, num_beams=1, do_sample=False, max_new_tokens=max_new,
                                 forced_eos_token_id=None, **kw)
    return list(out[0].tolist())


def _attention(reference: Any, kind: str, layer: int) -> Any:
    stack = reference.model.encoder if kind == "encoder_self" else reference.model.decoder
    return getattr(stack.layers[layer], "encoder_attn" if kind == "cross" else "self_attn")


@contextmanager
def _silenced(reference: Any, kind: str, layer: int, head: int) -> Iterator[None]:
    """transformers with one head's output zeroed: its slice of out_proj's input (the heads side by side)."""
    attention = _attention(reference, kind, layer)
    width = attention.head_dim

    def zero(_: torch.nn.Module, args: tuple[torch.Tensor, ...]) -> tuple[torch.Tensor, ...]:
        heads = args[0].clone()
        heads[..., head * width:(head + 1) * width] = 0.0
        return (heads,)

    handle = attention.out_proj.register_forward_pre_hook(zero)
    try:
        yield
    finally:
        handle.remove()


@contextmanager
def _rescaled(reference: Any, factor: float, kind: str) -> Iterator[None]:
    """transformers with every ``kind`` attention's 1/sqrt(d_k) multiplied by ``factor``."""
    layers = len(reference.model.encoder.layers if kind == "encoder_self" else reference.model.decoder.layers)
    modules = [_attention(reference, kind, layer) for layer in range(layers)]
    saved = [m.scaling for m in modules]
    for m in modules:
        m.scaling *= factor
    try:
        yield
    finally:
        for m, s in zip(modules, saved, strict=True):
            m.scaling = s


@contextmanager
def _unpositioned(reference: Any, side: str) -> Iterator[None]:
    """transformers with zero positions added to the ``side`` stack's inputs."""
    module = getattr(reference.model, side).embed_positions
    handle = module.register_forward_hook(lambda _m, _a, out: torch.zeros_like(out))
    try:
        yield
    finally:
        handle.remove()


# -- 1. interventions ---------------------------------------------------------------------------
def _gold_logits(reference: Any, model: Model, source: str, target: str) -> tuple[list[int], torch.Tensor]:
    """The gold tokens (transformers' ids) and transformers' logits, teacher forced."""
    gold = _target_ids(model, target)
    out = _forward(reference, _source_ids(model, source), [reference.config.decoder_start_token_id, *gold[:-1]])
    return gold, out.logits[0]


def _our_logits(model: Model, intervention: Any, gold: list[int]) -> np.ndarray:
    """transviz's logits with ``intervention``, teacher forced, its columns in transformers' order."""
    vocab = _vocab(model)
    inputs = torch.tensor([[1, *(vocab.ours[i] for i in gold[:-1])]])  # 1: transviz's start token
    with torch.no_grad(), intervening(model, [intervention]):
        logits = model.net(model.source_tensor(model.encode_source(SOURCE)), inputs).logits[0]
    return logits[:, [vocab.ours[i] for i in sorted(vocab.ours)]].numpy()  # every transformers id, in order


def _check_intervention(pair: tuple[Model, Any], intervention: Any, reference_change: Callable[[], Any]) -> None:
    """transviz with ``intervention`` == transformers changed by ``reference_change``: the gold
    tokens' probabilities (teacher forcing) and the greedy output; and the change matters."""
    model, reference = pair
    gold, plain = _gold_logits(reference, model, SOURCE, TARGET)
    with reference_change():
        _, changed = _gold_logits(reference, model, SOURCE, TARGET)
        generated = _generate(reference, _source_ids(model, SOURCE), MAX_LEN)
    expected = torch.softmax(changed, -1)[torch.arange(len(gold)), gold].numpy()
    trace = transviz.teacher_force(model, SOURCE, TARGET, interventions=[intervention])
    np.testing.assert_allclose(trace.output_probabilities, expected, atol=ATOL, rtol=0)
    assert (changed - plain).abs().max() > 1e-2  # the change is seen: not equal by doing nothing
    np.testing.assert_allclose(_our_logits(model, intervention, gold), changed.numpy(), atol=1e-4, rtol=1e-5)
    decoded = transviz.decode(model, SOURCE, "greedy", max_len=MAX_LEN, interventions=[intervention])
    assert [reference.config.decoder_start_token_id, *_theirs(model, decoded.output_tokens)] == generated


@pytest.mark.parametrize("kind", ["encoder_self", "decoder_self", "cross"])
@pytest.mark.parametrize(("layer", "head"), [(0, 1), (1, 3)])
def test_a_zeroed_head_equals_transformers_with_that_head_silenced(pair: tuple[Model, Any], kind: str, layer: int,
                                                                   head: int) -> None:
    _check_intervention(pair, AblateHead(kind, layer, head, mode="zero"),  # type: ignore[arg-type]
                        lambda: _silenced(pair[1], kind, layer, head))


@pytest.mark.parametrize("kind", ["encoder_self", "decoder_self", "cross"])
def test_scaled_scores_equal_transformers_with_its_scaling_changed(pair: tuple[Model, Any], kind: str) -> None:
    _check_intervention(pair, ScaleScores(3.0, kind),  # type: ignore[arg-type]
                        lambda: _rescaled(pair[1], 3.0, kind))


@pytest.mark.parametrize("side", ["encoder", "decoder", "both"])
def test_no_positions_equals_transformers_adding_zero_positions(pair: tuple[Model, Any], side: str) -> None:
    def change() -> ExitStack:
        stack = ExitStack()
        for name in ("encoder", "decoder") if side == "both" else (side,):
            stack.enter_context(_unpositioned(pair[1], name))
        return stack

    _check_intervention(pair, NoPositions(side), change)  # type: ignore[arg-type]


# -- 2. teacher forcing -------------------------------------------------------------------------
def test_teacher_forcing_steps_and_loss_equal_transformers_with_labels(pair: tuple[Model, Any]) -> None:
    """Each step's gold probability is softmax(logits) at the gold token of forward(labels=...),
    and the session's mean loss is transformers' loss: both the mean cross-entropy, in nats, of
    the gold tokens with the end token (transformers' labels are the same tokens)."""
    model, reference = pair
    labels = _target_ids(model, TARGET)
    with torch.no_grad():
        out = reference(input_ids=_source_ids(model, SOURCE), labels=torch.tensor([labels]))
    session = DecodingSession(model, SOURCE, reference=TARGET)
    session.run_to_end()
    assert _theirs(model, session.output_tokens) == labels
    probabilities = torch.softmax(out.logits[0], -1)[torch.arange(len(labels)), labels].numpy()
    gold = [float(r.gold_probability or 0) for r in session.history]
    np.testing.assert_allclose(gold, probabilities, atol=ATOL, rtol=0)
    predicted = out.logits[0].argmax(-1).tolist()
    assert _theirs(model, [r.predicted_token for r in session.history]) == predicted
    summary = TeacherForcingSummary.of(session.history)
    assert summary is not None and summary.matched == sum(p == g for p, g in zip(predicted, labels, strict=True))
    assert summary.mean_loss == pytest.approx(float(out.loss), abs=1e-5)


# -- 3. force, back, rewind ---------------------------------------------------------------------
def _same_records(a: Any, b: Any) -> None:
    assert (a.token_id, a.probability, a.candidates, a.forced) == (b.token_id, b.probability, b.candidates, b.forced)
    np.testing.assert_array_equal(a.self_rows, b.self_rows)
    np.testing.assert_array_equal(a.cross_rows, b.cross_rows)


def test_forcing_then_stepping_equals_generate_from_that_prefix(pair: tuple[Model, Any]) -> None:
    model, reference = pair
    session = DecodingSession(model, SOURCE, top_k=3, max_len=MAX_LEN)
    first = session.step()
    forced = next(c.token for c in first.candidates[1:] if c.token != transviz.core.model.vocab.EOS)
    session.back()
    session.force(forced)
    session.run_to_end()
    start = reference.config.decoder_start_token_id
    prefix = [start, *_theirs(model, [forced])]
    generated = _generate(reference, _source_ids(model, SOURCE), MAX_LEN - 1,
                          decoder_input_ids=torch.tensor([prefix]))
    assert [start, *_theirs(model, session.output_tokens)] == generated
    assert session.history[0].forced and not any(r.forced for r in session.history[1:])
    # its probability is transformers' probability of the forced token after the start token
    out = _forward(reference, _source_ids(model, SOURCE), [start])
    assert session.history[0].probability == pytest.approx(float(torch.softmax(out.logits[0, 0], -1)[prefix[1]]),
                                                           abs=ATOL)


def test_back_and_rewind_then_stepping_reproduce_the_records(pair: tuple[Model, Any]) -> None:
    model, _ = pair
    session = DecodingSession(model, SOURCE, top_k=3, max_len=MAX_LEN)
    session.run_to_end()
    before = session.history
    session.back()
    session.back()
    session.run_to_end()
    session.rewind(1)
    session.run_to_end()
    assert len(session.history) == len(before)
    for old, new in zip(before, session.history, strict=True):
        _same_records(old, new)


# -- 4. sampling --------------------------------------------------------------------------------
@pytest.mark.parametrize(("temperature", "top_k", "top_p"), [(1.0, 0, 1.0), (0.6, 0, 1.0), (1.5, 5, 1.0),
                                                              (1.0, 0, 0.7)])
def test_the_sampling_distribution_is_transformers_logits_warped(pair: tuple[Model, Any], temperature: float,
                                                                  top_k: int, top_p: float) -> None:
    """The distribution a step draws from == softmax of transformers' logits through its own
    temperature / top-k / top-p warpers (one at a time: combined, transviz cuts the nucleus on the
    whole distribution and transformers on the top-k renormalised, as transviz documents), with
    the tokens transviz never draws (<pad>, the start token) left out first."""
    from transformers import TemperatureLogitsWarper, TopKLogitsWarper, TopPLogitsWarper

    model, reference = pair
    size = len(model.tgt_vocab)
    session = DecodingSession(model, SOURCE, Sampling(temperature, top_k, top_p, seed=11), top_k=size, max_len=4)
    start, pad = reference.config.decoder_start_token_id, reference.config.pad_token_id
    source = _source_ids(model, SOURCE)
    while not session.finished:
        prefix = [start, *_theirs(model, session.output_tokens)]
        record = session.step()
        logits = _forward(reference, source, prefix).logits[0, -1:].double()
        logits[0, pad] = -np.inf  # Marian starts with <pad>; BART's start </s> stays a token to draw
        ids = torch.tensor([prefix])
        for warper in (TemperatureLogitsWarper(temperature), TopKLogitsWarper(top_k) if top_k else None,
                       TopPLogitsWarper(top_p) if top_p < 1 else None):
            logits = logits if warper is None else warper(ids, logits)
        expected = torch.softmax(logits[0], -1).numpy()
        assert record.drawn is not None
        drawn = dict(zip(_theirs(model, [c.token for c in record.drawn]), (c.probability for c in record.drawn),
                         strict=True))
        assert set(drawn) == set(np.flatnonzero(expected > 0).tolist())
        np.testing.assert_allclose([drawn[i] for i in sorted(drawn)], expected[sorted(drawn)], atol=1e-6, rtol=0)
        assert record.drawn_probability == pytest.approx(drawn[_theirs(model, [record.token])[0]])


# -- 5. the masks tab and the walkthrough -------------------------------------------------------
def test_the_masks_tabs_padding_mask_is_transformers_attention_mask(pair: tuple[Model, Any]) -> None:
    """Padded source rows: transviz's ids are the tokenizer's padded batch, its padding mask the
    tokenizer's attention_mask, and transformers, given that mask, gives the masked keys weight 0
    in every encoder and cross map; the decoder's combined mask zeroes what transformers' causal
    + decoder_attention_mask zero."""
    model, reference = pair
    sentences = [SOURCE, *OTHERS]
    batch = mask_batch(sentences, "er schreibt", model, translate(model, sentences[1:]))
    assert batch.complete
    tokenizer = _vocab(model).tokenizer
    theirs = model.src_vocab.tokenizer(sentences, padding=True, return_tensors="pt")  # type: ignore[attr-defined]
    mapped = [[_vocab(model).theirs[int(i)] for i in row] for row in batch.source.ids]
    assert mapped == theirs["input_ids"].tolist()
    np.testing.assert_array_equal(batch.source.padding[:, 0, 0, :].numpy(), theirs["attention_mask"].bool().numpy())
    start = reference.config.decoder_start_token_id  # transviz's id 1 is a copy of it
    decoder = torch.tensor([[start if int(i) == 1 else _vocab(model).theirs[int(i)] for i in row]
                            for row in batch.decoder.ids])
    decoder_mask = (decoder != tokenizer.pad_token_id) | (torch.arange(decoder.shape[1]) == 0)  # Marian starts on <pad>
    with torch.no_grad():
        out = reference(input_ids=theirs["input_ids"], attention_mask=theirs["attention_mask"],
                        decoder_input_ids=decoder, decoder_attention_mask=decoder_mask.long(), output_attentions=True)
    keys = batch.source.padding[:, :, 0, :].numpy()  # (B, 1, S): broadcast over heads and queries
    for maps in (*out.encoder_attentions, *out.cross_attentions):
        blocked = ~np.broadcast_to(keys[:, :, None, :], maps.shape)
        assert np.all(maps.numpy()[blocked] == 0) and np.all(maps.numpy()[~blocked] > 0)
    combined = batch.decoder.combined.numpy()  # (B, 1, T, T)
    for maps in out.decoder_attentions:
        blocked = ~np.broadcast_to(combined, maps.shape)
        assert np.all(maps.numpy()[blocked] == 0)
        assert np.all(maps.numpy()[~blocked] > 0)


@pytest.mark.parametrize("kind", ["encoder_self", "decoder_self", "cross"])
def test_the_walkthroughs_softmax_rows_are_transformers_maps(pair: tuple[Model, Any], kind: str) -> None:
    """softmax(QK^T/sqrt(d) + mask), step 4 of the walkthrough, == transformers' attention map of
    that head, for every query row; the masked scores are where transformers puts 0."""
    model, reference = pair
    prefix = "er schreibt nicht"
    decoder = [reference.config.decoder_start_token_id, *_target_ids(model, prefix)[:-1]]
    out = _forward(reference, _source_ids(model, SOURCE), decoder)
    maps = {"encoder_self": out.encoder_attentions, "decoder_self": out.decoder_attentions,
            "cross": out.cross_attentions}[kind]
    for layer, head in ((0, 0), (1, 2)):
        walk = walkthrough(model, SOURCE, prefix, kind, layer, head)  # type: ignore[arg-type]
        expected = maps[layer][0, head].numpy()
        np.testing.assert_allclose(walk.weights, expected, atol=ATOL, rtol=0)
        assert np.all(expected[~walk.mask] == 0)
        # and the steps before it are transformers' own Q and K, scaled by its scaling
        attention = _attention(reference, kind, layer)
        assert walk.scaled == pytest.approx(walk.scores * attention.scaling, abs=1e-5)


# -- 6. render and decode on the command line ---------------------------------------------------
@pytest.fixture(scope="module")
def marian(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    from transformers import AutoModelForSeq2SeqLM

    folder = marian_folder(tmp_path_factory.mktemp("cli"), seed=2)
    return folder, AutoModelForSeq2SeqLM.from_pretrained(folder, local_files_only=True).eval()


def test_decode_on_a_folder_prints_what_generate_writes(marian: tuple[Path, Any],
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    folder, reference = marian
    assert main(["decode", SOURCE, "--model", str(folder), "--max-len", str(MAX_LEN), "--json"]) == 0
    trace = json.loads(capsys.readouterr().out)
    model = transviz.load_model(str(folder))
    generated = _generate(reference, _source_ids(model, SOURCE), MAX_LEN)
    assert [reference.config.decoder_start_token_id, *_theirs(model, trace["output_tokens"])] == generated


@pytest.mark.parametrize("view", ["grid", "masks"])
def test_render_on_a_folder_writes_a_png(marian: tuple[Path, Any], tmp_path: Path, view: str) -> None:
    out = tmp_path / f"{view}.png"
    assert main(["render", SOURCE, "--view", view, "--model", str(marian[0]), "--out", str(out),
                 "--size", "800x500", "--step", "3"]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 5000
