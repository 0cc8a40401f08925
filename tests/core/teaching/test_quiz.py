"""Quiz scoring: questions built from a session's step, checked against the model's own
forward pass and transviz.decode's maps, computed separately."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import transviz
from transviz.core.base.errors import InputError
from transviz.core.decoding.session import DecodingSession, encode_source
from transviz.core.teaching.quiz import QuizSpec, Score, answer, ask, shuffled_order, token_question

SENTENCE = "ich mochte ein bier"


@pytest.fixture(scope="module")
def model() -> transviz.Model:
    return transviz.load_model("default")


def next_token_probabilities(model: transviz.Model, inputs: list[str]) -> np.ndarray:
    """softmax of the full forward pass's logits at the last input: the reference distribution."""
    ids = [model.tgt_vocab.bos_id] + model.tgt_vocab.encode(" ".join(inputs[1:])).ids if len(inputs) > 1 \
        else [model.tgt_vocab.bos_id]
    source = model.source_tensor(encode_source(model, SENTENCE))
    with torch.no_grad():
        logits = model.net(source, torch.tensor([ids], device=model.device)).logits
    return torch.softmax(logits[0, -1].double(), dim=-1).cpu().numpy()


def test_token_question_truth_and_probability_match_the_softmax(model: transviz.Model) -> None:
    trace = transviz.decode(model, SENTENCE)
    session = DecodingSession(model, SENTENCE, top_k=6)
    score = Score()
    for step in range(3):
        session.step()
        question = ask(session, QuizSpec("token"), seed=7)
        assert question is not None
        p = next_token_probabilities(model, trace.target_tokens[:step + 1])
        assert question.truth_text == model.tgt_vocab.tokens_of([int(p.argmax())])[0]
        top = set(model.tgt_vocab.tokens_of(np.argsort(-p)[:6].tolist()))
        assert set(question.choices) == top  # the top six, no others
        wrong = next(i for i in range(len(question.choices)) if i != question.truth)
        choice = question.truth if step != 1 else wrong  # right, wrong, right
        result = answer(question, choice)
        chosen_id = model.tgt_vocab.encode(question.choices[choice]).ids[0]
        assert result.probability == pytest.approx(p[chosen_id], abs=1e-5)
        assert result.correct == (choice == question.truth)
        score = score.after(result)
    assert (score.right, score.asked) == (2, 3)


def test_shuffled_order_is_a_seeded_permutation_that_hides_the_rank() -> None:
    assert shuffled_order(6, 3, 1) == shuffled_order(6, 3, 1)
    orders = [shuffled_order(6, seed, step) for seed in range(20) for step in range(5)]
    assert all(sorted(order) == list(range(6)) for order in orders)
    places_of_best = {order.index(0) for order in orders}  # where the most probable candidate is shown
    assert places_of_best == set(range(6))
    assert len({tuple(order) for order in orders}) > 50


def test_token_question_choices_are_not_ranked(model: transviz.Model) -> None:
    session = DecodingSession(model, SENTENCE, top_k=6)
    record = session.step()
    truths = {token_question(record, seed).truth for seed in range(30)}
    assert len(truths) > 3  # the true token moves about from seed to seed


@pytest.mark.parametrize("kind", ["cross", "decoder_self"])
def test_where_question_weights_are_the_heads_row(model: transviz.Model, kind: str) -> None:
    trace = transviz.decode(model, SENTENCE)
    session = DecodingSession(model, SENTENCE)
    spec = QuizSpec.of({"ask": "where", "kind": kind, "layer": 1, "head": 2})
    for step in range(3):
        session.step()
        question = ask(session, spec)
        assert question is not None
        if kind == "cross":
            row, keys = trace.cross_attention[1, 2, step], trace.source_tokens
        else:
            row, keys = trace.decoder_self_attention[1, 2, step, :step + 1], trace.target_tokens[:step + 1]
        np.testing.assert_allclose(question.probabilities, row, atol=1e-5)
        assert list(question.choices) == list(keys)
        assert question.truth == int(np.argmax(row))
        clicked = (question.truth + 1) % len(keys)
        result = answer(question, clicked)
        assert result.probability == pytest.approx(float(row[clicked]), abs=1e-5)
        assert result.correct == (clicked == question.truth)


def test_spec_from_a_lesson_table() -> None:
    assert QuizSpec.of({"ask": "token"}) == QuizSpec("token")
    assert QuizSpec.of({"ask": "where", "kind": "cross", "layer": 0, "head": 1}) == QuizSpec("where", "cross", 0, 1)
    for bad in ({"ask": "why"}, {"ask": "where", "kind": "encoder_self"}, {"ask": "where", "head": -1},
                {"ask": "token", "colour": "red"}):
        with pytest.raises(InputError):
            QuizSpec.of(bad)


def test_where_a_head_the_model_lacks_is_refused(model: transviz.Model) -> None:
    session = DecodingSession(model, SENTENCE)
    session.step()
    with pytest.raises(InputError):
        ask(session, QuizSpec("where", "cross", 0, 99))


def test_no_question_before_the_first_step(model: transviz.Model) -> None:
    assert ask(DecodingSession(model, SENTENCE), QuizSpec()) is None


# -- questions on the model's inside, answered from it ---------------------------------------------
def _stepped(model: transviz.Model, steps: int, sentence: str = "ich mochte ein bier trinken") -> DecodingSession:
    session = DecodingSession(model, sentence)
    for _ in range(steps):
        session.step()
    return session


def test_the_layer_question_asks_where_each_layers_stream_settles_on_the_written_token(model) -> None:
    session = _stepped(model, 4)
    question = ask(session, QuizSpec("layer"))
    written = session.output_tokens[-1]
    outputs = []  # the reference: each decoder layer's output through the final norm and output layer
    handles = [layer.register_forward_hook(lambda m, i, out: outputs.append(out.x[0, -1]))
               for layer in model.net.decoder_layers]
    source = model.source_tensor(encode_source(model, session.source))
    inputs = [model.tgt_vocab.bos_id, *model.tgt_vocab.encode(" ".join(session.target_tokens[1:])).ids]
    try:
        with torch.no_grad():
            model.net(source, torch.tensor([inputs]))
            tops = [model.tgt_vocab.itos[int(model.net.generator(model.net.decoder_norm(x)).argmax())]
                    for x in outputs]
    finally:
        for handle in handles:
            handle.remove()
    expected = next(i for i in range(len(tops)) if all(t == written for t in tops[i:]))
    assert question.ask == "layer" and question.truth == expected
    assert question.choices == tuple(str(i) for i in range(model.config.n_decoder_layers))
    assert answer(question, expected).correct and not answer(question, (expected + 1) % len(tops)).correct


@pytest.mark.parametrize(("name", "kind", "sums"), [("default", "cross", True), ("default", "decoder_self", True),
                                                    ("decoder-only", "cross", False),
                                                    ("decoder-only", "decoder_self", False)])
def test_the_sums_question_is_answered_by_the_rows_own_sum(name, kind, sums) -> None:
    chosen = transviz.load_model(name)
    session = _stepped(chosen, 3)
    question = ask(session, QuizSpec("sums", kind, 1, 2))
    trace = transviz.decode(chosen, session.source, max_len=3)
    maps = trace.cross_attention if kind == "cross" else trace.decoder_self_attention
    total = float(maps[1, 2, 2].sum())  # the third step's row of layer 1, head 2
    assert question.probabilities[0] == pytest.approx(total, abs=1e-5)
    assert question.truth_text == ("yes" if sums else "no") and (abs(total - 1) < 1e-4) == sums


def test_the_aligns_question_names_the_layers_best_aligning_head(model) -> None:
    from transviz.core.analysis.alignment_heads import alignment_heads, gold_pairs

    session = _stepped(model, 1)
    question = ask(session, QuizSpec("aligns", layer=2))
    scores = alignment_heads(model, gold_pairs(model)).accuracy[2]
    assert question.choices == tuple(str(h) for h in range(model.config.n_heads))
    assert question.truth == int(np.argmax(scores)) and question.probabilities == pytest.approx(tuple(scores))
    with pytest.raises(InputError, match="there is no layer 5"):
        ask(session, QuizSpec("aligns", layer=5))


def test_a_sampled_token_no_layer_ranks_first_is_no_layer_question(model) -> None:
    session = DecodingSession(model, "ich mochte ein bier")
    session.force("beer")  # no layer ranks it first at the first step
    with pytest.raises(InputError, match="no layer ranks 'beer' first"):
        ask(session, QuizSpec("layer"))


@pytest.mark.parametrize(("name", "kind"), [("default", "cross"), ("default", "decoder_self"),
                                            ("default", "encoder_self"), ("decoder-only", "cross")])
def test_the_queries_question_reads_which_side_the_model_projects_queries_from(name, kind) -> None:
    chosen = transviz.load_model(name)
    session = _stepped(chosen, 2)
    question = ask(session, QuizSpec("queries", kind))
    # the reference: the rows attention hands W_O in the first layer, seen by a plain torch hook
    layer = chosen.net.encoder_layers[0] if kind == "encoder_self" else chosen.net.decoder_layers[0]
    module = layer.cross_attn if kind == "cross" and not chosen.config.decoder_only else layer.self_attn
    rows = []
    handle = module.out_proj.register_forward_pre_hook(lambda m, args: rows.append(args[0].shape[1]))
    source = chosen.source_tensor(encode_source(chosen, session.source))  # 4 source tokens
    target = torch.tensor([[chosen.tgt_vocab.bos_id, *chosen.tgt_vocab.encode("i want").ids]])  # 3 inputs
    try:
        with torch.no_grad():
            chosen.net(source, target)
    finally:
        handle.remove()
    seen = rows[0] if kind == "encoder_self" else rows[-1]  # a decoder-only layer runs the source, then the output
    side = "output" if seen == target.shape[1] else "source"
    assert seen in (source.shape[1], target.shape[1]) and side == ("source" if kind == "encoder_self" else "output")
    assert question.choices == ("source", "output") and question.truth_text == side


def test_a_queries_question_names_its_kind_in_a_lesson() -> None:
    from transviz.core.teaching.lesson import LessonError, loads

    head = 'format = "transviz-lesson"\nversion = 1\ntitle_en = "t"\ntitle_zh = "t"\n[[slide]]\nmodel = "default"\n'
    with pytest.raises(LessonError, match="names the attention kind"):
        loads(head + 'sentence = "ich mochte ein bier"\nquiz = { ask = "queries" }\n')
    slide = loads(head + 'sentence = "ich mochte ein bier"\nquiz = { ask = "queries", kind = "cross" }\n').slides[0]
    assert slide.quiz.ask == "queries" and slide.quiz.kind == "cross"
