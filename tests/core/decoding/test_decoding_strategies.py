"""Beam search and sampling against references computed separately (full recomputation, formulas)."""
import itertools

import numpy as np
import pytest
import torch

import transviz
from decoding_models import SOURCE, beam_reference, forward, one_thread, tiny_model  # noqa: F401 (autouse)
from transviz.core.decoding.session import DecodingSession
from transviz.core.decoding.strategies import Beam, Greedy, Sampling


@pytest.fixture(scope="module")
def model():
    return tiny_model()


def test_beam_of_width_one_is_greedy(model):
    greedy = DecodingSession(model, SOURCE, max_len=12)
    beam = DecodingSession(model, SOURCE, strategy=Beam(1, length_penalty=0.7), max_len=12)
    greedy_records, beam_records = greedy.run_to_end(), beam.run_to_end()
    assert [r.token for r in beam_records] == [r.token for r in greedy_records]
    assert beam.output_tokens == greedy.output_tokens and beam.stop_reason == greedy.stop_reason
    for a, b in zip(greedy_records, beam_records, strict=True):
        assert a.probability == b.probability and a.candidates == b.candidates
        np.testing.assert_array_equal(a.self_rows, b.self_rows)
        np.testing.assert_array_equal(a.cross_rows, b.cross_rows)
    assert all(len(step.hypotheses) == 1 for step in beam.beam_history)


@pytest.mark.parametrize("width, alpha", [(3, 0.0), (4, 1.0)])
def test_beam_equals_a_search_by_full_recomputation(model, width, alpha):
    session = DecodingSession(model, SOURCE, strategy=Beam(width, alpha), max_len=7)
    session.run_to_end()
    # the beam as far as the search went (it stops once its best can no longer be beaten) ...
    expected = beam_reference(model, SOURCE, width, alpha, max_len=session.position)
    got = session.beam.hypotheses
    assert [list(h.token_ids) for h in got] == [ids for ids, _ in expected]
    np.testing.assert_allclose([h.score for h in got], [score for _, score in expected], atol=1e-4)
    # ... and its best is the best of a search that runs until every hypothesis has ended
    assert list(got[0].token_ids) == beam_reference(model, SOURCE, width, alpha, max_len=7)[0][0]


def test_beam_scores_are_summed_log_probabilities_by_teacher_forcing(model):
    alpha = 0.6
    session = DecodingSession(model, SOURCE, strategy=Beam(4, alpha), max_len=5)
    session.run_to_end()
    for i, hypothesis in enumerate(session.beam.hypotheses):
        ids = list(hypothesis.token_ids)
        ref = forward(model, SOURCE, ids[:-1])
        log_probs = [ref.log_probs[t, token] for t, token in enumerate(ids)]
        assert hypothesis.score == pytest.approx(sum(log_probs), abs=1e-4)
        assert hypothesis.normalized_score == pytest.approx(sum(log_probs) / len(ids) ** alpha, abs=1e-4)
        assert hypothesis.finished == (ids[-1] == model.tgt_vocab.eos_id)
        trace = session.hypothesis_attention(i)
        assert trace.output_tokens == list(hypothesis.tokens) and trace.strategy == "beam"
        np.testing.assert_allclose(trace.output_probabilities, np.exp(log_probs), atol=1e-5)
        np.testing.assert_allclose(trace.decoder_self_attention, ref.decoder_self, atol=1e-5)
        np.testing.assert_allclose(trace.cross_attention, ref.cross, atol=1e-5)
    normalized = [h.normalized_score for h in session.beam.hypotheses]
    assert normalized == sorted(normalized, reverse=True)


def test_the_beam_history_is_a_tree(model):
    session = DecodingSession(model, SOURCE, strategy=Beam(3), max_len=8)
    records = session.run_to_end()
    history = session.beam_history
    assert len(history) == session.position + 1 and history[0].hypotheses[0].parent is None
    for before, after in itertools.pairwise(history):
        assert after.position == before.position + 1
        for h in after.hypotheses:
            parent = before.hypotheses[h.parent]
            if h.tokens == parent.tokens:  # kept as it was: only an ended hypothesis
                assert parent.finished and h.finished
            else:
                assert h.tokens[:-1] == parent.tokens and not parent.finished
    for record, step in zip(records, history[1:], strict=True):
        assert record.beam == step
        # the record follows the best hypothesis that got a new token at that step
        assert record.token == next(h for h in step.hypotheses if len(h.tokens) == step.position).tokens[-1]
    assert session.output_tokens == list(session.beam.best.tokens)
    assert session.trace().output_tokens == session.output_tokens


def test_decode_accepts_strategies(model):
    beam = transviz.decode(model, SOURCE, strategy=Beam(3), max_len=7)
    assert beam.strategy == "beam"
    best_ids, _ = beam_reference(model, SOURCE, 3, 1.0, 7)[0]
    assert beam.output_tokens == model.tgt_vocab.tokens_of(best_ids)
    sampled = transviz.decode(model, SOURCE, strategy=Sampling(seed=5), max_len=7)
    assert sampled.strategy == "sampling"
    assert sampled.output_tokens == transviz.decode(model, SOURCE, strategy=Sampling(seed=5), max_len=7).output_tokens
    assert transviz.decode(model, SOURCE, strategy="beam", max_len=7).output_tokens == \
        transviz.decode(model, SOURCE, strategy=Beam(), max_len=7).output_tokens


def test_force_in_beam_mode_restarts_the_beam_from_the_best_hypothesis(model):
    session = DecodingSession(model, SOURCE, strategy=Beam(3), max_len=10)
    session.step(), session.step()
    best = session.beam.best
    record = session.force("drink")
    assert record.forced and record.beam is session.beam
    assert [h.tokens for h in session.beam.hypotheses] == [best.tokens + ("drink",)]
    after = session.step()
    assert len(session.beam.hypotheses) == 3 and after.beam is session.beam
    assert all(h.tokens[:3] == best.tokens + ("drink",) for h in session.beam.hypotheses)


# -- sampling -----------------------------------------------------------------------------------

def test_sampling_with_a_seed_is_reproducible(model):
    runs = [DecodingSession(model, SOURCE, strategy=Sampling(temperature=2.0, seed=11), max_len=10) for _ in range(2)]
    a, b = (s.run_to_end() for s in runs)
    assert [r.token for r in a] == [r.token for r in b]
    first_tokens = {DecodingSession(model, SOURCE, strategy=Sampling(temperature=2.0, seed=s)).step().token
                    for s in range(12)}
    assert len(first_tokens) > 1  # different seeds draw differently


def test_a_missing_seed_is_chosen_and_shown(model):
    session = DecodingSession(model, SOURCE, strategy=Sampling(temperature=2.0))
    seed = session.strategy.seed
    assert isinstance(seed, int) and seed >= 0
    tokens = [r.token for r in session.run_to_end(max_len=6)]
    again = DecodingSession(model, SOURCE, strategy=Sampling(temperature=2.0, seed=seed))
    assert [r.token for r in again.run_to_end(max_len=6)] == tokens


def _nucleus(p: np.ndarray, top_p: float) -> set[int]:
    """Smallest set of most probable tokens whose probability reaches top_p (written out plainly)."""
    chosen, total = set(), 0.0
    for i in sorted(range(len(p)), key=lambda i: (-p[i], i)):
        if total >= top_p:
            break
        chosen.add(i)
        total += p[i]
    return chosen


@pytest.mark.parametrize("top_k, top_p", [(2, 1.0), (0, 0.5), (3, 0.7)])
def test_sampling_never_draws_outside_top_k_and_top_p(model, top_k, top_p):
    temperature = 3.0  # flat, so that tokens outside the sets would be drawn if they could be
    for seed in range(15):
        session = DecodingSession(model, SOURCE, strategy=Sampling(temperature, top_k, top_p, seed), max_len=6)
        records = session.run_to_end()
        ref = forward(model, SOURCE, [r.token_id for r in records][:-1])
        for t, record in enumerate(records):
            logits = ref.log_probs[t] / temperature  # log-softmax: the logits up to a constant
            p = np.exp(logits - logits.max())
            p /= p.sum()
            allowed = _nucleus(p, top_p)
            if top_k:
                allowed &= set(np.argsort(-p, kind="stable")[:top_k].tolist())
            assert record.token_id in allowed


def test_sampling_distribution_formula():
    logits = np.array([2.0, 1.0, 0.5, 0.0, -1.0, -30.0])
    for temperature, top_k, top_p in [(1.0, 0, 1.0), (0.5, 0, 1.0), (2.0, 3, 1.0), (1.0, 0, 0.8), (1.5, 4, 0.9)]:
        strategy = Sampling(temperature, top_k, top_p, seed=0)
        p = np.exp(logits / temperature)
        p /= p.sum()
        keep = _nucleus(p, top_p)
        if top_k:
            keep &= set(np.argsort(-p)[:top_k].tolist())
        expected = np.array([p[i] if i in keep else 0.0 for i in range(len(p))])
        np.testing.assert_allclose(strategy.distribution(logits), expected / expected.sum(), atol=1e-12)


def test_draws_follow_the_distribution():
    logits = np.log(np.array([0.5, 0.3, 0.15, 0.05]))
    strategy = Sampling(top_p=0.9, seed=3)  # keeps the first three: 0.5 / 0.95, 0.3 / 0.95, 0.15 / 0.95
    draws = np.bincount([strategy.draw(logits, position) for position in range(4000)], minlength=4)
    expected = np.array([0.5, 0.3, 0.15, 0.0]) / 0.95
    assert draws[3] == 0
    sigma = np.sqrt(4000 * expected * (1 - expected)) + 1e-9
    assert np.all(np.abs(draws - 4000 * expected) < 4 * sigma)


def test_switching_greedy_to_beam_starts_the_search_from_the_path(model):
    session = DecodingSession(model, SOURCE, strategy=Greedy(), max_len=10)
    path = tuple(r.token for r in (session.step(), session.step()))
    session.set_strategy(Beam(3))
    assert session.beam.hypotheses[0].tokens == path
    session.step()
    assert len(session.beam.hypotheses) == 3 and all(h.tokens[:2] == path for h in session.beam.hypotheses)


def _logits(model, source: str, output_ids: list[int]) -> torch.Tensor:
    """The model's next-token logits after ``output_ids``, by a full forward pass (no cache, no session)."""
    vocab = model.tgt_vocab
    src = torch.tensor([model.src_vocab.encode(source).ids])
    tgt = torch.tensor([[vocab.bos_id] + output_ids])
    model.net.eval()
    with torch.no_grad():
        return model.net(src, tgt).logits[0, -1].double()


def _sampled_from(logits: torch.Tensor, temperature: float, top_k: int, top_p: float) -> torch.Tensor:
    """softmax(logits / T), keep the top-k, keep the smallest most-probable set reaching top_p, renormalise."""
    p = torch.softmax(logits / temperature, -1)
    values, order = torch.sort(p, descending=True, stable=True)
    keep = torch.zeros_like(p, dtype=torch.bool)
    if top_k:
        values, order = values[:top_k], order[:top_k]
    reached = torch.cumsum(values, 0) >= top_p - 1e-12
    last = int(reached.nonzero()[0]) if top_p < 1 and reached.any() else len(values) - 1
    keep[order[: last + 1]] = True
    kept = torch.where(keep, p, torch.zeros_like(p))
    return kept / kept.sum()


@pytest.mark.parametrize("temperature, top_k, top_p", [(2.5, 0, 1.0), (2.5, 4, 1.0), (0.7, 0, 0.6), (1.8, 5, 0.9)])
def test_sampling_records_the_distribution_it_drew_from(model, temperature, top_k, top_p):
    """Issue 14, item 7: the bars show what the token was drawn from, beside the raw distribution."""
    session = DecodingSession(model, SOURCE, strategy=Sampling(temperature, top_k, top_p, seed=11), top_k=6,
                              max_len=6)
    for record in session.run_to_end():
        logits = _logits(model, SOURCE, [model.tgt_vocab.id_of(t) for t in session.output_tokens[: record.index]])
        expected, raw = _sampled_from(logits, temperature, top_k, top_p), torch.softmax(logits, -1)
        assert record.drawn is not None and record.drawn_probability is not None
        assert record.drawn_probability == pytest.approx(float(expected[record.token_id]), abs=1e-6)
        assert record.drawn_probability > 0
        top = torch.topk(expected, 6)
        listed = [(i, v) for i, v in zip(top.indices.tolist(), top.values.tolist(), strict=True) if v > 0]
        assert [c.id for c in record.drawn] == [i for i, _ in listed]
        for candidate, (i, value) in zip(record.drawn, listed, strict=True):
            assert candidate.probability == pytest.approx(value, abs=1e-6)
            assert candidate.raw_probability == pytest.approx(float(raw[i]), abs=1e-6)
        assert record.probability == pytest.approx(float(raw[record.token_id]), abs=1e-6)


def test_sampling_never_draws_pad_or_start_however_hot():
    """At temperature 1000 the distribution is almost flat: without the exclusion the shipped model
    drew <pad> or <s> on most runs. Drawn from softmax(logits / T) over the other tokens."""
    model = transviz.load_model("default")
    vocab, temperature, source = model.tgt_vocab, 1000.0, "ich mochte ein bier"
    for seed in range(8):
        session = DecodingSession(model, source, strategy=Sampling(temperature, seed=seed), max_len=12)
        for record in session.run_to_end():
            assert record.token not in ("<pad>", "<s>")
            logits = _logits(model, source, [vocab.id_of(t) for t in session.output_tokens[: record.index]])
            logits[[vocab.pad_id, vocab.bos_id]] = -float("inf")
            expected = torch.softmax(logits / temperature, -1)
            assert record.drawn_probability == pytest.approx(float(expected[record.token_id]), abs=1e-6)


def test_greedy_and_forced_steps_were_drawn_from_nothing(model):
    session = DecodingSession(model, SOURCE, strategy=Sampling(2.0, seed=1))
    session.force("beer")
    assert session.history[-1].drawn is None
    assert DecodingSession(model, SOURCE).step().drawn is None


def _settled(beam_step, alpha: float, max_len: int) -> bool:
    """The stopping rule, evaluated here: log-probabilities are <= 0, so a live hypothesis with summed
    score s can end with at most s / max_len ** alpha; stop when none of them exceeds the best ended one."""
    ended = [h.score / len(h.tokens) ** alpha for h in beam_step.hypotheses if h.finished]
    return bool(ended) and all(h.score / max_len**alpha <= max(ended) for h in beam_step.hypotheses if not h.finished)


@pytest.mark.parametrize("seed, eos_bias, width, alpha", [
    (3, 0.0, 3, 0.0), (3, 0.0, 2, 0.6), (3, 2.0, 3, 0.0), (5, 0.0, 3, 0.0), (5, 0.0, 4, 1.0), (4, 2.0, 4, 1.0),
    (3, 0.0, 4, 1.0)])
def test_beam_search_stops_once_no_live_hypothesis_can_beat_the_best_ended_one(seed, eos_bias, width, alpha):
    """Issue 14, item 8: the search stops as soon as the bound says its best is final, and that best
    is the best of a reference search that runs until every hypothesis has ended (or the limit)."""
    model = tiny_model(seed=seed, eos_bias=eos_bias, max_len=10)
    session = DecodingSession(model, SOURCE, strategy=Beam(width, alpha))
    session.run_to_end()
    history = session.beam_history
    if session.stop_reason == "end":
        assert _settled(history[-1], alpha, 10) and session.beam.best.finished
    assert not any(_settled(step, alpha, 10) for step in history[:-1])  # not a step later than needed
    full = beam_reference(model, SOURCE, width, alpha, max_len=10)
    assert list(session.beam.best.token_ids) == full[0][0]
    assert session.beam.best.score == pytest.approx(full[0][1], abs=1e-4)


def test_beam_search_no_longer_runs_past_its_settled_best():
    """The case the issue met: the best had ended while live hypotheses went on for steps."""
    model = tiny_model(seed=3, max_len=10)
    session = DecodingSession(model, SOURCE, strategy=Beam(2, 0.6))
    session.run_to_end()
    assert session.stop_reason == "end" and session.beam.live  # stopped with hypotheses still live


def test_teacher_forcing_summary_is_cross_entropy_and_argmax_of_the_models_logits(model):
    """Issue 14, item 5: mean loss = F.cross_entropy of the gold tokens, matched = argmax == gold."""
    import torch.nn.functional as F

    from transviz.core.decoding.session import TeacherForcingSummary

    reference = "i want that beer"
    session = DecodingSession(model, SOURCE, reference=reference)
    session.run_to_end()
    vocab = model.tgt_vocab
    gold = [vocab.stoi[t] for t in reference.split()] + [vocab.eos_id]
    logits = torch.cat([_logits(model, SOURCE, gold[:t])[None] for t in range(len(gold))])  # (T, V)
    summary = TeacherForcingSummary.of(session.history)
    assert summary is not None and summary.steps == len(gold)
    assert summary.mean_loss == pytest.approx(F.cross_entropy(logits, torch.tensor(gold)).item(), abs=1e-5)
    assert summary.matched == int((logits.argmax(-1) == torch.tensor(gold)).sum())
    expected = torch.softmax(logits, -1)[torch.arange(len(gold)), torch.tensor(gold)]
    assert [t for t, _ in summary.gold] == [vocab.itos[i] for i in gold]
    np.testing.assert_allclose([p for _, p in summary.gold], expected.numpy(), atol=1e-5)
    free = DecodingSession(model, SOURCE)
    free.run_to_end()
    assert TeacherForcingSummary.of(free.history) is None  # not teacher forced


# -- issue 15, item 7: settings at their edges --------------------------------------------------

@pytest.mark.parametrize("penalty", [10.000001, 1000, 1e308, float("inf"), float("nan"), -0.5, True])
def test_a_length_penalty_outside_0_to_10_is_a_config_error(penalty):
    with pytest.raises(transviz.ConfigError, match=r"length_penalty must be from 0 to 10, got"):
        Beam(length_penalty=penalty)


@pytest.mark.parametrize("penalty", [0, 0.6, 1, 10])
def test_the_ranking_score_never_overflows(penalty):
    """score / length ** penalty, computed as score * length ** -penalty: it shrinks towards 0 where
    length ** penalty would overflow (1000 ** 1000 raised OverflowError before the penalty was bounded)."""
    beam = Beam(length_penalty=penalty)
    for length in (1, 7, 10**6, 10**30, 10**300):
        score = beam.normalized(-3.5, length)
        assert np.isfinite(score) and score == pytest.approx(-3.5 * np.exp(-penalty * np.log(float(length))),
                                                             rel=1e-9, abs=1e-300)
    assert beam.normalized(-3.5, 0) == -3.5


def test_the_longest_penalty_decodes_to_the_end(model):
    session = DecodingSession(model, SOURCE, strategy=Beam(3, length_penalty=10), max_len=12)
    session.run_to_end()  # was an OverflowError for penalties large enough to overflow length ** penalty
    scores = [h.normalized_score for h in session.beam.hypotheses]
    assert scores == sorted(scores, reverse=True) and all(np.isfinite(scores))


@pytest.mark.parametrize("temperature", [1e-320, 1e-4, 0.000999, 1000.001, 1e308, float("inf"), float("nan"),
                                         -1.0, 0.0, True, "1"])
def test_a_temperature_outside_0_001_to_1000_is_a_config_error_that_points_to_greedy(temperature):
    with pytest.raises(transviz.ConfigError, match=r"temperature must be from 0.001 to 1000, got .*greedy decoding"):
        Sampling(temperature=temperature)


@pytest.mark.parametrize("top_p", [float("nan"), float("inf"), -0.1, 0.0, 1.0000001, True])
def test_a_top_p_outside_0_to_1_is_a_config_error(top_p):
    with pytest.raises(transviz.ConfigError, match="top_p"):
        Sampling(top_p=top_p)


@pytest.mark.parametrize("top_k", [-1, 2.5, float("nan"), True])
def test_a_top_k_that_is_not_a_whole_number_is_a_config_error(top_k):
    with pytest.raises(transviz.ConfigError, match="top_k"):
        Sampling(top_k=top_k)


@pytest.mark.parametrize("temperature", [0.001, 1000])
def test_the_extreme_temperatures_give_a_distribution_with_no_nan(temperature):
    """At the floor the most probable token takes (nearly) everything; logits far apart never
    overflow, as they are shifted to <= 0 before they are divided."""
    for logits in (np.array([3e38, -3e38, 0.0, 2.0, -np.inf], dtype=np.float32),
                   np.array([1e306, -1e306, 0.0, 2.0, -np.inf])):  # logits / 0.001 overflowed to inf - inf = NaN
        p = Sampling(temperature=temperature, seed=1).distribution(logits)
        assert np.all(np.isfinite(p)) and p.sum() == pytest.approx(1.0) and p[0] == pytest.approx(1.0)
        assert p[4] == 0.0
    close = Sampling(temperature=0.001, seed=1).distribution(np.array([1.0, 0.9995, -5.0]))
    assert close[0] > close[1] > 0.3 and close[2] == 0.0  # two logits within 0.001 still share the draw


def test_top_k_larger_than_the_vocabulary_keeps_every_token():
    p = Sampling(top_k=10**30, seed=1).distribution(np.array([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(p, np.exp([1.0, 2.0, 3.0]) / np.exp([1.0, 2.0, 3.0]).sum())
