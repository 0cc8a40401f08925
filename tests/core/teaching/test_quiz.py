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


# -- which cell of the decoder's mask is blocked ----------------------------------------------------
def defined_mask(source: int, inputs: int, window: int = 0, stream: str = "") -> np.ndarray:
    """The mask from its definition, (N, N) with rows queries and columns keys: causal over the
    decoder inputs; a decoder-only model's stream (``stream`` "prefix-lm" or "decoder-only") puts
    ``source`` positions first, which never see the inputs and see each other both ways (prefix LM)
    or up to their own; a window keeps keys fewer than ``window`` positions from the query."""
    size = (source if stream else 0) + inputs
    query, key = np.arange(size)[:, None], np.arange(size)[None, :]
    allowed = key <= query
    if stream == "prefix-lm":
        allowed = allowed | ((query < source) & (key < source))
    if window:
        allowed = allowed & (np.abs(query - key) < window)
    return allowed


def decoder_only_variant(**changes: object) -> transviz.Model:
    """The shipped decoder-only sibling (a prefix LM) with ``changes`` to its config, its own weights."""
    import dataclasses

    from transviz.core.model.transformer import Transformer

    shipped = transviz.load_model("decoder-only")
    net = Transformer(dataclasses.replace(shipped.config, **changes))  # type: ignore[arg-type]
    net.load_state_dict(shipped.net.state_dict())
    return transviz.Model(net.eval(), shipped.src_vocab, shipped.tgt_vocab, shipped.facts)


MASK_MODELS = {  # name: (model, stream rule)
    "default": (lambda: transviz.load_model("default"), ""),
    "window": (lambda: transviz.load_model("window"), ""),
    "prefix-lm": (lambda: transviz.load_model("decoder-only"), "prefix-lm"),
    "decoder-only": (lambda: decoder_only_variant(architecture="decoder-only"), "decoder-only"),
    "decoder-only-window": (lambda: decoder_only_variant(architecture="decoder-only", attention_window=3),
                            "decoder-only"),
}


@pytest.mark.parametrize("name", list(MASK_MODELS))
def test_the_mask_question_has_one_blocked_cell_by_the_masks_definition(name) -> None:
    build, stream = MASK_MODELS[name]
    chosen = build()
    window = chosen.config.attention_window
    assert (window > 0) == name.endswith("window") and chosen.config.decoder_only == bool(stream)
    session = DecodingSession(chosen, "ich mochte ein bier trinken")
    source = len(session.source_tokens)
    reasons = set()
    for step in range(6):
        session.step()
        if step == 0 and not stream:
            continue  # refused: the next test
        for seed in range(8):
            question = ask(session, QuizSpec("mask"), seed)
            allowed = defined_mask(source, step + 1, window, stream)
            assert question.ask == "mask" and question.step == step and len(question.cells) == 4
            assert len(set(question.cells)) == 4
            shown = [bool(allowed[r, c]) for r, c in question.cells]
            assert shown.count(False) == 1 and not shown[question.truth]
            assert question.probabilities == tuple(1.0 if s else 0.0 for s in shown)
            names = [*session.source_tokens] * bool(stream) + [session.start_token, *session.output_tokens[:step]]
            assert list(question.tokens) == names
            row, column = question.cells[question.truth]
            assert question.choices[question.truth] == f"{row} {names[row]} -> {column} {names[column]}"
            reason = "source" if row < source <= column and stream else "future" if column > row else "window"
            assert question.blocked_by == reason
            reasons.add(reason)
            result = answer(question, question.truth)
            assert result.correct and result.probability == 0.0
            assert not answer(question, (question.truth + 1) % 4).correct
    expected = {"future"} | ({"window"} if window else set()) | ({"source"} if stream else set())
    assert reasons == expected  # every rule of this model's mask is asked about sooner or later


@pytest.mark.parametrize("name", ["default", "window"])
def test_the_mask_questions_blocked_cell_gets_no_weight_in_the_models_own_pass(name) -> None:
    """The mask the question reads is the one the model attends with: in a forward pass over the
    inputs fed up to the step, the blocked cell has weight 0 in every head, the open cells do not."""
    chosen = transviz.load_model(name)
    session = _stepped(chosen, 6)
    source = chosen.source_tensor(encode_source(chosen, session.source))
    inputs = [chosen.tgt_vocab.bos_id, *chosen.tgt_vocab.encode(" ".join(session.output_tokens[:5])).ids]
    with torch.no_grad():
        maps = torch.stack(chosen.net(source, torch.tensor([inputs]), return_attention=True).attention.decoder_self)
    maps = maps[:, 0].numpy()  # (L, H, T, T)
    blocked_by = set()
    for seed in range(12):
        question = ask(session, QuizSpec("mask"), seed)
        blocked_by.add(question.blocked_by)
        for index, (row, column) in enumerate(question.cells):
            weights = maps[:, :, row, column]
            assert (weights == 0).all() if index == question.truth else (weights > 0).all()
    assert "window" in blocked_by or name == "default"


def test_a_mask_question_is_seeded_by_seed_and_step(model: transviz.Model) -> None:
    session = _stepped(model, 4)
    first = ask(session, QuizSpec("mask"), seed=3)
    assert ask(session, QuizSpec("mask"), seed=3) == first
    again = _stepped(model, 4)
    assert ask(again, QuizSpec("mask"), seed=3) == first
    others = {ask(session, QuizSpec("mask"), seed=s).cells for s in range(10)}
    assert len(others) > 5  # another seed, other cells
    truths = {ask(session, QuizSpec("mask"), seed=s).truth for s in range(20)}
    assert len(truths) > 2  # the blocked cell's number says nothing


def test_the_first_step_has_no_mask_question(model: transviz.Model) -> None:
    session = _stepped(model, 1)
    with pytest.raises(InputError, match="at step 1 the decoder's mask has 0 blocked cells and 1 that may attend.*"
                                         "Ask it from step 2 on"):
        ask(session, QuizSpec("mask"))
    assert QuizSpec.of({"ask": "mask"}) == QuizSpec("mask")


def test_lesson_9_with_its_mask_question_passes_the_check(capsys) -> None:
    from transviz.cli import main
    from transviz.core.io.resources import shipped_lessons
    from transviz.core.teaching.lesson import read

    path = shipped_lessons()["09-inside-a-step"]
    assert any(slide.quiz is not None and slide.quiz.ask == "mask" for slide in read(path).slides)
    assert main(["lesson", "--check", str(path)]) == 0
    assert capsys.readouterr().out.endswith("all fine\n")


def test_a_mask_question_at_a_step_without_one_fails_the_lesson_check(tmp_path) -> None:
    from transviz.core.teaching.lesson import LessonError, read
    from transviz.core.teaching.lesson_run import check

    path = tmp_path / "mask.toml"
    head = 'format = "transviz-lesson"\nversion = 1\ntitle_en = "t"\ntitle_zh = "t"\n[[slide]]\nmodel = "default"\n'
    path.write_text(head + 'sentence = "ich mochte ein bier"\nsteps = 1\ntab = "masks"\nquiz = { ask = "mask" }\n',
                    encoding="utf-8")
    lesson = read(path)
    assert lesson.warnings == ()  # the masks tab is where a mask question is answered
    with pytest.raises(LessonError, match="mask.toml, line 10: at step 1 .* Ask it from step 2 on"):
        check(lesson)
    path.write_text(head + 'sentence = "ich mochte ein bier"\nsteps = 2\nquiz = { ask = "mask" }\n', encoding="utf-8")
    assert len(check(read(path))) == 1
