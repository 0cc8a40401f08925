"""Random step/back/force/rewind/reset/strategy sequences never corrupt the session: after every
operation each hypothesis of the beam, and the newest record, equal a fresh teacher-forcing
recomputation of their tokens (so a stale or misordered key/value cache would show)."""
import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

import transviz
from decoding_models import SOURCE, forward, one_thread, tiny_model  # noqa: F401 (autouse)
from transviz.core.decoding.paths import walk
from transviz.core.decoding.session import DecodingSession
from transviz.core.decoding.strategies import Beam, Greedy, Sampling

MODEL = tiny_model(seed=5, max_len=12, eos_bias=-1.0)
TOKENS = MODEL.tgt_vocab.itos[2:]  # </s>, <unk> and every word (never <pad> or <s>)
STRATEGIES = st.sampled_from([Greedy(), Sampling(temperature=1.5, top_k=4, seed=2), Beam(2, 0.0), Beam(3, 1.0)])


class SessionMachine(RuleBasedStateMachine):
    @initialize(strategy=STRATEGIES)
    def start(self, strategy):
        self.session = DecodingSession(MODEL, SOURCE, strategy=strategy, top_k=3, max_len=8)

    def unchanged_after(self, operation):
        before = (self.session.history, self.session.beam_history, self.session.strategy)
        with pytest.raises(transviz.InputError):
            operation()
        assert (self.session.history, self.session.beam_history, self.session.strategy) == before

    @rule()
    def step(self):
        if self.session.cant_step():
            self.unchanged_after(self.session.step)
        else:
            assert self.session.step() is self.session.history[-1]

    @rule()
    def back(self):
        if self.session.cant_back():
            self.unchanged_after(self.session.back)
        else:
            position = self.session.position
            self.session.back()
            assert self.session.position == position - 1

    @rule(token=st.sampled_from(TOKENS))
    def force(self, token):
        if self.session.cant_step() or self.session.beam_history[-1].best.finished:
            self.unchanged_after(lambda: self.session.force(token))
        else:
            record = self.session.force(token)
            assert record.forced and record.token == token and self.session.output_tokens[-1] == token

    @rule(data=st.data())
    def rewind(self, data):
        position = data.draw(st.integers(0, self.session.position))
        self.session.rewind(position)
        assert self.session.position == position

    @precondition(lambda self: self.session.position > 0)
    @rule()
    def rewind_too_far(self):
        self.unchanged_after(lambda: self.session.rewind(self.session.position + 1))

    @rule()
    def reset(self):
        self.session.reset()
        assert self.session.position == 0 and self.session.output_tokens == []

    @rule(strategy=STRATEGIES)
    def switch(self, strategy):
        self.session.set_strategy(strategy)

    @invariant()
    def positions_agree(self):
        session = self.session
        assert session.position == len(session.history) == len(session.beam_history) - 1
        assert session.output_tokens == list(session.beam_history[-1].best.tokens)

    @invariant()
    def every_hypothesis_matches_a_fresh_recomputation(self):
        session = self.session
        for i, hypothesis in enumerate(session.beam_history[-1].hypotheses):
            if not hypothesis.token_ids:
                continue
            ids = list(hypothesis.token_ids)
            ref = forward(MODEL, SOURCE, ids[:-1])
            trace = session.hypothesis_attention(i)
            log_probs = ref.log_probs[np.arange(len(ids)), ids]
            assert hypothesis.score == pytest.approx(log_probs.sum(), abs=1e-4, rel=1e-6)  # forced <unk>: about -1e4
            np.testing.assert_allclose(trace.output_probabilities, np.exp(log_probs), atol=1e-5)
            np.testing.assert_allclose(trace.decoder_self_attention, ref.decoder_self, atol=1e-5)
            np.testing.assert_allclose(trace.cross_attention, ref.cross, atol=1e-5)

    @invariant()
    def the_newest_record_matches_a_fresh_recomputation(self):
        if not self.session.history:
            return
        record = self.session.history[-1]
        ids = [node.token_id for node in walk(record.path)]
        ref = forward(MODEL, SOURCE, ids[:-1])
        assert len(ids) == record.index + 1 and ids[-1] == record.token_id
        assert record.probability == pytest.approx(ref.probs[-1][record.token_id], abs=1e-5)
        assert [c.id for c in record.candidates] == np.argsort(-ref.probs[-1], kind="stable")[:3].tolist()
        np.testing.assert_allclose(record.cross_attention(), ref.cross, atol=1e-5)
        np.testing.assert_allclose(record.decoder_self_attention(), ref.decoder_self, atol=1e-5)


SessionMachine.TestCase.settings = settings(
    max_examples=50, stateful_step_count=20, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
TestSessionMachine = SessionMachine.TestCase
