"""Every Hugging Face family transviz reads, against transformers itself: the attention maps and
the probabilities of teacher forcing, greedy decoding and beam search, in the configurations real
checkpoints use (tied and untied tables, one vocabulary or two, pre- and post-norm, scaled and
unscaled embeddings, learned, sine and fairseq positions, unequal depths, sharded weights).

The reference is transformers' own: its tokenizer encodes the target (``text_target``), its model
turns the labels into decoder inputs, and ``generate()`` decodes, told the target language the way
a user tells it (``forced_bos_token_id``) for the many-to-many families. A family's quirk that
transviz reads wrong breaks a test here, not a classroom."""
from __future__ import annotations

import inspect
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

pytest.importorskip("transformers")
pytest.importorskip("sentencepiece")
pytest.importorskip("sacremoses")

import transviz
from hf_folders import bart_folder, fsmt_folder, m2m100_folder, marian_folder, mbart_folder, pegasus_folder, t5_folder
from transviz.core.data.dataset import Pair
from transviz.core.decoding.session import DecodingSession
from transviz.core.decoding.strategies import Beam
from transviz.core.io.checkpoint import describe
from transviz.core.io.hf_vocab import TokenizerVocab
from transviz.core.model.bundle import Model
from transviz.core.training.evaluate import teacher_forced_loss

pytestmark = pytest.mark.hf

SOURCES = ["der hund ist sehr klein und rot.", "ich trinkt das buch.", "wir lesen heute nicht."]
TARGET = "the small dog reads a red book."
ATOL = 1e-5
MAX_NEW = 8
# generate's settings that choose a search, which transviz leaves to its strategy; the folder's
# forced_bos_token_id, forced_eos_token_id and bad_words_ids apply on both sides
NEUTRAL = {"no_repeat_ngram_size": 0, "repetition_penalty": 1.0, "do_sample": False, "num_return_sequences": 1,
           "max_length": None}
# what opus-mt's and bart-large's generation_config.json set (ids read from the folder's config)
OPUS_MT = {"bad_words_ids": [["pad_token_id"]], "forced_eos_token_id": "eos_token_id"}
BART_LARGE = {"forced_bos_token_id": "bos_token_id", "forced_eos_token_id": "eos_token_id"}

CONFIGURATIONS: dict[str, tuple[Callable[..., Path], dict[str, Any]]] = {
    "marian-two-sentencepiece-models": (marian_folder, {"english_target": True, "eos_bias": 1.0}),
    "marian-untied": (marian_folder, {"english_target": True, "tied": False}),
    "marian-opus-mt-generation-config": (marian_folder, {"english_target": True, "eos_bias": -2.0,
                                                         "pad_bias": 2.0, "generation": OPUS_MT}),
    "marian-two-vocabularies": (marian_folder, {"english_target": True, "separate_vocabs": True}),
    "marian-two-vocabularies-untied-uneven": (marian_folder, {"english_target": True, "separate_vocabs": True,
                                                              "tied": False, "layers": 3, "decoder_layers": 1}),
    "bart-untied-scaled": (bart_folder, {"tied": False, "scale": True, "eos_bias": 4.0}),
    "bart-uneven-sharded": (bart_folder, {"layers": 1, "decoder_layers": 3, "shards": True}),
    "bart-large-generation-config": (bart_folder, {"eos_bias": -1.0, "generation": BART_LARGE}),
    "mbart": (mbart_folder, {"eos_bias": 2.0}),
    "mbart-untied-unscaled-uneven": (mbart_folder, {"tied": False, "scale": False, "layers": 3,
                                                    "decoder_layers": 2}),
    "mbart-50": (mbart_folder, {"fifty": True, "eos_bias": 2.0}),
    "pegasus": (pegasus_folder, {"eos_bias": 2.0}),
    "pegasus-untied-uneven": (pegasus_folder, {"tied": False, "layers": 1, "decoder_layers": 2}),
    "m2m100": (m2m100_folder, {}),
    "m2m100-untied-uneven": (m2m100_folder, {"tied": False, "layers": 2, "decoder_layers": 3}),
    "nllb": (m2m100_folder, {"nllb": True}),
    "fsmt": (fsmt_folder, {}),
    "fsmt-tied-uneven": (fsmt_folder, {"tied": True, "layers": 1, "decoder_layers": 2}),
    "t5": (t5_folder, {"eos_bias": 2.0}),
    # even depths: transformers' generate() sizes a T5's cache by its encoder (a test below takes uneven ones)
    "t5-v1.1": (t5_folder, {"gated": True, "tied": False}),
}


@pytest.fixture(scope="module", params=list(CONFIGURATIONS))
def pair(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[Model, Any, Any]:
    """transviz's model, transformers' model and tokenizer, of one folder."""
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    build, options = CONFIGURATIONS[request.param]
    generation = options.get("generation")
    folder = build(tmp_path_factory.mktemp(request.param), seed=7,
                   **{k: v for k, v in options.items() if k != "generation"})
    if generation:
        _set_generation_config(folder, generation)
    reference = AutoModelForSeq2SeqLM.from_pretrained(folder, local_files_only=True, attn_implementation="eager")
    tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    return transviz.load_model(str(folder)), reference.eval(), tokenizer


def _set_generation_config(folder: Path, settings: dict[str, Any]) -> None:
    """Add ``settings`` to the folder's generation_config.json, each id named by its config key."""
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    ids = {key: [[config[name] for name in entry] for entry in value] if isinstance(value, list) else config[value]
           for key, value in settings.items()}
    path = folder / "generation_config.json"
    path.write_text(json.dumps(json.loads(path.read_text(encoding="utf-8")) | ids), encoding="utf-8")


def _labels(tokenizer: Any, folder: Path, text: str) -> list[int]:
    """The target as transformers' training labels (ending in </s>). FSMT's tokenizer encodes
    every text with its source vocabulary: its target pieces are looked up in vocab-tgt.json."""
    if type(tokenizer).__name__ == "FSMTTokenizer":
        table = json.loads((folder / "vocab-tgt.json").read_text(encoding="utf-8"))
        return [table.get(piece, table["<unk>"]) for piece in tokenizer.tokenize(text)] + [table["</s>"]]
    return list(tokenizer(text_target=text)["input_ids"])


def _shifted(reference: Any, labels: list[int]) -> torch.Tensor:
    """The decoder's inputs for ``labels``, by the model's own module's shift_tokens_right (mBART's
    and FSMT's move the last token to the front; the others put decoder_start_token_id there); T5's
    model shifts them itself."""
    if hasattr(reference, "_shift_right"):
        return reference._shift_right(torch.tensor([labels]))
    shift = sys.modules[type(reference).__module__].shift_tokens_right
    config = reference.config
    starts = (config.decoder_start_token_id,) if len(inspect.signature(shift).parameters) == 3 else ()
    return shift(torch.tensor([labels]), config.pad_token_id, *starts)


def _forward(reference: Any, source_ids: list[int], decoder_ids: torch.Tensor) -> Any:
    """transformers' teacher-forced pass. use_cache=False: FSMT leaves out its causal mask otherwise
    (it expects to be fed one token at a time then)."""
    return reference(input_ids=torch.tensor([source_ids]), decoder_input_ids=decoder_ids, output_attentions=True,
                     use_cache=False)


def _theirs(model: Model, tokens: tuple[str, ...] | list[str]) -> list[int]:
    vocab = model.tgt_vocab
    assert isinstance(vocab, TokenizerVocab)
    return [vocab.theirs[vocab.stoi[t]] for t in tokens]


def _stacked(maps: tuple[torch.Tensor, ...], rows: int) -> np.ndarray:
    return torch.stack([m[0, :, :rows] for m in maps]).numpy()  # (layers, heads, query, key)


def _language(tokenizer: Any) -> dict[str, int]:
    """What a user passes to generate() for a many-to-many model: the target language's token
    (nothing for the others: their folder's generation config applies)."""
    language = getattr(tokenizer, "tgt_lang", None)
    if type(tokenizer).__name__ in ("M2M100Tokenizer", "MBart50Tokenizer", "NllbTokenizer"):
        return {"forced_bos_token_id": tokenizer.convert_tokens_to_ids(tokenizer.lang_code_to_token[language])
                if hasattr(tokenizer, "lang_code_to_token") else tokenizer.convert_tokens_to_ids(language)}
    return {}


@pytest.mark.parametrize("source", SOURCES[:2])
def test_teacher_forced_maps_and_probabilities_equal_transformers(pair: tuple[Model, Any, Any], source: str) -> None:
    model, reference, tokenizer = pair
    labels = _labels(tokenizer, Path(model.path or ""), TARGET)
    source_ids = list(tokenizer(source)["input_ids"])
    with torch.no_grad():
        out = _forward(reference, source_ids, _shifted(reference, labels))
    trace = transviz.teacher_force(model, source, TARGET)
    rows = len(trace.output_tokens)  # the target and its end; mBART's labels add the language after
    assert [*_theirs(model, trace.output_tokens[:-1]), reference.config.eos_token_id] == labels[:rows]
    config = reference.config  # T5 names its depths num_layers and num_decoder_layers
    assert trace.encoder_self_attention.shape[0] == (getattr(config, "encoder_layers", None) or config.num_layers)
    assert trace.cross_attention.shape[0] == (getattr(config, "decoder_layers", None) or config.num_decoder_layers)
    np.testing.assert_allclose(trace.encoder_self_attention, _stacked(out.encoder_attentions, len(source_ids)),
                               atol=ATOL, rtol=0)
    decoder_self = torch.stack([m[0, :, :rows, :rows] for m in out.decoder_attentions]).numpy()
    np.testing.assert_allclose(trace.decoder_self_attention, decoder_self, atol=ATOL, rtol=0)
    np.testing.assert_allclose(trace.cross_attention, _stacked(out.cross_attentions, rows), atol=ATOL, rtol=0)
    probabilities = torch.softmax(out.logits[0, :rows], -1)[torch.arange(rows), labels[:rows]].numpy()
    np.testing.assert_allclose(trace.output_probabilities, probabilities, atol=ATOL, rtol=0)


def test_a_t5_of_uneven_depths_draws_transformers_maps(tmp_path: Path) -> None:
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    folder = t5_folder(tmp_path / "t5", seed=3, gated=True, layers=1, decoder_layers=3)
    model = transviz.load_model(str(folder))
    reference = AutoModelForSeq2SeqLM.from_pretrained(folder, local_files_only=True, attn_implementation="eager")
    tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    labels = _labels(tokenizer, folder, TARGET)
    with torch.no_grad():
        out = _forward(reference.eval(), list(tokenizer(SOURCES[0])["input_ids"]), _shifted(reference, labels))
    trace = transviz.teacher_force(model, SOURCES[0], TARGET)
    rows = len(trace.output_tokens)
    assert trace.encoder_self_attention.shape[0] == 1 and trace.cross_attention.shape[0] == 3
    np.testing.assert_allclose(trace.cross_attention, _stacked(out.cross_attentions, rows), atol=ATOL, rtol=0)
    decoder_self = torch.stack([m[0, :, :rows, :rows] for m in out.decoder_attentions]).numpy()
    np.testing.assert_allclose(trace.decoder_self_attention, decoder_self, atol=ATOL, rtol=0)


def _generate(reference: Any, tokenizer: Any, source: str, beams: int) -> list[int]:
    with torch.no_grad():
        out = reference.generate(torch.tensor([tokenizer(source)["input_ids"]]), num_beams=beams,
                                 length_penalty=1.0, early_stopping=False, max_new_tokens=MAX_NEW, **NEUTRAL,
                                 **_language(tokenizer))
    return list(out[0].tolist())


@pytest.mark.parametrize("source", SOURCES)
def test_greedy_and_beam_equal_generate(pair: tuple[Model, Any, Any], source: str) -> None:
    model, reference, tokenizer = pair
    start = reference.generation_config.decoder_start_token_id
    for beams, strategy in ((1, "greedy"), (3, Beam(3, rule="hf", length_penalty=1.0, early_stopping=False))):
        generated = _generate(reference, tokenizer, source, beams)
        trace = transviz.decode(model, source, strategy, max_len=MAX_NEW)
        assert [start, *_theirs(model, trace.output_tokens)] == generated, beams
    # the maps greedy decoding drew step by step are transformers' over what it wrote
    greedy = _generate(reference, tokenizer, source, 1)
    trace = transviz.decode(model, source, "greedy", max_len=MAX_NEW)
    with torch.no_grad():
        out = _forward(reference, tokenizer(source)["input_ids"], torch.tensor([greedy[:-1]]))
    rows = len(greedy) - 1
    np.testing.assert_allclose(trace.decoder_self_attention,
                               torch.stack([m[0] for m in out.decoder_attentions]).numpy()[:, :, :rows, :rows],
                               atol=ATOL, rtol=0)
    np.testing.assert_allclose(trace.cross_attention, _stacked(out.cross_attentions, rows), atol=ATOL, rtol=0)


def test_the_decoders_first_input_is_named_as_the_model_names_it(pair: tuple[Model, Any, Any]) -> None:
    """Marian starts with <pad>, BART and M2M100 with </s>, mBART with the target language: the
    explorer's first chip and the decoder-input axis show that token, not transviz's <s>."""
    model, reference, tokenizer = pair
    start = reference.generation_config.decoder_start_token_id
    named = tokenizer.convert_ids_to_tokens(start)  # FSMT's names every id from its target vocabulary
    assert model.tgt_vocab.start_token == named
    session = DecodingSession(model, SOURCES[0])
    session.step()
    assert session.target_tokens == [named] and session.trace().target_tokens == [named]


def test_the_many_to_many_families_write_the_target_language_first(pair: tuple[Model, Any, Any]) -> None:
    """mBART-50 and M2M100 are told the target language (generate's forced_bos_token_id): transviz
    writes it first in every strategy, a step that is neither the strategy's nor the user's; the
    others force nothing."""
    model, reference, tokenizer = pair
    forced = _language(tokenizer).get("forced_bos_token_id", reference.generation_config.forced_bos_token_id)
    vocab = model.tgt_vocab
    assert isinstance(vocab, TokenizerVocab)
    assert [vocab.theirs[i] for i in model.generation.forced_prefix] == ([forced] if forced is not None else [])
    if forced is not None:
        session = DecodingSession(model, SOURCES[0], strategy=Beam(2))
        first = session.step()
        assert first.prescribed and not first.forced and vocab.theirs[first.token_id] == forced
        assert session.beam_history[-1].best.score == 0.0  # it adds nothing to the score
        assert not session.step().prescribed


def test_a_corpus_pair_is_split_as_a_target_and_scored_as_transformers_scores_it(pair: tuple[Model, Any, Any]) -> None:
    """A TSV corpus's pair goes through the same vocabularies: its loss (what validation reports)
    is transformers' cross-entropy of the labels, on the rows both feed (mBART's labels end with
    the language code after </s>, which transviz never predicts)."""
    model, reference, tokenizer = pair
    labels = _labels(tokenizer, Path(model.path or ""), TARGET)
    rows = len(model.tgt_vocab.encode(TARGET).ids) + 1  # the target and its end
    with torch.no_grad():
        out = _forward(reference, list(tokenizer(SOURCES[0])["input_ids"]), _shifted(reference, labels))
    expected = torch.nn.functional.cross_entropy(out.logits[0, :rows], torch.tensor(labels[:rows]))
    assert teacher_forced_loss(model, [Pair(SOURCES[0], TARGET)]) == pytest.approx(float(expected), abs=1e-5)


def test_the_rules_in_force_are_listed_and_the_search_settings_left_to_the_strategy(tmp_path: Path) -> None:
    """Model > Info and `transviz info` say what decoding applies of the generation config, and
    the model's facts what it leaves to the strategy box."""
    folder = marian_folder(tmp_path / "m", english_target=True)
    _set_generation_config(folder, OPUS_MT)
    settings = json.loads((folder / "generation_config.json").read_text(encoding="utf-8"))
    (folder / "generation_config.json").write_text(json.dumps(settings | {"num_beams": 4, "bad_words_ids": [
        *settings["bad_words_ids"], [5, 6]]}), encoding="utf-8")
    model = transviz.load_model(str(folder))
    lines = describe(model).splitlines()
    assert "generation: never writes <pad>" in lines
    assert "generation: writes </s> at the length limit" in lines
    assert model.facts["generation_not_applied"] == {"num_beams": 4, "bad_words_ids": [[5, 6]]}
    assert not any(line.startswith("generation:") for line in describe(transviz.load_model("default")).splitlines())
