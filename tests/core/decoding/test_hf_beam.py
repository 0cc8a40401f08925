"""Beam(rule="hf"): transviz's step-through beam search following Hugging Face's rule, checked
against transformers' own ``generate(num_beams=k, length_penalty=..., early_stopping=...)`` on tiny
random Marian and BART models built here (nothing is downloaded)."""
from __future__ import annotations

from typing import Any

import pytest
import torch

pytest.importorskip("transformers")
pytest.importorskip("sentencepiece")

import transviz
from decoding_models import SOURCE, tiny_model
from hf_folders import bart_folder, marian_folder
from transviz.core.decoding.beam import BeamStep
from transviz.core.decoding.session import DecodingSession
from transviz.core.decoding.strategies import Beam
from transviz.core.io.hf_vocab import TokenizerVocab
from transviz.core.model.bundle import Model
from transviz.core.teaching import lesson
from transviz.core.teaching.lesson import Lesson, Slide

SOURCES = ["ich trinkt das buch.", "der hund ist sehr klein und rot.", "wir lesen heute xq.", "sie ist gut.",
           "ein alt haus mit katze.", "er isst nicht morgen.", "wir und sie."]
MAX_NEW = 10
# generate's settings that would change its search, set to "off" here (the tiny folders' generation
# configs hold none of them, and transviz has no such processors): so both sides search the same way
NEUTRAL = {"forced_eos_token_id": None, "forced_bos_token_id": None, "bad_words_ids": None,
           "no_repeat_ngram_size": 0, "repetition_penalty": 1.0, "do_sample": False,
           "num_return_sequences": 1}


pytestmark = pytest.mark.hf


@pytest.fixture(scope="module", params=[("marian", 1.0), ("bart", 6.0)])
def ending(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[Model, Any]:
    """A model whose outputs end at different lengths (</s> raised), some only at the limit."""
    from transformers import AutoModelForSeq2SeqLM

    kind, eos_bias = request.param
    build = marian_folder if kind == "marian" else bart_folder
    folder = build(tmp_path_factory.mktemp(kind), seed=5, eos_bias=eos_bias)
    reference = AutoModelForSeq2SeqLM.from_pretrained(folder, local_files_only=True).eval()
    return transviz.load_model(str(folder)), reference


def _hf_ids(model: Model, tokens: tuple[str, ...]) -> list[int]:
    vocab = model.tgt_vocab
    assert isinstance(vocab, TokenizerVocab)
    return [vocab.theirs[vocab.stoi[t]] for t in tokens]


def _generate(reference: Any, model: Model, source: str, strategy: Beam) -> tuple[list[int], float]:
    tokenizer = model.src_vocab.tokenizer  # type: ignore[attr-defined]
    with torch.no_grad():
        out = reference.generate(torch.tensor([tokenizer(source)["input_ids"]]), num_beams=strategy.width,
                                 length_penalty=strategy.length_penalty, early_stopping=strategy.early_stopping,
                                 max_new_tokens=MAX_NEW, output_scores=True, return_dict_in_generate=True, **NEUTRAL)
    return out.sequences[0].tolist(), float(out.sequences_scores[0])


def _check_beam(step: BeamStep, width: int) -> None:
    """The invariants of an hf beam: the ended list best first by normalised score, at most
    ``width`` of it and of the live ones, the live ones by summed score, none ended among them."""
    ended, live = step.hypotheses[: step.kept], [step.hypotheses[i] for i in step.live]
    assert len(ended) <= width and len(live) <= width and len(ended) + len(live) == len(step.hypotheses)
    assert [h.normalized_score for h in ended] == sorted((h.normalized_score for h in ended), reverse=True)
    assert [h.score for h in live] == sorted((h.score for h in live), reverse=True)
    assert not any(h.finished for h in live)


@pytest.mark.parametrize("width", [2, 3, 4])
@pytest.mark.parametrize("length_penalty", [0.6, 1.0, 2.0])
@pytest.mark.parametrize("early_stopping", [True, False, "never"])
def test_hf_rule_equals_generate(ending: tuple[Model, Any], width: int, length_penalty: float,
                                 early_stopping: bool | str) -> None:
    model, reference = ending
    strategy = Beam(width, length_penalty, rule="hf", early_stopping=early_stopping)
    start = reference.config.decoder_start_token_id
    lengths = set()
    for source in SOURCES:
        expected, expected_score = _generate(reference, model, source, strategy)
        session = DecodingSession(model, source, strategy, max_len=MAX_NEW)
        session.run_to_end()
        best = session.beam_history[-1].best
        assert [start, *_hf_ids(model, best.tokens)] == expected, source
        # generate's sequence score: summed log-probability / generated length ** penalty, by formula
        assert best.score / len(best.tokens) ** length_penalty == pytest.approx(expected_score, abs=1e-4)
        assert best.normalized_score == pytest.approx(expected_score, abs=1e-4)
        assert session.trace().output_tokens == list(best.tokens)
        for step in session.beam_history[1:]:
            _check_beam(step, width)
        lengths.add(len(expected))
    # outputs of different lengths (a penalty of 2 favours long ones so much that all may run to the limit)
    assert len(lengths) > 1 or length_penalty >= 2.0


def test_the_rules_differ_somewhere(ending: tuple[Model, Any]) -> None:
    """The hf option is not the transviz rule in disguise: with a length penalty some sentence
    differs (the README's old note: 3 to 8 of 8 agreed)."""
    model, _ = ending
    differs = 0
    for source in SOURCES:
        for width, penalty in ((2, 1.0), (4, 1.0), (4, 2.0)):
            ours = transviz.decode(model, source, Beam(width, penalty), max_len=MAX_NEW).output_tokens
            for early_stopping in (True, False):
                hf = Beam(width, penalty, rule="hf", early_stopping=early_stopping)
                differs += ours != transviz.decode(model, source, hf, max_len=MAX_NEW).output_tokens
    assert differs > 0


def _snapshot(session: DecodingSession) -> list[tuple[int, tuple[tuple[tuple[int, ...], float, int | None], ...]]]:
    return [(b.kept, tuple((h.token_ids, h.score, h.parent) for h in b.hypotheses)) for b in session.beam_history]


def test_back_rewind_and_force_keep_the_records_coherent(ending: tuple[Model, Any]) -> None:
    model, reference = ending
    strategy = Beam(3, 1.0, rule="hf", early_stopping=False)
    source = SOURCES[1]
    session = DecodingSession(model, source, strategy, max_len=MAX_NEW)
    session.run_to_end()
    full = _snapshot(session)
    # back and rewind return to the same beams, and stepping again rebuilds them bit for bit
    session.back()
    assert _snapshot(session) == full[:-1]
    session.rewind(2)
    assert _snapshot(session) == full[:3] and session.position == 2
    session.run_to_end()
    assert _snapshot(session) == full
    # every hypothesis extends its parent in the beam before by one token, or is an ended one kept
    for before, after in zip(session.beam_history, session.beam_history[1:], strict=False):
        for h in after.hypotheses:
            parent = before.hypotheses[h.parent]  # type: ignore[index]  # never None after the start
            assert h.token_ids[:-1] == parent.token_ids or h.token_ids == parent.token_ids
            assert h.token_ids != parent.token_ids or h in after.hypotheses[: after.kept]
    for record, step, before in zip(session.history, session.beam_history[1:], session.beam_history, strict=False):
        assert record.beam is step and record.path in {h.node for h in step.hypotheses}
        assert record.path.previous in {h.node for h in before.hypotheses}
    # force: the beam restarts from the forced path, with no ended list, and the search goes on from it
    session.rewind(1)
    word = next(c.token for c in session.history[0].candidates if c.token not in ("</s>", session.history[0].token))
    session.force(word)
    assert session.beam is not None and len(session.beam.hypotheses) == 1 and session.beam.kept == 0
    assert session.output_tokens[-1] == word and session.history[-1].forced
    session.run_to_end()
    assert session.output_tokens[1] == word or session.beam_history[-1].best.finished
    for step in session.beam_history[3:]:  # the beams the search grew again after the forced step 2
        _check_beam(step, 3)
    # and going back before the forced step and running on is generate's answer again
    session.rewind(0)
    session.run_to_end()
    expected, _ = _generate(reference, model, source, strategy)
    assert [reference.config.decoder_start_token_id, *_hf_ids(model, session.beam_history[-1].best.tokens)] == expected


def test_switching_rules_mid_search_carries_the_ended_hypotheses(ending: tuple[Model, Any]) -> None:
    model, _ = ending
    for source in SOURCES:
        session = DecodingSession(model, source, Beam(4, 1.0), max_len=MAX_NEW)
        while session.cant_step() is None and not any(h.finished for h in session.beam_history[-1].hypotheses):
            session.step()
        if session.cant_step() is not None:
            continue
        ended = {h.token_ids for h in session.beam_history[-1].hypotheses if h.finished}
        session.set_strategy(Beam(4, 1.0, rule="hf"))
        session.step()
        step = session.beam_history[-1]
        # an ended one leaves the list only for a better ended one
        assert ended <= {h.token_ids for h in step.hypotheses[: step.kept]} or step.kept == 4
        return
    pytest.skip("no sentence had an ended hypothesis before the limit")


def test_settings_check_and_round_trip_through_a_lesson() -> None:
    with pytest.raises(transviz.ConfigError, match="beam rule"):
        Beam(rule="fairseq")
    for bad in (1, "always", None):
        with pytest.raises(transviz.ConfigError, match="early_stopping"):
            Beam(rule="hf", early_stopping=bad)  # type: ignore[arg-type]
    slides = tuple(Slide("default", "ich möchte ein bier", strategy=s)
                   for s in (Beam(3, 0.6, rule="hf", early_stopping="never"), Beam(2, 1.0, rule="hf",
                                                                                  early_stopping=True), Beam(3, 0.0)))
    text = lesson.dumps(Lesson(slides, "T"))
    assert lesson.loads(text) == Lesson(slides, "T")
    # a transviz-rule beam is written as before these settings existed
    assert text.count("rule =") == 2 and text.count("early_stopping =") == 2


def test_an_hf_rule_session_steps_on_a_transviz_model() -> None:
    """Not only Hugging Face folders: the rule is a search, any model can use it."""
    session = DecodingSession(tiny_model(), SOURCE, Beam(3, 1.0, rule="hf"), max_len=12)
    session.run_to_end()
    assert session.finished and session.beam_history[-1].best.tokens
    for step in session.beam_history[1:]:
        _check_beam(step, 3)
