"""DecodingSession on tiny real models, against full-recomputation references (decoding_models)."""
import numpy as np
import pytest

import transviz
from decoding_models import SOURCE, forward, greedy_reference, one_thread, tiny_model  # noqa: F401 (autouse)
from transviz.core.decoding.session import DecodingSession, StepRecord
from transviz.core.decoding.strategies import Beam, Greedy, Sampling


@pytest.fixture(scope="module")
def model():
    return tiny_model()


def assert_same_record(a: StepRecord, b: StepRecord) -> None:
    """Every field, bit for bit."""
    for name in ("index", "token", "token_id", "probability", "forced", "candidates", "entropy", "stop",
                 "predicted_token", "strategy", "gold_token", "gold_probability", "beam"):
        assert getattr(a, name) == getattr(b, name), name
    for name in ("self_rows", "cross_rows"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert np.array_equal(a.decoder_self_attention(), b.decoder_self_attention())
    assert np.array_equal(a.cross_attention(), b.cross_attention())


def test_greedy_session_equals_recomputation_and_teacher_forcing(model):
    session = DecodingSession(model, SOURCE, top_k=4, max_len=12)
    records = session.run_to_end()
    ids = [r.token_id for r in records]
    assert ids == greedy_reference(model, SOURCE, 12)
    assert session.position == len(records) and session.finished
    assert session.stop_reason == ("end" if ids[-1] == model.tgt_vocab.eos_id else "max_len") == records[-1].stop
    assert all(r.stop is None for r in records[:-1])

    # teacher forcing: one full forward pass over the session's output, no cache, no session
    T = len(ids)
    translation = model.tgt_vocab.detokenize(session.output_tokens)
    forced = transviz.teacher_force(model, SOURCE, translation)  # appends </s>: T or T + 1 positions
    assert forced.target_tokens[:T] == session.target_tokens
    assert forced.predicted_tokens[:T] == session.output_tokens
    np.testing.assert_allclose(forced.output_probabilities[:T], [r.probability for r in records], atol=1e-5)
    np.testing.assert_allclose(forced.encoder_self_attention, session.encoder_attention, atol=1e-5)
    np.testing.assert_allclose(forced.cross_attention[:, :, :T], session.cross_attention(), atol=1e-5)
    np.testing.assert_allclose(forced.decoder_self_attention[:, :, :T, :T], session.decoder_self_attention(), atol=1e-5)
    assert model.net.training  # the caller's mode is restored


def test_every_record_matches_a_full_forward_pass(model):
    session = DecodingSession(model, SOURCE, top_k=4, max_len=8)
    records = session.run_to_end()
    ref = forward(model, SOURCE, [r.token_id for r in records][:-1])
    itos = model.tgt_vocab.itos
    for t, record in enumerate(records):
        p = ref.probs[t]
        assert record.index == t
        assert record.probability == pytest.approx(p[record.token_id], abs=1e-6)
        top = np.argsort(-p, kind="stable")[:4]
        assert [c.id for c in record.candidates] == top.tolist()
        assert [c.token for c in record.candidates] == [itos[i] for i in top]
        np.testing.assert_allclose([c.probability for c in record.candidates], p[top], atol=1e-6)
        nonzero = p[p > 0]
        assert record.entropy == pytest.approx(-(nonzero * np.log(nonzero)).sum(), abs=1e-5)  # nats
        assert record.entropy_bits == pytest.approx(-(nonzero * np.log2(nonzero)).sum(), abs=1e-5)
        assert record.self_rows.shape == (2, 4, t + 1) and record.cross_rows.shape == (2, 4, len(session.source_tokens))
        np.testing.assert_allclose(record.self_rows.sum(-1), 1.0, atol=1e-5)
        np.testing.assert_allclose(record.cross_rows.sum(-1), 1.0, atol=1e-5)
        np.testing.assert_allclose(record.self_rows, ref.decoder_self[:, :, t, : t + 1], atol=1e-5)
        np.testing.assert_allclose(record.decoder_self_attention(), ref.decoder_self[:, :, : t + 1, : t + 1], atol=1e-5)
        np.testing.assert_allclose(record.cross_attention(), ref.cross[:, :, : t + 1], atol=1e-5)


def test_the_cumulative_matrices_of_the_session_are_read_only_and_shaped(model):
    session = DecodingSession(model, SOURCE)
    assert session.decoder_self_attention().shape == (2, 4, 0, 0)
    assert session.cross_attention().shape == (2, 4, 0, 4) and session.target_tokens == []
    session.step(), session.step()
    matrix = session.decoder_self_attention()
    assert matrix.shape == (2, 4, 2, 2) and np.all(matrix[:, :, 0, 1] == 0)
    with pytest.raises(ValueError):
        matrix[0, 0, 0, 0] = 1.0


@pytest.mark.parametrize(("encoder_layers", "decoder_layers"), [(1, 2), (2, 1)])
@pytest.mark.parametrize("strategy", [Greedy(), Beam(3, 0.5)], ids=["greedy", "beam"])
def test_an_encoder_and_a_decoder_of_different_depths_each_show_their_own_layers(encoder_layers, decoder_layers,
                                                                                   strategy):
    """Decoder maps have the decoder's depth (not the encoder's, which once crashed them or copied
    layer 0 into a layer that does not exist), and every row equals a full forward pass."""
    model = tiny_model(seed=5, layers=encoder_layers, eos_bias=-4.0, decoder_layers=decoder_layers)  # long outputs
    session = DecodingSession(model, SOURCE, strategy, max_len=6)
    heads, S = 4, len(session.source_tokens)
    assert session.encoder_attention.shape == (encoder_layers, heads, S, S)
    assert session.decoder_self_attention().shape == (decoder_layers, heads, 0, 0)  # before the first step
    assert session.cross_attention().shape == (decoder_layers, heads, 0, S)
    records = session.run_to_end()
    ids = [model.tgt_vocab.stoi[t] for t in session.output_tokens]
    T = len(ids)
    assert T >= 3  # rows enough for the maps to mean something
    ref = forward(model, SOURCE, ids[:-1])  # the best path, recomputed without cache or session
    assert ref.decoder_self.shape == (decoder_layers, heads, T, T)
    np.testing.assert_allclose(session.decoder_self_attention(), ref.decoder_self, atol=1e-5)
    np.testing.assert_allclose(session.cross_attention(), ref.cross, atol=1e-5)
    trace = session.trace()
    assert trace.encoder_self_attention.shape == (encoder_layers, heads, S, S)
    np.testing.assert_allclose(trace.decoder_self_attention, ref.decoder_self, atol=1e-5)
    np.testing.assert_allclose(trace.cross_attention, ref.cross, atol=1e-5)
    if isinstance(strategy, Greedy):  # each step's own rows, as the explorer draws them step by step
        for t, record in enumerate(records):
            assert record.self_rows.shape == (decoder_layers, heads, t + 1)
            np.testing.assert_allclose(record.decoder_self_attention(), ref.decoder_self[:, :, : t + 1, : t + 1],
                                       atol=1e-5)
            np.testing.assert_allclose(record.cross_attention(), ref.cross[:, :, : t + 1], atol=1e-5)
    # teacher forcing in the session equals one teacher-forced pass (transviz.teacher_force)
    translation = model.tgt_vocab.detokenize(session.output_tokens)
    forced = DecodingSession(model, SOURCE, reference=translation)
    forced.run_to_end()
    once = transviz.teacher_force(model, SOURCE, translation)
    assert forced.decoder_self_attention().shape == (decoder_layers, heads, *once.decoder_self_attention.shape[2:])
    np.testing.assert_allclose(forced.decoder_self_attention(), once.decoder_self_attention, atol=1e-5)
    np.testing.assert_allclose(forced.cross_attention(), once.cross_attention, atol=1e-5)


@pytest.mark.parametrize("strategy", [Greedy(), Sampling(temperature=1.5, seed=7), Beam(3, 0.5)],
                         ids=["greedy", "sampling", "beam"])
def test_back_then_step_reproduces_the_record_bit_for_bit(model, strategy):
    session = DecodingSession(model, SOURCE, strategy=strategy, max_len=10)
    for _ in range(4):
        session.step()
    first = session.history
    before = session.back()
    assert before is first[2] and session.position == 3
    assert session.output_tokens == list(session.beam_history[-1].best.tokens)
    if isinstance(strategy, Beam):
        assert session.beam == first[2].beam
    assert_same_record(session.step(), first[3])
    session.rewind(1)
    assert session.history == first[:1]
    for record in first[1:]:
        assert_same_record(session.step(), record)
    session.reset()
    assert session.position == 0 and session.output_tokens == []
    assert_same_record(session.step(), first[0])


def test_nodes_store_one_cache_column_not_the_whole_cache(model):
    """Memory stays linear in the length: a step keeps its own key/value column, never a view of the cache."""
    session = DecodingSession(model, SOURCE, max_len=12)
    session.run_to_end()
    for record in session.history:
        for keys, values in record.path.key_values:
            assert keys.shape == values.shape == (1, 4, 1, 8)
            assert keys.untyped_storage().nbytes() == values.untyped_storage().nbytes() == 4 * 8 * 4


def test_teacher_forcing_mode_matches_transviz_teacher_force(model):
    reference = "i want a beer"
    session = DecodingSession(model, SOURCE, reference=reference, top_k=3)
    records = session.run_to_end()
    gold = transviz.teacher_force(model, SOURCE, reference)
    assert [r.gold_token for r in records] == [r.token for r in records] == gold.output_tokens
    assert session.reference_tokens == gold.output_tokens and session.target_tokens == gold.target_tokens
    assert [r.predicted_token for r in records] == gold.predicted_tokens
    np.testing.assert_allclose([r.gold_probability for r in records], gold.output_probabilities, atol=1e-6)
    np.testing.assert_allclose(session.cross_attention(), gold.cross_attention, atol=1e-5)
    np.testing.assert_allclose(session.decoder_self_attention(), gold.decoder_self_attention, atol=1e-5)
    assert records[-1].stop == session.stop_reason == "end" and records[-1].token == "</s>"
    assert all(r.strategy == "teacher_forcing" for r in records)
    assert session.trace().strategy == "teacher_forcing"
    with pytest.raises(transviz.InputError, match="reference has ended"):
        session.step()
    with pytest.raises(transviz.InputError, match="teacher forcing"):
        session.force("beer")
    with pytest.raises(transviz.InputError, match="teacher forcing"):
        session.set_strategy(Beam(2))
    assert session.position == len(records)


def test_teacher_forcing_reports_unknown_reference_words(model):
    session = DecodingSession(model, SOURCE, reference="i want a lager")
    assert session.reference_unknown_tokens == [(3, "lager")]
    assert session.reference_tokens == ["i", "want", "a", "lager", "</s>"]
    assert [r.gold_token for r in session.run_to_end()] == ["i", "want", "a", "<unk>", "</s>"]


def test_force_continues_from_the_forced_token(model):
    session = DecodingSession(model, SOURCE, max_len=9)
    session.step()
    forced = session.force(" drink ")
    assert forced.forced and forced.token == "drink" and forced.index == 1
    ids = [r.token_id for r in session.history]
    ref = forward(model, SOURCE, ids[:1])
    assert forced.probability == pytest.approx(ref.probs[1][forced.token_id], abs=1e-6)
    assert forced.predicted_token == model.tgt_vocab.itos[int(ref.probs[1].argmax())]
    session.run_to_end()
    ids = [r.token_id for r in session.history]
    # greedy again after the forced token: each later token is the argmax after the forced prefix
    ref = forward(model, SOURCE, ids[:-1])
    assert ids[2:] == ref.probs[2:].argmax(-1).tolist()
    assert [r.forced for r in session.history] == [False, True] + [False] * (len(ids) - 2)


def test_forcing_the_end_token_ends_the_translation(model):
    session = DecodingSession(model, SOURCE)
    record = session.force("</s>")
    assert record.stop == "end" and session.finished and session.output_tokens == ["</s>"]
    assert session.cant_step() is not None and "end token" in str(session.cant_step())


def test_run_to_end_with_max_len_sets_the_limit(model):
    session = DecodingSession(model, SOURCE)
    records = session.run_to_end(max_len=3)
    assert len(records) <= 3 and session.max_len == 3
    if len(records) == 3 and records[-1].token != "</s>":
        assert session.stop_reason == "max_len" and "length limit of 3" in str(session.cant_step())


def test_max_len_is_capped_at_the_model_limit():
    model = tiny_model(max_len=6)
    session = DecodingSession(model, SOURCE, max_len=50)
    assert session.max_len == 6
    assert len(session.run_to_end()) <= 6


def test_observers_see_every_change(model):
    session = DecodingSession(model, SOURCE, max_len=10)
    seen = []
    session.events.connect(lambda e: seen.append((e.kind, e.position, e.record)))
    r0 = session.step()
    r1 = session.step()
    session.back()
    session.set_strategy(Beam(2))
    session.step()
    session.rewind(1)
    session.reset()
    assert [(k, p) for k, p, _ in seen] == [("step", 1), ("step", 2), ("back", 1), ("strategy", 1), ("step", 2),
                                            ("rewind", 1), ("reset", 0)]
    assert seen[0][2] is r0 and seen[1][2] is r1 and seen[2][2] is r0 and seen[-1][2] is None


def test_an_observer_that_raises_does_not_silence_the_others(model):
    session = DecodingSession(model, SOURCE, max_len=10)
    calls = []

    def broken(event):
        raise RuntimeError("observer bug")

    session.events.connect(broken)
    session.events.connect(calls.append)
    with pytest.raises(RuntimeError, match="observer bug"):
        session.step()
    assert session.position == 1 and len(calls) == 1  # the step happened and everyone heard of it
    session.events.disconnect(broken)
    session.step()
    assert len(calls) == 2


def test_switching_from_beam_to_greedy_continues_the_best_hypothesis(model):
    session = DecodingSession(model, SOURCE, strategy=Beam(3), max_len=12)
    for _ in range(3):
        session.step()
    best = list(session.beam.best.token_ids)
    session.set_strategy(Greedy())
    assert session.beam is None
    session.run_to_end()
    ids = [model.tgt_vocab.stoi[t] for t in session.output_tokens]
    assert ids[:3] == best
    ref = forward(model, SOURCE, ids[:-1])
    assert ids[3:] == ref.probs[3:].argmax(-1).tolist()
    assert all(len(b.hypotheses) == 1 for b in session.beam_history[4:])
